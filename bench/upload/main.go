// Command upload measures the media upload pipeline: it streams a generated multipart upload
// (100 MB by default) over a loopback HTTP server into media.Uploader.FromMultipart, storing in
// local disk storage and, when FOLIO_TEST_S3_ENDPOINT (+ _ACCESS_KEY, _SECRET, _BUCKET) is set,
// in S3. It prints throughput and peak memory: the Go heap in use and memory obtained from the
// OS (runtime.MemStats, sampled every 5 ms) and the process's peak resident set (VmHWM).
//
//	go run ./bench/upload [-mb 100]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/media"
)

func main() {
	mb := flag.Int("mb", 100, "upload size in MB (10^6 bytes)")
	img := flag.Bool("image", false, "measure a 40-megapixel JPEG through the image pipeline (metadata, orientation, variants) instead")
	genFile := flag.String("gen-jpeg", "", "internal: write the test photo to this file and exit")
	orientation := flag.Int("orientation", 1, "internal: EXIF orientation of the generated photo")
	flag.Parse()
	if *genFile != "" {
		if err := genJPEG(*genFile, 7746, 5164, *orientation); err != nil {
			fmt.Fprintln(os.Stderr, "upload bench:", err)
			os.Exit(1)
		}
		return
	}
	if *img {
		if err := runImage(); err != nil {
			fmt.Fprintln(os.Stderr, "upload bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(int64(*mb) * 1_000_000); err != nil {
		fmt.Fprintln(os.Stderr, "upload bench:", err)
		os.Exit(1)
	}
}

func run(size int64) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "folio-bench-upload-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	local, err := blob.NewLocal(dir+"/store", "/media")
	if err != nil {
		return err
	}
	defer local.Close()
	targets := []struct {
		name  string
		store folio.BlobStore
	}{{"local", local}}
	if endpoint := os.Getenv("FOLIO_TEST_S3_ENDPOINT"); endpoint != "" {
		bucket := os.Getenv("FOLIO_TEST_S3_BUCKET")
		if bucket == "" {
			bucket = "folio-test"
		}
		s3, err := blob.NewS3(ctx, blob.S3Config{Endpoint: endpoint, Bucket: bucket, PathStyle: true,
			AccessKeyID: os.Getenv("FOLIO_TEST_S3_ACCESS_KEY"), SecretAccessKey: os.Getenv("FOLIO_TEST_S3_SECRET")})
		if err != nil {
			return err
		}
		if err := s3.EnsureBucket(ctx); err != nil {
			return err
		}
		targets = append(targets, struct {
			name  string
			store folio.BlobStore
		}{"s3 (" + endpoint + ")", s3})
	} else {
		fmt.Println("s3: skipped (FOLIO_TEST_S3_ENDPOINT not set)")
	}
	fmt.Printf("upload of %d MB through a loopback HTTP server, Go %s, %d CPUs\n", size/1_000_000, runtime.Version(), runtime.NumCPU())
	for i, t := range targets {
		// Different bytes per target, so content addressing never skips the store.
		if err := bench(ctx, t.name, t.store, dir, size, byte(i)); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	return nil
}

func bench(ctx context.Context, name string, store folio.BlobStore, dir string, size int64, seed byte) error {
	u := &media.Uploader{Store: store, MaxBytes: size, TempDir: dir}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		obj, err := u.FromMultipart(r.Context(), r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(obj)
	}))
	defer srv.Close()

	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fw, err := mw.CreateFormFile("file", "bench.pdf")
		if err == nil {
			_, err = io.Copy(fw, &pdfStream{left: size, seed: seed})
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()

	runtime.GC()
	resetPeakRSS()
	var start runtime.MemStats
	runtime.ReadMemStats(&start)
	peak := startSampler()
	t0 := time.Now()
	resp, err := http.Post(srv.URL, mw.FormDataContentType(), pr)
	if err != nil {
		peak.stop()
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	elapsed := time.Since(t0)
	heap, sys := peak.stop()
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	var obj folio.MediaObject
	if err := json.Unmarshal(body, &obj); err != nil || obj.Size != size {
		return fmt.Errorf("unexpected answer %s", body)
	}
	var end runtime.MemStats
	runtime.ReadMemStats(&end)
	fmt.Printf("%-28s %7.1f MB/s  %6.2f s  peak HeapInuse %5.1f MiB (start %4.1f)  peak Sys %5.1f MiB  allocated %5.1f MiB  peak RSS (VmHWM) %5.1f MiB\n",
		name, float64(size)/1e6/elapsed.Seconds(), elapsed.Seconds(), mib(heap), mib(start.HeapInuse), mib(sys),
		mib(end.TotalAlloc-start.TotalAlloc), float64(vmHWMKiB())/1024)
	// The key is not in the JSON answer; content-addressed keys are the URL's last segment.
	return store.Delete(ctx, path.Base(obj.URL))
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// pdfStream yields a PDF header followed by filler, generated on the fly.
type pdfStream struct {
	left int64
	seed byte
	sent bool
}

func (p *pdfStream) Read(b []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	b = b[:min(int64(len(b)), p.left)]
	n := 0
	if !p.sent {
		n = copy(b, "%PDF-1.7\n")
		p.sent = true
	}
	for i := n; i < len(b); i++ {
		b[i] = byte(i) ^ p.seed
	}
	p.left -= int64(len(b))
	return len(b), nil
}

type sampler struct {
	done      chan struct{}
	wg        sync.WaitGroup
	heap, sys uint64
}

func startSampler() *sampler {
	s := &sampler{done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			s.heap, s.sys = max(s.heap, ms.HeapInuse), max(s.sys, ms.Sys)
			select {
			case <-s.done:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *sampler) stop() (heap, sys uint64) {
	close(s.done)
	s.wg.Wait()
	return s.heap, s.sys
}

// resetPeakRSS resets VmHWM to the current RSS (Linux ≥ 4.0), so each run reports its own peak.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// vmHWMKiB reads the peak resident set size from /proc/self/status; 0 when unavailable.
func vmHWMKiB() int64 { return procStatusKiB("VmHWM:") }

func procStatusKiB(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
