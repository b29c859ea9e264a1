package media

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"testing"

	_ "golang.org/x/image/webp"

	"github.com/foliohq/folio"
)

// secrets are strings planted in the metadata of the test photos; none may survive stripping.
var secrets = []string{"Exif", "SECRET", "xmpmeta", "8BIM", "GPS"}

// gpsExif is a TIFF structure as cameras write it: IFD0 with the orientation and a pointer to a
// GPS IFD holding latitude N 48° 51' 29.58" (a real position, say the owner's home).
func gpsExif(orientation uint16) []byte {
	le := binary.LittleEndian
	b := []byte("II*\x00")
	b = le.AppendUint32(b, 8)
	entry := func(b []byte, tag, typ uint16, count, value uint32) []byte {
		b = le.AppendUint16(b, tag)
		b = le.AppendUint16(b, typ)
		b = le.AppendUint32(b, count)
		return le.AppendUint32(b, value)
	}
	b = le.AppendUint16(b, 2)
	b = entry(b, 0x0112, 3, 1, uint32(orientation))
	b = entry(b, 0x8825, 4, 1, 38)
	b = le.AppendUint32(b, 0)
	// GPS IFD at 38.
	b = le.AppendUint16(b, 3)
	b = entry(b, 0x0001, 2, 2, uint32('N'))
	b = entry(b, 0x0002, 5, 3, 38+2+3*12+4)
	b = entry(b, 0x001B, 7, 16, 38+2+3*12+4+24) // GPSProcessingMethod
	b = le.AppendUint32(b, 0)
	for _, v := range []uint32{48, 1, 51, 1, 2958, 100} {
		b = le.AppendUint32(b, v)
	}
	return append(b, "ASCII\x00\x00\x00SECRETGP"...)
}

func jpegSegment(marker byte, payload []byte) []byte {
	s := []byte{0xFF, marker}
	s = binary.BigEndian.AppendUint16(s, uint16(len(payload)+2))
	return append(s, payload...)
}

// photo is a test picture: left half red, right half blue, with a gradient so resampling and
// lossy coding have something to do.
func photo(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{R: 230, G: uint8(y * 40 / h), B: 20, A: 255}
			if x >= w/2 {
				c = color.NRGBA{R: 20, G: uint8(y * 40 / h), B: 230, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

// gpsJPEG is a JPEG of img carrying a GPS EXIF block with the orientation, XMP, IPTC, a comment
// and trailing data after EOI, as phones and editors write them.
func gpsJPEG(t testing.TB, img image.Image, orientation uint16) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	plain := buf.Bytes()
	var out []byte
	out = append(out, plain[:2]...)
	out = append(out, jpegSegment(0xE1, append([]byte("Exif\x00\x00"), gpsExif(orientation)...))...)
	out = append(out, jpegSegment(0xE1, []byte("http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta>SECRET-XMP</x:xmpmeta>"))...)
	out = append(out, jpegSegment(0xED, []byte("Photoshop 3.0\x008BIM\x04\x04SECRET-IPTC"))...)
	out = append(out, jpegSegment(0xFE, []byte("SECRET-COMMENT"))...)
	out = append(out, plain[2:]...)
	return append(out, "SECRET-TRAILER"...)
}

func pngChunk(typ string, data []byte) []byte {
	c := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	body := append([]byte(typ), data...)
	c = append(c, body...)
	return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(body))
}

// gpsPNG is a PNG of img with tEXt, iTXt, zTXt, tIME and eXIf (GPS) chunks.
func gpsPNG(t testing.TB, img image.Image, orientation uint16) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	p := buf.Bytes()
	const afterIHDR = 8 + 25
	var meta []byte
	meta = append(meta, pngChunk("tEXt", []byte("Comment\x00SECRET-TEXT"))...)
	meta = append(meta, pngChunk("iTXt", []byte("XML:com.adobe.xmp\x00\x00\x00\x00\x00<x:xmpmeta>SECRET</x:xmpmeta>"))...)
	meta = append(meta, pngChunk("zTXt", []byte("Author\x00\x00x\x9c"))...)
	meta = append(meta, pngChunk("tIME", []byte{0x07, 0xEA, 5, 1, 12, 0, 0})...)
	meta = append(meta, pngChunk("eXIf", gpsExif(orientation))...)
	out := append(append(append([]byte{}, p[:afterIHDR]...), meta...), p[afterIHDR:]...)
	return append(out, "SECRET-TRAILER"...)
}

