package folio

import (
	"context"
	"encoding/json"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Interval is the half-open time span [Start, End): an interval that ends when another starts
// does not overlap it.
type Interval struct {
	Start time.Time
	End   time.Time
}

// Overlaps reports whether i and o share any instant. Touching intervals do not overlap.
func (i Interval) Overlaps(o Interval) bool {
	return i.Start.Before(o.End) && o.Start.Before(i.End)
}

// Slot is one bookable meeting time offered to a visitor. Start and End are kept in the
// visitor's location, and the JSON form carries the visitor's UTC offset (contract §5).
type Slot struct {
	Start    time.Time
	End      time.Time
	Duration int // minutes
}

// MarshalJSON renders {"start","end","duration"} with start and end in RFC 3339 at the UTC
// offset of the slot's own location (the visitor's zone).
func (s Slot) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Start    string `json:"start"`
		End      string `json:"end"`
		Duration int    `json:"duration"`
	}{s.Start.Format(time.RFC3339), s.End.Format(time.RFC3339), s.Duration})
}

// BookingConfig is the owner's booking configuration (spec §2). The zero SlotStep means 30
// minutes.
type BookingConfig struct {
	// DurationOptions lists the meeting lengths offered, in minutes; the first is the default.
	DurationOptions []int
	// HoursStart and HoursEnd bound business hours in the owner's zone: [HoursStart:00,
	// HoursEnd:00) of each business day. HoursEnd may be 24 (midnight at the end of the day).
	HoursStart, HoursEnd int
	// BusinessDays lists the weekdays (in the owner's zone) on which meetings may be held.
	BusinessDays []time.Weekday
	// Location is the owner's time zone.
	Location *time.Location
	// AdvanceDays bounds how far ahead a slot may start: start ≤ now + AdvanceDays×24h.
	// Zero or less means no upper bound.
	AdvanceDays int
	// MinNotice is the minimum notice: start ≥ now + MinNotice.
	MinNotice time.Duration
	// SlotStep is the grid of slot starts from HoursStart:00 in the owner's wall clock.
	SlotStep time.Duration
	// Buffer is free time required before and after each meeting.
	Buffer time.Duration
	// Overrides replaces the business hours of the owner dates it names (YYYY-MM-DD): a date
	// with no range is closed; a date with ranges is open then only, business day or not.
	Overrides map[string]DayHours
}

// DefaultSlotStep is the slot grid when BookingConfig.SlotStep is zero.
const DefaultSlotStep = 30 * time.Minute

// Step returns the slot grid step, defaulting to DefaultSlotStep.
func (c BookingConfig) Step() time.Duration {
	if c.SlotStep <= 0 {
		return DefaultSlotStep
	}
	return c.SlotStep
}

// DefaultDuration returns the first duration option (0 when there is none).
func (c BookingConfig) DefaultDuration() int {
	if len(c.DurationOptions) == 0 {
		return 0
	}
	return c.DurationOptions[0]
}

// AllowsDuration reports whether minutes is one of the duration options.
func (c BookingConfig) AllowsDuration(minutes int) bool {
	return slices.Contains(c.DurationOptions, minutes)
}

// IsBusinessDay reports whether d is one of the business days.
func (c BookingConfig) IsBusinessDay(d time.Weekday) bool {
	return slices.Contains(c.BusinessDays, d)
}

// Validate checks the configuration for values that would make slot generation meaningless.
// It returns a plain error naming the offending setting (the config layer reports it at start).
func (c BookingConfig) Validate() error {
	switch {
	case c.Location == nil:
		return fmt.Errorf("booking: time zone is not set")
	case len(c.DurationOptions) == 0:
		return fmt.Errorf("booking: no duration options")
	case c.HoursStart < 0 || c.HoursStart > 23:
		return fmt.Errorf("booking: business hours start %d is not an hour 0-23", c.HoursStart)
	case c.HoursEnd < 1 || c.HoursEnd > 24:
		return fmt.Errorf("booking: business hours end %d is not an hour 1-24", c.HoursEnd)
	case c.HoursEnd <= c.HoursStart:
		return fmt.Errorf("booking: business hours end %d is not after start %d", c.HoursEnd, c.HoursStart)
	case c.SlotStep < 0 || c.SlotStep%time.Minute != 0:
		return fmt.Errorf("booking: slot step %v is not a positive whole number of minutes", c.SlotStep)
	case c.Buffer < 0:
		return fmt.Errorf("booking: buffer %v is negative", c.Buffer)
	case c.MinNotice < 0:
		return fmt.Errorf("booking: minimum notice %v is negative", c.MinNotice)
	}
	for _, d := range c.DurationOptions {
		if d <= 0 || d > 24*60 {
			return fmt.Errorf("booking: duration option %d is not 1-1440 minutes", d)
		}
	}
	for _, d := range c.BusinessDays {
		if d < time.Sunday || d > time.Saturday {
			return fmt.Errorf("booking: business day %d is not 0-6", d)
		}
	}
	return nil
}

