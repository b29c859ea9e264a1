// Command analytics measures folio's analytics on SQLite and PostgreSQL and prints each figure
// beside its goal:
//
//	go run ./bench/analytics [-engines sqlite,postgres] [-pageviews 10000000] [-days 90] [-events 200000] [-runs 15]
//
// Sustained ingestion: events/s through the real path — Collect (validation, bot check,
// normalisation, User-Agent and country enrichment, visitor hashing) into the bounded queue, and
// the batching writer that stores each batch and its rollups in one transaction — from the first
// event to the last row written. Producers back off while the queue is full, so the figure is
// what the writer sustains, not how fast events can be dropped. Goal: ≥ 30,000 events/s.
//
// Query latency: the work of GET /api/analytics (Service.Report) and of
// GET /api/analytics/breakdown for every dimension (Service.Breakdown), over a database holding
// 10,000,000 page views over 90 days with their visit attributes. Goal: p50 < 100 ms.
//
// The 10M-row database is generated once through the store's own batch write
// (analyticsdb.Store.WriteAnalytics, so rollups are built exactly as at ingest) and cached: a
// SQLite file under the user cache directory and a PostgreSQL schema (bench_analytics_<n>), both marked with
// the generator version so a changed generator regenerates. -regenerate forces it.
// PostgreSQL comes from -postgres or FOLIO_TEST_POSTGRES_URL; without either it is skipped.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// filteredCase is a breakdown of dim under filters, named by label.
type filteredCase struct {
	dim     string
	filters map[string]string
	label   string
}

// accuracy: compare sampled breakdowns with their exact figures (-accuracy).
var accuracy bool

// generatorVersion names the generated data; change it whenever generate changes.
const generatorVersion = "gen-v2"

// agents is the User-Agent mix of the ingestion run (desktop, phone, tablet; several browsers).
var agents = []string{
	"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
	"Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
}

func main() {
	engines := flag.String("engines", "sqlite,postgres", "engines to measure (postgres needs -postgres or FOLIO_TEST_POSTGRES_URL)")
	events := flag.Int("events", 200_000, "events to ingest in the ingestion run")
	pageviews := flag.Int("pageviews", 10_000_000, "page views stored for the query runs")
	days := flag.Int("days", 90, "days the stored page views span")
	runs := flag.Int("runs", 15, "runs per query")
	pgURL := flag.String("postgres", os.Getenv("FOLIO_TEST_POSTGRES_URL"), "PostgreSQL URL")
	cacheDir := flag.String("cache", "", "directory of the cached SQLite database (default: the user cache directory)")
	regenerate := flag.Bool("regenerate", false, "regenerate the cached data")
	pgSchema := flag.String("schema", "", "PostgreSQL schema of the query data (default: bench_analytics_<generator>_<n>_<days>); a copy of it, say, to try a migration")
	rawLimit := flag.Int("rawlimit", 0, "Options.RawLimit of the query runs (0: the default)")
	flag.BoolVar(&accuracy, "accuracy", false, "also compute each sampled breakdown exactly, once, and print the estimates' error")
	doIngest := flag.Bool("ingest", true, "run the ingestion measurement")
	doQueries := flag.Bool("queries", true, "run the query measurements")
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
	if *cacheDir == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			d = os.TempDir()
		}
		*cacheDir = filepath.Join(d, "folio-bench-analytics")
	}
	ctx := context.Background()
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("folio analytics benchmark — GOMAXPROCS=%d, %s/%s\n", runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)
	for _, engine := range strings.Split(*engines, ",") {
		switch engine {
		case "sqlite":
			fmt.Printf("\n== SQLite\n")
			tmp, err := os.MkdirTemp("", "folio-bench-analytics-")
			if err != nil {
				log.Fatal(err)
			}
			if *doIngest {
				runIngest(ctx, openSQLite(ctx, filepath.Join(tmp, "ingest.db")), loc, *events)
			}
			os.RemoveAll(tmp)
			if !*doQueries {
				continue
			}
			name := fmt.Sprintf("%s-%d-%d.db", generatorVersion, *pageviews, *days)
			path := filepath.Join(*cacheDir, name)
			if *regenerate {
				for _, suffix := range []string{"", "-wal", "-shm"} {
					os.Remove(path + suffix)
				}
			}
			db := openSQLite(ctx, path)
			runQueries(ctx, db, loc, *pageviews, *days, *runs, *rawLimit, path)
			db.Close()
		case "postgres":
			fmt.Printf("\n== PostgreSQL\n")
			if *pgURL == "" {
				fmt.Println("skipped: set -postgres or FOLIO_TEST_POSTGRES_URL")
				continue
			}
			if *doIngest {
				ingestSchema := "bench_analytics_ingest"
				resetSchema(ctx, *pgURL, ingestSchema)
				runIngest(ctx, openPostgres(ctx, *pgURL, ingestSchema), loc, *events)
				dropSchema(ctx, *pgURL, ingestSchema)
			}
			if !*doQueries {
				continue
			}
			schema := fmt.Sprintf("bench_analytics_%s_%d_%d", strings.ReplaceAll(generatorVersion, "-", "_"), *pageviews, *days)
			if *pgSchema != "" {
				schema = *pgSchema
			}
			if *regenerate {
				dropSchema(ctx, *pgURL, schema)
			}
			ensureSchema(ctx, *pgURL, schema)
			db := openPostgres(ctx, *pgURL, schema)
			mark := fmt.Sprintf("%s n=%d days=%d", generatorVersion, *pageviews, *days)
			if !generated(ctx, db, mark) {
				// Generate on SQLite through the store (cached), then bulk-load it with COPY.
				path := filepath.Join(*cacheDir, fmt.Sprintf("%s-%d-%d.db", generatorVersion, *pageviews, *days))
				src := openSQLite(ctx, path)
				if !generated(ctx, src, mark) {
					generateCached(ctx, src, loc, *pageviews, *days, mark, path)
				}
				t0 := time.Now()
				for _, t := range append(analyticsTables, "bench_meta") {
					if _, err := db.W.ExecContext(ctx, `DELETE FROM `+t); err != nil {
						log.Fatal(err)
					}
				}
				fmt.Printf("loading the generated data into %s with COPY\n", schema)
				copyToPostgres(ctx, src, db)
				src.Close()
				if _, err := db.W.ExecContext(ctx, `INSERT INTO bench_meta (mark) VALUES ($1)`, mark); err != nil {
					log.Fatal(err)
				}
				fmt.Printf("  loaded in %.0f s\n", time.Since(t0).Seconds())
			}
			runQueries(ctx, db, loc, *pageviews, *days, *runs, *rawLimit, "schema "+schema)
			db.Close()
		default:
			log.Fatalf("unknown engine %q", engine)
		}
	}
}

