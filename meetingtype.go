package folio

import (
	"strings"
	"unicode/utf8"
)

// MeetingType is one kind of meeting offered on /book (docs/api.md, "Meeting types").
type MeetingType struct {
	Slug            string `json:"slug" doc:"URL-safe name, e.g. 30min"`
	Title           string `json:"title"`
	Description     string `json:"description"`
	DurationMinutes int    `json:"durationMinutes"`
	BufferMinutes   int    `json:"bufferMinutes" doc:"free time kept before and after the meeting"`
	MaxPerDay       int    `json:"maxPerDay" doc:"confirmed bookings of this type per owner-local day; 0 = no cap (the same as limits.day)"`
	// Places and questions (docs/api.md, "Meeting places").
	Locations        []MeetingLocation `json:"locations" doc:"the places offered; empty: the provider's own video link (Google Meet, or BOOKING_MEETING_URL_TEMPLATE)"`
	Questions        []Question        `json:"questions" doc:"asked on /book; answers go to the owner"`
	Limits           TypeLimits        `json:"limits" doc:"caps of active bookings per owner-local day, ISO week and month; 0 = none"`
	MinNoticeMinutes int               `json:"minNoticeMinutes" doc:"earliest start after now for this type; 0 = the owner's BOOKING minimum notice"`
	DescriptionHTML  string            `json:"descriptionHtml,omitempty" doc:"description rendered from Markdown (sanitised)"`
	// Default marks the types made from BOOKING_DURATION_OPTIONS while none is defined: /book
	// offers them as lengths to pick, not as a chooser of kinds of meeting.
	Default bool `json:"default,omitempty" doc:"true for the types made from BOOKING_DURATION_OPTIONS while none is defined"`
}

// PeriodCaps returns the type's caps (day from Limits.Day, else MaxPerDay).
func (t MeetingType) PeriodCaps() TypeLimits {
	l := t.Limits
	if l.Day == 0 {
		l.Day = t.MaxPerDay
	}
	return l
}

// BookingHost is who the meetings on /book are with, as the page's host card shows them.
type BookingHost struct {
	Name     string `json:"name" doc:"the host's name (the owner's profile); empty when there is none"`
	PhotoURL string `json:"photoUrl" doc:"http(s) URL of the host's photo, or empty"`
}

// MeetingTypeInput is the body of POST/PUT /api/schedule/types.
type MeetingTypeInput struct {
	Slug            string `json:"slug,omitempty" doc:"POST only: a-z, 0-9 and -, 1-64 characters; default from the title"`
	Title           string `json:"title"`
	Description     string `json:"description,omitempty"`
	DurationMinutes int    `json:"durationMinutes" doc:"5-1440"`
	BufferMinutes   int    `json:"bufferMinutes,omitempty" doc:"0-240"`
	MaxPerDay       int    `json:"maxPerDay,omitempty" doc:"0-100; 0 = no cap (limits.day wins when both are set)"`

	Locations        []MeetingLocation `json:"locations,omitempty" doc:"at most 6, each kind once"`
	Questions        []Question        `json:"questions,omitempty" doc:"at most 20"`
	Limits           TypeLimits        `json:"limits,omitempty"`
	MinNoticeMinutes int               `json:"minNoticeMinutes,omitempty" doc:"0-525600 (a year)"`
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
	if !utf8.ValidString(in.Description) || utf8.RuneCountInString(in.Description) > 5000 {
		v.Invalid("description", "must be valid Markdown text of at most 5000 characters")
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
	if in.Limits.Day < 0 || in.Limits.Day > 100 {
		v.Invalid("limits.day", "must be between 0 and 100 (0: no cap)")
	}
	if in.Limits.Week < 0 || in.Limits.Week > 500 {
		v.Invalid("limits.week", "must be between 0 and 500 (0: no cap)")
	}
	if in.Limits.Month < 0 || in.Limits.Month > 2000 {
		v.Invalid("limits.month", "must be between 0 and 2000 (0: no cap)")
	}
	if in.MinNoticeMinutes < 0 || in.MinNoticeMinutes > 525600 {
		v.Invalid("minNoticeMinutes", "must be between 0 and 525600")
	}
	validLocations(&v, in.Locations)
	validQuestions(&v, in.Questions)
	return v.Err()
}
