package slots

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/foliohq/folio"
)

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load zone %s: %v", name, err)
	}
	return loc
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

func mustDate(t testing.TB, s string) Date {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var weekdays = []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}
var everyDay = []time.Weekday{0, 1, 2, 3, 4, 5, 6}

// specDefaults is the default configuration (internal/config's BOOKING_* defaults) in the owner's zone.
func specDefaults(loc *time.Location) folio.BookingConfig {
	return folio.BookingConfig{
		DurationOptions: []int{30, 60},
		Weekly:          folio.BusinessHours(9, 18, weekdays...),
		Location:        loc,
		AdvanceDays:     60,
		MinNotice:       24 * time.Hour,
		SlotStep:        30 * time.Minute,
	}
}

// startsUTC renders slot starts as UTC RFC 3339 strings, compact for table comparisons.
func startsUTC(slots []folio.Slot) []string {
	out := make([]string, len(slots))
	for i, s := range slots {
		out[i] = s.Start.UTC().Format("2006-01-02T15:04Z")
	}
	return out
}

func TestSlotsTable(t *testing.T) {
	t.Parallel()
	ny := mustZone(t, "America/New_York")
	berlin := mustZone(t, "Europe/Berlin")
	lordHowe := mustZone(t, "Australia/Lord_Howe")

	hours := func(loc *time.Location, from, to int) folio.BookingConfig {
		c := specDefaults(loc)
		c.Weekly = folio.BusinessHours(from, to, everyDay...)
		c.AdvanceDays = 0
		return c
	}

	tests := []struct {
		name     string
		cfg      folio.BookingConfig
		date     string
		visitor  string
		duration int
		now      time.Time
		busy     []folio.Interval
		// want lists UTC starts; wantFirst/wantLast/wantCount check rendered visitor times instead.
		want      []string
		wantCount int
		wantFirst string
		wantLast  string
	}{
		{
			name: "plain weekday in the owner's zone", cfg: specDefaults(ny), date: "2026-03-10",
			visitor: "America/New_York", duration: 60,
			wantCount: 17, wantFirst: "2026-03-10T09:00:00-04:00", wantLast: "2026-03-10T17:00:00-04:00",
		},
		{
			name: "US spring forward: 02:00 and 02:30 do not exist", cfg: hours(ny, 1, 4), date: "2026-03-08",
			visitor: "America/New_York", duration: 30,
			want: []string{"2026-03-08T06:00Z", "2026-03-08T06:30Z", "2026-03-08T07:00Z", "2026-03-08T07:30Z"},
		},
		{
			name: "US spring forward: an hour-long slot may span the gap", cfg: hours(ny, 1, 4), date: "2026-03-08",
			visitor: "America/New_York", duration: 60,
			want: []string{"2026-03-08T06:00Z", "2026-03-08T06:30Z", "2026-03-08T07:00Z"},
		},
		{
			name: "US fall back: 01:00 and 01:30 occur twice", cfg: hours(ny, 0, 3), date: "2026-11-01",
			visitor: "America/New_York", duration: 30,
			want: []string{"2026-11-01T04:00Z", "2026-11-01T04:30Z", "2026-11-01T05:00Z", "2026-11-01T05:30Z",
				"2026-11-01T06:00Z", "2026-11-01T06:30Z", "2026-11-01T07:00Z", "2026-11-01T07:30Z"},
		},
		{
			name: "EU spring forward in Berlin", cfg: hours(berlin, 1, 4), date: "2026-03-29",
			visitor: "Europe/Berlin", duration: 30,
			want: []string{"2026-03-29T00:00Z", "2026-03-29T00:30Z", "2026-03-29T01:00Z", "2026-03-29T01:30Z"},
		},
		{
			name: "EU fall back in Berlin: repeated hour, 30 minutes", cfg: hours(berlin, 2, 3), date: "2026-10-25",
			visitor: "Europe/Berlin", duration: 30,
			want: []string{"2026-10-25T00:00Z", "2026-10-25T00:30Z", "2026-10-25T01:00Z", "2026-10-25T01:30Z"},
		},
		{
			name: "EU fall back in Berlin: 02:30 CEST + 60 min stays inside 02-03", cfg: hours(berlin, 2, 3), date: "2026-10-25",
			visitor: "Europe/Berlin", duration: 60,
			want: []string{"2026-10-25T00:00Z", "2026-10-25T00:30Z", "2026-10-25T01:00Z"},
		},
		{
			name: "Lord Howe spring forward by 30 minutes", cfg: hours(lordHowe, 1, 3), date: "2026-10-04",
			visitor: "Australia/Lord_Howe", duration: 30,
			want: []string{"2026-10-03T14:30Z", "2026-10-03T15:00Z", "2026-10-03T15:30Z"},
		},
		{
			name: "Lord Howe fall back by 30 minutes", cfg: hours(lordHowe, 1, 3), date: "2026-04-05",
			visitor: "Australia/Lord_Howe", duration: 30,
			want: []string{"2026-04-04T14:00Z", "2026-04-04T14:30Z", "2026-04-04T15:00Z", "2026-04-04T15:30Z", "2026-04-04T16:00Z"},
		},
		{
			name: "US transition day is a Sunday: no slots with default days", cfg: specDefaults(ny), date: "2026-03-08",
			visitor: "America/New_York", duration: 30, want: []string{},
		},
		{
			name: "owner New York after US change, visitor Berlin before EU change (5h apart)", cfg: specDefaults(ny),
			date: "2026-03-09", visitor: "Europe/Berlin", duration: 60,
			wantCount: 17, wantFirst: "2026-03-09T14:00:00+01:00", wantLast: "2026-03-09T22:00:00+01:00",
		},
		{
			name: "owner New York, visitor Berlin after both changes (6h apart)", cfg: specDefaults(ny),
			date: "2026-03-30", visitor: "Europe/Berlin", duration: 60,
			wantCount: 17, wantFirst: "2026-03-30T15:00:00+02:00", wantLast: "2026-03-30T23:00:00+02:00",
		},
		{
			name: "owner Berlin, visitor New York on the EU fall-back Monday", cfg: specDefaults(berlin),
			date: "2026-10-26", visitor: "America/New_York", duration: 30,
			wantCount: 18, wantFirst: "2026-10-26T04:00:00-04:00", wantLast: "2026-10-26T12:30:00-04:00",
		},
		{
			name: "owner Berlin, visitor New York after the US change (6h apart)", cfg: specDefaults(berlin),
			date: "2026-11-02", visitor: "America/New_York", duration: 30,
			wantCount: 18, wantFirst: "2026-11-02T03:00:00-05:00", wantLast: "2026-11-02T11:30:00-05:00",
		},
		{
			name: "visitor Kolkata (+05:30): date spans two New York days", cfg: specDefaults(ny),
			date: "2026-03-10", visitor: "Asia/Kolkata", duration: 60,
			wantCount: 17, wantFirst: "2026-03-10T00:00:00+05:30", wantLast: "2026-03-10T23:30:00+05:30",
		},
		{
			name: "visitor Kathmandu (+05:45), owner Berlin", cfg: specDefaults(berlin),
			date: "2026-01-13", visitor: "Asia/Kathmandu", duration: 30,
			wantCount: 18, wantFirst: "2026-01-13T13:45:00+05:45", wantLast: "2026-01-13T22:15:00+05:45",
		},
		{
			name: "visitor Auckland: date spans Berlin Monday afternoon and Tuesday morning", cfg: specDefaults(berlin),
			date: "2026-01-13", visitor: "Pacific/Auckland", duration: 30,
			wantCount: 18, wantFirst: "2026-01-13T00:00:00+13:00", wantLast: "2026-01-13T23:30:00+13:00",
		},
		{
			name: "visitor Kiritimati (+14), owner New York", cfg: specDefaults(ny),
			date: "2026-01-14", visitor: "Pacific/Kiritimati", duration: 60,
			wantCount: 17, wantFirst: "2026-01-14T04:00:00+14:00", wantLast: "2026-01-14T12:00:00+14:00",
		},
		{
			name: "notice edge: a start exactly now+24h is offered", cfg: specDefaults(ny), date: "2026-03-10",
			visitor: "America/New_York", duration: 60, now: mustTime(t, "2026-03-09T09:00:00-04:00"),
			wantCount: 17, wantFirst: "2026-03-10T09:00:00-04:00",
		},
		{
			name: "notice edge: one nanosecond later it is not", cfg: specDefaults(ny), date: "2026-03-10",
			visitor: "America/New_York", duration: 60, now: mustTime(t, "2026-03-09T09:00:00-04:00").Add(time.Nanosecond),
			wantCount: 16, wantFirst: "2026-03-10T09:30:00-04:00",
		},
		{
			name: "advance edge: a start exactly now+AdvanceDays is offered, the next is not",
			cfg: func() folio.BookingConfig {
				c := specDefaults(ny)
				c.AdvanceDays, c.MinNotice = 1, 0
				return c
			}(),
			date: "2026-03-10", visitor: "America/New_York", duration: 60, now: mustTime(t, "2026-03-09T09:00:00-04:00"),
			want: []string{"2026-03-10T13:00Z"},
		},
		{
			name: "advance measured across the US spring-forward (elapsed days, not wall days)",
			cfg: func() folio.BookingConfig {
				c := specDefaults(ny)
				c.AdvanceDays, c.MinNotice = 3, 0
				return c
			}(),
			date: "2026-03-09", visitor: "America/New_York", duration: 60, now: mustTime(t, "2026-03-06T09:00:00-05:00"),
			// now+72h = 2026-03-09T14:00Z = 10:00 EDT.
			want: []string{"2026-03-09T13:00Z", "2026-03-09T13:30Z", "2026-03-09T14:00Z"},
		},
		{
			name: "busy touching before and after is no conflict; overlapping is", cfg: hours(ny, 9, 13),
			date: "2026-03-10", visitor: "America/New_York", duration: 60,
			busy: []folio.Interval{{Start: mustTime(t, "2026-03-10T10:00:00-04:00"), End: mustTime(t, "2026-03-10T11:00:00-04:00")}},
			want: []string{"2026-03-10T13:00Z", "2026-03-10T15:00Z", "2026-03-10T15:30Z", "2026-03-10T16:00Z"},
		},
		{
			name: "buffer of 15 minutes around busy time",
			cfg: func() folio.BookingConfig {
				c := hours(ny, 9, 13)
				c.Buffer = 15 * time.Minute
				return c
			}(),
			date: "2026-03-10", visitor: "America/New_York", duration: 60,
			busy: []folio.Interval{{Start: mustTime(t, "2026-03-10T10:00:00-04:00"), End: mustTime(t, "2026-03-10T11:00:00-04:00")}},
			want: []string{"2026-03-10T15:30Z", "2026-03-10T16:00Z"},
		},
		{
			name: "overlapping and unsorted busy intervals", cfg: hours(ny, 9, 13),
			date: "2026-03-10", visitor: "America/New_York", duration: 30,
			busy: []folio.Interval{
				{Start: mustTime(t, "2026-03-10T11:00:00-04:00"), End: mustTime(t, "2026-03-10T12:30:00-04:00")},
				{Start: mustTime(t, "2026-03-10T09:15:00-04:00"), End: mustTime(t, "2026-03-10T10:00:00-04:00")},
				{Start: mustTime(t, "2026-03-10T09:30:00-04:00"), End: mustTime(t, "2026-03-10T09:45:00-04:00")},
				{Start: mustTime(t, "2026-03-10T12:00:00-04:00"), End: mustTime(t, "2026-03-10T12:10:00-04:00")},
			},
			want: []string{"2026-03-10T14:00Z", "2026-03-10T14:30Z", "2026-03-10T16:30Z"},
		},
		{
			name: "business hours ending at midnight", cfg: hours(berlin, 22, 24), date: "2026-01-13",
			visitor: "Europe/Berlin", duration: 60,
			want: []string{"2026-01-13T21:00Z", "2026-01-13T21:30Z", "2026-01-13T22:00Z"},
		},
		{
			name: "duration not among the options", cfg: specDefaults(ny), date: "2026-03-10",
			visitor: "America/New_York", duration: 45, want: []string{},
		},
		{
			name: "Saturday", cfg: specDefaults(ny), date: "2026-03-14",
			visitor: "America/New_York", duration: 30, want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vloc := mustZone(t, tt.visitor)
			if tt.now.IsZero() {
				tt.now = mustDate(t, tt.date).utcMidnight().AddDate(0, 0, -7)
			}
			got := Slots(tt.cfg, mustDate(t, tt.date), vloc, tt.duration, tt.now, tt.busy)
			for _, s := range got {
				if s.Start.Location() != vloc || s.End.Location() != vloc {
					t.Errorf("slot %v not in the visitor's location", s.Start)
				}
				if s.Duration != tt.duration || s.End.Sub(s.Start) != minutes(tt.duration) {
					t.Errorf("slot %v: duration %d, span %v", s.Start, s.Duration, s.End.Sub(s.Start))
				}
				if !IsOffered(tt.cfg, s.Start, tt.duration, tt.now, tt.busy) {
					t.Errorf("IsOffered(%v) = false for a listed slot", s.Start)
				}
			}
			if tt.want != nil {
				if g := startsUTC(got); !slices.Equal(g, tt.want) {
					t.Fatalf("got %v, want %v", g, tt.want)
				}
				return
			}
			if len(got) != tt.wantCount {
				t.Fatalf("got %d slots %v, want %d", len(got), startsUTC(got), tt.wantCount)
			}
			if f := got[0].Start.Format(time.RFC3339); tt.wantFirst != "" && f != tt.wantFirst {
				t.Errorf("first = %s, want %s", f, tt.wantFirst)
			}
			if l := got[len(got)-1].Start.Format(time.RFC3339); tt.wantLast != "" && l != tt.wantLast {
				t.Errorf("last = %s, want %s", l, tt.wantLast)
			}
		})
	}
}

