// Package slots holds the slot arithmetic as pure functions: which meeting slots are
// offered to a visitor on a date and whether a time conflicts with busy time. Nothing here does
// I/O or reads the clock; callers pass "now" and the busy intervals they got from the calendar
// provider. (The invite and mail text live in internal/invite; the use case in internal/booking.)
//
// # The slot rules, precisely
//
// Owner side. For each date D of the owner's calendar, the business hours of D's weekday
// (BookingConfig.Weekly, in the owner's zone; none: closed) are ranges "HH:MM"–"HH:MM"; in each
// range candidate starts are the wall-clock times start + k×SlotStep (k = 0, 1, …) before its
// end on D in the owner's zone. A wall time is turned into
// instants deliberately around daylight-saving transitions:
//   - in a spring-forward gap (e.g. 02:00–03:00 on 2026-03-08 in America/New_York) the wall
//     time does not exist, and no slot is offered for it;
//   - in a fall-back overlap (e.g. 01:00–02:00 on 2026-11-01 in America/New_York) the wall
//     time occurs twice, and each occurrence is a candidate.
//
// An availability override (BookingConfig.Overrides) replaces the business hours of its date:
// no range closes it; its ranges ("HH:MM"–"HH:MM", each with its own grid from its start) open
// it, business day or not.
//
// A candidate [start, start+duration) is offered when every instant of it shows a wall time in
// its range of D (business hours or override) in the owner's zone (durations
// are elapsed time, so an hour lost or gained inside business hours shortens or lengthens the
// working day accordingly), and:
//   - start ≥ now + MinNotice;
//   - start ≤ now + AdvanceDays×24h (elapsed time; AdvanceDays ≤ 0 disables this bound);
//   - [start−Buffer, end+Buffer) overlaps no busy interval (half-open: touching is fine);
//   - duration is one of the DurationOptions.
//
// Visitor side. The visitor's date is the set of instants whose wall-clock date in the visitor's
// zone is that date; it may span two (or, between UTC−12 and UTC+14, three) owner dates. Slots
// whose start lies in it are returned, sorted, without duplicates, in the visitor's location.
package slots

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/foliohq/folio"
)

// Date is a calendar date without a zone.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate parses a strict YYYY-MM-DD date that exists in the Gregorian calendar.
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, fmt.Errorf("date %q is not YYYY-MM-DD", s)
	}
	for i, c := range []byte(s) {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return Date{}, fmt.Errorf("date %q is not YYYY-MM-DD", s)
		}
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("date %q does not exist", s)
	}
	return DateOf(t), nil
}

// DateOf returns the date of t's wall clock in t's own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// String formats d as YYYY-MM-DD.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day) }

// AddDays returns the date n days after d.
func (d Date) AddDays(n int) Date {
	return DateOf(time.Date(d.Year, d.Month, d.Day+n, 12, 0, 0, 0, time.UTC))
}

// Weekday returns d's day of the week.
func (d Date) Weekday() time.Weekday { return d.utcMidnight().Weekday() }

func (d Date) utcMidnight() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// AnyZoneWindow returns an interval that contains every instant whose wall-clock date is d in
// some zone. It is larger than d in any one zone: callers filter with DateOf.
func (d Date) AnyZoneWindow() folio.Interval {
	// No zone is further than 26h from UTC; two hours of margin cover any transition at midnight.
	m := d.utcMidnight()
	return folio.Interval{Start: m.Add(-16 * time.Hour), End: m.Add(40 * time.Hour)}
}

