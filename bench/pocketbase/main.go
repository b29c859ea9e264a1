// Command pocketbase measures folio against its in-run anchors on loopback and prints same-run
// ratios (the goals of docs/performance.md, "Figures"):
//
//   - GET /api/projects?limit=20 from the response cache vs a bare net/http handler serving the
//     same bytes (goal ≥ 0.9), and with the cache off vs a bare handler that reads the same 20
//     rows from the same SQLite file and encodes them per request (goal ≥ 0.8);
//   - POST /api/projects on SQLite vs PocketBase's record create (goal ≥ 1.5) and vs a bare
//     handler doing one SQLite insert (goal ≥ 0.7); on PostgreSQL vs a bare pgx insert handler
//     (goal ≥ 0.7; skipped without FOLIO_TEST_POSTGRES_URL);
//   - resident memory of folio and PocketBase idle after start with the same 20 records.
//
// Every server runs as its own process (folio from `go build ./cmd/folio`, PocketBase from
// bench/pocketbase/install.sh, the bare handlers from this program re-executed), so none shares
// a Go runtime with the load generator. Logs are off everywhere (folio LOG_LEVEL=warn, PocketBase
// logs.maxDays=0) and folio's limits are raised to 10^9 so load is served, not answered 429.
// Each figure is the median of -runs runs, the targets alternating within each run.
//
//	go run ./bench/pocketbase [-duration 5s] [-runs 3] [-conns 8,64]
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foliohq/folio/bench/internal/procstat"
	"github.com/foliohq/folio/bench/loadgen"
)

var (
	duration = flag.Duration("duration", 5*time.Second, "measured time per run and target")
	warmup   = flag.Duration("warmup", time.Second, "warm-up per run and target")
	runs     = flag.Int("runs", 3, "alternated runs per figure (the median is printed)")
	connsArg = flag.String("conns", "8,64", "connection counts")
	pbPath   = flag.String("pocketbase", "", "PocketBase binary (default: built and cached by bench/pocketbase/install.sh)")
	pgURL    = flag.String("postgres", os.Getenv("FOLIO_TEST_POSTGRES_URL"), "PostgreSQL URL for the PostgreSQL write figure (empty skips it)")
	only     = flag.String("only", "", "comma list of sections to run: cached,uncached,write,postgres,rss (default all)")

	serveBare = flag.String("serve-bare", "", "internal: serve one bare handler (bytes|sqlite-list|sqlite-insert|pgx-insert) on a loopback port")
	bareArg   = flag.String("bare-arg", "", "internal: the bare handler's file or DSN")
)

// createBody is the project every write figure creates (PocketBase gets the same fields).
const createBody = `{"title":"Benchmark project","description":"A project created by the benchmark, long enough to be realistic.",` +
	`"technologies":["Go","SQLite","HTMX"],"status":"published","demoUrl":"https://example.com/demo","sourceUrl":"https://github.com/example/demo"}`

