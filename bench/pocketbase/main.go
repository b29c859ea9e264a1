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
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

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
		fr, pr := rss(folio.cmd.Process.Pid), rss(pbProc.cmd.Process.Pid)
		fmt.Printf("\n== idle RSS after start, 20 records, no load\n")
		verdict := "met"
		if fr > pr {
			verdict = "NOT met"
		}
		fmt.Printf("rss folio %.1f MiB  PocketBase %.1f MiB  ratio folio/PocketBase = %.2f (goal ≤ 1.00: %s)\n", mib(fr), mib(pr), float64(fr)/float64(pr), verdict)
		// Anonymous memory (heap, stacks) apart from the mapped pages of the binary itself.
		fmt.Printf("rss breakdown: folio anon %.1f MiB + binary %.1f MiB; PocketBase anon %.1f MiB + binary %.1f MiB\n",
			mib(statusKB(folio.cmd.Process.Pid, "RssAnon:")), mib(statusKB(folio.cmd.Process.Pid, "RssFile:")),
			mib(statusKB(pbProc.cmd.Process.Pid, "RssAnon:")), mib(statusKB(pbProc.cmd.Process.Pid, "RssFile:")))
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
				cpu0, pg0 := processCPU(t.pid), postgresCPU()
				res, err := loadgen.RunRaw(addr, t.req, c, *warmup, *duration)
				if err != nil {
					return fmt.Errorf("%s: %w", t.name, err)
				}
				// CPU over warm-up and run, per request at the measured rate.
				per := func(d time.Duration) float64 {
					return d.Seconds() / (*warmup + *duration).Seconds() / res.RPS() * 1e6
				}
				cpu[t.name] = append(cpu[t.name], per(processCPU(t.pid)-cpu0))
				pgCPU[t.name] = append(pgCPU[t.name], per(postgresCPU()-pg0))
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

// proc is one server process under test.
type proc struct {
	cmd  *exec.Cmd
	addr string
}

func (p *proc) stop() {
	if p == nil || p.cmd.Process == nil || p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func waitHTTP(p *proc, path string) error {
	for i := 0; i < 400; i++ {
		if res, err := http.Get("http://" + p.addr + path); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.stop()
	return fmt.Errorf("%s did not answer %s", p.cmd.Path, path)
}

func folioEnv(extra []string) []string {
	return append(append(os.Environ(), "LOG_LEVEL=warn", "FOLIO_ENV=development",
		"RATE_LIMIT_PUBLIC_PER_HOUR=1000000000", "RATE_LIMIT_AUTHENTICATED_PER_HOUR=1000000000",
		"RATE_LIMIT_ADMIN_PER_HOUR=1000000000", "RATE_LIMIT_HELPER_PER_HOUR=1000000000"), extra...)
}

// setupFolio migrates, creates the owner and returns a new write key's secret.
func setupFolio(bin string, env []string) (string, error) {
	for _, args := range [][]string{{"migrate"}, {"user", "create", "--email", "bench@example.com", "--name", "Bench", "--role", "owner", "--password", "bench-password-123"}} {
		c := exec.Command(bin, args...)
		c.Env = folioEnv(env)
		if out, err := c.CombinedOutput(); err != nil {
			return "", fmt.Errorf("folio %s: %v\n%s", args[0], err, out)
		}
	}
	c := exec.Command(bin, "apikey", "create", "--name", "bench", "--level", "write")
	c.Env = folioEnv(env)
	out, err := c.Output()
	if err != nil {
		return "", fmt.Errorf("folio apikey create: %v", err)
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]), nil
}

func startFolio(bin string, env []string) (*proc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	c := exec.Command(bin, "serve")
	c.Env = folioEnv(append(env, "FOLIO_ADDR="+addr))
	c.Stdout, c.Stderr = io.Discard, io.Discard
	if err := c.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: c, addr: addr}
	return p, waitHTTP(p, "/readyz")
}

