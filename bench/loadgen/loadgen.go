// Package loadgen is a small closed-loop HTTP/1.1 load generator for folio's benchmarks.
//
// It speaks raw HTTP/1.1 over keep-alive TCP connections (one request in flight per
// connection) instead of using net/http's client, so that on a 2-core machine the generator
// costs little and the server under test is what gets measured.
package loadgen

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Result is one run's outcome.
type Result struct {
	Requests int
	Errors   int
	Elapsed  time.Duration
	P50, P99 time.Duration
	Statuses map[int]int
}

// RPS is completed requests per second.
func (r Result) RPS() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

func (r Result) String() string {
	return fmt.Sprintf("%9.0f req/s  p50 %7.3f ms  p99 %7.3f ms  (%d requests, %d errors, statuses %v)",
		r.RPS(), ms(r.P50), ms(r.P99), r.Requests, r.Errors, r.Statuses)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Run sends GET path to addr (host:port) over conns connections for the given duration, after a
// warm-up of warm. Extra headers are added verbatim ("Name: value").
func Run(addr, path string, conns int, warm, dur time.Duration, headers ...string) (Result, error) {
	return RunRaw(addr, Request(addr, "GET", path, nil, headers...), conns, warm, dur)
}

// Request builds the raw bytes of one HTTP/1.1 request (a Content-Length is added for a body).
func Request(addr, method, path string, body []byte, headers ...string) []byte {
	req := []byte(method + " " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: folio-loadgen\r\nAccept: */*\r\n")
	for _, h := range headers {
		req = append(req, h+"\r\n"...)
	}
	if body != nil {
		req = append(req, "Content-Length: "+strconv.Itoa(len(body))+"\r\n"...)
	}
	req = append(req, "\r\n"...)
	return append(req, body...)
}

// RunRaw sends the raw request req (see Request) to addr over conns connections, as Run does.
func RunRaw(addr string, req []byte, conns int, warm, dur time.Duration) (Result, error) {

	type worker struct {
		lat      []time.Duration
		errors   int
		statuses map[int]int
	}
	ws := make([]*worker, conns)
	var wg sync.WaitGroup
	start := time.Now()
	measureFrom := start.Add(warm)
	stopAt := measureFrom.Add(dur)
	var firstErr error
	var errMu sync.Mutex
	for i := range ws {
		w := &worker{statuses: map[int]int{}, lat: make([]time.Duration, 0, 1<<16)}
		ws[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errMu.Lock()
				firstErr = err
				errMu.Unlock()
				return
			}
			defer c.Close()
			br := bufio.NewReaderSize(c, 64<<10)
			for {
				t0 := time.Now()
				if t0.After(stopAt) {
					return
				}
				if _, err := c.Write(req); err != nil {
					w.errors++
					return
				}
				status, err := readResponse(br)
				t1 := time.Now()
				if err != nil {
					w.errors++
					return
				}
				if t0.After(measureFrom) {
					w.lat = append(w.lat, t1.Sub(t0))
					w.statuses[status]++
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return Result{}, firstErr
	}
	res := Result{Elapsed: dur, Statuses: map[int]int{}}
	var all []time.Duration
	for _, w := range ws {
		all = append(all, w.lat...)
		res.Errors += w.errors
		for k, v := range w.statuses {
			res.Statuses[k] += v
		}
	}
	res.Requests = len(all)
	if len(all) == 0 {
		return res, fmt.Errorf("no request completed")
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	res.P50 = all[len(all)/2]
	res.P99 = all[len(all)*99/100]
	return res, nil
}

// readResponse reads one response with a Content-Length body and returns its status.
func readResponse(br *bufio.Reader) (int, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 {
		return 0, fmt.Errorf("short status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, err
	}
	length, chunked := 0, false
	for {
		h, err := br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(h) <= 2 {
			break
		}
		if len(h) > 16 && bytes.EqualFold(h[:15], []byte("content-length:")) {
			length, err = strconv.Atoi(string(bytes.TrimSpace(h[15:])))
			if err != nil {
				return 0, err
			}
		}
		if len(h) > 18 && bytes.EqualFold(h[:18], []byte("transfer-encoding:")) && bytes.Contains(bytes.ToLower(h[18:]), []byte("chunked")) {
			chunked = true
		}
	}
	if chunked {
		return status, discardChunked(br)
	}
	if _, err := br.Discard(length); err != nil {
		return 0, err
	}
	return status, nil
}

// discardChunked skips a chunked body (sizes in hex, a zero chunk, then optional trailers).
func discardChunked(br *bufio.Reader) error {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		sz := bytes.TrimSpace(line)
		if i := bytes.IndexByte(sz, ';'); i >= 0 {
			sz = sz[:i]
		}
		n, err := strconv.ParseInt(string(sz), 16, 64)
		if err != nil {
			return fmt.Errorf("bad chunk size %q", line)
		}
		if n == 0 {
			for {
				t, err := br.ReadSlice('\n')
				if err != nil {
					return err
				}
				if len(t) <= 2 {
					return nil
				}
			}
		}
		if _, err := br.Discard(int(n) + 2); err != nil {
			return err
		}
	}
}

// Bare serves body with contentType from a plain net/http handler on a loopback port: the
// in-run baseline folio's figures are compared with. stop shuts it down.
func Bare(body []byte, contentType string) (addr string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	length := strconv.Itoa(len(body))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", length)
		w.Write(body)
	})}
	go srv.Serve(ln)
	return ln.Addr().String(), func() { srv.Close() }, nil
}

// Compare loads bareAddr and folioAddr with the same GET path at each connection count and
// prints both results and the folio/bare ratio of requests per second.
func Compare(w io.Writer, label, folioAddr, bareAddr, path string, conns []int, warm, dur time.Duration, headers ...string) error {
	for _, c := range conns {
		b, err := Run(bareAddr, path, c, warm, dur, headers...)
		if err != nil {
			return err
		}
		f, err := Run(folioAddr, path, c, warm, dur, headers...)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s %3d conns  bare  %s\n", label, c, b)
		fmt.Fprintf(w, "%s %3d conns  folio %s\n", label, c, f)
		fmt.Fprintf(w, "%s %3d conns  ratio folio/bare = %.2f (requests/s); p99 %.3f ms vs %.3f ms\n", label, c, f.RPS()/b.RPS(), ms(f.P99), ms(b.P99))
	}
	return nil
}

// FolioBuild is the command that builds folio (run from the module root) into bin the way the
// anchor PocketBase is built (bench/pocketbase/install.sh) and the README builds a release: static,
// without cgo, so neither carries the C library's resolver and its pages.
func FolioBuild(bin string) *exec.Cmd {
	c := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/folio")
	c.Env = append(os.Environ(), "CGO_ENABLED=0")
	return c
}

// Get fetches u whole with net/http; a status other than 200 is an error.
func Get(u string) ([]byte, string, error) {
	res, err := http.Get(u)
	if err != nil {
		return nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != 200 {
		err = fmt.Errorf("%s answered %d: %.200s", u, res.StatusCode, b)
	}
	return b, res.Header.Get("Content-Type"), err
}

// Times times n GETs of u one at a time, each whole body read, calling before (untimed) ahead of
// each; the durations come back sorted.
func Times(u string, n int, before func() error) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for range n {
		if before != nil {
			if err := before(); err != nil {
				return nil, err
			}
		}
		t := time.Now()
		if _, _, err := Get(u); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// Pct is the p-th percentile of sorted durations, in milliseconds.
func Pct(ds []time.Duration, p int) string {
	if len(ds) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f ms", ms(ds[(len(ds)-1)*p/100]))
}
