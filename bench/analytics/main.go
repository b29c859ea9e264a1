// Command analytics measures folio's analytics on SQLite and prints two figures:
//
//	go run ./bench/analytics [-events 200000] [-pageviews 1000000] [-days 90] [-runs 40]
//
// Sustained ingestion: events/s through the real path — Collect (validation, bot check,
// normalisation, visitor hashing) into the bounded queue, and the batching writer that stores
// each batch and its rollups in one transaction — from the first event to the last row written.
// Producers back off while the queue is full, so the figure is what the writer sustains, not how
// fast events can be dropped. Goal: ≥ 10,000 events/s.
//
// Report latency: the work of GET /api/analytics (Service.Report) over a database holding
// 1,000,000 page views over 90 days, generated through the same batch write
// (sqldb.WriteAnalytics). Goal: p50 < 50 ms.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/sqldb"
)

const browserUA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

func main() {
	events := flag.Int("events", 200_000, "events to ingest in the ingestion run")
	pageviews := flag.Int("pageviews", 1_000_000, "page views stored for the report run")
	days := flag.Int("days", 90, "days the stored page views span")
	runs := flag.Int("runs", 40, "report runs per range")
	dir := flag.String("dir", "", "directory for the SQLite files (default: a temporary one)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "folio-bench-analytics-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	ctx := context.Background()
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("folio analytics benchmark — SQLite, GOMAXPROCS=%d, %s/%s\n\n", runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)

	rate, dropped := ingest(ctx, *dir+"/ingest", loc, *events)
	fmt.Printf("ingestion: %d events in the real path (Collect → queue → batching writer → SQLite)\n", *events)
	fmt.Printf("  sustained: %.0f events/s (goal ≥ 10000)  [queue-full drops while producers backed off: %d]\n\n", rate, dropped)

	db := openDB(ctx, *dir+"/report")
	defer db.Close()
	genRate := generate(ctx, db, loc, *pageviews, *days)
	fmt.Printf("report data: %d page views over %d days written through sqldb.WriteAnalytics at %.0f page views/s\n", *pageviews, *days, genRate)
	var n int
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_pageviews`).Scan(&n)
	var visitors, pages, uniques int
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_visitors`).Scan(&visitors)
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_daily_pages`).Scan(&pages)
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_daily_uniques`).Scan(&uniques)
	fmt.Printf("  stored: %d page views by %d visitors; rollup rows: %d day×path, %d day×previous-day\n", n, visitors, pages, uniques)

	s, err := analytics.New(db, analytics.Options{Location: loc, Now: func() time.Time { return endOfData(loc, *days) }})
	if err != nil {
		log.Fatal(err)
	}
	end := endOfData(loc, *days).Format(time.DateOnly)
	for _, rg := range []struct{ name, start string }{
		{fmt.Sprintf("whole %d days", *days), endOfData(loc, *days).AddDate(0, 0, -(*days - 1)).Format(time.DateOnly)},
		{"default 30 days", ""},
	} {
		r, err := s.ParseRange(rg.start, end)
		if err != nil {
			log.Fatal(err)
		}
		var lat []time.Duration
		var rep *folio.Analytics
		for i := 0; i < *runs+1; i++ {
			t0 := time.Now()
			rep, err = s.Report(ctx, r)
			if err != nil {
				log.Fatal(err)
			}
			if i > 0 { // the first run warms the page cache
				lat = append(lat, time.Since(t0))
			}
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		fmt.Printf("report latency, %s (%s..%s: %d page views, %d visits, %d unique): p50 %.1f ms, p95 %.1f ms (goal p50 < 50 ms)\n",
			rg.name, r.From, r.To, rep.PageViews.Total, rep.Visitors.Total, rep.Visitors.Unique,
			ms(lat[len(lat)/2]), ms(lat[len(lat)*95/100]))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func endOfData(loc *time.Location, days int) time.Time {
	return time.Date(2026, 6, 30, 23, 0, 0, 0, loc)
}

func openDB(ctx context.Context, dir string) *sqldb.DB {
	db, err := sqldb.Open(ctx, "", dir)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := db.Migrate(ctx); err != nil {
		log.Fatal(err)
	}
	return db
}

// ingest pushes n events through Service.Collect from four producers and returns the events/s
// from the first Collect until the last event is written.
func ingest(ctx context.Context, dir string, loc *time.Location, n int) (float64, int64) {
	db := openDB(ctx, dir)
	defer db.Close()
	s, err := analytics.New(db, analytics.Options{Location: loc, SiteURL: "https://folio.example", QueueSize: 65536})
	if err != nil {
		log.Fatal(err)
	}
	s.Start()
	paths := make([]string, 200)
	for i := range paths {
		paths[i] = fmt.Sprintf("/blog/post-%d", i)
	}
	refs := []string{"", "", "", "https://www.google.com/", "https://news.ycombinator.com/item?id=1", "https://t.co/x", "https://folio.example/"}
	const producers = 4
	var dropped atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(p), 1))
			for i := p; i < n; i += producers {
				v := rng.IntN(20000)
				in := &folio.CollectInput{Type: folio.CollectPageView, Path: paths[rng.IntN(len(paths))] + "?utm_source=bench&x=1",
					Title: "A post", Referrer: refs[rng.IntN(len(refs))]}
				if v%3 == 0 {
					in.VisitorID = fmt.Sprintf("visitor-%d", v)
				}
				if i%10 == 0 {
					in = &folio.CollectInput{Type: folio.CollectEvent, Path: "/contact", Name: folio.FunnelSteps[rng.IntN(6)], VisitorID: fmt.Sprintf("visitor-%d", v)}
				}
				for {
					out, err := s.Collect(ctx, in, fmt.Sprintf("198.51.%d.%d", v/250, v%250), browserUA)
					if err != nil {
						log.Fatal(err)
					}
					if out != analytics.Full {
						break
					}
					dropped.Add(1)
					time.Sleep(200 * time.Microsecond)
				}
			}
		}(p)
	}
	wg.Wait()
	if err := s.Close(ctx); err != nil {
		log.Fatal(err)
	}
	elapsed := time.Since(start)
	var pv, ev int
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_pageviews`).Scan(&pv)
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_events`).Scan(&ev)
	if pv+ev != n {
		log.Fatalf("stored %d page views + %d events, want %d", pv, ev, n)
	}
	return float64(n) / elapsed.Seconds(), dropped.Load()
}