// processCPU is the user+system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// postgresCPU sums the CPU time of the local processes named postgres (the server runs on this
// machine); 0 when /proc cannot be read.
func postgresCPU() time.Duration {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var ticks int64
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open || s[open+1:end] != "postgres" {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 13 {
			continue
		}
		var u, st int64
		fmt.Sscan(f[11], &u)
		fmt.Sscan(f[12], &st)
		ticks += u + st
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// loadAverage is the 1-minute load average (the machine is shared), or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func endOfData(loc *time.Location) time.Time { return time.Date(2026, 6, 30, 23, 0, 0, 0, loc) }

func openSQLite(ctx context.Context, path string) *sqldb.DB {
	db, err := sqldb.Open(ctx, "sqlite:"+path, "")
	if err != nil {
		log.Fatal(err)
	}
	migrate(ctx, db)
	return db
}

// migrate applies db's missing migrations and says how long they took: over cached data, that
// is what a migration costs an upgrade.
func migrate(ctx context.Context, db *sqldb.DB) {
	t0 := time.Now()
	applied, err := db.Migrate(ctx)
	if err != nil {
		log.Fatal(err)
	}
	switch {
	case len(applied) > 3:
		fmt.Printf("  applied %d migrations (%s … %s) in %.1f s\n", len(applied), applied[0], applied[len(applied)-1], time.Since(t0).Seconds())
	case len(applied) > 0:
		fmt.Printf("  applied %s in %.1f s\n", strings.Join(applied, ", "), time.Since(t0).Seconds())
	}
}

func schemaURL(base, schema string) string {
	u, err := url.Parse(base)
	if err != nil {
		log.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func adminExec(ctx context.Context, base, stmt string) {
	db, err := sql.Open("pgx", base)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, stmt); err != nil {
		log.Fatalf("%s: %v", stmt, err)
	}
}

func resetSchema(ctx context.Context, base, schema string) {
	dropSchema(ctx, base, schema)
	ensureSchema(ctx, base, schema)
}
func dropSchema(ctx context.Context, base, schema string) {
	adminExec(ctx, base, `DROP SCHEMA IF EXISTS `+schema+` CASCADE`)
}
func ensureSchema(ctx context.Context, base, schema string) {
	adminExec(ctx, base, `CREATE SCHEMA IF NOT EXISTS `+schema)
}

func openPostgres(ctx context.Context, base, schema string) *sqldb.DB {
	db, err := sqldb.Open(ctx, schemaURL(base, schema), "")
	if err != nil {
		log.Fatal(err)
	}
	migrate(ctx, db)
	return db
}

// runIngest pushes n events through Service.Collect from four producers and prints the
// events/s from the first Collect until the last event is written.
func runIngest(ctx context.Context, db *sqldb.DB, loc *time.Location, n int) {
	defer db.Close()
	s, err := analytics.New(analyticsdb.New(db), db.Projects, analytics.Options{Location: loc, SiteURL: "https://folio.example", QueueSize: 65536})
	if err != nil {
		log.Fatal(err)
	}
	s.Start()
	paths := make([]string, 200)
	for i := range paths {
		paths[i] = fmt.Sprintf("/blog/post-%d", i)
	}
	refs := []string{"", "", "", "https://www.google.com/", "https://news.ycombinator.com/item?id=1", "https://t.co/x", "https://folio.example/", "https://github.com/x"}
	const producers = 4
	var dropped atomic.Int64
	var wg sync.WaitGroup
	ingested := make(chan struct{})
	cpu0, pg0 := processCPU(), postgresCPU()
	start := time.Now()
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(p), 1))
			for i := p; i < n; i += producers {
				v := rng.IntN(20000)
				in := &folio.CollectInput{Type: folio.CollectPageView, Path: paths[rng.IntN(len(paths))] + "?utm_source=bench&utm_campaign=c" + fmt.Sprint(v%7) + "&x=1",
					Title: "A post", Referrer: refs[rng.IntN(len(refs))]}
				if v%3 == 0 {
					in.VisitorID = fmt.Sprintf("visitor-%d", v)
				}
				if i%10 == 0 {
					in = &folio.CollectInput{Type: folio.CollectEvent, Path: "/contact", Name: folio.FunnelSteps[rng.IntN(6)], VisitorID: fmt.Sprintf("visitor-%d", v)}
				}
				// Public addresses spread over many networks, so the country lookup does real work.
				ip := fmt.Sprintf("%d.%d.%d.%d", 1+v%223, v/223%256, v%251, 1+v%250)
				for {
					out, err := s.Collect(ctx, in, ip, agents[v%len(agents)])
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
	// Meanwhile, a project is created every 50 ms: on SQLite it waits for the batch holding the
	// writer, so this is what the batch size costs the site's other writes during a flood.
	probeDone := make(chan struct{})
	var waits []time.Duration
	go func() {
		defer close(probeDone)
		title, desc, status, techs := "Probe", "A write during ingestion.", "published", []string{"Go"}
		for {
			select {
			case <-ingested:
				return
			case <-time.After(50 * time.Millisecond):
			}
			t0 := time.Now()
			if _, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: &title, Description: &desc, Technologies: &techs, Status: &status}); err != nil {
				log.Fatal(err)
			}
			waits = append(waits, time.Since(t0))
		}
	}()
	wg.Wait()
	if err := s.Close(ctx); err != nil {
		log.Fatal(err)
	}
	elapsed := time.Since(start)
	close(ingested)
	<-probeDone
	cpu, pgCPU := processCPU()-cpu0, postgresCPU()-pg0
	var pv, ev int
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_pageviews`).Scan(&pv)
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_events`).Scan(&ev)
	if pv+ev != n {
		log.Fatalf("stored %d page views + %d events, want %d", pv, ev, n)
	}
	fmt.Printf("ingestion: %d events through Collect → queue → batching writer (enrichment, visit split, rollups)\n", n)
	fmt.Printf("  sustained: %.0f events/s of wall time (goal ≥ 30000)  [queue-full retries while producers backed off: %d]\n", float64(n)/elapsed.Seconds(), dropped.Load())
	fmt.Printf("  anchor: this process used %.1f s of CPU for it over %.1f s of wall time (%.2f of the %d cores; load average %s):\n",
		cpu.Seconds(), elapsed.Seconds(), cpu.Seconds()/elapsed.Seconds(), runtime.NumCPU(), loadAverage())
	if len(waits) > 0 { // none when the run took less than 50 ms
		slices.Sort(waits)
		fmt.Printf("  a project created every 50 ms meanwhile (%d): p50 %.1f ms, p99 %.1f ms, max %.1f ms (batches of %d events, up to %d while behind)\n",
			len(waits), ms(waits[len(waits)/2]), ms(waits[len(waits)*99/100]), ms(waits[len(waits)-1]), analytics.DefaultBatchSize, analytics.BacklogBatches*analytics.DefaultBatchSize)
	}
	if db.Dialect == sqldb.Postgres {
		fmt.Printf("          PostgreSQL server processes used %.1f s of CPU meanwhile (every client's, this machine is shared): %.0f events per CPU-second of folio + server\n",
			pgCPU.Seconds(), float64(n)/(cpu+pgCPU).Seconds())
	} else {
		fmt.Printf("          %.0f events per CPU-second (SQLite runs inside the process)\n", float64(n)/cpu.Seconds())
	}
}

