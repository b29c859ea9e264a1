package folio

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// CalendarMover is the part of a calendar provider that changes an existing event (contract §7).
// Every provider implements it; ev.ID is always folio's booking id, from which each provider
// derives its own event identity (Google event id, CalDAV resource name, the booking row).
type CalendarMover interface {
	// MoveEvent changes the time of the existing event ev.ID to ev.Start–ev.End (the same
	// provider event: Google events.patch, a CalDAV PUT of the same resource) and returns it
	// with MeetLink and EventLink set. Repeating it is harmless. UPSTREAM_ERROR on failure, after
	// which the event is unchanged as far as the provider reports.
	MoveEvent(ctx context.Context, ev CalendarEvent) (CalendarEvent, error)
	// DeleteEvent removes the event ev.ID (Google events.delete, a CalDAV DELETE; the local
	// calendar keeps the row, which the booking service marks cancelled). An event that is
	// gone already is success, so a retried cancel is harmless.
	DeleteEvent(ctx context.Context, ev CalendarEvent) error
}

// MeetingType is one kind of meeting offered on /book (contract §7).
type MeetingType struct {
	Slug            string `json:"slug" doc:"URL-safe name, e.g. 30min"`
	Title           string `json:"title"`
	Description     string `json:"description"`
	DurationMinutes int    `json:"durationMinutes"`
	BufferMinutes   int    `json:"bufferMinutes" doc:"free time kept before and after the meeting"`
	MaxPerDay       int    `json:"maxPerDay" doc:"confirmed bookings of this type per owner-local day; 0 = no cap"`
}

// MeetingTypeInput is the body of POST/PUT /api/schedule/types.
type MeetingTypeInput struct {
	Slug            string `json:"slug,omitempty" doc:"POST only: a-z, 0-9 and -, 1-64 characters; default from the title"`
	Title           string `json:"title"`
	Description     string `json:"description,omitempty"`
	DurationMinutes int    `json:"durationMinutes" doc:"5-1440"`
	BufferMinutes   int    `json:"bufferMinutes,omitempty" doc:"0-240"`
	MaxPerDay       int    `json:"maxPerDay,omitempty" doc:"0-100; 0 = no cap"`
}

// Validate checks the input: a missing title or duration is 400, a rule broken 422.
func (in MeetingTypeInput) Validate(needSlug bool) error {
	var v Validation
	if strings.TrimSpace(in.Title) == "" {
		v.Missing("title")
	}
	if in.DurationMinutes == 0 {
		v.Missing("durationMinutes")
	}
	if needSlug && in.Slug == "" {
		v.Missing("slug")
	}
	if err := v.Err(); err != nil {
		return err
	}
	if in.Slug != "" && (!ValidSlug(in.Slug) || len(in.Slug) > 64) {
		v.Invalid("slug", "must be 1-64 characters of a-z, 0-9 and single hyphens")
	}
	bookingLine(&v, "title", in.Title, 120)
	if !utf8.ValidString(in.Description) || utf8.RuneCountInString(in.Description) > 2000 {
		v.Invalid("description", "must be valid text of at most 2000 characters")
	}
	if in.DurationMinutes < 5 || in.DurationMinutes > 24*60 {
		v.Invalid("durationMinutes", "must be between 5 and 1440")
	}
	if in.BufferMinutes < 0 || in.BufferMinutes > 240 {
		v.Invalid("bufferMinutes", "must be between 0 and 240")
	}
	if in.MaxPerDay < 0 || in.MaxPerDay > 100 {
		v.Invalid("maxPerDay", "must be between 0 and 100 (0: no cap)")
	}
	return v.Err()
}

// HoursRange is a span of wall-clock time "HH:MM"–"HH:MM" in the owner's zone; End may be
// "24:00".
type HoursRange struct {
	Start string `json:"start" doc:"HH:MM"`
	End   string `json:"end" doc:"HH:MM, after start; 24:00 is the end of the day"`
}

// Minutes returns the range as minutes past midnight.
func (h HoursRange) Minutes() (from, to int, err error) {
	if from, err = hhmm(h.Start); err != nil {
		return 0, 0, err
	}
	if to, err = hhmm(h.End); err != nil {
		return 0, 0, err
	}
	if to <= from {
		return 0, 0, fmt.Errorf("end %s is not after start %s", h.End, h.Start)
	}
	return from, to, nil
}

// hhmm parses a strict "HH:MM" (two digits each, 00:00–24:00) into minutes past midnight.
func hhmm(s string) (int, error) {
	if len(s) != 5 || s[2] != ':' {
		return 0, fmt.Errorf("%q is not HH:MM", s)
	}
	for _, i := range []int{0, 1, 3, 4} {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%q is not HH:MM", s)
		}
	}
	h, m := int(s[0]-'0')*10+int(s[1]-'0'), int(s[3]-'0')*10+int(s[4]-'0')
	if h > 24 || m > 59 || (h == 24 && m != 0) {
		return 0, fmt.Errorf("%q is not a time of day HH:MM", s)
	}
	return h*60 + m, nil
}

// AvailabilityOverride replaces the business hours of one date in the owner's zone: closed, or
// open during Hours only (contract §7).
type AvailabilityOverride struct {
	Date   string       `json:"date" doc:"YYYY-MM-DD in the owner's zone"`
	Closed bool         `json:"closed"`
	Hours  []HoursRange `json:"hours"`
}

// OverrideInput is the body of PUT /api/schedule/overrides/{date}.
type OverrideInput struct {
	Closed bool         `json:"closed,omitempty"`
	Hours  []HoursRange `json:"hours,omitempty" doc:"when not closed: 1-10 ranges in the owner's zone, not overlapping"`
}

// Validate checks the input: neither closed nor hours is 400; bad ranges 422.
func (in OverrideInput) Validate() error {
	var v Validation
	if !in.Closed && len(in.Hours) == 0 {
		v.Missing("hours")
		return v.Err()
	}
	if in.Closed && len(in.Hours) > 0 {
		v.Invalid("hours", "must be empty when closed is true")
	}
	if len(in.Hours) > 10 {
		v.Invalid("hours", "must have at most 10 ranges")
	}
	type span struct{ a, b int }
	var seen []span
	for i, h := range in.Hours {
		a, b, err := h.Minutes()
		if err != nil {
			v.Invalid(fmt.Sprintf("hours[%d]", i), "%s", err.Error())
			continue
		}
		for _, s := range seen {
			if a < s.b && s.a < b {
				v.Invalid(fmt.Sprintf("hours[%d]", i), "overlaps another range")
			}
		}
		seen = append(seen, span{a, b})
	}
	return v.Err()
}

// DayHours is the opening of one owner date for slot generation: Ranges in minutes past
// midnight of the date; an override with no range closes the date.
type DayHours struct {
	Ranges [][2]int
}

// BookingStatus answers GET /api/schedule/bookings/{token} (contract §7).
type BookingStatus struct {
	ID               string `json:"id"`
	Status           string `json:"status" doc:"confirmed or cancelled"`
	StartTime        string `json:"startTime" doc:"RFC 3339 at the visitor's UTC offset"`
	EndTime          string `json:"endTime"`
	TimeZone         string `json:"timezone" doc:"the visitor's IANA zone"`
	Type             string `json:"type" doc:"meeting type slug"`
	Name             string `json:"name" doc:"the visitor's name"`
	ProviderMeetLink string `json:"providerMeetLink"`
	CanCancel        bool   `json:"canCancel"`
	CanReschedule    bool   `json:"canReschedule"`
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
