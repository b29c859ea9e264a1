package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"sort"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// filteredCase is a breakdown of dim under filters, named by label.
type filteredCase struct {
	dim     string
	filters map[string]string
	label   string
}

func runQueries(ctx context.Context, db *sqldb.DB, loc *time.Location, n, days, runs, rawLimit int, where string) {
	mark := fmt.Sprintf("%s n=%d days=%d", generatorVersion, n, days)
	if !generated(ctx, db, mark) {
		generateCached(ctx, db, loc, n, days, mark, where)
	} else {
		fmt.Printf("using the cached %d page views over %d days (%s)\n", n, days, where)
	}
	// A cache generated before the event rollup existed gets it the way migration 0015 gives
	// existing installs their rows.
	var eventRows int
	db.Analytics().R.QueryRow(`SELECT COUNT(*) FROM analytics_daily_dims WHERE dim = 'event'`).Scan(&eventRows)
	if eventRows == 0 {
		if _, err := db.Analytics().W.ExecContext(ctx, `INSERT INTO analytics_daily_dims (dim, day, value, visits, pageviews, bounces)
			SELECT 'event', day, name, COUNT(DISTINCT visitor_key), COUNT(*), 0 FROM analytics_events GROUP BY day, name`); err != nil {
			log.Fatal(err)
		}
	}
	var pv, visitors, dims, ev int
	db.Analytics().R.QueryRow(`SELECT COUNT(*) FROM analytics_pageviews`).Scan(&pv)
	db.Analytics().R.QueryRow(`SELECT COUNT(*) FROM analytics_visitors`).Scan(&visitors)
	db.Analytics().R.QueryRow(`SELECT COUNT(*) FROM analytics_daily_dims`).Scan(&dims)
	db.Analytics().R.QueryRow(`SELECT COUNT(*) FROM analytics_events`).Scan(&ev)
	fmt.Printf("  stored: %d page views and %d events by %d visitors; %d day×dimension×value rollup rows\n", pv, ev, visitors, dims)

	end := endOfData(loc)
	s, err := analytics.New(analyticsdb.New(db), db.Projects, analytics.Options{Location: loc, Now: func() time.Time { return end }, RawLimit: rawLimit})
	if err != nil {
		log.Fatal(err)
	}
	exact, err := analytics.New(analyticsdb.New(db), db.Projects, analytics.Options{Location: loc, Now: func() time.Time { return end }, RawLimit: math.MaxInt})
	if err != nil {
		log.Fatal(err)
	}
	endDay := end.Format(time.DateOnly)
	whole, _ := s.ParseRange(end.AddDate(0, 0, -(days-1)).Format(time.DateOnly), endDay)
	last30, _ := s.ParseRange("", endDay)
	oneDay, _ := s.ParseRange(endDay, endDay)
	measureN := func(runs int, name string, f func() (string, error)) {
		var lat []time.Duration
		var info string
		for i := 0; i < runs+1; i++ {
			t0 := time.Now()
			out, err := f()
			if err != nil {
				log.Fatalf("%s: %v", name, err)
			}
			if i > 0 { // the first run warms the caches
				lat = append(lat, time.Since(t0))
			}
			info = out
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		verdict := "ok"
		if lat[len(lat)/2] >= 100*time.Millisecond {
			verdict = "OVER GOAL"
		}
		fmt.Printf("  %-52s p50 %8.1f ms  p95 %8.1f ms  (goal p50 < 100 ms: %s, %d runs)  %s\n", name, ms(lat[len(lat)/2]), ms(lat[min(len(lat)-1, len(lat)*95/100)]), verdict, runs, info)
	}
	measure := func(name string, f func() (string, error)) { measureN(runs, name, f) }
	for _, rg := range []struct {
		name string
		r    analytics.Range
	}{{fmt.Sprintf("%d days", days), whole}, {"30 days", last30}} {
		measure("report, "+rg.name, func() (string, error) {
			rep, err := s.Report(ctx, rg.r)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("[%d page views, %d visits, %d unique]", rep.PageViews.Total, rep.Visitors.Total, rep.Visitors.Unique), nil
		})
	}
	measure(fmt.Sprintf("report, %d days, compare=previous", days), func() (string, error) {
		_, err := s.Report(ctx, whole, true)
		return "", err
	})
	for _, dim := range analytics.Dimensions {
		measure(fmt.Sprintf("breakdown %s, %d days", dim, days), func() (string, error) {
			b, err := s.Breakdown(ctx, analytics.BreakdownParams{Dimension: dim, Range: whole, Page: 1, Limit: 10})
			if err != nil {
				return "", err
			}
			top := ""
			if len(b.Rows) > 0 {
				top = fmt.Sprintf(", top %q %d visits", b.Rows[0].Value, b.Rows[0].Visits)
			}
			return fmt.Sprintf("[%d values%s, exact visitors %v]", b.Total, top, b.VisitorsExact), nil
		})
	}
	measure(fmt.Sprintf("breakdown source, %d days, compare=previous", days), func() (string, error) {
		_, err := s.Breakdown(ctx, analytics.BreakdownParams{Dimension: "source", Range: whole, Page: 1, Limit: 10, Compare: true})
		return "", err
	})
	for _, dim := range []string{"page", "source"} {
		measure(fmt.Sprintf("breakdown %s, 1 day", dim), func() (string, error) {
			b, err := s.Breakdown(ctx, analytics.BreakdownParams{Dimension: dim, Range: oneDay, Page: 1, Limit: 10})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("[%d values, exact visitors %v]", b.Total, b.VisitorsExact), nil
		})
	}
	// measureFiltered measures one filtered breakdown over a range; info describes its answer.
	measureFiltered := func(c filteredCase, rgName string, r analytics.Range, info func(b *folio.Breakdown, top string) string) analytics.BreakdownParams {
		p := analytics.BreakdownParams{Dimension: c.dim, Range: r, Page: 1, Limit: 10, Filters: c.filters}
		measure(fmt.Sprintf("breakdown %s, %s, %s", c.dim, c.label, rgName), func() (string, error) {
			b, err := s.Breakdown(ctx, p)
			if err != nil {
				return "", err
			}
			top := ""
			if len(b.Rows) > 0 {
				top = fmt.Sprintf(", top %q %d visits %d page views", b.Rows[0].Value, b.Rows[0].Visits, b.Rows[0].PageViews)
			}
			return info(b, top), nil
		})
		return p
	}
	// Breakdowns that read raw page views: a page, entry or exit page or event involved, with
	// filters. Above RawLimit page views they read a sample of the visitors (migration 0023).
	for _, rg := range []struct {
		name string
		r    analytics.Range
	}{{"1 day", oneDay}, {"30 days", last30}, {fmt.Sprintf("%d days", days), whole}} {
		for _, c := range []filteredCase{
			{"page", map[string]string{"country": "US", "device": "mobile"}, "country=US&device=mobile"},
			{"entry_page", map[string]string{"source": "Google"}, "source=Google"},
			{"exit_page", map[string]string{"device": "mobile"}, "device=mobile"},
			{"event", map[string]string{"country": "US"}, "country=US"},
			{"source", map[string]string{"page": "/page/3"}, "page=/page/3"},
			{"country", map[string]string{"event": "signup"}, "event=signup"},
		} {
			p := measureFiltered(c, rg.name, rg.r, func(b *folio.Breakdown, top string) string {
				how := "exact"
				if b.SampleRate > 0 {
					how = fmt.Sprintf("sample 1/%.0f", 1/b.SampleRate)
				}
				return fmt.Sprintf("[%d values%s, %s]", b.Total, top, how)
			})
			if accuracy && rg.name != "1 day" {
				b, err := s.Breakdown(ctx, p)
				if err != nil {
					log.Fatal(err)
				}
				t0 := time.Now()
				ex, err := exact.Breakdown(ctx, p)
				if err != nil {
					log.Fatal(err)
				}
				fmt.Printf("    exact in %.0f ms: %s\n", ms(time.Since(t0)), sampleError(b, ex))
			}
		}
	}
	// Breakdowns of a visit attribute filtered by visit attributes: above RawLimit page views from
	// analytics_period_visit_attrs (migration 0019) for whole months and parts of months and
	// analytics_daily_visit_attrs (migration 0018) for the other days. The last range ends and
	// starts inside parts of months, so it reads more single days.
	unaligned, _ := s.ParseRange(end.AddDate(0, 0, -(days-1)+3).Format(time.DateOnly), end.AddDate(0, 0, -5).Format(time.DateOnly))
	for _, rg := range []struct {
		name string
		r    analytics.Range
	}{{"1 day", oneDay}, {fmt.Sprintf("%d days", days), whole}, {fmt.Sprintf("%d days %s..%s", days-8, unaligned.From[5:], unaligned.To[5:]), unaligned}} {
		for _, c := range []filteredCase{
			{"source", map[string]string{"country": "US", "device": "mobile"}, "country=US&device=mobile"},
			{"country", map[string]string{"source": "Google"}, "source=Google"},
			{"browser", map[string]string{"device": "mobile"}, "device=mobile"},
			{"date", map[string]string{"utm_campaign": "spring-launch"}, "utm_campaign=spring-launch"},
		} {
			measureFiltered(c, rg.name, rg.r, func(b *folio.Breakdown, top string) string {
				return fmt.Sprintf("[%d values%s, exact visitors %v]", b.Total, top, b.VisitorsExact)
			})
		}
	}
	measure("realtime", func() (string, error) {
		rt, err := s.Realtime(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("[%d visitors]", rt.Visitors), nil
	})
}

// sampleError compares the top rows of a sampled breakdown with the exact ones: the largest
// relative error of visits (events for event) among them, and how many of the exact top rows the
// sample's top rows hold.
func sampleError(sampled, exact *folio.Breakdown) string {
	figure := func(r folio.BreakdownRow) int {
		if r.Events != nil {
			return *r.Events
		}
		return r.Visits
	}
	want := map[string]int{}
	for _, r := range exact.Rows {
		want[r.Value] = figure(r)
	}
	worst, same := 0.0, 0
	for _, r := range sampled.Rows {
		w, ok := want[r.Value]
		if !ok {
			continue
		}
		same++
		if w > 0 {
			worst = max(worst, math.Abs(float64(figure(r)-w))/float64(w))
		}
	}
	return fmt.Sprintf("top %d rows: %d of them in the exact top %d, largest error of visits/events %.1f%%", len(sampled.Rows), same, len(exact.Rows), 100*worst)
}