// Slots returns the slots of duration minutes offered on the visitor's date in visitorLoc, given
// the owner's configuration, the current instant and the owner's busy intervals (any order; they
// may overlap). See the package documentation for the rules.
func Slots(cfg folio.BookingConfig, visitorDate Date, visitorLoc *time.Location, duration int, now time.Time, busy []folio.Interval) []folio.Slot {
	if cfg.Location == nil || visitorLoc == nil || !cfg.AllowsDuration(duration) {
		return nil
	}
	merged := mergeBusy(busy, BusyWindow(cfg, visitorDate))
	step := cfg.Step()
	out := make([]folio.Slot, 0, 32)
	// The visitor's date lies within owner dates D−2 … D+2 (UTC offsets span −12…+14).
	for i := -2; i <= 2; i++ {
		od := visitorDate.AddDays(i)
		for _, h := range hoursOf(cfg, od) {
			forEachCandidate(cfg, od, step, h, func(start time.Time) {
				if DateOf(start.In(visitorLoc)) != visitorDate {
					return
				}
				if !offeredOn(cfg, od, h, start, duration, now, merged) {
					return
				}
				out = append(out, folio.Slot{
					Start:    start.In(visitorLoc),
					End:      start.Add(minutes(duration)).In(visitorLoc),
					Duration: duration,
				})
			})
		}
	}
	slices.SortFunc(out, func(a, b folio.Slot) int { return a.Start.Compare(b.Start) })
	return slices.CompactFunc(out, func(a, b folio.Slot) bool { return a.Start.Equal(b.Start) })
}

// IsOffered reports whether a meeting of duration minutes starting at start is a slot Slots
// offers (to a visitor in any zone). The booking service calls it before creating an event.
func IsOffered(cfg folio.BookingConfig, start time.Time, duration int, now time.Time, busy []folio.Interval) bool {
	if cfg.Location == nil || !cfg.AllowsDuration(duration) {
		return false
	}
	start = start.In(cfg.Location)
	od := DateOf(start)
	civil := civilSince(start, od)
	window := folio.Interval{Start: start.Add(-cfg.Buffer), End: start.Add(minutes(duration) + cfg.Buffer)}
	for _, h := range hoursOf(cfg, od) {
		grid := civil - h.lo
		if grid < 0 || grid%cfg.Step() != 0 || civil >= h.hi {
			continue
		}
		if offeredOn(cfg, od, h, start, duration, now, mergeBusy(busy, window)) {
			return true
		}
	}
	return false
}

// hours is a span of wall-clock time on an owner date, as durations past its midnight.
type hours struct{ lo, hi time.Duration }

// hoursOf returns the opening hours of owner date od: the override's ranges when there is one
// (none: closed), else the business hours of its weekday.
func hoursOf(cfg folio.BookingConfig, od Date) []hours {
	day, ok := cfg.Overrides[od.String()]
	if !ok {
		day = cfg.Weekly[od.Weekday()]
	}
	out := make([]hours, 0, len(day.Ranges))
	for _, r := range day.Ranges {
		out = append(out, hours{minutes(r[0]), minutes(r[1])})
	}
	return out
}

// Conflicts reports whether [start−buffer, end+buffer) overlaps any busy interval. Intervals are
// half-open, so a meeting that ends exactly when busy time starts does not conflict.
func Conflicts(busy []folio.Interval, start, end time.Time, buffer time.Duration) bool {
	want := folio.Interval{Start: start.Add(-buffer), End: end.Add(buffer)}
	for _, b := range busy {
		if want.Overlaps(b) {
			return true
		}
	}
	return false
}

// BusyWindow returns the interval of busy time Slots needs for the visitor's date: callers ask
// the calendar provider for free/busy over it.
func BusyWindow(cfg folio.BookingConfig, visitorDate Date) folio.Interval {
	w := visitorDate.AnyZoneWindow()
	pad := cfg.Buffer + 24*time.Hour // a slot starting on the date may end on the next
	return folio.Interval{Start: w.Start.Add(-cfg.Buffer), End: w.End.Add(pad)}
}

// forEachCandidate calls fn with every instant that is a grid wall time of h on owner date od.
func forEachCandidate(cfg folio.BookingConfig, od Date, step time.Duration, h hours, fn func(time.Time)) {
	loc := cfg.Location
	first, last := h.lo, h.hi
	for wall := first; wall < last; wall += step {
		// time.Date normalises minute overflow, so build the wall time from minutes past midnight.
		t := time.Date(od.Year, od.Month, od.Day, 0, int(wall/time.Minute), 0, 0, loc)
		if civilSince(t, od) != wall {
			continue // in a spring-forward gap: this wall time does not exist
		}
		fn(t)
		// In a fall-back overlap the same wall time occurs in the neighbouring zone period too.
		if alt, ok := otherOccurrence(t); ok && civilSince(alt, od) == wall {
			fn(alt)
		}
	}
}

