// Command soak runs folio as its own process under a steady mixed load and compares its
// resident memory after the first minute with its resident memory at the end, so a leak shows
// as a ratio well above 1.
//
//	go run ./bench/soak [-duration 10m] [-rate 400]
//
// The load is public reads (projects, blog, slots) and analytics page views at a fixed rate.
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
)

func main() {
	dur := flag.Duration("duration", 10*time.Minute, "soak length")
	rate := flag.Int("rate", 400, "requests per second")
	flag.Parse()
	if err := run(*dur, *rate); err != nil {
		fmt.Fprintln(os.Stderr, "bench/soak:", err)
		os.Exit(1)
	}
}

func run(dur time.Duration, rate int) error {
	dir, err := os.MkdirTemp("", "folio-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "folio")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/folio").CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	env := append(os.Environ(), "FOLIO_ADDR="+addr, "FOLIO_DATA_DIR="+filepath.Join(dir, "data"), "LOG_LEVEL=warn",
		// An exact sliding-window limiter keeps every counted request of the window; a one-minute
		// window lets that state reach its steady size in the first minute, so growth after it
		// is what a leak would look like.
		"RATE_LIMIT_PUBLIC_PER_HOUR=1000000000", "RATE_LIMIT_WINDOW_SECONDS=60", "DATABASE_URL=", "REDIS_URL=")
	if out, err := command(bin, env, "seed", "--demo").CombinedOutput(); err != nil {
		return fmt.Errorf("seed: %v\n%s", err, out)
	}
	cmd := command(bin, env, "serve")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
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
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	start := time.Now()
	var firstMinute int64
	sampleAt := min(time.Minute, dur/2)
	fmt.Printf("soak: %s at %d requests/s against folio (pid %d) on SQLite\n", dur, rate, cmd.Process.Pid)
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			wg.Wait()
			end, _ := rss(cmd.Process.Pid)
			fmt.Printf("soak: %d requests, %d failed\n", sent.Load(), failed.Load())
			fmt.Printf("soak: RSS after %s %.1f MiB, at the end (%s) %.1f MiB, ratio end/first = %.2f\n",
				sampleAt, mib(firstMinute), dur, mib(end), float64(end)/float64(firstMinute))
			return nil
		case <-tick.C:
		}
		if firstMinute == 0 && time.Since(start) >= sampleAt {
			firstMinute, _ = rss(cmd.Process.Pid)
		}
		r := mix[n%len(mix)]
		body := r.body
		if strings.Contains(body, "%d") {
			body = fmt.Sprintf(body, n%5000)
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			hr, _ := http.NewRequest(r.method, base+r.path, bytes.NewReader([]byte(body)))
			hr.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) soak")
			hr.Header.Set("Content-Type", "application/json")
			res, err := client.Do(hr)
			sent.Add(1)
			if err != nil {
				failed.Add(1)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode >= 400 {
				failed.Add(1)
			}
		}()
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