func TestIsOffered(t *testing.T) {
	t.Parallel()
	ny := mustZone(t, "America/New_York")
	cfg := specDefaults(ny)
	now := mustTime(t, "2026-03-01T00:00:00Z")
	busy := []folio.Interval{{Start: mustTime(t, "2026-03-10T10:00:00-04:00"), End: mustTime(t, "2026-03-10T11:00:00-04:00")}}
	tests := []struct {
		start    string
		duration int
		want     bool
	}{
		{"2026-03-10T09:00:00-04:00", 60, true},
		{"2026-03-10T14:00:00+01:00", 60, true}, // 09:00 EDT written with another offset
		{"2026-03-10T13:00:00Z", 30, true},
		{"2026-03-10T09:15:00-04:00", 30, false}, // off the grid
		{"2026-03-10T09:00:30-04:00", 30, false}, // off the grid by seconds
		{"2026-03-10T09:30:00-04:00", 60, false}, // overlaps busy
		{"2026-03-10T11:00:00-04:00", 60, true},  // touches busy
		{"2026-03-10T17:30:00-04:00", 60, false}, // ends after business hours
		{"2026-03-10T17:30:00-04:00", 30, true},
		{"2026-03-10T08:30:00-04:00", 30, false}, // before business hours
		{"2026-03-14T10:00:00-04:00", 30, false}, // Saturday
		{"2026-03-10T09:00:00-04:00", 45, false}, // not an option
		{"2026-05-01T09:00:00-04:00", 30, false}, // beyond 60 days
		{"2026-03-02T09:00:00-05:00", 30, true},  // Monday, 38h ahead of now
		{"2026-03-02T09:00:00-05:00", 60, true},  //
		{"2026-02-27T09:00:00-05:00", 30, false}, // in the past
	}
	for _, tt := range tests {
		t.Run(tt.start, func(t *testing.T) {
			t.Parallel()
			if got := IsOffered(cfg, mustTime(t, tt.start), tt.duration, now, busy); got != tt.want {
				t.Errorf("IsOffered(%s, %d) = %v, want %v", tt.start, tt.duration, got, tt.want)
			}
		})
	}
}