// startPocketBase starts PocketBase over a fresh data directory with a superuser, logs off and a
// projects collection shaped like folio's, and returns it with a superuser token.
func startPocketBase(bin, dataDir string) (*proc, string, error) {
	const email, password = "bench@example.com", "bench-password-123"
	if out, err := exec.Command(bin, "superuser", "upsert", email, password, "--dir", dataDir).CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("pocketbase superuser upsert: %v\n%s", err, out)
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	c := exec.Command(bin, "serve", "--http", addr, "--dir", dataDir)
	c.Stdout, c.Stderr = io.Discard, io.Discard
	if err := c.Start(); err != nil {
		return nil, "", err
	}
	p := &proc{cmd: c, addr: addr}
	if err := waitHTTP(p, "/api/health"); err != nil {
		return nil, "", err
	}
	var login struct {
		Token string `json:"token"`
	}
	if err := call(addr, "POST", "/api/collections/_superusers/auth-with-password", "",
		map[string]string{"identity": email, "password": password}, &login); err != nil {
		p.stop()
		return nil, "", err
	}
	steps := []struct {
		method, path string
		body         any
	}{
		{"PATCH", "/api/settings", map[string]any{"logs": map[string]any{"maxDays": 0}}},
		{"POST", "/api/collections", map[string]any{
			"name": "projects", "type": "base", "listRule": "", "viewRule": "",
			"fields": []map[string]any{
				{"name": "title", "type": "text", "required": true, "max": 200},
				{"name": "description", "type": "text", "required": true, "max": 2000},
				{"name": "longDescription", "type": "text", "max": 50000},
				{"name": "technologies", "type": "json", "maxSize": 10000},
				{"name": "status", "type": "select", "values": []string{"draft", "published", "archived"}, "maxSelect": 1},
				{"name": "demoUrl", "type": "url"},
				{"name": "sourceUrl", "type": "url"},
				{"name": "images", "type": "json", "maxSize": 100000},
				{"name": "created", "type": "autodate", "onCreate": true},
				{"name": "updated", "type": "autodate", "onCreate": true, "onUpdate": true},
			},
			"indexes": []string{"CREATE INDEX idx_projects_created ON projects (created)"},
		}},
	}
	for _, s := range steps {
		if err := call(addr, s.method, s.path, login.Token, s.body, nil); err != nil {
			p.stop()
			return nil, "", fmt.Errorf("pocketbase setup %s %s: %w", s.method, s.path, err)
		}
	}
	return p, login.Token, nil
}

func call(addr, method, path, token string, body, out any) error {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, "http://"+addr+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	rb, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, rb)
	}
	if out != nil {
		return json.Unmarshal(rb, out)
	}
	return nil
}

// seed creates the 20 published records every figure runs over.
func seed(addr, path, authHeader string) error {
	token := strings.TrimPrefix(authHeader, "Authorization: ")
	for i := 1; i <= 20; i++ {
		body := map[string]any{
			"title":        fmt.Sprintf("Project %02d", i),
			"description":  fmt.Sprintf("A realistic description of demo project number %d, long enough to matter.", i),
			"technologies": []string{"Go", "PostgreSQL", "TypeScript"}, "status": "published",
		}
		if err := call(addr, "POST", path, token, body, nil); err != nil {
			return err
		}
	}
	return nil
}

func get(addr, path string) ([]byte, string, error) {
	res, err := http.Get("http://" + addr + path)
	if err != nil {
		return nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return nil, "", fmt.Errorf("GET %s: %d %s", path, res.StatusCode, b)
	}
	return b, res.Header.Get("Content-Type"), err
}

// startBare re-executes this program as one bare handler and reads its address.
func startBare(self, kind, arg string) (*proc, error) {
	c := exec.Command(self, "-serve-bare", kind, "-bare-arg", arg)
	c.Stderr = os.Stderr
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = c.Process.Kill()
		_ = c.Wait()
		return nil, fmt.Errorf("bare %s did not start: %w", kind, err)
	}
	go io.Copy(io.Discard, out)
	return &proc{cmd: c, addr: strings.TrimSpace(line)}, nil
}

// processCPU is the user and system CPU time process pid has used (0 for pid 0).
func processCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	return statCPU(fmt.Sprintf("/proc/%d/stat", pid))
}

// postgresCPU is the CPU time of the local processes named postgres (the server of the
// PostgreSQL figures runs on this machine); its backends live as long as the pools' connections.
func postgresCPU() time.Duration {
	ents, _ := os.ReadDir("/proc")
	var sum time.Duration
	for _, e := range ents {
		if c, _ := os.ReadFile("/proc/" + e.Name() + "/comm"); strings.TrimSpace(string(c)) == "postgres" {
			sum += statCPU("/proc/" + e.Name() + "/stat")
		}
	}
	return sum
}

// statCPU reads utime+stime from a /proc stat file.
func statCPU(path string) time.Duration {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * time.Second / 100 // USER_HZ
}

// rss reads the resident set size of pid from /proc (bytes).
func rss(pid int) int64 { return statusKB(pid, "VmRSS:") }

// statusKB reads one kB field of /proc/pid/status, in bytes.
func statusKB(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
