// Command hostile replays hostile traffic against a real folio binary on loopback and prints
// what it costs the server: memory, CPU, rows, peak RSS. Each scenario runs on a fresh server
// (SQLite, a temp data directory) and its figures print beside the bound that must hold.
//
//	go run ./bench/hostile [-run cache,metrics,sitemap,signin,junk,analytics,import,upload] [-bin PATH] [flags]
//
// Scenarios (bounded loops, one client address):
//   - cache: one published post whose response is about 2 MB, asked for -junk times with a
//     distinct junk parameter (?cb=N). The response cache must not grow: the heap that the last
//     GC found live (go_gc_heap_live_bytes) must stay under FOLIO_PUBLIC_CACHE_BYTES (64 MiB).
//   - metrics: -methods requests with random 60 KB methods. The metrics' series must not grow,
//     nor /metrics itself.
//   - sitemap: -sitemap-posts published posts (seeded with bench/seed, as bench/sitemap does);
//     /sitemap.xml and its files uncached (a write before each) and cached, p50 and p99.
//   - signin: -signins failed sign-ins in a burst from one client (one account, then made-up
//     ones), most refused by the limits; the audit rows they leave.
//   - junk: a post whose response is about 3 MB; the server's CPU seconds (utime+stime of
//     /proc/PID/stat) per 1,000 requests, cached and with a junk parameter each (-junk-cpu of
//     them); then a flood of -pages ?page=N list requests and whether the useful entries (the
//     post, the first pages, the feed) are still answered from the cache (hit counter).
//   - analytics: -collects anonymous page views, each with a unique path, referrer and 100-byte
//     UTM values; how much the SQLite file grows.
//   - import: `folio import` of a zip bomb (-bomb-posts posts of 16 MiB each, compressed about
//     1000:1); the import process's peak RSS (VmHWM, and its rusage).
//   - upload: a 7000×7000 16-bit RGBA PNG (zeros, about 400 KB) uploaded to /api/media/upload;
//     the server's RSS before, its peak during (VmHWM after clear_refs) and 5 s after.
//
// -bin runs another folio binary (say, one built from an older commit) for comparison; its
// /metrics is read with METRICS_TOKEN and, failing that, without credentials.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foliohq/folio/bench/loadgen"
)

const metricsToken = "bench-hostile-metrics-token-0123456789abcdef"

const (
	ownerEmail    = "owner@example.com"
	ownerPassword = "bench-hostile-password"
)

type options struct {
	junk, methods, methodBytes, workers          int
	sitemapPosts, sitemapUncached, sitemapCached int
	signins, junkCPU, pages, bombPosts           int
	collects                                     int
}

func main() {
	var o options
	flag.IntVar(&o.junk, "junk", 10000, "cache: distinct junk queries on the large post")
	flag.IntVar(&o.methods, "methods", 1500, "metrics: requests with random methods")
	flag.IntVar(&o.methodBytes, "method-bytes", 60000, "metrics: length of each random method")
	flag.IntVar(&o.workers, "workers", 4, "concurrent clients of the floods")
	flag.IntVar(&o.sitemapPosts, "sitemap-posts", 60000, "sitemap: published posts")
	flag.IntVar(&o.sitemapUncached, "sitemap-uncached", 10, "sitemap: uncached requests per document")
	flag.IntVar(&o.sitemapCached, "sitemap-cached", 200, "sitemap: cached requests per document")
	flag.IntVar(&o.signins, "signins", 500, "signin: failed sign-ins in the burst")
	flag.IntVar(&o.junkCPU, "junk-cpu", 200, "junk: requests per CPU measurement (scaled to 1,000)")
	flag.IntVar(&o.pages, "pages", 3000, "junk: ?page=N requests of the flood")
	flag.IntVar(&o.bombPosts, "bomb-posts", 20, "import: 16 MiB posts in the zip bomb")
	flag.IntVar(&o.collects, "collects", 3000, "analytics: anonymous collects with unique values")
	bin := flag.String("bin", "", "folio binary to attack (default: build ./cmd/folio)")
	only := flag.String("run", "cache,metrics,sitemap,signin,junk,analytics,import,upload", "scenarios to run, comma-separated")
	flag.Parse()
	if err := run(o, *bin, strings.Split(*only, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "bench/hostile:", err)
		os.Exit(1)
	}
}

type server struct {
	base, dir string
	pid       int
	key       string
	env       []string
	bin       string
	cmd       *exec.Cmd
}

