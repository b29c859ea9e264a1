package folio

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Slot is one bookable meeting time offered to a visitor. Start and End are kept in the
// visitor's location, and the JSON form carries the visitor's UTC offset (docs/api.md, "Booking").
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

// BookingConfig is the owner's booking configuration (the BOOKING_* settings of internal/config). The zero SlotStep means 30
// minutes.
type BookingConfig struct {
	// DurationOptions lists the meeting lengths offered, in minutes; the first is the default.
	DurationOptions []int
	// Weekly are the business hours of each weekday (index time.Weekday, in the owner's zone):
	// ranges of minutes past midnight, 24:00 (1440) the end of the day; a day without a range
	// is closed. Each range has its own slot grid from its start.
	Weekly [7]DayHours
	// Location is the owner's time zone.
	Location *time.Location
	// AdvanceDays bounds how far ahead a slot may start: start ≤ now + AdvanceDays×24h.
	// Zero or less means no upper bound.
	AdvanceDays int
	// MinNotice is the minimum notice: start ≥ now + MinNotice.
	MinNotice time.Duration
	// SlotStep is the grid of slot starts from each range's start in the owner's wall clock.
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

// BusinessHours returns the same hours [startHour:00, endHour:00) on each of days and no
// hours on the others: the shape of the BOOKING_BUSINESS_* variables.
func BusinessHours(startHour, endHour int, days ...time.Weekday) [7]DayHours {
	var w [7]DayHours
	for _, d := range days {
		if d >= time.Sunday && d <= time.Saturday {
			w[d].Ranges = [][2]int{{startHour * 60, endHour * 60}}
		}
	}
	return w
}

// Validate checks the configuration for values that would make slot generation meaningless.
// It returns a plain error naming the offending setting (the config layer reports it at start).
func (c BookingConfig) Validate() error {
	switch {
	case c.Location == nil:
		return fmt.Errorf("booking: time zone is not set")
	case len(c.DurationOptions) == 0:
		return fmt.Errorf("booking: no duration options")
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
	for d, day := range c.Weekly {
		for i, r := range day.Ranges {
			if r[0] < 0 || r[1] > 24*60 || r[1] <= r[0] {
				return fmt.Errorf("booking: business hours %d-%d of %s are not a range within the day", r[0], r[1], time.Weekday(d))
			}
			for _, o := range day.Ranges[:i] {
				if r[0] < o[1] && o[0] < r[1] {
					return fmt.Errorf("booking: business hours of %s overlap", time.Weekday(d))
				}
			}
		}
	}
	return nil
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
// open during Hours only (docs/api.md, "Availability overrides").
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
