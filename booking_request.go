package folio

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

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
	// Location is the place picked among the type's (docs/api.md, "Meeting places").
	Location *LocationChoice `json:"location,omitempty"`
	// Answers are the answers to the type's questions, by question id.
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
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

// CancelInput is the body of the cancel routes.
type CancelInput struct {
	Reason string `json:"reason,omitempty" doc:"at most 1000 characters; told to the owner"`
}

// RescheduleInput is the body of POST /api/schedule/bookings/{token}/reschedule.
type RescheduleInput struct {
	StartTime string `json:"startTime" doc:"ISO 8601 start with offset; must be a slot GET /api/schedule/available offers for the booking's type"`
	TimeZone  string `json:"timezone" doc:"the visitor's IANA zone"`
}

// Validate reports a missing or unparseable start or zone as 400.
func (in RescheduleInput) Validate() error {
	var bad bookingBadInput
	bad.start(in.StartTime, true)
	bad.zone(in.TimeZone, true)
	for i := range bad.details {
		switch d := &bad.details[i]; d.Field {
		case "startISO":
			d.Field = "startTime"
		case "timeZone":
			d.Field = "timezone"
		}
	}
	return bad.err()
}

// Start returns the parsed start and zone. Call it after Validate.
func (in RescheduleInput) Start() (time.Time, *time.Location, error) {
	return bookingStartZone(in.StartTime, in.TimeZone)
}