func run(o options, bin string, only []string) error {
	dir, err := os.MkdirTemp("", "folio-hostile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if bin == "" {
		bin = filepath.Join(dir, "folio")
		if out, err := loadgen.FolioBuild(bin).CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	scenarios := []struct {
		name string
		run  func(s *server, o options) error
	}{
		{"cache", cacheFlood}, {"metrics", metricsFlood}, {"sitemap", sitemapTimes}, {"signin", signinBurst},
		{"junk", junkParams}, {"analytics", analyticsGrowth}, {"import", importBomb}, {"upload", uploadHugePNG},
	}
	for _, sc := range scenarios {
		if !slices.Contains(only, sc.name) {
			continue
		}
		var prepare func(dataDir string) error
		if sc.name == "sitemap" {
			prepare = func(dataDir string) error { return seedPosts(bin, dataDir, o.sitemapPosts) }
		}
		s, err := start(bin, filepath.Join(dir, sc.name), prepare)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		err = sc.run(s, o)
		s.stop()
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
	}
	return nil
}

// start runs bin serve on a fresh data directory (prepare, when set, fills it first) and makes
// an admin key.
func start(bin, dir string, prepare func(dataDir string) error) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	dataDir := filepath.Join(dir, "data")
	env := append(os.Environ(), "FOLIO_ADDR="+addr, "FOLIO_DATA_DIR="+dataDir, "LOG_LEVEL=error",
		"RATE_LIMIT_PUBLIC_PER_HOUR=1000000000", "RATE_LIMIT_ADMIN_PER_HOUR=1000000000", "DATABASE_URL=", "REDIS_URL=",
		"METRICS_TOKEN="+metricsToken, "METRICS_ADDR=", "FOLIO_ADMIN_EMAIL="+ownerEmail, "FOLIO_ADMIN_PASSWORD="+ownerPassword)
	s := &server{base: "http://" + addr, dir: dir, env: env, bin: bin}
	if prepare != nil {
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			return nil, err
		}
		if err := prepare(dataDir); err != nil {
			return nil, err
		}
	}
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = env
	s.cmd.Stdout, s.cmd.Stderr = io.Discard, io.Discard
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	s.pid = s.cmd.Process.Pid
	if err := s.waitReady(); err != nil {
		s.stop()
		return nil, err
	}
	out, err := s.folio("apikey", "create", "--name", "bench", "--level", "admin").Output()
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("apikey create: %v", err)
	}
	s.key = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	return s, nil
}

// folio is a command of the binary under test on the server's configuration.
func (s *server) folio(args ...string) *exec.Cmd {
	c := exec.Command(s.bin, args...)
	c.Env = s.env
	return c
}

// stop shuts the server down gracefully (again: nothing).
func (s *server) stop() {
	if s.cmd.ProcessState == nil {
		s.cmd.Process.Signal(os.Interrupt)
		s.cmd.Wait()
	}
}

// admin sends a request with the admin key.
func (s *server) admin(method, path string, body []byte, hdr ...string) (*http.Response, error) {
	return s.do(method, path, body, append([]string{"Authorization", "Bearer " + s.key, "Content-Type", "application/json"}, hdr...)...)
}

// createPost publishes a post of the given Markdown and returns the size of its response.
func (s *server) createPost(title, content string) (slug string, size int64, err error) {
	body, _ := json.Marshal(map[string]any{"title": title, "content": content, "status": "published"})
	res, err := s.admin("POST", "/api/blog", body)
	if err != nil || res.StatusCode != 201 {
		return "", 0, fmt.Errorf("create post: %v %v", err, status(res))
	}
	var p struct{ Slug string }
	json.NewDecoder(res.Body).Decode(&p)
	res.Body.Close()
	res, err = s.do("GET", "/api/blog/"+p.Slug, nil)
	if err != nil || res.StatusCode != 200 {
		return "", 0, fmt.Errorf("get post: %v %v", err, status(res))
	}
	size, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return p.Slug, size, nil
}