func main() {
	flag.Parse()
	if *serveBare != "" {
		if err := serveBareHandler(*serveBare, *bareArg); err != nil {
			fmt.Fprintln(os.Stderr, "bench/pocketbase bare:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/pocketbase:", err)
		os.Exit(1)
	}
}

func want(section string) bool {
	if *only == "" {
		return true
	}
	for s := range strings.SplitSeq(*only, ",") {
		if strings.TrimSpace(s) == section {
			return true
		}
	}
	return false
}

func run() error {
	var conns []int
	for s := range strings.SplitSeq(*connsArg, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-conns: %q", s)
		}
		conns = append(conns, n)
	}
	dir, err := os.MkdirTemp("", "folio-vs-pb-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	folioBin := filepath.Join(dir, "folio")
	if out, err := loadgen.FolioBuild(folioBin).CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/folio: %v\n%s", err, out)
	}
	pb := *pbPath
	if pb == "" {
		out, err := exec.Command("bash", "bench/pocketbase/install.sh").Output()
		if err != nil {
			return fmt.Errorf("bench/pocketbase/install.sh: %v", err)
		}
		pb = strings.TrimSpace(string(out))
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Printf("folio vs PocketBase (%s) and bare handlers: %s per run after %s warm-up, median of %d alternated runs, conns %v\n",
		filepath.Base(pb), *duration, *warmup, *runs, conns)

	// folio on SQLite with 20 published projects and a write key.
	sqliteEnv := []string{"FOLIO_DATA_DIR=" + filepath.Join(dir, "folio-data"), "DATABASE_URL=", "REDIS_URL="}
	key, err := setupFolio(folioBin, sqliteEnv)
	if err != nil {
		return err
	}
	folio, err := startFolio(folioBin, sqliteEnv)
	if err != nil {
		return err
	}
	defer folio.stop()
	auth := "Authorization: Bearer " + key
	if err := seed(folio.addr, "/api/projects", auth); err != nil {
		return fmt.Errorf("seed folio: %w", err)
	}

	// PocketBase with the same 20 records.
	pbProc, pbToken, err := startPocketBase(pb, filepath.Join(dir, "pb-data"))
	if err != nil {
		return err
	}
	defer pbProc.stop()
	pbAuth := "Authorization: " + pbToken
	if err := seed(pbProc.addr, "/api/collections/projects/records", pbAuth); err != nil {
		return fmt.Errorf("seed pocketbase: %w", err)
	}

	if want("rss") {
		time.Sleep(2 * time.Second)
		fr, pr := procstat.RSS(folio.cmd.Process.Pid), procstat.RSS(pbProc.cmd.Process.Pid)
		fmt.Printf("\n== idle RSS after start, 20 records, no load\n")
		verdict := "met"
		if fr > pr {
			verdict = "NOT met"
		}
		fmt.Printf("rss folio %.1f MiB  PocketBase %.1f MiB  ratio folio/PocketBase = %.2f (goal ≤ 1.00: %s)\n", procstat.MiB(fr), procstat.MiB(pr), float64(fr)/float64(pr), verdict)
		// Anonymous memory (heap, stacks) apart from the mapped pages of the binary itself.
		fmt.Printf("rss breakdown: folio anon %.1f MiB + binary %.1f MiB; PocketBase anon %.1f MiB + binary %.1f MiB\n",
			procstat.MiB(procstat.StatusBytes(folio.cmd.Process.Pid, "RssAnon:")), procstat.MiB(procstat.StatusBytes(folio.cmd.Process.Pid, "RssFile:")),
			procstat.MiB(procstat.StatusBytes(pbProc.cmd.Process.Pid, "RssAnon:")), procstat.MiB(procstat.StatusBytes(pbProc.cmd.Process.Pid, "RssFile:")))
	}

	const listPath = "/api/projects?limit=20"
	if want("cached") {
		body, ctype, err := get(folio.addr, listPath)
		if err != nil {
			return err
		}
		bodyFile := filepath.Join(dir, "list.json")
		if err := os.WriteFile(bodyFile, body, 0o600); err != nil {
			return err
		}
		bare, err := startBare(self, "bytes", bodyFile+"|"+ctype)
		if err != nil {
			return err
		}
		fmt.Printf("\n== GET %s, cached (%d bytes) vs a bare handler serving the same bytes\n", listPath, len(body))
		err = compare(conns, []target{
			{"folio", loadgen.Request(folio.addr, "GET", listPath, nil), folio.cmd.Process.Pid},
			{"bare", loadgen.Request(bare.addr, "GET", listPath, nil), bare.cmd.Process.Pid},
			{"PocketBase", loadgen.Request(pbProc.addr, "GET", "/api/collections/projects/records?perPage=20&sort=-created", nil), pbProc.cmd.Process.Pid},
		}, []ratio{{"folio", "bare", 0.9, "≥"}, {"folio", "PocketBase", 0, ""}}, []string{folio.addr, bare.addr, pbProc.addr})
		bare.stop()
		if err != nil {
			return err
		}
	}

	if want("uncached") {
		folio.stop()
		uncached, err := startFolio(folioBin, append(sqliteEnv, "FOLIO_PUBLIC_CACHE_ENTRIES=0"))
		if err != nil {
			return err
		}
		bare, err := startBare(self, "sqlite-list", filepath.Join(dir, "folio-data", "folio.db"))
		if err != nil {
			uncached.stop()
			return err
		}
		fmt.Printf("\n== GET %s, response cache off vs a bare handler reading and encoding the same rows from SQLite\n", listPath)
		err = compare(conns, []target{
			{"folio", loadgen.Request(uncached.addr, "GET", listPath, nil), uncached.cmd.Process.Pid},
			{"bare", loadgen.Request(bare.addr, "GET", listPath, nil), bare.cmd.Process.Pid},
		}, []ratio{{"folio", "bare", 0.8, "≥"}}, []string{uncached.addr, bare.addr})
		bare.stop()
		uncached.stop()
		if err != nil {
			return err
		}
		if folio, err = startFolio(folioBin, sqliteEnv); err != nil {
			return err
		}
		defer folio.stop()
	}

	if want("write") {
		bare, err := startBare(self, "sqlite-insert", filepath.Join(dir, "bare.db"))
		if err != nil {
			return err
		}
		body := []byte(createBody)
		fmt.Printf("\n== POST /api/projects (SQLite) vs PocketBase's record create and a bare SQLite insert handler\n")
		err = compare(conns, []target{
			{"folio", loadgen.Request(folio.addr, "POST", "/api/projects", body, auth, "Content-Type: application/json"), folio.cmd.Process.Pid},
			{"PocketBase", loadgen.Request(pbProc.addr, "POST", "/api/collections/projects/records", body, pbAuth, "Content-Type: application/json"), pbProc.cmd.Process.Pid},
			{"bare", loadgen.Request(bare.addr, "POST", "/api/projects", body, "Content-Type: application/json"), bare.cmd.Process.Pid},
		}, []ratio{{"folio", "PocketBase", 1.5, "≥"}, {"folio", "bare", 0.7, "≥"}}, []string{folio.addr, pbProc.addr, bare.addr})
		bare.stop()
		if err != nil {
			return err
		}
	}

	if want("postgres") {
		if *pgURL == "" {
			fmt.Printf("\n== POST /api/projects (PostgreSQL): skipped, set FOLIO_TEST_POSTGRES_URL or -postgres\n")
		} else if err := postgresWrites(folioBin, self, dir, conns); err != nil {
			return err
		}
	}
	return nil
}

func postgresWrites(folioBin, self, dir string, conns []int) error {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, *pgURL)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	defer admin.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "folio_bench_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return err
	}
	defer admin.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
	u, err := url.Parse(*pgURL)
	if err != nil {
		return err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	dsn := u.String()

	env := []string{"FOLIO_DATA_DIR=" + filepath.Join(dir, "folio-pg-data"), "DATABASE_URL=" + dsn, "REDIS_URL="}
	key, err := setupFolio(folioBin, env)
	if err != nil {
		return err
	}
	folio, err := startFolio(folioBin, env)
	if err != nil {
		return err
	}
	defer folio.stop()
	auth := "Authorization: Bearer " + key
	if err := seed(folio.addr, "/api/projects", auth); err != nil {
		return err
	}
	bare, err := startBare(self, "pgx-insert", dsn)
	if err != nil {
		return err
	}
	defer bare.stop()
	body := []byte(createBody)
	fmt.Printf("\n== POST /api/projects (PostgreSQL) vs a bare pgx insert handler\n")
	return compare(conns, []target{
		{"folio", loadgen.Request(folio.addr, "POST", "/api/projects", body, auth, "Content-Type: application/json"), folio.cmd.Process.Pid},
		{"bare", loadgen.Request(bare.addr, "POST", "/api/projects", body, "Content-Type: application/json"), bare.cmd.Process.Pid},
	}, []ratio{{"folio", "bare", 0.7, "≥"}}, []string{folio.addr, bare.addr})
}

