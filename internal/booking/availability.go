package booking

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/slots"
)

// busy returns the provider's busy time and the active reservations overlapping [start, end).
func (s *Service) busy(ctx context.Context, start, end time.Time) ([]folio.Interval, error) {
	provider, err := s.Calendar.FreeBusy(ctx, start, end)
	if err != nil {
		return nil, asUpstream(err)
	}
	held, err := s.Store.BookingBusy(ctx, start, end, s.now().Add(-s.pendingTTL()))
	if err != nil {
		return nil, err
	}
	return append(provider, held...), nil
}

// Available returns the free slots of duration minutes (0: the first option) on date
// (YYYY-MM-DD) in the visitor's zone timezone (empty: the owner's), rendered in that zone.
// A malformed date or an unknown zone is 400; a duration that is not an option is 422;
// a provider failure is 502.
func (s *Service) Available(ctx context.Context, date string, duration int, timezone string) ([]folio.Slot, error) {
	return s.AvailableOfType(ctx, date, "", duration, timezone)
}

// AvailableOfType is Available for a meeting type (its duration, buffer, maxPerDay and the
// availability overrides); typeSlug "" picks the type by duration.
func (s *Service) AvailableOfType(ctx context.Context, date, typeSlug string, duration int, timezone string) ([]folio.Slot, error) {
	if strings.TrimSpace(date) == "" {
		return nil, folio.BadRequest("date", "is required (YYYY-MM-DD)")
	}
	d, err := slots.ParseDate(date)
	if err != nil {
		return nil, folio.BadRequest("date", "must be a calendar date YYYY-MM-DD")
	}
	loc := s.config().Location
	if timezone != "" {
		if loc, err = folio.LoadZone(timezone); err != nil {
			return nil, folio.BadRequest("timezone", "must be an IANA time zone name, like Europe/Berlin")
		}
	}
	mt, err := s.resolveType(ctx, typeSlug, duration, "duration")
	if err != nil {
		return nil, err
	}
	now := s.now()
	cfg, err := s.configFor(ctx, mt, d.AddDays(-2), d.AddDays(3))
	if err != nil {
		return nil, err
	}
	window := slots.BusyWindow(cfg, d)
	// A date wholly before the notice or after the advance window has no slot: skip the provider.
	if !window.End.After(now.Add(cfg.MinNotice)) ||
		(cfg.AdvanceDays > 0 && window.Start.After(now.AddDate(0, 0, cfg.AdvanceDays+1))) {
		return []folio.Slot{}, nil
	}
	busy, err := s.busy(ctx, window.Start, window.End)
	if err != nil {
		return nil, err
	}
	out := slots.Slots(cfg, d, loc, mt.DurationMinutes, now, busy)
	if out, err = s.dropFullDays(ctx, mt, out, map[[2]time.Time]int{}); err != nil {
		return nil, err
	}
	if out == nil {
		out = []folio.Slot{}
	}
	return out, nil
}

func (s *Service) durationError(field string) error {
	opts := make([]string, len(s.config().DurationOptions))
	for i, o := range s.config().DurationOptions {
		opts[i] = strconv.Itoa(o)
	}
	return &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
		Details: []folio.FieldError{{Field: field, Message: "must be one of " + strings.Join(opts, ", ") + " (minutes)"}}}
}

// CheckConflict reports whether the interval of req (plus the buffer on both sides) overlaps
// busy time: the provider's or another booking's. Missing or unparseable input is 400.
func (s *Service) CheckConflict(ctx context.Context, req folio.ConflictRequest) (bool, error) {
	if err := req.Validate(); err != nil {
		return false, err
	}
	iv, err := req.Interval()
	if err != nil {
		return false, err
	}
	buf := s.config().Buffer
	busy, err := s.busy(ctx, iv.Start.Add(-buf), iv.End.Add(buf))
	if err != nil {
		return false, err
	}
	return slots.Conflicts(busy, iv.Start, iv.End, buf), nil
}