// Participant is a person on a calendar event.
type Participant struct {
	Name  string
	Email string
}

// CalendarEvent is a meeting on the owner's calendar. The provider fills ID (when empty),
// MeetLink and EventLink on creation.
type CalendarEvent struct {
	ID          string
	Summary     string
	Description string
	Start, End  time.Time
	// TimeZone is the visitor's IANA zone, kept for display.
	TimeZone  string
	Organizer Participant
	Attendee  Participant
	MeetLink  string // URL of the video meeting
	EventLink string // URL of the event in the provider's calendar
	// Sequence is the iCalendar SEQUENCE: 0 when booked, raised by every reschedule and cancel.
	Sequence int
	// Cancelled marks the event cancelled (STATUS:CANCELLED in iCalendar).
	Cancelled bool
	// ManageURL is the visitor's manage link, carried in the invite's DESCRIPTION.
	ManageURL string
}

// Calendar is the owner's calendar provider (google, caldav or local).
type Calendar interface {
	// FreeBusy returns the busy intervals that overlap [start, end), in any order; they may
	// overlap each other. It returns UPSTREAM_ERROR when the provider fails.
	FreeBusy(ctx context.Context, start, end time.Time) ([]Interval, error)
	// CreateEvent creates ev and returns it with ID, MeetLink and EventLink set. When ev.ID is
	// set the provider uses it as its idempotency key, so a retried call creates no duplicate.
	// It returns UPSTREAM_ERROR when the provider fails; NB: a timeout may leave the event
	// created.
	CreateEvent(ctx context.Context, ev CalendarEvent) (CalendarEvent, error)
	// CalendarMover moves and deletes events (contract §7).
	CalendarMover
}

// Input limits of the booking routes.
const (
	MaxAttendeeNameLen = 200
	MaxSummaryLen      = 200
	MaxDescriptionLen  = 5000
	MaxEmailLen        = 254
)

// BookingRequest is the body of POST /api/schedule/book.
type BookingRequest struct {
	StartISO        string `json:"startISO"`
	DurationMinutes int    `json:"durationMinutes"`
	TimeZone        string `json:"timeZone"`
	AttendeeEmail   string `json:"attendeeEmail"`
	AttendeeName    string `json:"attendeeName"`
	Summary         string `json:"summary"`
	Description     string `json:"description"`
	// Type is a meeting type slug; when set, DurationMinutes may be omitted (it must then
	// match the type's duration).
	Type string `json:"type,omitempty"`
}

// Validate checks the request on its own: missing fields, an unparseable start or an unknown
// time zone give 400; a present field that breaks a rule gives 422. Whether the duration is
// one of the options and the start an offered slot depends on configuration and the calendar;
// the booking service checks those (422).
func (r BookingRequest) Validate() error {
	var bad bookingBadInput
	bad.start(r.StartISO, true)
	if r.DurationMinutes == 0 && r.Type == "" {
		bad.missing("durationMinutes")
	}
	bad.zone(r.TimeZone, true)
	if strings.TrimSpace(r.AttendeeEmail) == "" {
		bad.missing("attendeeEmail")
	}
	if strings.TrimSpace(r.AttendeeName) == "" {
		bad.missing("attendeeName")
	}
	if err := bad.err(); err != nil {
		return err
	}
	var v Validation
	if r.DurationMinutes < 0 || r.DurationMinutes > 24*60 {
		v.Invalid("durationMinutes", "must be between 1 and 1440")
	}
	if r.Type != "" && !ValidSlug(r.Type) {
		v.Invalid("type", "must be a meeting type slug listed by GET /api/schedule/types")
	}
	if len(r.AttendeeEmail) > MaxEmailLen || !bookingEmail(r.AttendeeEmail) {
		v.Invalid("attendeeEmail", "must be an email address")
	}
	bookingLine(&v, "attendeeName", r.AttendeeName, MaxAttendeeNameLen)
	bookingLine(&v, "summary", r.Summary, MaxSummaryLen)
	if !utf8.ValidString(r.Description) || utf8.RuneCountInString(r.Description) > MaxDescriptionLen {
		v.Invalid("description", "must be valid text of at most %d characters", MaxDescriptionLen)
	}
	return v.Err()
}