func TestConflicts(t *testing.T) {
	t.Parallel()
	at := func(hm string) time.Time { return mustTime(t, "2026-03-10T"+hm+":00Z") }
	busy := []folio.Interval{{Start: at("10:00"), End: at("11:00")}}
	tests := []struct {
		name       string
		start, end string
		buffer     time.Duration
		want       bool
	}{
		{"ends when busy starts", "09:00", "10:00", 0, false},
		{"starts when busy ends", "11:00", "12:00", 0, false},
		{"overlaps the start", "09:30", "10:30", 0, true},
		{"inside", "10:15", "10:45", 0, true},
		{"contains", "09:00", "12:00", 0, true},
		{"buffer reaches busy", "09:00", "10:00", time.Minute, true},
		{"buffer touches busy", "08:00", "09:45", 15 * time.Minute, false},
		{"buffer after", "11:10", "12:00", 10 * time.Minute, false},
		{"buffer after overlaps", "11:10", "12:00", 11 * time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Conflicts(busy, at(tt.start), at(tt.end), tt.buffer); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in string
		ok bool
	}{
		{"2026-03-08", true}, {"2028-02-29", true}, {"2026-02-29", false}, {"2026-13-01", false},
		{"2026-3-8", false}, {"2026-03-08T00:00", false}, {"", false}, {"+026-03-08", false}, {"2026-03-0８", false},
	}
	for _, tt := range tests {
		d, err := ParseDate(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("ParseDate(%q) error = %v, want ok %v", tt.in, err, tt.ok)
		}
		if err == nil && d.String() != tt.in {
			t.Errorf("ParseDate(%q).String() = %q", tt.in, d.String())
		}
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-03-08", "2026-02-29", "0000-01-01", "9999-12-31", "2026-1-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate(s)
		if err != nil {
			return
		}
		if d.String() != s {
			t.Fatalf("ParseDate(%q) round-trips to %q", s, d.String())
		}
	})
}

