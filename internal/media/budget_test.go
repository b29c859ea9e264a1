package media

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
)

// flatPNG is a w×h PNG of one grey, 8 or 16 bits per channel, RGBA (colour type 6), written
// row by row so that even a huge canvas costs the test little memory: the 7000×7000 16-bit one
// is about half a megabyte and decodes to 392 MB.
func flatPNG(t testing.TB, w, h, depth int) []byte {
	t.Helper()
	var idat bytes.Buffer
	zw, err := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	row := bytes.Repeat([]byte{0x80}, 1+w*4*depth/8)
	row[0] = 0 // filter: none
	for range h {
		zw.Write(row)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, byte(depth), 6, 0, 0, 0)
	out := append([]byte("\x89PNG\r\n\x1a\n"), pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", idat.Bytes())...)
	return append(out, pngChunk("IEND", nil)...)
}

// TestDecodeBudgetRefusesSixteenBitImage is the regression of a 7000×7000 16-bit PNG (half a
// megabyte, under the 50-megapixel limit) that took the server from 91 to 533 MB: its pixels
// need 392 MB, so it is refused with the pixel limit's answer before any pixel is decoded.
func TestDecodeBudgetRefusesSixteenBitImage(t *testing.T) {
	u, store := mustUploader(t)
	reserved := 0
	decodeReserved = func(n int64) { reserved++ }
	t.Cleanup(func() { decodeReserved = nil })
	_, err := u.FromMultipart(context.Background(), multipartRequest(part{name: "file", filename: "big.png", body: flatPNG(t, 7000, 7000, 16)}))
	wantError(t, err, "VALIDATION_ERROR", 422, "file")
	if reserved != 0 || store.puts != 0 {
		t.Errorf("decodes reserved %d, objects stored %d; want none", reserved, store.puts)
	}
}

// TestDecodeBudgetCountsBytesNotPixels: of two images with the same number of pixels, the
// one with 16 bits per channel is refused where the 8-bit one fits.
func TestDecodeBudgetCountsBytesNotPixels(t *testing.T) {
	t.Parallel()
	u, _ := mustUploader(t)
	u.MaxPixels = 200 * 200 // budget: 6 bytes a pixel of it, 240,000 bytes
	if _, err := u.FromReader(context.Background(), bytes.NewReader(flatPNG(t, 200, 200, 8)), "8.png", folio.BlobMeta{}); err != nil {
		t.Fatalf("8-bit 200×200 (160 kB of pixels): %v", err)
	}
	_, err := u.FromReader(context.Background(), bytes.NewReader(flatPNG(t, 200, 200, 16)), "16.png", folio.BlobMeta{})
	wantError(t, err, "VALIDATION_ERROR", 422, "file")
}

// TestDecodeCost checks the estimate against what the decoders really allocate.
func TestDecodeCost(t *testing.T) {
	t.Parallel()
	const w, h = 300, 200
	px := int64(w * h)
	grey := image.NewGray(image.Rect(0, 0, w, h))
	jpegOf := func(img image.Image) []byte {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, nil); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	pngOf := func(img image.Image) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	progressive := func(b []byte) []byte { // the same frame marked progressive (SOF2): only the header is read
		i := bytes.Index(b, []byte{0xFF, 0xC0})
		return append(append(append([]byte{}, b[:i+1]...), 0xC2), b[i+2:]...)
	}
	vb := variantBytes(w, h) // 300 wide: no variant
	if vb != 0 {
		t.Fatalf("variantBytes(%d, %d) = %d, want 0 (narrower than every variant)", w, h, vb)
	}
	gray16 := image.NewGray16(grey.Rect)
	for _, tc := range []struct {
		name string
		file []byte
		turn bool
		want int64
	}{
		{"png grey", pngOf(grey), false, px},
		{"png grey turned", pngOf(grey), true, 2 * px},
		{"png 16-bit grey", pngOf(gray16), false, 2 * px},
		{"png rgba", flatPNG(t, w, h, 8), false, 4 * px},
		{"png 16-bit rgba", flatPNG(t, w, h, 16), false, 8 * px},
		{"png 16-bit rgba turned", flatPNG(t, w, h, 16), true, 16 * px},
		{"jpeg grey", jpegOf(grey), false, 304 * 200},                                              // rounded up to 8×8 blocks
		{"jpeg 4:2:0", jpegOf(photo(w, h)), false, 304 * 208 * 3 / 2},                              // 16×16 MCUs, 1.5 samples
		{"jpeg 4:2:0 turned", jpegOf(photo(w, h)), true, 2 * 304 * 208 * 3 / 2},                    // the YCbCr copy
		{"jpeg 4:2:0 progressive", progressive(jpegOf(photo(w, h))), false, 5 * 304 * 208 * 3 / 2}, // + int32 coefficients
	} {
		cfg, format, st := decodeSetup(t, tc.file)
		if got := decodeCost(cfg, format, st, tc.turn); got != tc.want {
			t.Errorf("%s: decodeCost = %d, want %d", tc.name, got, tc.want)
		}
	}
	// The 16-bit canvas of the issue: its pixels and its variants, made from a 3× box reduction.
	vb = variantBytes(7000, 7000)
	if vb < 1920*1920*4+2333*2333*4 || vb > 100<<20 {
		t.Errorf("variantBytes(7000, 7000) = %d, want the 1920 variant, the box-reduced copy and the smaller steps", vb)
	}
	cfg := image.Config{ColorModel: color.NRGBA64Model, Width: 7000, Height: 7000}
	if got, want := decodeCost(cfg, "png", stripped{Orientation: 1}, false), 7000*7000*8+vb; got != want {
		t.Errorf("7000×7000 16-bit: %d bytes, want %d", got, want)
	}
}

// TestDecodeBudgetIsSharedByConcurrentUploads uploads images concurrently under a budget that
// holds two of their decodes at once: each reserves its estimate, and the reserved bytes never
// exceed the budget, whatever the interleaving.
func TestDecodeBudgetIsSharedByConcurrentUploads(t *testing.T) {
	u, _ := mustUploader(t)
	file := flatPNG(t, 700, 500, 8)
	cfg, format, st := decodeSetup(t, file)
	cost := decodeCost(cfg, format, st, false)
	u.DecodeBudget = 2*cost + cost/2

	var mu sync.Mutex
	var held, peak int64
	var costs []int64
	decodeReserved = func(n int64) {
		mu.Lock()
		defer mu.Unlock()
		held += n
		peak = max(peak, held)
		if n > 0 {
			costs = append(costs, n)
		}
	}
	t.Cleanup(func() { decodeReserved = nil })
	const uploads = 8
	files := make([][]byte, uploads)
	for i := range files {
		files[i] = flatPNG(t, 700, 500+i, 8) // different bytes, so that every upload is decoded
	}
	var wg sync.WaitGroup
	errs := make(chan error, uploads)
	for _, f := range files {
		wg.Go(func() {
			_, err := u.FromReader(context.Background(), bytes.NewReader(f), "p.png", folio.BlobMeta{})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(costs) != uploads || held != 0 {
		t.Fatalf("%d reservations, %d bytes still held; want %d and 0", len(costs), held, uploads)
	}
	for _, c := range costs {
		if c < cost || c > cost+cost/50 {
			t.Errorf("a decode reserved %d bytes, want its estimate (about %d)", c, cost)
		}
	}
	if peak > u.DecodeBudget {
		t.Errorf("decodes held %d bytes at once, over the %d-byte budget", peak, u.DecodeBudget)
	}
}

// decodeSetup reads what the pipeline reads of file before it decodes it.
func decodeSetup(t testing.TB, file []byte) (image.Config, string, stripped) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := stripMetadata("image/"+format, &bytes.Buffer{}, bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	return cfg, format, st
}

// TestLargeDecodeGivesMemoryBack: once a decode over largeDecode finishes, the freed heap goes
// back to the operating system.
func TestLargeDecodeGivesMemoryBack(t *testing.T) {
	freed := make(chan struct{}, 1)
	old := osMemory
	osMemory = &memoryReturner{free: func() { freed <- struct{}{} }, interval: time.Hour}
	t.Cleanup(func() { osMemory = old })
	u, _ := mustUploader(t)
	if _, err := u.FromReader(context.Background(), bytes.NewReader(flatPNG(t, 100, 100, 8)), "small.png", folio.BlobMeta{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-freed:
		t.Fatal("a small decode gave memory back")
	default:
	}
	if _, err := u.FromReader(context.Background(), bytes.NewReader(flatPNG(t, 3000, 3000, 8)), "large.png", folio.BlobMeta{}); err != nil {
		t.Fatal(err) // 36 MB of pixels
	}
	select {
	case <-freed:
	case <-time.After(time.Minute): // a deadline for a failure, not a measured time
		t.Fatal("no memory given back after a 36 MB decode")
	}
}

// TestMemoryReturnerCoalesces: memory is given back at most once per interval; requests while
// one is due add nothing.
func TestMemoryReturnerCoalesces(t *testing.T) {
	t.Parallel()
	calls := make(chan struct{}, 10)
	m := &memoryReturner{free: func() { calls <- struct{}{} }, interval: time.Hour}
	m.giveBack() // none ran in the last hour: now
	<-calls
	for range 5 { // within the hour: one more, an hour after the first
		m.giveBack()
	}
	m.mu.Lock()
	pending := m.pending
	m.mu.Unlock()
	if !pending || len(calls) != 0 {
		t.Errorf("pending = %v, %d extra calls; want one pending and none run", pending, len(calls))
	}
}