// gpsWebP wraps testdata/sample.webp (simple format, VP8) into the extended format with EXIF
// and XMP chunks and their VP8X flags.
func gpsWebP(t testing.TB) []byte {
	t.Helper()
	simple, err := os.ReadFile("testdata/sample.webp")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(simple))
	if err != nil {
		t.Fatal(err)
	}
	chunk := func(fourcc string, data []byte) []byte {
		c := append([]byte(fourcc), binary.LittleEndian.AppendUint32(nil, uint32(len(data)))...)
		c = append(c, data...)
		if len(data)%2 == 1 {
			c = append(c, 0)
		}
		return c
	}
	vp8x := []byte{vp8xEXIF | vp8xXMP, 0, 0, 0}
	vp8x = append(vp8x, byte(cfg.Width-1), byte((cfg.Width-1)>>8), byte((cfg.Width-1)>>16))
	vp8x = append(vp8x, byte(cfg.Height-1), byte((cfg.Height-1)>>8), byte((cfg.Height-1)>>16))
	body := []byte("WEBP")
	body = append(body, chunk("VP8X", vp8x)...)
	body = append(body, simple[12:]...) // the VP8 chunk
	body = append(body, chunk("EXIF", gpsExif(1))...)
	body = append(body, chunk("XMP ", []byte("<x:xmpmeta>SECRET-XMP</x:xmpmeta>"))...)
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
}

// gpsGIF is a two-frame looping GIF with a comment and an XMP application extension.
func gpsGIF(t testing.TB) []byte {
	t.Helper()
	pal := color.Palette{color.Black, color.White, color.RGBA{R: 255, A: 255}}
	a := image.NewPaletted(image.Rect(0, 0, 8, 8), pal)
	b := image.NewPaletted(image.Rect(0, 0, 8, 8), pal)
	b.SetColorIndex(1, 1, 2)
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, &gif.GIF{Image: []*image.Paletted{a, b}, Delay: []int{10, 10}, LoopCount: 0}); err != nil {
		t.Fatal(err)
	}
	g := buf.Bytes()
	head := 13 // header and screen descriptor (no global colour table: each frame has its own)
	var meta []byte
	meta = append(meta, 0x21, 0xFE, 14)
	meta = append(meta, "SECRET-COMMENT"...)
	meta = append(meta, 0)
	meta = append(meta, 0x21, 0xFF, 11)
	meta = append(meta, "XMP DataXMP"...)
	meta = append(meta, 21)
	meta = append(meta, "<x:xmpmeta>SECRET</x>"...)
	meta = append(meta, 0)
	return append(append(append([]byte{}, g[:head]...), meta...), g[head:]...)
}

func assertClean(t *testing.T, out []byte) {
	t.Helper()
	for _, s := range secrets {
		if bytes.Contains(out, []byte(s)) {
			t.Errorf("%q survived stripping", s)
		}
	}
}

func samePixels(t *testing.T, a, b image.Image) {
	t.Helper()
	if a.Bounds() != b.Bounds() {
		t.Fatalf("bounds %v vs %v", a.Bounds(), b.Bounds())
	}
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				t.Fatalf("pixel %d,%d differs: stripping was not lossless", x, y)
			}
		}
	}
}

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return img
}

