package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/buckket/go-blurhash"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
)

// bombPNG is a PNG whose header declares w×h pixels but which carries almost no data: the
// decompression bomb the pixel limit is for.
func bombPNG(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0)
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, pngChunk("IEND", nil)...)
}

func TestPixelLimit(t *testing.T) {
	u, store := mustUploader(t)
	_, err := u.FromMultipart(t.Context(), multipartRequest(part{name: "file", filename: "bomb.png", body: bombPNG(60000, 60000)}))
	wantError(t, err, folio.EINVALID, 422, "file")
	if !strings.Contains(err.Error(), "60000×60000") {
		t.Errorf("message does not name the size: %v", err)
	}
	u.MaxPixels = 64 * 32
	for name, body := range map[string][]byte{
		"jpeg": gpsJPEG(t, photo(64, 33), 1), "png": pngBytes(t, 65, 32), "gif": gifBytes(t, 65, 32),
	} {
		_, err := u.FromMultipart(t.Context(), multipartRequest(part{name: "file", filename: "a." + name, body: body}))
		wantError(t, err, folio.EINVALID, 422, "file")
	}
	if _, err := u.FromMultipart(t.Context(), multipartRequest(part{name: "file", filename: "ok.png", body: pngBytes(t, 64, 32)})); err != nil {
		t.Errorf("image at the limit refused: %v", err)
	}
	if len(store.objs) != 1 {
		t.Errorf("%d objects stored, want only the image at the limit", len(store.objs))
	}
}

func TestVariants(t *testing.T) {
	u, store := mustUploader(t)
	in := gpsJPEG(t, photo(2000, 1000), 1)
	obj, err := u.FromReader(t.Context(), bytes.NewReader(in), "wide.jpg", folio.BlobMeta{})
	if err != nil {
		t.Fatal(err)
	}
	// The content address is the cleaned file's hash, not the upload's.
	stored := store.objs[obj.Key]
	sum := sha256.Sum256(stored)
	if obj.Key != hex.EncodeToString(sum[:])+".jpg" || int64(len(stored)) != obj.Size {
		t.Errorf("key %s / size %d is not the stored bytes' (%d bytes)", obj.Key, obj.Size, len(stored))
	}
	if upload := sha256.Sum256(in); strings.HasPrefix(obj.Key, hex.EncodeToString(upload[:])) {
		t.Error("key is the hash of the uploaded bytes, metadata included")
	}
	assertClean(t, stored)
	want := [][2]int{{320, 160}, {640, 320}, {1280, 640}, {1920, 960}}
	if len(obj.Variants) != len(want) {
		t.Fatalf("variants %+v", obj.Variants)
	}
	for i, v := range obj.Variants {
		if v.Width != want[i][0] || v.Height != want[i][1] {
			t.Errorf("variant %d is %dx%d, want %v", i, v.Width, v.Height, want[i])
		}
		data, ok := store.objs[v.Key]
		if !ok || !strings.HasPrefix(v.Key, strings.TrimSuffix(obj.Key, ".jpg")+"-w") || v.URL != store.URL(v.Key) {
			t.Fatalf("variant %+v not stored beside the original", v)
		}
		img, format, err := image.Decode(bytes.NewReader(data))
		if err != nil || format != "jpeg" || img.Bounds().Dx() != v.Width || img.Bounds().Dy() != v.Height {
			t.Fatalf("variant %d: %v %s %v", i, err, format, img.Bounds())
		}
		// Resampled, not cropped: the left quarter is red, the right quarter blue.
		if r, _, b, _ := img.At(v.Width/4, v.Height/2).RGBA(); r < b {
			t.Errorf("variant %d: left is not red", i)
		}
		if r, _, b, _ := img.At(3*v.Width/4, v.Height/2).RGBA(); r > b {
			t.Errorf("variant %d: right is not blue", i)
		}
	}
	if x, y, err := blurhash.Components(obj.Blurhash); err != nil || x != 4 || y != 3 {
		t.Errorf("blurhash %q: %d×%d, %v", obj.Blurhash, x, y, err)
	}

	// Never upscaled: a 700-pixel image gets 320 and 640 only; a 300-pixel one none.
	obj, err = u.FromReader(t.Context(), bytes.NewReader(gpsPNG(t, photo(700, 100), 1)), "mid.png", folio.BlobMeta{})
	if err != nil || len(obj.Variants) != 2 || obj.Variants[1].Width != 640 || obj.Blurhash == "" {
		t.Errorf("700 px: %+v %v", obj, err)
	}
	obj, err = u.FromReader(t.Context(), bytes.NewReader(pngBytes(t, 300, 10)), "small.png", folio.BlobMeta{})
	if err != nil || len(obj.Variants) != 0 || obj.Blurhash == "" {
		t.Errorf("300 px: %+v %v", obj, err)
	}
	// Transparency survives in PNG variants.
	obj, err = u.FromReader(t.Context(), bytes.NewReader(pngBytes(t, 400, 40)), "alpha.png", folio.BlobMeta{})
	if err != nil || len(obj.Variants) != 1 || !strings.HasSuffix(obj.Variants[0].Key, ".png") {
		t.Errorf("transparent: %+v %v", obj, err)
	}
	// An animated GIF keeps its original only.
	obj, err = u.FromReader(t.Context(), bytes.NewReader(gpsGIF(t)), "anim.gif", folio.BlobMeta{})
	if err != nil || len(obj.Variants) != 0 {
		t.Errorf("animated GIF: %+v %v", obj, err)
	}
	// A repeated upload stores nothing new and answers the same.
	puts := store.puts
	again, err := u.FromReader(t.Context(), bytes.NewReader(in), "wide.jpg", folio.BlobMeta{})
	if err != nil || store.puts != puts || len(again.Variants) != 4 {
		t.Errorf("repeat: %d new puts, %+v, %v", store.puts-puts, again, err)
	}
}