// propertyZones are the zones the property test draws owner and visitor from: every offset
// family (quarter and half hours), DST in both hemispheres, 30-minute and 2-hour DST shifts,
// midnight transitions, and the ±12/14 extremes.
var propertyZones = []string{
	"UTC", "America/New_York", "America/Chicago", "America/Denver", "America/Phoenix", "America/Los_Angeles",
	"America/Anchorage", "Pacific/Honolulu", "America/St_Johns", "America/Halifax", "America/Havana",
	"America/Santiago", "America/Asuncion", "America/Sao_Paulo", "America/Mexico_City", "Atlantic/Azores",
	"Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Berlin", "Europe/Helsinki", "Europe/Moscow",
	"Africa/Casablanca", "Africa/Cairo", "Africa/Lagos", "Asia/Jerusalem", "Asia/Beirut", "Asia/Tehran",
	"Asia/Dubai", "Asia/Kabul", "Asia/Kolkata", "Asia/Kathmandu", "Asia/Yangon", "Asia/Shanghai", "Asia/Tokyo",
	"Australia/Eucla", "Australia/Adelaide", "Australia/Sydney", "Australia/Lord_Howe", "Antarctica/Troll",
	"Pacific/Chatham", "Pacific/Auckland", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Etc/GMT+12",
}

