// Command soak runs folio as its own process under a steady mixed load and compares its
// resident memory after the first minute with its resident memory at the end, so a leak shows
// as a ratio well above 1.
//
//	go run ./bench/soak [-duration 10m] [-rate 5000]
//
// The load is public reads (projects, blog, slots) and analytics page views at a fixed rate, with
// every limit raised to 10^9 and the client address rotating over 200,000 IPv4 and IPv6 clients
// (X-Forwarded-For from a trusted loopback proxy), so the rate limiter meets far more identifiers
// than its bound and a limiter that kept per-request state or unbounded identifiers would show.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foliohq/folio/bench/loadgen"
)

func main() {
	dur := flag.Duration("duration", 10*time.Minute, "soak length")
	rate := flag.Int("rate", 5000, "requests per second")
	logFile := flag.String("log", "", "write folio's standard error here (with GODEBUG=gctrace=1, the Go heap over time)")
	flag.Parse()
	if err := run(*dur, *rate, *logFile); err != nil {
		fmt.Fprintln(os.Stderr, "bench/soak:", err)
		os.Exit(1)
	}
}

func run(dur time.Duration, rate int, logFile string) error {
	dir, err := os.MkdirTemp("", "folio-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "folio")
	if out, err := loadgen.FolioBuild(bin).CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	env := append(os.Environ(), "FOLIO_ADDR="+addr, "FOLIO_DATA_DIR="+filepath.Join(dir, "data"), "LOG_LEVEL=warn",
		"RATE_LIMIT_PUBLIC_PER_HOUR=1000000000", "RATE_LIMIT_AUTHENTICATED_PER_HOUR=1000000000",
		"RATE_LIMIT_ADMIN_PER_HOUR=1000000000", "RATE_LIMIT_HELPER_PER_HOUR=1000000000",
		"TRUSTED_PROXIES=127.0.0.1/32,::1/128", "DATABASE_URL=", "REDIS_URL=")
	if out, err := command(bin, env, "seed", "--demo").CombinedOutput(); err != nil {
		return fmt.Errorf("seed: %v\n%s", err, out)
	}
	cmd := command(bin, env, "serve")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if logFile != "" {
		f, err := os.Create(logFile)
		if err != nil {
			return err
		}
		defer f.Close()
		cmd.Stderr = f
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	base := "http://" + addr
	for i := 0; ; i++ {
		if res, err := http.Get(base + "/readyz"); err == nil && res.StatusCode == 200 {
			res.Body.Close()
			break
		}
		if i > 200 {
			return fmt.Errorf("folio did not become ready")
		}
		time.Sleep(50 * time.Millisecond)
	}

	date := time.Now().AddDate(0, 0, 7)
	for date.Weekday() == time.Saturday || date.Weekday() == time.Sunday {
		date = date.AddDate(0, 0, 1)
	}
	type req struct{ method, path, body string }
	mix := []req{
		{"GET", "/api/projects", ""}, {"GET", "/api/projects?limit=20&technology=go", ""}, {"GET", "/api/blog", ""},
		{"GET", "/api/schedule/available?date=" + date.Format("2006-01-02") + "&timezone=Europe/Berlin", ""},
		{"POST", "/api/analytics/collect", `{"type":"pageview","path":"/projects","visitorId":"v%d"}`},
		{"POST", "/api/analytics/collect", `{"type":"pageview","path":"/blog/post-%d","referrer":"https://news.example.com/x"}`},
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Second}
	var sent, failed atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	// Pace in 10 ms slices: each slice queues rate/100 requests for a fixed pool of workers; a
	// slice the workers cannot take in time is counted as skipped rather than piling up.
	const slice = 10 * time.Millisecond
	perSlice := max(rate/int(time.Second/slice), 1)
	tick := time.NewTicker(slice)
	defer tick.Stop()
	type job struct {
		r    req
		body string
		xff  string
	}
	jobs := make(chan job, 4*perSlice)
	var wg sync.WaitGroup
	var skipped atomic.Int64
	for range 128 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				hr, _ := http.NewRequest(j.r.method, base+j.r.path, bytes.NewReader([]byte(j.body)))
				hr.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) soak")
				hr.Header.Set("Content-Type", "application/json")
				hr.Header.Set("X-Forwarded-For", j.xff)
				res, err := client.Do(hr)
				sent.Add(1)
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode >= 400 {
					failed.Add(1)
				}
			}
		}()
	}
	start := time.Now()
	var firstMinute int64
	sampleAt := min(time.Minute, dur/2)
	fmt.Printf("soak: %s at %d requests/s against folio (pid %d) on SQLite, limits 10^9, 200,000 rotating client addresses\n", dur, rate, cmd.Process.Pid)
	for n := 0; ; {
		select {
		case <-ctx.Done():
			close(jobs)
			wg.Wait()
			end, _ := rss(cmd.Process.Pid)
			elapsed := time.Since(start)
			fmt.Printf("soak: %d requests (%.0f/s achieved), %d failed, %d skipped (client saturated)\n",
				sent.Load(), float64(sent.Load())/elapsed.Seconds(), failed.Load(), skipped.Load())
			fmt.Printf("soak: RSS after %s %.1f MiB, at the end (%s) %.1f MiB, ratio end/first = %.2f (goal ≤ 1.10)\n",
				sampleAt, mib(firstMinute), dur, mib(end), float64(end)/float64(firstMinute))
			return nil
		case <-tick.C:
		}
		if firstMinute == 0 && time.Since(start) >= sampleAt {
			firstMinute, _ = rss(cmd.Process.Pid)
		}
		for range perSlice {
			r := mix[n%len(mix)]
			body := r.body
			if strings.Contains(body, "%d") {
				body = fmt.Sprintf(body, n%5000)
			}
			// Half IPv4, half IPv6 (one /64 each): 200,000 identifiers, twice the limiter's bound.
			id := n % 200_000
			xff := fmt.Sprintf("10.%d.%d.%d", id>>16&0xff, id>>8&0xff, id&0xff)
			if id%2 == 1 {
				xff = fmt.Sprintf("2001:db8:%x:%x::1", id>>16, id&0xffff)
			}
			n++
			select {
			case jobs <- job{r, body, xff}:
			default:
				skipped.Add(1)
			}
		}
	}
}

func command(bin string, env []string, args ...string) *exec.Cmd {
	c := exec.Command(bin, args...)
	c.Env = env
	return c
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
