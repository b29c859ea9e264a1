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
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/foliohq/folio/internal/sqldb"
)

// accuracy: compare sampled breakdowns with their exact figures (-accuracy).
var accuracy bool

// generatorVersion names the generated data; change it whenever generate changes.
const generatorVersion = "gen-v2"

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
					os.Remove(sqldb.AnalyticsPath(path) + suffix)
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