// bruteOffered decides a candidate by the rules, checked minute by minute with nothing but
// time.Time's wall clock: an independent oracle for Slots.
func bruteOffered(cfg folio.BookingConfig, start time.Time, duration int, now time.Time, busy []folio.Interval) bool {
	w := start.In(cfg.Location)
	if w.Second() != 0 || w.Nanosecond() != 0 || !slices.ContainsFunc(cfg.Weekly[w.Weekday()].Ranges, func(r [2]int) bool {
		return bruteWithin(cfg, r, start, duration)
	}) {
		return false
	}
	if start.Before(now.Add(cfg.MinNotice)) {
		return false
	}
	if cfg.AdvanceDays > 0 && start.After(now.Add(time.Duration(cfg.AdvanceDays)*24*time.Hour)) {
		return false
	}
	return !Conflicts(busy, start, start.Add(minutes(duration)), cfg.Buffer)
}

// bruteWithin reports whether start is on range r's grid and every minute of the meeting shows
// a wall time in r on start's owner date.
func bruteWithin(cfg folio.BookingConfig, r [2]int, start time.Time, duration int) bool {
	w := start.In(cfg.Location)
	m := w.Hour()*60 + w.Minute()
	if m < r[0] || (m-r[0])%int(cfg.Step()/time.Minute) != 0 {
		return false
	}
	od := DateOf(w)
	for u := start; u.Before(start.Add(minutes(duration))); u = u.Add(time.Minute) {
		wu := u.In(cfg.Location)
		if mu := wu.Hour()*60 + wu.Minute(); DateOf(wu) != od || mu < r[0] || mu >= r[1] {
			return false
		}
	}
	return true
}