// configFor returns the booking configuration for type t with the overrides of the owner dates
// [from, to] loaded.
func (s *Service) configFor(ctx context.Context, t folio.MeetingType, from, to slots.Date) (folio.BookingConfig, error) {
	cfg := s.config()
	cfg.DurationOptions = []int{t.DurationMinutes}
	cfg.Buffer = time.Duration(t.BufferMinutes) * time.Minute
	if t.MinNoticeMinutes > 0 {
		cfg.MinNotice = time.Duration(t.MinNoticeMinutes) * time.Minute
	}
	ovs, err := s.Store.Overrides(ctx, from.String(), to.String())
	if err != nil {
		return cfg, err
	}
	if len(ovs) > 0 {
		cfg.Overrides = map[string]folio.DayHours{}
		for _, o := range ovs {
			var dh folio.DayHours
			if !o.Closed {
				for _, h := range o.Hours {
					if a, b, err := h.Minutes(); err == nil {
						dh.Ranges = append(dh.Ranges, [2]int{a, b})
					}
				}
			}
			cfg.Overrides[o.Date] = dh
		}
	}
	return cfg, nil
}

// ownerDay returns the owner-local day containing t as [start, end).
func ownerDay(loc *time.Location, t time.Time) (time.Time, time.Time) {
	d := slots.DateOf(t.In(loc))
	start := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
	return start, time.Date(d.Year, d.Month, d.Day+1, 0, 0, 0, 0, loc)
}

// dropFullDays removes the slots whose start lies in a day, week or month where t has reached
// a cap; counted keeps the bookings counted per period across calls (a month view).
func (s *Service) dropFullDays(ctx context.Context, t folio.MeetingType, in []folio.Slot, counted map[[2]time.Time]int) ([]folio.Slot, error) {
	l := t.PeriodCaps()
	if t.Slug == "" || (l.Day <= 0 && l.Week <= 0 && l.Month <= 0) {
		return in, nil
	}
	full := map[time.Time]bool{}
	out := in[:0]
	for _, sl := range in {
		ds, _ := ownerDay(s.config().Location, sl.Start)
		f, ok := full[ds]
		if !ok {
			var err error
			if f, err = s.typeFullCounted(ctx, t, sl.Start, counted); err != nil {
				return nil, err
			}
			full[ds] = f
		}
		if !f {
			out = append(out, sl)
		}
	}
	return out, nil
}

// DayAvailability is one date of GET /api/schedule/days.
type DayAvailability struct {
	Date  string `json:"date" doc:"YYYY-MM-DD in the visitor's zone"`
	Slots int    `json:"slots" doc:"free slots that day"`
}

// MaxDaysRange bounds GET /api/schedule/days.
const MaxDaysRange = 62

// AvailableDays counts the free slots of each visitor date in [from, to] (at most MaxDaysRange
// days) with one free/busy query: what the /book page's month view marks.
func (s *Service) AvailableDays(ctx context.Context, from, to, typeSlug string, duration int, timezone string) ([]DayAvailability, error) {
	f, err := slots.ParseDate(from)
	if err != nil {
		return nil, folio.BadRequest("from", "must be a calendar date YYYY-MM-DD")
	}
	last, err := slots.ParseDate(to)
	if err != nil {
		return nil, folio.BadRequest("to", "must be a calendar date YYYY-MM-DD")
	}
	loc := s.config().Location
	if timezone != "" {
		if loc, err = folio.LoadZone(timezone); err != nil {
			return nil, folio.BadRequest("timezone", "must be an IANA time zone name, like Europe/Berlin")
		}
	}
	n := 0
	for d := f; d != last; d = d.AddDays(1) {
		if n++; n >= MaxDaysRange || d.String() > last.String() {
			return nil, &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
				Details: []folio.FieldError{{Field: "to", Message: fmt.Sprintf("must be on or after from and at most %d days later", MaxDaysRange-1)}}}
		}
	}
	mt, err := s.resolveType(ctx, typeSlug, duration, "duration")
	if err != nil {
		return nil, err
	}
	cfg, err := s.configFor(ctx, mt, f.AddDays(-2), last.AddDays(3))
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := make([]DayAvailability, 0, n+1)
	first, end := slots.BusyWindow(cfg, f), slots.BusyWindow(cfg, last)
	var busy []folio.Interval
	if end.End.After(now.Add(cfg.MinNotice)) {
		if busy, err = s.busy(ctx, first.Start, end.End); err != nil {
			return nil, err
		}
	}
	counted := map[[2]time.Time]int{}
	for d := f; ; d = d.AddDays(1) {
		day := slots.Slots(cfg, d, loc, mt.DurationMinutes, now, busy)
		if day, err = s.dropFullDays(ctx, mt, day, counted); err != nil {
			return nil, err
		}
		out = append(out, DayAvailability{Date: d.String(), Slots: len(day)})
		if d == last {
			break
		}
	}
	return out, nil
}