// TestVariantsOnS3 runs the image pipeline against a real S3 server (versitygw in CI): the
// cleaned original and every variant are stored there, readable, under the keys the response
// names.
func TestVariantsOnS3(t *testing.T) {
	endpoint := os.Getenv("FOLIO_TEST_S3_ENDPOINT")
	if endpoint == "" {
		t.Skip("FOLIO_TEST_S3_ENDPOINT not set; run .ci/install-versitygw.sh and export FOLIO_TEST_S3_* to test against a real S3 server")
	}
	bucket := os.Getenv("FOLIO_TEST_S3_BUCKET")
	if bucket == "" {
		bucket = "folio-test"
	}
	ctx := t.Context()
	store, err := blob.NewS3(ctx, blob.S3Config{Endpoint: endpoint, Bucket: bucket, PathStyle: true,
		AccessKeyID: os.Getenv("FOLIO_TEST_S3_ACCESS_KEY"), SecretAccessKey: os.Getenv("FOLIO_TEST_S3_SECRET")})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	u := &Uploader{Store: store, TempDir: t.TempDir()}
	obj, err := u.FromMultipart(ctx, multipartRequest(part{name: "file", filename: "phone.jpg", body: gpsJPEG(t, photo(1400, 700), 1)}))
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{obj.Key}
	for _, v := range obj.Variants {
		keys = append(keys, v.Key)
	}
	t.Cleanup(func() {
		for _, k := range keys {
			store.Delete(context.Background(), k)
		}
	})
	if len(obj.Variants) != 3 {
		t.Fatalf("variants %+v, want 320, 640, 1280", obj.Variants)
	}
	for i, k := range keys {
		rc, meta, err := store.Get(ctx, k)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		assertClean(t, data)
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil || meta.ContentType != "image/jpeg" {
			t.Fatalf("%s: %v %+v", k, err, meta)
		}
		if i > 0 && (cfg.Width != obj.Variants[i-1].Width || !strings.HasSuffix(obj.Variants[i-1].URL, "/"+bucket+"/"+k)) {
			t.Errorf("variant %s: %dx%d, url %s", k, cfg.Width, cfg.Height, obj.Variants[i-1].URL)
		}
	}
	assertNoTempFiles(t, u.TempDir)
}

// TestUndecodableImageKeptWithoutVariants: an image whose header reads but whose pixels do not
// decode (here a PNG with damaged compressed data; also animated WebP files, which x/image/webp
// cannot read) is stored, cleaned, without variants or blurhash.
func TestUndecodableImageKeptWithoutVariants(t *testing.T) {
	u, store := mustUploader(t)
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 800), 600)
	ihdr = append(ihdr, 8, 2, 0, 0, 0)
	in := []byte("\x89PNG\r\n\x1a\n")
	in = append(in, pngChunk("IHDR", ihdr)...)
	in = append(in, pngChunk("tEXt", []byte("GPS\x00SECRET"))...)
	in = append(in, pngChunk("IDAT", []byte("not zlib at all"))...)
	in = append(in, pngChunk("IEND", nil)...)
	obj, err := u.FromReader(t.Context(), bytes.NewReader(in), "damaged.png", folio.BlobMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if len(obj.Variants) != 0 || obj.Blurhash != "" || obj.Width != 800 {
		t.Errorf("%+v", obj)
	}
	assertClean(t, store.objs[obj.Key])
}

// TestOrientPackedFormats: every packed pixel format keeps its type when turned, and each pixel
// lands where orientSource says, read through the image's own At (a sub-image, so offsets count).
func TestOrientPackedFormats(t *testing.T) {
	r := image.Rect(0, 0, 6, 4)
	pal := color.Palette{color.Black, color.White, color.NRGBA{R: 255, A: 255}, color.NRGBA{B: 255, A: 255}}
	imgs := map[string]image.Image{
		"nrgba": image.NewNRGBA(r), "rgba": image.NewRGBA(r), "nrgba64": image.NewNRGBA64(r),
		"rgba64": image.NewRGBA64(r), "gray": image.NewGray(r), "gray16": image.NewGray16(r),
		"cmyk": image.NewCMYK(r), "paletted": image.NewPaletted(r, pal),
	}
	for name, img := range imgs {
		pix, _, _ := packedPixels(img)
		for i := range pix {
			pix[i] = uint8(i*7) % 4 // a valid palette index too
		}
		sub := img.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(1, 1, 6, 4))
		b := sub.Bounds()
		for o := 2; o <= 8; o++ {
			got := orient(sub, o)
			if fmt.Sprintf("%T", got) != fmt.Sprintf("%T", img) {
				t.Fatalf("%s o=%d: turned into %T", name, o, got)
			}
			if got.Bounds() != orientedRect(b, o) {
				t.Fatalf("%s o=%d: bounds %v, want %v", name, o, got.Bounds(), orientedRect(b, o))
			}
			for y := range got.Bounds().Dy() {
				for x := range got.Bounds().Dx() {
					sx, sy := orientSource(x, y, b.Dx(), b.Dy(), o)
					if g, w := got.At(x, y), sub.At(b.Min.X+sx, b.Min.Y+sy); g != w {
						t.Fatalf("%s o=%d: pixel %d,%d is %v, want %v", name, o, x, y, g, w)
					}
				}
			}
		}
	}
	if newPacked(image.NewYCbCr(r, image.YCbCrSubsampleRatio411), r) != nil {
		t.Error("newPacked made a packed image of a YCbCr")
	}
}
