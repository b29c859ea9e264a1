// Package slots benchmarks slot listing (GET /api/schedule/available without HTTP): every day
// of a 60-day window against a busy calendar. Run: go test -bench . -benchmem ./bench/slots
package slots

import (
	"math/rand/v2"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/slots"
)

const days = 60

type fixture struct {
	cfg     folio.BookingConfig
	visitor *time.Location
	now     time.Time
	dates   []slots.Date
	busy    []folio.Interval   // the whole calendar
	perDay  [][]folio.Interval // what FreeBusy returns for each date's slots.BusyWindow
}

// newFixture builds the default booking configuration (New York, 9–18 Mon–Fri, 30/60 min, 24h
// notice, 60 days ahead) and a calendar with 8 meetings of 30–90 minutes on every business day.
func newFixture(b *testing.B) fixture {
	owner, err := time.LoadLocation("America/New_York")
	if err != nil {
		b.Fatal(err)
	}
	visitor, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		b.Fatal(err)
	}
	f := fixture{
		cfg: folio.BookingConfig{
			DurationOptions: []int{30, 60}, Weekly: folio.BusinessHours(9, 18, 1, 2, 3, 4, 5), Location: owner,
			AdvanceDays: 60, MinNotice: 24 * time.Hour, SlotStep: 30 * time.Minute, Buffer: 10 * time.Minute,
		},
		visitor: visitor,
		now:     time.Date(2026, 2, 20, 15, 4, 5, 0, owner), // the window spans the US and EU DST changes
	}
	r := rand.New(rand.NewPCG(1, 2))
	start := slots.DateOf(f.now.In(visitor))
	for i := -1; i <= days+1; i++ {
		d := start.AddDays(i)
		if i >= 0 && i < days {
			f.dates = append(f.dates, d)
		}
		if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			continue
		}
		for range 8 {
			s := time.Date(d.Year, d.Month, d.Day, 8+r.IntN(10), 15*r.IntN(4), 0, 0, owner)
			f.busy = append(f.busy, folio.Interval{Start: s, End: s.Add(time.Duration(30+15*r.IntN(5)) * time.Minute)})
		}
	}
	for _, d := range f.dates {
		w := slots.BusyWindow(f.cfg, d)
		var in []folio.Interval
		for _, iv := range f.busy {
			if iv.Overlaps(w) {
				in = append(in, iv)
			}
		}
		f.perDay = append(f.perDay, in)
	}
	return f
}

// BenchmarkSlotsBusy60Days lists the slots of each of the 60 days, each with the busy time the
// provider returns for that day's window (as the service does). One op = 60 listings.
func BenchmarkSlotsBusy60Days(b *testing.B) {
	f := newFixture(b)
	b.ReportAllocs()
	offered := 0
	for b.Loop() {
		for i, d := range f.dates {
			offered += len(slots.Slots(f.cfg, d, f.visitor, 30, f.now, f.perDay[i]))
		}
	}
	b.ReportMetric(float64(days*b.N)/b.Elapsed().Seconds(), "listings/s")
	b.ReportMetric(float64(offered)/float64(b.N), "slots/op")
}

// BenchmarkSlotsBusy60DaysWholeCalendar passes the whole 60-day calendar to every listing:
// the cost of a provider that cannot narrow its answer.
func BenchmarkSlotsBusy60DaysWholeCalendar(b *testing.B) {
	f := newFixture(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range f.dates {
			slots.Slots(f.cfg, d, f.visitor, 30, f.now, f.busy)
		}
	}
	b.ReportMetric(float64(days*b.N)/b.Elapsed().Seconds(), "listings/s")
}