// Start returns the parsed start and the visitor's location. Call it after Validate.
func (r BookingRequest) Start() (time.Time, *time.Location, error) {
	return bookingStartZone(r.StartISO, r.TimeZone)
}

// EventSummary returns Summary, or "Meeting with <name>" when it is empty.
func (r BookingRequest) EventSummary() string {
	if s := strings.TrimSpace(r.Summary); s != "" {
		return s
	}
	return "Meeting with " + strings.TrimSpace(r.AttendeeName)
}

// ConflictRequest is the body of POST /api/schedule/check-conflict.
type ConflictRequest struct {
	StartISO        string `json:"startISO"`
	DurationMinutes int    `json:"durationMinutes"`
	// TimeZone is optional (the start carries its offset); when present it must be a known zone.
	TimeZone string `json:"timeZone"`
}

// Validate reports missing or unparseable input as 400 and a duration out of range as 422.
func (r ConflictRequest) Validate() error {
	var bad bookingBadInput
	bad.start(r.StartISO, true)
	if r.DurationMinutes == 0 {
		bad.missing("durationMinutes")
	}
	bad.zone(r.TimeZone, false)
	if err := bad.err(); err != nil {
		return err
	}
	var v Validation
	if r.DurationMinutes < 0 || r.DurationMinutes > 24*60 {
		v.Invalid("durationMinutes", "must be between 1 and 1440")
	}
	return v.Err()
}

// Interval returns [start, start+duration). Call it after Validate.
func (r ConflictRequest) Interval() (Interval, error) {
	start, _, err := bookingStartZone(r.StartISO, r.TimeZone)
	if err != nil {
		return Interval{}, err
	}
	return Interval{start, start.Add(time.Duration(r.DurationMinutes) * time.Minute)}, nil
}

// ParseStartISO parses an ISO 8601 / RFC 3339 instant with a UTC offset (or Z).
func ParseStartISO(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, BadRequest("startISO", "must be an ISO 8601 date-time with offset, like 2026-03-09T10:00:00-04:00")
	}
	return t, nil
}

// LoadZone loads an IANA zone name. "Local" and the empty name are rejected: the server's own
// zone is never what a caller means.
func LoadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" || len(name) > 64 {
		return nil, fmt.Errorf("unknown time zone %q", name)
	}
	return time.LoadLocation(name)
}

func bookingStartZone(startISO, zone string) (time.Time, *time.Location, error) {
	t, err := ParseStartISO(startISO)
	if err != nil {
		return time.Time{}, nil, err
	}
	if zone == "" {
		return t, t.Location(), nil
	}
	loc, err := LoadZone(zone)
	if err != nil {
		return time.Time{}, nil, BadRequest("timeZone", "must be an IANA time zone name")
	}
	return t.In(loc), loc, nil
}

// bookingBadInput collects 400-class field errors: missing or unparseable values.
type bookingBadInput struct{ details []FieldError }

func (b *bookingBadInput) missing(field string) {
	b.details = append(b.details, FieldError{Field: field, Message: "is required"})
}

func (b *bookingBadInput) start(s string, required bool) {
	switch {
	case strings.TrimSpace(s) == "":
		if required {
			b.missing("startISO")
		}
	default:
		if _, err := ParseStartISO(s); err != nil {
			b.details = append(b.details, FieldError{Field: "startISO", Message: "must be an ISO 8601 date-time with offset"})
		}
	}
}

func (b *bookingBadInput) zone(name string, required bool) {
	switch {
	case name == "":
		if required {
			b.missing("timeZone")
		}
	default:
		if _, err := LoadZone(name); err != nil {
			b.details = append(b.details, FieldError{Field: "timeZone", Message: "must be an IANA time zone name"})
		}
	}
}

func (b *bookingBadInput) err() error {
	if len(b.details) == 0 {
		return nil
	}
	return (&Error{Code: EINVALID, Message: "Required fields are missing or cannot be parsed.", Details: b.details}).CapDetails()
}

func bookingEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == "" && strings.Contains(s, "@")
}

func bookingLine(v *Validation, field, s string, max int) {
	switch {
	case !utf8.ValidString(s):
		v.Invalid(field, "must be valid UTF-8 text")
	case strings.ContainsAny(s, "\r\n\x00"):
		v.Invalid(field, "must be a single line")
	case utf8.RuneCountInString(s) > max:
		v.Invalid(field, "must be at most %d characters", max)
	}
}