// randomConfig draws a configuration; a business day has one range of whole hours, or two
// ranges on the 5-minute grid (a lunch break), so grids that start off the hour are covered too.
func randomConfig(r *rand.Rand, owner *time.Location) folio.BookingConfig {
	var week [7]folio.DayHours
	for d := range week {
		switch r.IntN(3) {
		case 1:
			hs := r.IntN(23)
			week[d].Ranges = [][2]int{{hs * 60, (hs + 1 + r.IntN(24-hs)) * 60}}
		case 2:
			a := 5 * r.IntN(140)
			b := a + 5*(1+r.IntN(60))
			c := b + 5*(1+r.IntN(20))
			week[d].Ranges = [][2]int{{a, b}, {c, min(c+5*(1+r.IntN(100)), 24*60)}}
		}
	}
	steps := []int{5, 10, 15, 20, 30, 45, 60, 90}
	durs := []int{15, 30, 45, 60, 90, 120}
	return folio.BookingConfig{
		DurationOptions: []int{durs[r.IntN(len(durs))], durs[r.IntN(len(durs))]},
		Weekly:          week,
		Location:        owner,
		AdvanceDays:     r.IntN(90),
		MinNotice:       time.Duration(r.IntN(72)) * time.Hour,
		SlotStep:        time.Duration(steps[r.IntN(len(steps))]) * time.Minute,
		Buffer:          time.Duration([]int{0, 0, 5, 10, 15, 30}[r.IntN(6)]) * time.Minute,
	}
}

// TestSlotsProperties checks random configurations, zones and dates in 2026–2027 against the
// rules (soundness: every listed slot obeys them) and against bruteOffered (completeness:
// every start on a 5-minute UTC grid that the oracle accepts is listed).
func TestSlotsProperties(t *testing.T) {
	t.Parallel()
	zones := make([]*time.Location, len(propertyZones))
	for i, z := range propertyZones {
		zones[i] = mustZone(t, z)
	}
	iterations := 1500
	if testing.Short() {
		iterations = 200
	}
	r := rand.New(rand.NewPCG(20260308, 20261101))
	base := mustTime(t, "2026-01-01T00:00:00Z")
	for it := range iterations {
		owner := zones[r.IntN(len(zones))]
		visitor := zones[r.IntN(len(zones))]
		// Every owner zone appears with each pass through the list at least once.
		if it < len(zones) {
			owner = zones[it]
		}
		cfg := randomConfig(r, owner)
		duration := cfg.DurationOptions[r.IntN(2)]
		now := base.Add(time.Duration(r.Int64N(int64(700 * 24 * time.Hour)))).Truncate(time.Second)
		date := DateOf(now.In(visitor).AddDate(0, 0, r.IntN(95)-3))
		var busy []folio.Interval
		window := date.AnyZoneWindow()
		for range r.IntN(12) {
			s := window.Start.Add(time.Duration(r.Int64N(int64(window.End.Sub(window.Start)))))
			if r.IntN(2) == 0 {
				s = s.Truncate(15 * time.Minute)
			}
			busy = append(busy, folio.Interval{Start: s, End: s.Add(time.Duration(1+r.IntN(240)) * time.Minute)})
		}

		got := Slots(cfg, date, visitor, duration, now, busy)
		ctx := func() string {
			return strings.Join([]string{owner.String(), visitor.String(), date.String(), now.Format(time.RFC3339)}, " ")
		}
		listed := map[int64]bool{}
		for i, s := range got {
			if i > 0 && !got[i-1].Start.Before(s.Start) {
				t.Fatalf("%s: slots not strictly increasing at %v", ctx(), s.Start)
			}
			if s.Start.Location() != visitor || DateOf(s.Start) != date {
				t.Fatalf("%s: slot %v not on the visitor's date", ctx(), s.Start)
			}
			if !bruteOffered(cfg, s.Start, duration, now, busy) {
				t.Fatalf("%s: cfg %+v: listed slot %v breaks a rule", ctx(), cfg, s.Start)
			}
			if !IsOffered(cfg, s.Start, duration, now, busy) {
				t.Fatalf("%s: IsOffered(%v) = false", ctx(), s.Start)
			}
			listed[s.Start.Unix()] = true
		}
		for u := window.Start; u.Before(window.End); u = u.Add(5 * time.Minute) {
			if DateOf(u.In(visitor)) != date || listed[u.Unix()] {
				continue
			}
			if bruteOffered(cfg, u, duration, now, busy) {
				t.Fatalf("%s: cfg %+v: %v obeys every rule but is not listed", ctx(), cfg, u.In(owner))
			}
			if IsOffered(cfg, u, duration, now, busy) {
				t.Fatalf("%s: IsOffered(%v) = true for an unlisted start", ctx(), u.In(owner))
			}
		}
	}
}