type target struct {
	name string
	req  []byte
	pid  int // the server's process, whose CPU time per request is printed (0: not printed)
}

type ratio struct {
	num, den string
	goal     float64
	op       string
}

// compare runs every target at each connection count, runs times, alternating targets within a
// run, and prints each target's median and the ratios.
func compare(conns []int, targets []target, ratios []ratio, addrs []string) error {
	for _, c := range conns {
		rps := map[string][]float64{}
		p99 := map[string][]float64{}
		statuses := map[string]map[int]int{}
		cpu, pgCPU := map[string][]float64{}, map[string][]float64{}
		for r := range *runs {
			for i := range targets {
				// Alternate the order between runs so no target always goes first.
				t := targets[(i+r)%len(targets)]
				addr := addrs[(i+r)%len(targets)]
				cpu0, pg0 := procstat.CPU(t.pid), procstat.CPUOf("postgres")
				res, err := loadgen.RunRaw(addr, t.req, c, *warmup, *duration)
				if err != nil {
					return fmt.Errorf("%s: %w", t.name, err)
				}
				// CPU over warm-up and run, per request at the measured rate.
				per := func(d time.Duration) float64 {
					return d.Seconds() / (*warmup + *duration).Seconds() / res.RPS() * 1e6
				}
				cpu[t.name] = append(cpu[t.name], per(procstat.CPU(t.pid)-cpu0))
				pgCPU[t.name] = append(pgCPU[t.name], per(procstat.CPUOf("postgres")-pg0))
				rps[t.name] = append(rps[t.name], res.RPS())
				p99[t.name] = append(p99[t.name], float64(res.P99.Microseconds())/1000)
				if statuses[t.name] == nil {
					statuses[t.name] = map[int]int{}
				}
				for k, v := range res.Statuses {
					statuses[t.name][k] += v
				}
			}
		}
		for _, t := range targets {
			fmt.Printf("%3d conns  %-10s %9.0f req/s (median of %v)  p99 %.2f ms  statuses %v\n",
				c, t.name, median(rps[t.name]), rounded(rps[t.name]), median(p99[t.name]), statuses[t.name])
			if t.pid != 0 {
				pg := ""
				if v := median(pgCPU[t.name]); v >= 10 {
					pg = fmt.Sprintf(", PostgreSQL %.0f µs", v)
				}
				fmt.Printf("%3d conns  %-10s CPU per request: server %.0f µs%s\n", c, t.name, median(cpu[t.name]), pg)
			}
		}
		for _, r := range ratios {
			v := median(rps[r.num]) / median(rps[r.den])
			goal := ""
			if r.op != "" {
				verdict := "met"
				if v < r.goal {
					verdict = "NOT met"
				}
				goal = fmt.Sprintf(" (goal %s %.1f: %s)", r.op, r.goal, verdict)
			}
			fmt.Printf("%3d conns  ratio %s/%s = %.2f%s\n", c, r.num, r.den, v, goal)
		}
	}
	return nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func rounded(xs []float64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}
