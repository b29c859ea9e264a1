package analyticsdb

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestVisitAttrCoverCountsEachDayOnce checks, for many ranges, that the days and periods of a
// cover, added and subtracted, count every day of the range exactly once and no other day.
func TestVisitAttrCoverCountsEachDayOnce(t *testing.T) {
	daysOf := func(period string) []string {
		// A month ("2026-04") or a part named by its first day; listed here from the calendar.
		var first, last time.Time
		if len(period) == 7 {
			first, _ = time.Parse("2006-01", period)
			last = first.AddDate(0, 1, -1)
		} else {
			first, _ = time.Parse(time.DateOnly, period)
			switch first.Day() {
			case 1, 8, 15:
				last = first.AddDate(0, 0, 6)
			case 22:
				last = time.Date(first.Year(), first.Month()+1, 0, 0, 0, 0, 0, time.UTC)
			default:
				t.Fatalf("%s is no period", period)
			}
		}
		var out []string
		for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
			out = append(out, d.Format(time.DateOnly))
		}
		return out
	}
	rng := rand.New(rand.NewPCG(3, 3))
	base := time.Date(2025, 12, 20, 0, 0, 0, 0, time.UTC)
	cases := [][2]time.Time{{time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC)}}
	for i := 0; i < 400; i++ {
		f := base.AddDate(0, 0, rng.IntN(120))
		cases = append(cases, [2]time.Time{f, f.AddDate(0, 0, rng.IntN(100))})
	}
	for _, c := range cases {
		from, to := c[0].Format(time.DateOnly), c[1].Format(time.DateOnly)
		cov := visitAttrCover(from, to)
		count := map[string]int{}
		for _, d := range cov.days {
			count[d]++
		}
		for _, d := range cov.minusDays {
			count[d]--
		}
		for _, p := range cov.periods {
			for _, d := range daysOf(p) {
				count[d]++
			}
		}
		for d, n := range count {
			in := d >= from && d <= to
			if in && n != 1 || !in && n != 0 {
				t.Fatalf("%s..%s: day %s counted %d times (cover %+v)", from, to, d, n, cov)
			}
		}
		for d := c[0]; !d.After(c[1]); d = d.AddDate(0, 0, 1) {
			if count[d.Format(time.DateOnly)] != 1 {
				t.Fatalf("%s..%s: day %s missing (cover %+v)", from, to, d.Format(time.DateOnly), cov)
			}
		}
	}
	// The benchmark's unaligned 82 days: April minus 1–4 April, May, June minus 26–30 June.
	if c := visitAttrCover("2026-04-05", "2026-06-25"); len(c.days) != 0 || !slices.Equal(c.periods, []string{"2026-04", "2026-05", "2026-06"}) ||
		len(c.minusDays) != 9 {
		t.Errorf("2026-04-05..2026-06-25 read as %+v", c)
	}
	// The benchmark's 90 days: April minus its first day, May, June.
	if c := visitAttrCover("2026-04-02", "2026-06-30"); len(c.days) != 0 || len(c.periods) != 3 || len(c.minusDays) != 1 {
		t.Errorf("2026-04-02..2026-06-30 read as %+v", c)
	}
}
