package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/media"
)

// rssBudgetMiB is the target: a 40-megapixel JPEG is processed with peak RSS growth
// under 300 MB.
const rssBudgetMiB = 300

// genJPEG writes a w×h photo-like JPEG (4:2:0, quality 90) with an EXIF block (GPS position,
// the given orientation) to path. It runs in a child process (-gen-jpeg) so that the memory used
// to make the test photo is not in the measured process.
func genJPEG(path string, w, h, orientation int) error {
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := 0; y < h; y++ {
		row := img.Y[y*img.YStride:]
		for x := 0; x < w; x++ {
			row[x] = uint8((x*7 + y*3 + (x*y)>>9) & 0xff)
		}
	}
	for i := range img.Cb {
		img.Cb[i], img.Cr[i] = uint8(i>>4), uint8(255-i>>5)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		return err
	}
	le := binary.LittleEndian
	tiff := []byte("II*\x00\x08\x00\x00\x00\x01\x00")
	tiff = le.AppendUint16(tiff, 0x0112)
	tiff = le.AppendUint16(tiff, 3)
	tiff = le.AppendUint32(tiff, 1)
	tiff = le.AppendUint32(tiff, uint32(orientation))
	tiff = le.AppendUint32(tiff, 0)
	exif := append([]byte("Exif\x00\x00"), append(tiff, "GPS 48.8566N 2.3522E"...)...)
	seg := append([]byte{0xFF, 0xE1}, binary.BigEndian.AppendUint16(nil, uint16(len(exif)+2))...)
	out := append(append(append([]byte{}, buf.Bytes()[:2]...), append(seg, exif...)...), buf.Bytes()[2:]...)
	return os.WriteFile(path, out, 0o600)
}

// runImage uploads a 40-megapixel JPEG (upright, then stored sideways with orientation 6) and
// prints the peak RSS growth of the process beside the 300 MB budget.
func runImage() error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "folio-bench-image-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := blob.NewLocal(dir+"/store", "/media")
	if err != nil {
		return err
	}
	defer store.Close()
	const w, h = 7746, 5164 // 40.0 megapixels, 3:2
	fmt.Printf("image upload: %d×%d JPEG (%.1f MP) with EXIF, Go %s, %d CPUs; budget: peak RSS growth < %d MB\n",
		w, h, float64(w*h)/1e6, runtime.Version(), runtime.NumCPU(), rssBudgetMiB)
	for _, orientation := range []int{1, 6} {
		file := fmt.Sprintf("%s/photo-%d.jpg", dir, orientation)
		gen := exec.Command(os.Args[0], "-gen-jpeg", file, "-orientation", fmt.Sprint(orientation))
		gen.Stderr = os.Stderr
		if err := gen.Run(); err != nil {
			return fmt.Errorf("generating the photo: %w", err)
		}
		if err := benchImage(ctx, store, dir, file, orientation); err != nil {
			return err
		}
	}
	return nil
}

func benchImage(ctx context.Context, store folio.BlobStore, dir, file string, orientation int) error {
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	u := &media.Uploader{Store: store, MaxBytes: 64 << 20, TempDir: dir}
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
		f, err := os.Open(file)
		if err == nil {
			defer f.Close()
			var fw io.Writer
			if fw, err = mw.CreateFormFile("file", "photo.jpg"); err == nil {
				_, err = io.Copy(fw, f)
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	runtime.GC()
	debug.FreeOSMemory()
	rssBefore := vmRSSKiB()
	resetPeakRSS()
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
	heap, _ := peak.stop()
	growth := float64(vmHWMKiB()-rssBefore) / 1024
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	var obj folio.MediaObject
	if err := json.Unmarshal(body, &obj); err != nil {
		return err
	}
	verdict := "within"
	if growth >= rssBudgetMiB {
		verdict = "OVER"
	}
	fmt.Printf("orientation %d: %5.1f MB upload → stored %dx%d %5.1f MB + %d variants; %5.2f s; peak HeapInuse %5.1f MiB; peak RSS growth %5.1f MiB (%s the %d MB budget)\n",
		orientation, float64(st.Size())/1e6, obj.Width, obj.Height, float64(obj.Size)/1e6, len(obj.Variants), elapsed.Seconds(),
		mib(heap), growth, verdict, rssBudgetMiB)
	return nil
}

// vmRSSKiB reads the current resident set size from /proc/self/status; 0 when unavailable.
func vmRSSKiB() int64 { return procStatusKiB("VmRSS:") }