// cacheFlood asks for a 2 MB post with -junk distinct junk parameters.
func cacheFlood(s *server, o options) error {
	// About 1 MB of Markdown in three-byte characters, rendered to about 1 MB of HTML beside it,
	// so the response is about 2 MB.
	slug, size, err := s.createPost("Long read", strings.Repeat("漢字漢字 ", 79000))
	if err != nil {
		return err
	}
	fmt.Printf("cache: folio pid %d on SQLite; the post's response is %.2f MB\n", s.pid, float64(size)/1e6)
	before := s.sample()
	fmt.Printf("cache: before                        %s\n", before)
	start := time.Now()
	failed := s.flood(o.junk, o.workers, func(i int) (string, string) { return "GET", "/api/blog/" + slug + "?cb=" + strconv.Itoa(i) })
	after := s.sample()
	fmt.Printf("cache: after %d junk queries (%s, %d failed)\n", o.junk, time.Since(start).Round(time.Second), failed)
	fmt.Printf("cache:                               %s\n", after)
	bound := int64(64 << 20)
	verdict := "holds"
	if after.live >= bound {
		verdict = "BROKEN"
	}
	fmt.Printf("cache: live heap %.1f MiB vs the %.0f MiB FOLIO_PUBLIC_CACHE_BYTES bound: %s (cache %.1f MiB in %d entries)\n",
		mib(after.live), mib(bound), verdict, mib(after.cacheBytes), after.cacheEntries)
	return nil
}

// metricsFlood sends -methods requests with random long methods.
func metricsFlood(s *server, o options) error {
	before := s.sample()
	rng := rand.New(rand.NewPCG(1, 2))
	letters := "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	start := time.Now()
	failed := s.flood(o.methods, o.workers, func(i int) (string, string) {
		m := make([]byte, o.methodBytes)
		for j := range m {
			m[j] = letters[rng.IntN(len(letters))]
		}
		return string(m), "/api/projects"
	})
	end := s.sample()
	fmt.Printf("metrics: after %d random %d-byte methods (%s, %d refused by the server)\n", o.methods, o.methodBytes, time.Since(start).Round(time.Second), failed)
	fmt.Printf("metrics:                             %s\n", end)
	fmt.Printf("metrics: folio_http_requests_total series %d → %d, /metrics %.1f KB → %.1f KB\n",
		before.series, end.series, float64(before.metricsSize)/1e3, float64(end.metricsSize)/1e3)
	return nil
}

func status(res *http.Response) any {
	if res == nil {
		return nil
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 300))
	return fmt.Sprintf("%d %s", res.StatusCode, b)
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: 60 * time.Second}

func (s *server) do(method, path string, body []byte, hdr ...string) (*http.Response, error) {
	req, err := http.NewRequest(method, s.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return client.Do(req)
}

func (s *server) waitReady() error {
	for i := 0; i < 400; i++ {
		if res, err := http.Get(s.base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("folio did not become ready")
}

// flood sends n requests from workers goroutines and counts the ones that failed.
func (s *server) flood(n, workers int, next func(i int) (method, path string)) int {
	var mu sync.Mutex
	failed, i := 0, 0
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if i >= n {
					mu.Unlock()
					return
				}
				method, path := next(i)
				i++
				mu.Unlock()
				res, err := s.do(method, path, nil)
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				if err != nil || res.StatusCode >= 400 {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return failed
}

type sample struct {
	heapAlloc, live, rss, cacheBytes int64
	cacheEntries, series             int
	cacheHits                        float64
	metricsSize                      int
}

func (x sample) String() string {
	return fmt.Sprintf("heap alloc %7.1f MiB, live heap %7.1f MiB, RSS %7.1f MiB", mib(x.heapAlloc), mib(x.live), mib(x.rss))
}

var metricLine = regexp.MustCompile(`(?m)^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$`)

// sample reads the server's memory figures: /metrics (with METRICS_TOKEN) and /proc.
func (s *server) sample() sample {
	var x sample
	x.rss, _ = procKB(s.pid, "VmRSS:")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+metricsToken)
	res, err := client.Do(req)
	if err != nil {
		return x
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	x.metricsSize = len(b)
	for _, m := range metricLine.FindAllStringSubmatch(string(b), -1) {
		v, _ := strconv.ParseFloat(m[3], 64)
		switch m[1] {
		case "go_memstats_heap_alloc_bytes":
			x.heapAlloc = int64(v)
		case "go_gc_heap_live_bytes":
			x.live = int64(v)
		case "folio_response_cache_bytes":
			x.cacheBytes = int64(v)
		case "folio_response_cache_entries":
			x.cacheEntries = int(v)
		case "folio_http_requests_total":
			x.series++
		case "folio_response_cache_total":
			if strings.Contains(m[2], `result="hit"`) {
				x.cacheHits = v
			}
		}
	}
	if x.live == 0 { // an older binary without go_gc_heap_live_bytes
		x.live = x.heapAlloc
	}
	return x
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