// generated reports whether db already holds the data of this generator version and size.
func generated(ctx context.Context, db *sqldb.DB, mark string) bool {
	db.W.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS bench_meta (mark TEXT NOT NULL)`)
	var got string
	db.R.QueryRowContext(ctx, `SELECT mark FROM bench_meta`).Scan(&got)
	return got == mark
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
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_daily_dims WHERE dim = 'event'`).Scan(&eventRows)
	if eventRows == 0 {
		if _, err := db.W.ExecContext(ctx, `INSERT INTO analytics_daily_dims (dim, day, value, visits, pageviews, bounces)
			SELECT 'event', day, name, COUNT(DISTINCT visitor_key), COUNT(*), 0 FROM analytics_events GROUP BY day, name`); err != nil {
			log.Fatal(err)
		}
	}
	var pv, visitors, dims, ev int
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_pageviews`).Scan(&pv)
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_visitors`).Scan(&visitors)
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_daily_dims`).Scan(&dims)
	db.R.QueryRow(`SELECT COUNT(*) FROM analytics_events`).Scan(&ev)
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

// generateCached fills db with freshly generated data and marks it.
func generateCached(ctx context.Context, db *sqldb.DB, loc *time.Location, n, days int, mark, where string) {
	for _, t := range append(analyticsTables, "bench_meta") {
		if _, err := db.W.ExecContext(ctx, `DELETE FROM `+t); err != nil {
			log.Fatal(err)
		}
	}
	rate, evs := generate(ctx, db, loc, n, days)
	if _, err := db.W.ExecContext(ctx, `INSERT INTO bench_meta (mark) VALUES ($1)`, mark); err != nil {
		log.Fatal(err)
	}
	db.W.ExecContext(ctx, `ANALYZE`)
	fmt.Printf("generated %d page views + %d events over %d days through analyticsdb.Store.WriteAnalytics at %.0f page views/s (cached in %s)\n", n, evs, days, rate, where)
}

// generate writes about n page views over the given days through
// analyticsdb.Store.WriteAnalytics: visits of 1–7 page views a few minutes apart by visitors drawn from a skewed pool of 1.5 million (so
// many return on other days), over 300 paths (skewed), with a source, campaign, country, device,
// browser and OS per visitor or visit drawn from realistic skewed mixes; about one event per 100
// page views. It returns page views/s and the events written.
func generate(ctx context.Context, db *sqldb.DB, loc *time.Location, n, days int) (float64, int) {
	rng := rand.New(rand.NewPCG(42, 42))
	zipfVisitor := rand.NewZipf(rng, 1.05, 20, 1_500_000)
	zipfPath := rand.NewZipf(rng, 1.2, 5, 299)
	zipfCountry := rand.NewZipf(rng, 1.3, 2, 39)
	type source struct{ name, host, uSource, uMedium, uCampaign string }
	sources := []source{{"Direct / None", "", "", "", ""}, {"Direct / None", "", "", "", ""}, {"Direct / None", "", "", "", ""},
		{"Google", "google.com", "", "", ""}, {"Google", "google.com", "", "", ""}, {"GitHub", "github.com", "", "", ""},
		{"Hacker News", "news.ycombinator.com", "", "", ""}, {"X (Twitter)", "t.co", "", "", ""}, {"LinkedIn", "linkedin.com", "", "", ""},
		{"Reddit", "reddit.com", "", "", ""}, {"DuckDuckGo", "duckduckgo.com", "", "", ""}, {"Bing", "bing.com", "", "", ""},
		{"newsletter", "", "newsletter", "email", "spring-launch"}, {"newsletter", "", "newsletter", "email", "monthly-digest"},
		{"mastodon", "", "mastodon", "social", "talk-2026"}}
	for i := 0; i < 40; i++ {
		h := fmt.Sprintf("blog%d.example.org", i)
		sources = append(sources, source{h, h, "", "", ""})
	}
	countries := strings.Fields("US DE GB FR IN NL CA BR JP ES IT PL SE AU CH AT BE DK FI NO IE PT CZ RO UA TR KR CN SG IL MX AR CL CO ZA NG EG NZ ZZ HU")
	type sw struct{ device, browser, bv, os, ov string }
	software := []sw{{"desktop", "Chrome", "131", "Windows", "10"}, {"desktop", "Chrome", "130", "macOS", "10"}, {"desktop", "Firefox", "128", "Linux", ""},
		{"desktop", "Safari", "17", "macOS", "10"}, {"desktop", "Edge", "131", "Windows", "10"}, {"mobile", "Safari", "17", "iOS", "17"},
		{"mobile", "Chrome", "131", "Android", "14"}, {"mobile", "Safari", "18", "iOS", "18"}, {"tablet", "Safari", "16", "iOS", "16"},
		{"mobile", "Samsung Browser", "26", "Android", "13"}, {"desktop", "Firefox", "132", "Windows", "11"}}
	goals := []string{"signup", "download_cv", "contact_sent", "booking_completed", "outbound_github"}
	first := endOfData(loc).AddDate(0, 0, -(days - 1))
	perDay := (n + days - 1) / days
	start := time.Now()
	written, evWritten := 0, 0
	const batchSize = 5000
	batch := make([]folio.AnalyticsPageView, 0, batchSize)
	var evBatch []folio.AnalyticsEvent
	store := analyticsdb.New(db)
	flush := func() {
		if err := store.WriteAnalytics(ctx, batch, evBatch); err != nil {
			log.Fatal(err)
		}
		written += len(batch)
		evWritten += len(evBatch)
		batch, evBatch = batch[:0], evBatch[:0]
	}
	for d := 0; d < days && written+len(batch) < n; d++ {
		y, m, dd := first.AddDate(0, 0, d).Date()
		dayStart := time.Date(y, m, dd, 0, 0, 0, 0, loc)
		day := dayStart.Format(time.DateOnly)
		var pvs []folio.AnalyticsPageView
		var evs []folio.AnalyticsEvent
		for len(pvs) < perDay {
			vn := zipfVisitor.Uint64()
			visitor := fmt.Sprintf("c%021d", vn)
			t := dayStart.Add(time.Duration(rng.IntN(22*3600)) * time.Second)
			src := sources[rng.IntN(len(sources))]
			s := software[vn%uint64(len(software))]
			attrs := folio.VisitAttrs{Source: src.name, Referrer: src.host, UTMSource: src.uSource, UTMMedium: src.uMedium, UTMCampaign: src.uCampaign,
				Country: countries[(vn*7+uint64(zipfCountry.Uint64()))%uint64(len(countries))], Device: s.device, Browser: s.browser,
				BrowserVersion: s.bv, OS: s.os, OSVersion: s.ov}
			ref := src.host
			for k := 1 + rng.IntN(7); k > 0; k-- {
				p := fmt.Sprintf("/page/%d", zipfPath.Uint64())
				pvs = append(pvs, folio.AnalyticsPageView{At: t, Day: day, VisitorKey: visitor, Path: p, Title: "Title " + p, Referrer: ref, Attrs: attrs})
				if rng.IntN(100) == 0 {
					evs = append(evs, folio.AnalyticsEvent{At: t, Day: day, VisitorKey: visitor, Name: goals[rng.IntN(len(goals))], Path: p, Props: "{}"})
				}
				ref = ""
				t = t.Add(time.Duration(30+rng.IntN(400)) * time.Second)
			}
		}
		sort.Slice(pvs, func(i, j int) bool { return pvs[i].At.Before(pvs[j].At) })
		sort.Slice(evs, func(i, j int) bool { return evs[i].At.Before(evs[j].At) })
		ei := 0
		for _, pv := range pvs {
			batch = append(batch, pv)
			for ei < len(evs) && !evs[ei].At.After(pv.At) && len(evBatch) < batchSize {
				evBatch = append(evBatch, evs[ei])
				ei++
			}
			if len(batch) == cap(batch) {
				flush()
			}
		}
		evBatch = append(evBatch, evs[ei:]...)
		if d%10 == 9 {
			fmt.Fprintf(os.Stderr, "  generated %d/%d page views (%.0f/s)\n", written, n, float64(written)/time.Since(start).Seconds())
		}
	}
	flush()
	return float64(written) / time.Since(start).Seconds(), evWritten
}