// generate writes about n page views over the given days through sqldb.WriteAnalytics: visits of
// 1–7 page views a few minutes apart, by visitors drawn from a skewed pool (so many return on
// other days), over 300 paths (skewed) and 30 referrers.
func generate(ctx context.Context, db *sqldb.DB, loc *time.Location, n, days int) float64 {
	rng := rand.New(rand.NewPCG(42, 42))
	zipfVisitor := rand.NewZipf(rng, 1.1, 50, 150_000)
	zipfPath := rand.NewZipf(rng, 1.2, 5, 299)
	refs := make([]string, 30)
	for i := range refs {
		refs[i] = fmt.Sprintf("ref%d.example", i)
	}
	first := endOfData(loc, days).AddDate(0, 0, -(days - 1))
	perDay := (n + days - 1) / days
	start := time.Now()
	written := 0
	batch := make([]sqldb.AnalyticsPageView, 0, 2000)
	flush := func() {
		if err := db.WriteAnalytics(ctx, batch, nil); err != nil {
			log.Fatal(err)
		}
		written += len(batch)
		batch = batch[:0]
	}
	for d := 0; d < days; d++ {
		y, m, dd := first.AddDate(0, 0, d).Date()
		dayStart := time.Date(y, m, dd, 0, 0, 0, 0, loc)
		day := dayStart.Format(time.DateOnly)
		var pvs []sqldb.AnalyticsPageView
		for len(pvs) < perDay {
			visitor := fmt.Sprintf("c%021d", zipfVisitor.Uint64())
			t := dayStart.Add(time.Duration(rng.IntN(22*3600)) * time.Second)
			ref := ""
			if rng.IntN(10) < 3 {
				ref = refs[rng.IntN(len(refs))]
			}
			for k := 1 + rng.IntN(7); k > 0; k-- {
				p := fmt.Sprintf("/page/%d", zipfPath.Uint64())
				pvs = append(pvs, sqldb.AnalyticsPageView{At: t, Day: day, VisitorKey: visitor, Path: p, Title: "Title " + p, Referrer: ref})
				ref = ""
				t = t.Add(time.Duration(30+rng.IntN(400)) * time.Second)
			}
		}
		sort.Slice(pvs, func(i, j int) bool { return pvs[i].At.Before(pvs[j].At) })
		for _, pv := range pvs {
			batch = append(batch, pv)
			if len(batch) == cap(batch) {
				flush()
			}
		}
	}
	flush()
	return float64(written) / time.Since(start).Seconds()
}
