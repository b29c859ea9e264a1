// Command hostile replays memory attacks (a response-cache flood, a metrics flood) against a real
// folio server on loopback and prints its heap and RSS before and after each, beside the bound
// that must hold.
//
//	go run ./bench/hostile [-junk 10000] [-methods 1500] [-workers 4] [-bin PATH]
//
// Attacks (bounded loops, one client address):
//   - cache flood: one published post whose response is about 2 MB, asked for -junk times with a
//     distinct junk parameter (?cb=N). The response cache must not grow: the heap that the last
//     GC found live (go_gc_heap_live_bytes) must stay under FOLIO_PUBLIC_CACHE_BYTES (64 MiB).
//   - metrics flood: -methods requests with random 60 KB methods. The metrics' series must not
//     grow, nor /metrics itself.
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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foliohq/folio/bench/loadgen"
)

const metricsToken = "bench-hostile-metrics-token-0123456789abcdef"

func main() {
	junk := flag.Int("junk", 10000, "distinct junk queries on the large post")
	methods := flag.Int("methods", 1500, "requests with random methods")
	methodBytes := flag.Int("method-bytes", 60000, "length of each random method")
	workers := flag.Int("workers", 4, "concurrent clients")
	bin := flag.String("bin", "", "folio binary to attack (default: build ./cmd/folio)")
	flag.Parse()
	if err := run(*junk, *methods, *methodBytes, *workers, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "bench/hostile:", err)
		os.Exit(1)
	}
}

type server struct {
	base string
	pid  int
	key  string
}

func run(junk, methods, methodBytes, workers int, bin string) error {
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	env := append(os.Environ(), "FOLIO_ADDR="+addr, "FOLIO_DATA_DIR="+filepath.Join(dir, "data"), "LOG_LEVEL=error",
		"RATE_LIMIT_PUBLIC_PER_HOUR=1000000000", "RATE_LIMIT_ADMIN_PER_HOUR=1000000000", "DATABASE_URL=", "REDIS_URL=",
		"METRICS_TOKEN="+metricsToken, "METRICS_ADDR=", "FOLIO_ADMIN_EMAIL=owner@example.com",
		"FOLIO_ADMIN_PASSWORD=bench-hostile-password")
	cmd := exec.Command(bin, "serve")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	s := &server{base: "http://" + addr, pid: cmd.Process.Pid}
	if err := s.waitReady(); err != nil {
		return err
	}
	keyCmd := exec.Command(bin, "apikey", "create", "--name", "bench", "--level", "admin")
	keyCmd.Env = env
	out, err := keyCmd.Output()
	if err != nil {
		return fmt.Errorf("apikey create: %v", err)
	}
	s.key = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])

	// One long post: about 1 MB of Markdown in three-byte characters, rendered to about 1 MB of
	// HTML beside it, so the response is about 2 MB.
	content := strings.Repeat("漢字漢字 ", 79000)
	body, _ := json.Marshal(map[string]any{"title": "Long read", "content": content, "status": "published"})
	res, err := s.do("POST", "/api/blog", body, "Authorization", "Bearer "+s.key, "Content-Type", "application/json")
	if err != nil || res.StatusCode != 201 {
		return fmt.Errorf("create post: %v %v", err, status(res))
	}
	res.Body.Close()
	res, err = s.do("GET", "/api/blog/long-read", nil)
	if err != nil || res.StatusCode != 200 {
		return fmt.Errorf("get post: %v %v", err, status(res))
	}
	size, _ := io.Copy(io.Discard, res.Body)
	res.Body.Close()

	fmt.Printf("hostile: folio pid %d on SQLite; the post's response is %.2f MB\n", s.pid, float64(size)/1e6)
	before := s.sample()
	fmt.Printf("hostile: before                        %s\n", before)

	start := time.Now()
	failed := s.flood(junk, workers, func(i int) (string, string) { return "GET", "/api/blog/long-read?cb=" + strconv.Itoa(i) })
	after := s.sample()
	fmt.Printf("hostile: after %d junk queries (%s, %d failed)\n", junk, time.Since(start).Round(time.Second), failed)
	fmt.Printf("hostile:                               %s\n", after)
	bound := int64(64 << 20)
	verdict := "holds"
	if after.live >= bound {
		verdict = "BROKEN"
	}
	fmt.Printf("hostile: cache flood: live heap %.1f MiB vs the %.0f MiB FOLIO_PUBLIC_CACHE_BYTES bound: %s (cache %.1f MiB in %d entries)\n",
		mib(after.live), mib(bound), verdict, mib(after.cacheBytes), after.cacheEntries)

	rng := rand.New(rand.NewPCG(1, 2))
	letters := "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	start = time.Now()
	failed = s.flood(methods, workers, func(i int) (string, string) {
		m := make([]byte, methodBytes)
		for j := range m {
			m[j] = letters[rng.IntN(len(letters))]
		}
		return string(m), "/api/projects"
	})
	end := s.sample()
	fmt.Printf("hostile: after %d random %d-byte methods (%s, %d refused by the server)\n", methods, methodBytes, time.Since(start).Round(time.Second), failed)
	fmt.Printf("hostile:                               %s\n", end)
	fmt.Printf("hostile: metrics flood: folio_http_requests_total series %d → %d, /metrics %.1f KB → %.1f KB\n",
		after.series, end.series, float64(after.metricsSize)/1e3, float64(end.metricsSize)/1e3)
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
	metricsSize                      int
}

func (x sample) String() string {
	return fmt.Sprintf("heap alloc %7.1f MiB, live heap %7.1f MiB, RSS %7.1f MiB", mib(x.heapAlloc), mib(x.live), mib(x.rss))
}

var metricLine = regexp.MustCompile(`(?m)^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$`)

// sample reads the server's memory figures: /metrics (with METRICS_TOKEN) and /proc.
func (s *server) sample() sample {
	var x sample
	x.rss, _ = rss(s.pid)
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
		}
	}
	if x.live == 0 { // an older binary without go_gc_heap_live_bytes
		x.live = x.heapAlloc
	}
	return x
}

// rss reads the resident set size of pid from /proc (bytes).
func rss(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS")
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