// otherOccurrence returns the instant in the previous or next zone period of t's location that
// shows the same wall time as t, when there is one.
func otherOccurrence(t time.Time) (time.Time, bool) {
	_, off := t.Zone()
	start, end := t.ZoneBounds()
	if !end.IsZero() {
		_, nextOff := end.Zone()
		if alt := t.Add(time.Duration(off-nextOff) * time.Second); !alt.Before(end) {
			return alt, true
		}
	}
	if !start.IsZero() {
		_, prevOff := start.Add(-time.Nanosecond).Zone()
		if alt := t.Add(time.Duration(off-prevOff) * time.Second); alt.Before(start) {
			return alt, true
		}
	}
	return time.Time{}, false
}

// offeredOn applies the rules to a candidate on owner date od. busy must be merged.
func offeredOn(cfg folio.BookingConfig, od Date, h hours, start time.Time, duration int, now time.Time, busy []folio.Interval) bool {
	end := start.Add(minutes(duration))
	if start.Before(now.Add(cfg.MinNotice)) {
		return false
	}
	if cfg.AdvanceDays > 0 && start.After(now.Add(time.Duration(cfg.AdvanceDays)*24*time.Hour)) {
		return false
	}
	if !withinHours(cfg, od, h, start, end) {
		return false
	}
	return !conflictsMerged(busy, start.Add(-cfg.Buffer), end.Add(cfg.Buffer))
}

// withinHours reports whether every instant of [start, end) shows a wall time in h of od in the
// owner's zone. Within one zone period the wall clock only moves forward, so checking both ends
// of each period the interval crosses is enough.
func withinHours(cfg folio.BookingConfig, od Date, h hours, start, end time.Time) bool {
	lo, hi := h.lo, h.hi
	t := start.In(cfg.Location)
	for t.Before(end) {
		segEnd := end
		_, zoneEnd := t.ZoneBounds()
		if !zoneEnd.IsZero() && zoneEnd.Before(end) {
			segEnd = zoneEnd
		}
		_, off := t.Zone()
		if civilSince(t, od) < lo {
			return false
		}
		// The wall time of segEnd read with this period's offset: the limit the period reaches.
		if civilAt(segEnd, off, od) > hi {
			return false
		}
		t = segEnd.In(cfg.Location)
	}
	return true
}

// civilSince returns how far t's wall clock (in its own location) is past midnight starting od.
func civilSince(t time.Time, od Date) time.Duration {
	_, off := t.Zone()
	return civilAt(t, off, od)
}

func civilAt(t time.Time, offset int, od Date) time.Duration {
	return t.Sub(od.utcMidnight()) + time.Duration(offset)*time.Second
}

// mergeBusy returns the union of the busy intervals that overlap window as sorted, disjoint,
// non-touching intervals.
func mergeBusy(busy []folio.Interval, window folio.Interval) []folio.Interval {
	relevant := func(b folio.Interval) bool { return b.End.After(b.Start) && b.Overlaps(window) }
	n := 0
	for _, b := range busy {
		if relevant(b) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]folio.Interval, 0, n)
	for _, b := range busy {
		if relevant(b) {
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b folio.Interval) int { return a.Start.Compare(b.Start) })
	n = 0
	for _, b := range out {
		if n > 0 && !b.Start.After(out[n-1].End) {
			if b.End.After(out[n-1].End) {
				out[n-1].End = b.End
			}
			continue
		}
		out[n] = b
		n++
	}
	return out[:n]
}

// conflictsMerged reports whether [start, end) overlaps any of the merged busy intervals.
func conflictsMerged(busy []folio.Interval, start, end time.Time) bool {
	// First interval that ends after start; ends are increasing in a merged list.
	i := sort.Search(len(busy), func(i int) bool { return busy[i].End.After(start) })
	return i < len(busy) && busy[i].Start.Before(end)
}

func minutes(n int) time.Duration { return time.Duration(n) * time.Minute }