func TestStripJPEG(t *testing.T) {
	in := gpsJPEG(t, photo(64, 32), 6)
	var out bytes.Buffer
	st, err := StripJPEG(&out, bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if st.Orientation != 6 {
		t.Errorf("orientation %d, want 6", st.Orientation)
	}
	assertClean(t, out.Bytes())
	samePixels(t, decode(t, in), decode(t, out.Bytes()))
	if !bytes.Contains(out.Bytes(), []byte("JFIF")) && bytes.Contains(in, []byte("JFIF")) {
		t.Error("JFIF header dropped")
	}
}

func TestStripPNG(t *testing.T) {
	in := gpsPNG(t, photo(16, 8), 3)
	var out bytes.Buffer
	st, err := StripPNG(&out, bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if st.Orientation != 3 {
		t.Errorf("orientation %d, want 3", st.Orientation)
	}
	assertClean(t, out.Bytes())
	for _, c := range []string{"tEXt", "iTXt", "zTXt", "tIME", "eXIf"} {
		if bytes.Contains(out.Bytes(), []byte(c)) {
			t.Errorf("chunk %s survived", c)
		}
	}
	samePixels(t, decode(t, in), decode(t, out.Bytes()))
}

func TestStripWebP(t *testing.T) {
	in := gpsWebP(t)
	var out bytes.Buffer
	if _, err := StripWebP(&out, bytes.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	b := out.Bytes()
	assertClean(t, b)
	if got := binary.LittleEndian.Uint32(b[4:8]); int(got) != len(b)-8 {
		t.Errorf("RIFF size %d, file has %d bytes after the header", got, len(b)-8)
	}
	if string(b[12:16]) != "VP8X" || b[20]&(vp8xEXIF|vp8xXMP) != 0 {
		t.Errorf("VP8X flags still announce metadata: %x", b[20])
	}
	samePixels(t, decode(t, in), decode(t, b))
}

func TestStripGIF(t *testing.T) {
	in := gpsGIF(t)
	var out bytes.Buffer
	st, err := StripGIF(&out, bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	assertClean(t, out.Bytes())
	if st.Frames != 2 {
		t.Errorf("frames %d, want 2", st.Frames)
	}
	g, err := gif.DecodeAll(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 2 || g.LoopCount != 0 || !bytes.Contains(out.Bytes(), []byte("NETSCAPE2.0")) {
		t.Errorf("animation lost: %d frames, loop %d", len(g.Image), g.LoopCount)
	}
	orig, _ := gif.DecodeAll(bytes.NewReader(in))
	for i := range g.Image {
		samePixels(t, orig.Image[i], g.Image[i])
	}
}

func TestOrientationApplied(t *testing.T) {
	// Stored sideways (64×32, red left, blue right) with orientation 6: upright it is 32×64,
	// red on top.
	for _, tc := range []struct {
		name string
		in   []byte
	}{{"jpeg", gpsJPEG(t, photo(64, 32), 6)}, {"png", gpsPNG(t, photo(64, 32), 6)}} {
		t.Run(tc.name, func(t *testing.T) {
			u, store := mustUploader(t)
			obj, err := u.FromReader(t.Context(), bytes.NewReader(tc.in), "p."+tc.name, folio.BlobMeta{})
			if err != nil {
				t.Fatal(err)
			}
			if obj.Width != 32 || obj.Height != 64 {
				t.Fatalf("dimensions %dx%d, want 32x64", obj.Width, obj.Height)
			}
			stored := store.objs[obj.Key]
			assertClean(t, stored)
			img := decode(t, stored)
			if img.Bounds().Dx() != 32 || img.Bounds().Dy() != 64 {
				t.Fatalf("stored image is %v", img.Bounds())
			}
			top, bottom := img.At(16, 8), img.At(16, 56)
			if r, _, b, _ := top.RGBA(); r < b {
				t.Errorf("top is %v, want red", top)
			}
			if r, _, b, _ := bottom.RGBA(); r > b {
				t.Errorf("bottom is %v, want blue", bottom)
			}
		})
	}
}

func TestOrientSource(t *testing.T) {
	// Every orientation applied to the image it describes gives the upright image back; 6 and 8
	// are each other's inverse, the others their own.
	inverse := map[int]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6}
	up := photo(6, 4)
	up.Set(0, 0, color.NRGBA{G: 255, A: 255}) // a marked corner
	for o := 2; o <= 8; o++ {
		stored := orient(up, inverse[o])
		back := orient(stored, o)
		samePixels(t, up, back)
	}
	// Orientation 6 turns clockwise: the stored top-left corner ends top-right.
	stored := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	stored.Set(0, 0, color.NRGBA{R: 255, A: 255})
	got := orient(stored, 6)
	if got.Bounds().Dx() != 2 || got.Bounds().Dy() != 4 {
		t.Fatalf("bounds %v", got.Bounds())
	}
	if r, _, _, _ := got.At(1, 0).RGBA(); r != 0xffff {
		t.Errorf("orientation 6: marked corner not at top-right")
	}
}

func TestStripRefusesMalformed(t *testing.T) {
	for name, in := range map[string][]byte{
		"jpeg": append([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF}, "short"...),
		"png":  []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x10IHDR"),
		"webp": []byte("RIFF\x04\x00\x00\x00WEBP"),
		"gif":  []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00\x99"),
	} {
		ct := map[string]string{"jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp", "gif": "image/gif"}[name]
		var out bytes.Buffer
		if _, _, err := stripMetadata(ct, &out, bytes.NewReader(in)); err == nil {
			t.Errorf("%s: malformed input accepted", name)
		}
	}
}

// fuzzStrip checks a stripper on arbitrary input: no panic, and when the input is an image the
// standard decoders read (of a sane size), the output still decodes to the same dimensions.
func fuzzStrip(f *testing.F, contentType string, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		_, _, err := stripMetadata(contentType, &out, bytes.NewReader(in))
		if err != nil {
			return
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(in))
		if err != nil || cfg.Width*cfg.Height > 1<<20 || "image/"+format != contentType {
			return
		}
		want, _, err := image.Decode(bytes.NewReader(in))
		if err != nil {
			return
		}
		got, _, err := image.Decode(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("input decodes, stripped output does not: %v", err)
		}
		if got.Bounds() != want.Bounds() {
			t.Fatalf("bounds changed: %v, was %v", got.Bounds(), want.Bounds())
		}
	})
}

func FuzzStripJPEG(f *testing.F) {
	fuzzStrip(f, "image/jpeg", gpsJPEG(f, photo(16, 8), 6), jpegBytes(f, 8, 8))
}

func FuzzStripPNG(f *testing.F) {
	fuzzStrip(f, "image/png", gpsPNG(f, photo(8, 4), 1), pngBytes(f, 4, 4))
}

func FuzzStripWebP(f *testing.F) {
	simple, _ := os.ReadFile("testdata/sample.webp")
	fuzzStrip(f, "image/webp", gpsWebP(f), simple)
}

func FuzzStripGIF(f *testing.F) { fuzzStrip(f, "image/gif", gpsGIF(f), gifBytes(f, 4, 4)) }

// TestOrientPixelFormats: the in-place paths for the decoders' pixel formats turn images exactly
// like the generic path does.
func TestOrientPixelFormats(t *testing.T) {
	base := photo(7, 5)
	base.Set(0, 0, color.NRGBA{G: 255, A: 255})
	rgba := image.NewRGBA(base.Rect)
	gray := image.NewGray(base.Rect)
	ycc := image.NewYCbCr(base.Rect, image.YCbCrSubsampleRatio444)
	for y := 0; y < 5; y++ {
		for x := 0; x < 7; x++ {
			c := base.NRGBAAt(x, y)
			rgba.Set(x, y, c)
			gray.Set(x, y, c)
			yy, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
			ycc.Y[ycc.YOffset(x, y)], ycc.Cb[ycc.COffset(x, y)], ycc.Cr[ycc.COffset(x, y)] = yy, cb, cr
		}
	}
	for o := 2; o <= 8; o++ {
		for name, img := range map[string]image.Image{"rgba": rgba, "gray": gray, "ycbcr444": ycc} {
			want := image.NewNRGBA(img.Bounds())
			for y := 0; y < 5; y++ {
				for x := 0; x < 7; x++ {
					want.Set(x, y, img.At(x, y))
				}
			}
			got, ref := orient(img, o), orient(want, o)
			if got.Bounds() != ref.Bounds() {
				t.Fatalf("%s o=%d: bounds %v, want %v", name, o, got.Bounds(), ref.Bounds())
			}
			for y := 0; y < ref.Bounds().Dy(); y++ {
				for x := 0; x < ref.Bounds().Dx(); x++ {
					r1, g1, b1, _ := got.At(x, y).RGBA()
					r2, g2, b2, _ := ref.At(x, y).RGBA()
					if r1>>8 != r2>>8 || g1>>8 != g2>>8 || b1>>8 != b2>>8 {
						t.Fatalf("%s o=%d: pixel %d,%d differs", name, o, x, y)
					}
				}
			}
		}
	}
}

// TestOrientSubsampledAndOtherFormats: subsampled YCbCr (whose chroma planes turn with the
// image, 4:2:2 becoming 4:4:0 and back), CMYK and 16-bit grey turn like the generic path, and
// keep their pixel format where one holds the turned image (the memory estimate relies on it).
func TestOrientSubsampledAndOtherFormats(t *testing.T) {
	const w, h = 8, 6 // whole chroma blocks for every subsampling
	imgs := map[string]image.Image{}
	for name, r := range map[string]image.YCbCrSubsampleRatio{"422": image.YCbCrSubsampleRatio422, "440": image.YCbCrSubsampleRatio440,
		"420": image.YCbCrSubsampleRatio420, "411": image.YCbCrSubsampleRatio411} {
		m := image.NewYCbCr(image.Rect(0, 0, w, h), r)
		for i := range m.Y {
			m.Y[i] = uint8(i * 5)
		}
		for i := range m.Cb {
			m.Cb[i], m.Cr[i] = uint8(40+i*9), uint8(200-i*7)
		}
		imgs["ycbcr"+name] = m
	}
	cmyk := image.NewCMYK(image.Rect(0, 0, w, h))
	g16 := image.NewGray16(image.Rect(0, 0, w, h))
	for i := range cmyk.Pix {
		cmyk.Pix[i] = uint8(i * 3)
	}
	for i := range g16.Pix {
		g16.Pix[i] = uint8(i * 11)
	}
	imgs["cmyk"], imgs["gray16"] = cmyk, g16
	for o := 2; o <= 8; o++ {
		for name, img := range imgs {
			want := image.NewNRGBA64(img.Bounds())
			for y := range h {
				for x := range w {
					want.Set(x, y, img.At(x, y))
				}
			}
			got, ref := orient(img, o), orient(want, o)
			if got.Bounds() != ref.Bounds() {
				t.Fatalf("%s o=%d: bounds %v, want %v", name, o, got.Bounds(), ref.Bounds())
			}
			for y := range ref.Bounds().Dy() {
				for x := range ref.Bounds().Dx() {
					r1, g1, b1, a1 := got.At(x, y).RGBA()
					r2, g2, b2, a2 := ref.At(x, y).RGBA()
					if r1>>8 != r2>>8 || g1>>8 != g2>>8 || b1>>8 != b2>>8 || a1>>8 != a2>>8 {
						t.Fatalf("%s o=%d: pixel %d,%d differs", name, o, x, y)
					}
				}
			}
			switch {
			case name == "ycbcr411":
				if _, ok := got.(*image.NRGBA); !ok {
					t.Errorf("%s o=%d: %T, want *image.NRGBA (no YCbCr holds 4:1:1 turned)", name, o, got)
				}
			case fmt.Sprintf("%T", got) != fmt.Sprintf("%T", img):
				t.Errorf("%s o=%d: turned into %T, want %T", name, o, got, img)
			}
		}
	}
}
