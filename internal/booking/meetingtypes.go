package booking

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// DefaultTypes returns the types that exist while none is stored: one per duration option.
func (s *Service) DefaultTypes() []folio.MeetingType {
	out := make([]folio.MeetingType, 0, len(s.config().DurationOptions))
	for _, d := range s.config().DurationOptions {
		out = append(out, describe(folio.MeetingType{Slug: strconv.Itoa(d) + "min", Title: strconv.Itoa(d) + " minute meeting",
			DurationMinutes: d, BufferMinutes: int(s.config().Buffer / time.Minute), Default: true}))
	}
	return out
}

// Types returns the meeting types as the API shows them: the stored ones, or the defaults when
// none is stored, with their descriptions rendered.
func (s *Service) Types(ctx context.Context) ([]folio.MeetingType, error) {
	ts, err := s.types(ctx)
	if err != nil {
		return nil, err
	}
	for i := range ts {
		ts[i] = describe(ts[i])
	}
	return ts, nil
}

// types returns the meeting types the rules use (no Markdown rendered: availability and booking
// run it on every request).
func (s *Service) types(ctx context.Context) ([]folio.MeetingType, error) {
	ts, err := s.Store.MeetingTypes(ctx)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return s.DefaultTypes(), nil
	}
	return ts, nil
}

// resolveType picks the meeting type of a request: by slug (unknown: 422 on "type"; a duration
// given beside it must match), else by duration (0: the first option), which must be one of
// the options or a type's duration. A duration without a type of its own books a plain meeting
// (empty slug) with the global buffer.
func (s *Service) resolveType(ctx context.Context, slug string, duration int, durationField string) (folio.MeetingType, error) {
	ts, err := s.types(ctx)
	if err != nil {
		return folio.MeetingType{}, err
	}
	if slug != "" {
		for _, t := range ts {
			if t.Slug == slug {
				if duration != 0 && duration != t.DurationMinutes {
					return folio.MeetingType{}, &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
						Details: []folio.FieldError{{Field: durationField, Message: fmt.Sprintf("must be %d (the duration of type %s) or absent", t.DurationMinutes, slug)}}}
				}
				return t, nil
			}
		}
		slugs := make([]string, len(ts))
		for i, t := range ts {
			slugs[i] = t.Slug
		}
		return folio.MeetingType{}, &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
			Details: []folio.FieldError{{Field: "type", Message: "must be one of " + strings.Join(slugs, ", ")}}}
	}
	if duration == 0 {
		duration = s.config().DefaultDuration()
	}
	for _, t := range ts {
		if t.DurationMinutes == duration {
			return t, nil
		}
	}
	if !s.config().AllowsDuration(duration) {
		return folio.MeetingType{}, s.durationError(durationField)
	}
	return folio.MeetingType{DurationMinutes: duration, BufferMinutes: int(s.config().Buffer / time.Minute)}, nil
}

// SaveType creates (slug "" in the path: POST) or replaces (PUT) a stored meeting type. The
// first stored type replaces the defaults.
func (s *Service) SaveType(ctx context.Context, pathSlug string, in folio.MeetingTypeInput) (folio.MeetingType, error) {
	create := pathSlug == ""
	if create && in.Slug == "" {
		in.Slug = slugFrom(in.Title, in.DurationMinutes)
	}
	if err := in.Validate(create); err != nil {
		return folio.MeetingType{}, err
	}
	t := folio.MeetingType{Slug: in.Slug, Title: strings.TrimSpace(in.Title), Description: strings.TrimSpace(in.Description),
		DurationMinutes: in.DurationMinutes, BufferMinutes: in.BufferMinutes, MaxPerDay: in.MaxPerDay,
		Locations: in.Locations, Questions: in.Questions, Limits: in.Limits, MinNoticeMinutes: in.MinNoticeMinutes}
	for i := range t.Locations {
		t.Locations[i].Value = strings.TrimSpace(t.Locations[i].Value)
	}
	t.MaxPerDay = t.PeriodCaps().Day // limits.day wins; maxPerDay stays its alias
	t.Limits.Day = t.MaxPerDay
	if !create {
		t.Slug = pathSlug
	}
	var err error
	if create {
		err = s.Store.CreateMeetingType(ctx, t, s.now())
	} else {
		err = s.Store.UpdateMeetingType(ctx, pathSlug, t, s.now())
	}
	return describe(t), err
}

// DeleteType deletes the stored meeting type slug (bookings keep its slug); ENOTFOUND when
// there is none.
func (s *Service) DeleteType(ctx context.Context, slug string) error {
	return s.Store.DeleteMeetingType(ctx, slug)
}

func slugFrom(title string, duration int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 60 {
		out = strings.Trim(out[:60], "-")
	}
	if out == "" {
		out = strconv.Itoa(duration) + "min"
	}
	return out
}

// typeOf returns the meeting type a booking was made with (its stored type when it still
// exists, else its own duration with the global buffer).
func (s *Service) typeOf(ctx context.Context, b *folio.Booking) (folio.MeetingType, error) {
	ts, err := s.types(ctx)
	if err != nil {
		return folio.MeetingType{}, err
	}
	for _, t := range ts {
		if t.Slug == b.TypeSlug && b.TypeSlug != "" && t.DurationMinutes == b.DurationMinutes {
			return t, nil
		}
	}
	return folio.MeetingType{Slug: b.TypeSlug, DurationMinutes: b.DurationMinutes, BufferMinutes: int(s.config().Buffer / time.Minute)}, nil
}
