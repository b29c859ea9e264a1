package media

import (
	"context"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/blob"
)

// patternReader yields n bytes of a PDF header followed by filler, generated on the fly so the
// test itself holds no copy of the file.
type patternReader struct {
	head []byte
	left int64
}

func (p *patternReader) Read(b []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	b = b[:min(int64(len(b)), p.left)]
	n := copy(b, p.head)
	p.head = p.head[n:]
	for i := n; i < len(b); i++ {
		b[i] = byte(i)
	}
	p.left -= int64(len(b))
	return len(b), nil
}

// TestFromMultipartStreamsLargeFile uploads a file far larger than the memory the pipeline may
// use and checks, through the runtime's own counters, that it was never buffered: the bytes
// allocated during the whole upload stay a small fraction of the file.
func TestFromMultipartStreamsLargeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 400 MB to disk")
	}
	const fileSize = 200 << 20
	const budget = 16 << 20 // what the upload may allocate in total, 8% of the file
	store, err := blob.NewLocal(t.TempDir(), "/media")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	u := &Uploader{Store: store, TempDir: t.TempDir(), MaxBytes: fileSize}

	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fw, err := mw.CreateFormFile("file", "big.pdf")
		if err == nil {
			_, err = io.Copy(fw, &patternReader{head: []byte("%PDF-1.7\n"), left: fileSize})
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req := httptest.NewRequest("POST", "/api/media/upload", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var peakHeap atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // sample the live heap while the upload runs
		defer wg.Done()
		var ms runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peakHeap.Load() {
					peakHeap.Store(ms.HeapInuse)
				}
			}
		}
	}()
	obj, err := u.FromMultipart(context.Background(), req)
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("FromMultipart: %v", err)
	}
	// A PDF: images are decoded (bounded by MEDIA_MAX_PIXELS, see bench/upload); other files
	// are only streamed.
	if obj.Size != fileSize || obj.ContentType != "application/pdf" {
		t.Errorf("got %+v, want %d bytes of PDF", obj, fileSize)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("file %d MiB; allocated during upload %.1f MiB; heap in use %.1f MiB before, peak %.1f MiB",
		fileSize>>20, float64(allocated)/(1<<20), float64(before.HeapInuse)/(1<<20), float64(peakHeap.Load())/(1<<20))
	if allocated > budget {
		t.Errorf("upload allocated %d bytes, more than the %d-byte budget for a %d-byte file: it was buffered", allocated, budget, fileSize)
	}
	if peak := peakHeap.Load(); peak > before.HeapInuse+budget {
		t.Errorf("heap in use peaked at %d bytes, %d above the start: the file was buffered", peak, peak-before.HeapInuse)
	}
}
