package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
)

// memStore is an in-memory folio.BlobStore that counts Puts.
type memStore struct {
	mu   sync.Mutex
	objs map[string][]byte
	meta map[string]folio.BlobMeta
	puts int
}

func newMemStore() *memStore {
	return &memStore{objs: map[string][]byte{}, meta: map[string]folio.BlobMeta{}}
}

func (m *memStore) Put(ctx context.Context, key string, r io.Reader, size int64, meta folio.BlobMeta) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if size >= 0 && int64(len(b)) != size {
		return fmt.Errorf("size %d, want %d", len(b), size)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objs[key], m.meta[key] = b, meta
	m.puts++
	return nil
}

func (m *memStore) Get(ctx context.Context, key string) (io.ReadCloser, folio.BlobMeta, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.objs[key]
	if !ok {
		return nil, folio.BlobMeta{}, folio.Errorf(folio.ENOTFOUND, "not found")
	}
	return io.NopCloser(bytes.NewReader(b)), m.meta[key], nil
}

func (m *memStore) Delete(ctx context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objs, key)
	return nil
}

func (m *memStore) Exists(ctx context.Context, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.objs[key]
	return ok, nil
}

func (m *memStore) URL(key string) string { return "https://cdn.test/media/" + key }

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.NRGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jpegBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gifBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gif.Encode(&buf, image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// apngBytes makes an animated PNG by inserting an acTL chunk right after IHDR.
func apngBytes(t testing.TB, w, h int) []byte {
	p := pngBytes(t, w, h)
	const afterIHDR = 8 + 25
	var chunk bytes.Buffer
	binary.Write(&chunk, binary.BigEndian, uint32(8))
	body := append([]byte("acTL"), 0, 0, 0, 1, 0, 0, 0, 0)
	chunk.Write(body)
	binary.Write(&chunk, binary.BigEndian, crc32.ChecksumIEEE(body))
	return append(append(append([]byte{}, p[:afterIHDR]...), chunk.Bytes()...), p[afterIHDR:]...)
}

// avifBytes is the start of an AVIF file, an ftyp box with the avif brand: what sniffers read,
// not a readable image.
func avifBytes() []byte {
	b := []byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf")
	return append(b, make([]byte, 64)...)
}

const pdfBytes = "%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"

type part struct {
	name, filename string
	body           []byte
}

// multipartRequest builds a request whose body is written by hand, so part headers can carry
// exactly the bytes a hostile client would send.
func multipartRequest(parts ...part) *http.Request {
	const boundary = "xxBOUNDARYxx"
	var b bytes.Buffer
	for _, p := range parts {
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=%q", boundary, p.name)
		switch {
		case strings.ContainsFunc(p.filename, func(r rune) bool { return r < 0x20 }):
			// RFC 2231 form: the only way control characters survive MIME header parsing.
			fmt.Fprintf(&b, "; filename*=UTF-8''%s", url.PathEscape(p.filename))
		case p.filename != "":
			fmt.Fprintf(&b, "; filename=\"%s\"", p.filename)
		}
		b.WriteString("\r\nContent-Type: application/octet-stream\r\n\r\n")
		b.Write(p.body)
		b.WriteString("\r\n")
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	req := httptest.NewRequest("POST", "/api/media/upload", &b)
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	return req
}

func mustUploader(t *testing.T) (*Uploader, *memStore) {
	t.Helper()
	store := newMemStore()
	u := &Uploader{Store: store, TempDir: t.TempDir()}
	t.Cleanup(func() { assertNoTempFiles(t, u.TempDir) })
	return u, store
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("%d temp files left behind", len(entries))
	}
}

func wantError(t *testing.T, err error, code string, status int, field string) {
	t.Helper()
	var fe *folio.Error
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a *folio.Error with code %s", err, code)
	}
	if fe.Code != code {
		t.Fatalf("code = %s (%v), want %s", fe.Code, err, code)
	}
	if status != 0 && (status == 422) != fe.RuleBroken {
		t.Errorf("rule broken = %v, want status %d", fe.RuleBroken, status)
	}
	if field != "" && (len(fe.Details) == 0 || fe.Details[0].Field != field) {
		t.Errorf("details = %+v, want field %q", fe.Details, field)
	}
	if fe.Message == "" {
		t.Error("empty message")
	}
}

func TestFromMultipartAccepted(t *testing.T) {
	t.Parallel()
	webp, err := os.ReadFile("testdata/sample.webp")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		body          []byte
		filename      string
		allowSVG      bool
		wantType      string
		wantExt       string
		wantW, wantH  int
		wantFilename  string
		extraPartsPre []part
	}{
		{name: "png", body: pngBytes(t, 3, 2), filename: "cat.png", wantType: "image/png", wantExt: ".png", wantW: 3, wantH: 2},
		{name: "apng served as png", body: apngBytes(t, 4, 4), filename: "anim.png", wantType: "image/png", wantExt: ".png", wantW: 4, wantH: 4},
		{name: "jpeg named wrongly", body: jpegBytes(t, 16, 9), filename: "photo.png", wantType: "image/jpeg", wantExt: ".jpg", wantW: 16, wantH: 9},
		{name: "gif", body: gifBytes(t, 5, 7), filename: "a.gif", wantType: "image/gif", wantExt: ".gif", wantW: 5, wantH: 7},
		{name: "webp", body: webp, filename: "b.webp", wantType: "image/webp", wantExt: ".webp", wantW: 150, wantH: 100},
		{name: "avif has no dimensions", body: cleanAVIF(t), filename: "c.avif", wantType: "image/avif", wantExt: ".avif"},
		{name: "pdf", body: []byte(pdfBytes), filename: "cv.pdf", wantType: "application/pdf", wantExt: ".pdf"},
		{name: "svg when allowed", body: []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`), filename: "i.svg", allowSVG: true, wantType: "image/svg+xml", wantExt: ".svg"},
		{name: "unicode name and surrounding spaces", body: pngBytes(t, 1, 1), filename: "  Été 日本.png ", wantType: "image/png", wantExt: ".png", wantW: 1, wantH: 1, wantFilename: "Été 日本.png"},
		{name: "no filename", body: pngBytes(t, 2, 2), wantType: "image/png", wantExt: ".png", wantW: 2, wantH: 2},
		{name: "other parts first are skipped", body: pngBytes(t, 1, 2), filename: "x.png", wantType: "image/png", wantExt: ".png", wantW: 1, wantH: 2,
			extraPartsPre: []part{{name: "title", body: []byte("hello")}, {name: "other", filename: "../../evil", body: bytes.Repeat([]byte("z"), 100_000)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, store := mustUploader(t)
			u.Allowed = AllowedTypes(tt.allowSVG)
			req := multipartRequest(append(tt.extraPartsPre, part{name: "file", filename: tt.filename, body: tt.body})...)
			obj, err := u.FromMultipart(context.Background(), req)
			if err != nil {
				t.Fatalf("FromMultipart: %v", err)
			}
			if obj.ContentType != tt.wantType || obj.Width != tt.wantW || obj.Height != tt.wantH || obj.Size != int64(len(tt.body)) {
				t.Errorf("got %+v, want type %s %dx%d size %d", obj, tt.wantType, tt.wantW, tt.wantH, len(tt.body))
			}
			if !strings.HasSuffix(obj.Key, tt.wantExt) || len(obj.Key) != 64+len(tt.wantExt) {
				t.Errorf("key = %q, want <sha256>%s", obj.Key, tt.wantExt)
			}
			if obj.URL != store.URL(obj.Key) {
				t.Errorf("URL = %q, want %q", obj.URL, store.URL(obj.Key))
			}
			wantName := tt.wantFilename
			if wantName == "" {
				wantName = tt.filename
			}
			if wantName == "" {
				wantName = obj.Key
			}
			if obj.Filename != wantName {
				t.Errorf("filename = %q, want %q", obj.Filename, wantName)
			}
			if !bytes.Equal(store.objs[obj.Key], tt.body) {
				t.Error("stored bytes differ from the upload")
			}
			if m := store.meta[obj.Key]; m.ContentType != tt.wantType || m.OriginalName != strings.TrimSpace(tt.filename) {
				t.Errorf("stored meta = %+v", m)
			}
		})
	}
}

func TestFromMultipartRefused(t *testing.T) {
	t.Parallel()
	png1 := pngBytes(t, 1, 1)
	notPNG := append(append([]byte{}, png1[:16]...), bytes.Repeat([]byte{0xff}, 100)...)
	tests := []struct {
		name        string
		req         func() *http.Request
		wantCode    string
		wantStatus  int
		wantField   string
		wantMessage string
	}{
		{name: "svg by default", req: func() *http.Request {
			return multipartRequest(part{name: "file", filename: "i.svg", body: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)})
		}, wantCode: folio.EUNSUPPORTED, wantMessage: "image/svg+xml"},
		{name: "plain text", req: func() *http.Request {
			return multipartRequest(part{name: "file", filename: "a.png", body: []byte("just text")})
		}, wantCode: folio.EUNSUPPORTED},
		{name: "html", req: func() *http.Request {
			return multipartRequest(part{name: "file", filename: "a.png", body: []byte("<html><script>x</script></html>")})
		}, wantCode: folio.EUNSUPPORTED},
		{name: "windows executable", req: func() *http.Request {
			return multipartRequest(part{name: "file", filename: "a.png", body: append([]byte("MZ\x90\x00"), make([]byte, 200)...)})
		}, wantCode: folio.EUNSUPPORTED},
		{name: "png magic, broken header", req: func() *http.Request {
			return multipartRequest(part{name: "file", filename: "a.png", body: notPNG})
		}, wantCode: folio.EUNSUPPORTED},
		{name: "not multipart", req: func() *http.Request {
			r := httptest.NewRequest("POST", "/", strings.NewReader(`{"file":"x"}`))
			r.Header.Set("Content-Type", "application/json")
			return r
		}, wantCode: folio.EINVALID, wantStatus: 400, wantField: "file"},
		{name: "no content type", req: func() *http.Request {
			return httptest.NewRequest("POST", "/", strings.NewReader("x"))
		}, wantCode: folio.EINVALID, wantStatus: 400, wantField: "file"},
		{name: "no boundary", req: func() *http.Request {
			r := httptest.NewRequest("POST", "/", strings.NewReader("x"))
			r.Header.Set("Content-Type", "multipart/form-data")
			return r
		}, wantCode: folio.EINVALID, wantStatus: 400, wantField: "file"},
		{name: "garbage body", req: func() *http.Request {
			r := httptest.NewRequest("POST", "/", strings.NewReader("this is not multipart at all"))
			r.Header.Set("Content-Type", "multipart/form-data; boundary=abc")
			return r
		}, wantCode: folio.EINVALID, wantStatus: 400, wantField: "file"},
		{name: "empty body", req: func() *http.Request {
			r := httptest.NewRequest("POST", "/", strings.NewReader(""))
			r.Header.Set("Content-Type", "multipart/form-data; boundary=abc")
			return r
		}, wantCode: folio.EINVALID, wantStatus: 400, wantField: "file"},
		{name: "cut off mid-file", req: func() *http.Request {
			full := multipartRequest(part{name: "file", filename: "a.png", body: pngBytes(t, 50, 50)})
			b, _ := io.ReadAll(full.Body)
			r := httptest.NewRequest("POST", "/", bytes.NewReader(b[:len(b)/2]))
			r.Header.Set("Content-Type", full.Header.Get("Content-Type"))
			return r
		}, wantCode: folio.EINVALID, wantStatus: 400, wantField: "file"},
		{name: "missing file part", req: func() *http.Request {
			return multipartRequest(part{name: "image", filename: "a.png", body: png1})
		}, wantCode: folio.EINVALID, wantStatus: 400, wantField: "file", wantMessage: `"file"`},
		{name: "empty file", req: func() *http.Request {
			return multipartRequest(part{name: "file", filename: "a.png"})
		}, wantCode: folio.EINVALID, wantStatus: 400, wantField: "file", wantMessage: "empty"},
		{name: "malformed disposition", req: func() *http.Request {
			body := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\r\n\r\nx\r\n--b--\r\n"
			r := httptest.NewRequest("POST", "/", strings.NewReader(body))
			r.Header.Set("Content-Type", "multipart/form-data; boundary=b")
			return r
		}, wantCode: folio.EINVALID, wantStatus: 400, wantField: "file"},
	}
	for _, name := range []string{"../../etc/passwd", `C:\x.png`, `..\..\win.ini`, "dir/a.png", "..", ".", "a.png:stream",
		"a\x01b.png", "nul\x00.png", "tab\tname.png", "evil\u202egnp.exe", "zero\u200bwidth.png", strings.Repeat("a", 256) + ".png"} {
		tests = append(tests, struct {
			name        string
			req         func() *http.Request
			wantCode    string
			wantStatus  int
			wantField   string
			wantMessage string
		}{name: "filename " + name[:min(len(name), 20)], req: func() *http.Request {
			return multipartRequest(part{name: "file", filename: name, body: png1})
		}, wantCode: folio.EINVALID, wantStatus: 400, wantField: "file", wantMessage: "file name"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, store := mustUploader(t)
			_, err := u.FromMultipart(context.Background(), tt.req())
			wantError(t, err, tt.wantCode, tt.wantStatus, tt.wantField)
			if tt.wantMessage != "" && !strings.Contains(err.Error(), tt.wantMessage) {
				t.Errorf("message %q does not mention %q", err, tt.wantMessage)
			}
			if store.puts != 0 {
				t.Errorf("%d objects stored, want 0", store.puts)
			}
		})
	}
}

func TestFromMultipartSizeCap(t *testing.T) {
	t.Parallel()
	const max = 4096
	base := []byte("%PDF-1.7\n")
	exact := append(append([]byte{}, base...), make([]byte, max-len(base))...)
	over := append(append([]byte{}, exact...), 0)
	tests := []struct {
		name    string
		req     *http.Request
		wantErr string
	}{
		{"exactly MaxBytes", multipartRequest(part{name: "file", filename: "a.png", body: exact}), ""},
		{"MaxBytes+1", multipartRequest(part{name: "file", filename: "a.png", body: over}), folio.ETOOLARGE},
		{"huge skipped part", multipartRequest(part{name: "junk", body: make([]byte, max+multipartSlack)}, part{name: "file", body: base}), folio.ETOOLARGE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, _ := mustUploader(t)
			u.MaxBytes = max
			obj, err := u.FromMultipart(context.Background(), tt.req)
			if tt.wantErr == "" {
				if err != nil || obj.Size != max {
					t.Fatalf("got %+v, %v; want size %d", obj, err, max)
				}
				return
			}
			wantError(t, err, tt.wantErr, 0, "")
		})
	}
	u := &Uploader{MaxBytes: 10 << 20}
	if err := u.readError(context.Background(), errTooLarge); !strings.Contains(err.Error(), "10 MiB") {
		t.Errorf("413 message %q does not name the limit", err)
	}
}

func TestFromMultipartIsIdempotent(t *testing.T) {
	t.Parallel()
	u, store := mustUploader(t)
	body := pngBytes(t, 8, 8)
	first, err := u.FromMultipart(context.Background(), multipartRequest(part{name: "file", filename: "one.png", body: body}))
	if err != nil {
		t.Fatal(err)
	}
	second, err := u.FromMultipart(context.Background(), multipartRequest(part{name: "file", filename: "two.png", body: body}))
	if err != nil {
		t.Fatal(err)
	}
	if first.URL != second.URL || first.Key != second.Key {
		t.Errorf("same bytes gave %s and %s", first.URL, second.URL)
	}
	if second.Filename != "two.png" {
		t.Errorf("second filename = %q, want two.png", second.Filename)
	}
	if store.puts != 1 || len(store.objs) != 1 {
		t.Errorf("puts = %d, objects = %d; want 1, 1", store.puts, len(store.objs))
	}
}

func TestFromReaderKeepsExtraMeta(t *testing.T) {
	t.Parallel()
	u, store := mustUploader(t)
	extra := map[string]string{"prompt": "a cat", "model": "m", "size": "1024x1024"}
	obj, err := u.FromReader(context.Background(), bytes.NewReader(pngBytes(t, 4, 3)), "", folio.BlobMeta{ContentType: "text/html", Extra: extra})
	if err != nil {
		t.Fatal(err)
	}
	m := store.meta[obj.Key]
	if m.ContentType != "image/png" || m.Extra["prompt"] != "a cat" || obj.Width != 4 || obj.Height != 3 {
		t.Errorf("obj %+v meta %+v", obj, m)
	}
	if _, err := u.FromReader(context.Background(), strings.NewReader("x"), "../x", folio.BlobMeta{}); folio.ErrorCode(err) != folio.EINVALID {
		t.Errorf("bad name: err = %v", err)
	}
}

func TestFromMultipartIntoLocalStore(t *testing.T) {
	t.Parallel()
	store, err := blob.NewLocal(t.TempDir(), "/media")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	u := &Uploader{Store: store, TempDir: t.TempDir()}
	body := pngBytes(t, 10, 20)
	obj, err := u.FromMultipart(context.Background(), multipartRequest(part{name: "file", filename: "pic.png", body: body}))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	store.Handler().ServeHTTP(rec, httptest.NewRequest("GET", obj.URL, nil))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), body) || rec.Header().Get("Content-Type") != "image/png" {
		t.Errorf("GET %s = %d %s", obj.URL, rec.Code, rec.Header().Get("Content-Type"))
	}
	assertNoTempFiles(t, u.TempDir)
}

func TestFromMultipartStopsOnCancel(t *testing.T) {
	t.Parallel()
	u, store := mustUploader(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := u.FromMultipart(ctx, multipartRequest(part{name: "file", filename: "a.png", body: pngBytes(t, 1, 1)}))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if store.puts != 0 {
		t.Error("stored despite cancellation")
	}
}

func FuzzCleanFilename(f *testing.F) {
	for _, s := range []string{"a.png", "../../etc/passwd", `C:\x`, "a\x00b", "..", " . ", "日本.png", "e\u202egnp.exe", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		name, err := CleanFilename(raw)
		if err != nil {
			if folio.ErrorCode(err) != folio.EINVALID {
				t.Fatalf("error %v is not a VALIDATION_ERROR", err)
			}
			return
		}
		if strings.ContainsAny(name, "/\\:\x00") || name == "." || name == ".." || len(name) > MaxFilenameBytes {
			t.Fatalf("CleanFilename(%q) = %q, unsafe", raw, name)
		}
		for _, r := range name {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("CleanFilename(%q) = %q keeps a control character", raw, name)
			}
		}
	})
}

// FuzzFromMultipart feeds arbitrary bodies: every outcome must be a stored object or a
// *folio.Error (never a 500), and no temp file may remain.
func FuzzFromMultipart(f *testing.F) {
	seed := func(parts ...part) []byte {
		b, _ := io.ReadAll(multipartRequest(parts...).Body)
		return b
	}
	f.Add(seed(part{name: "file", filename: "a.png", body: pngBytes(f, 1, 1)}))
	f.Add(seed(part{name: "file", filename: "../x", body: []byte("x")}))
	f.Add(seed(part{name: "x", body: []byte("y")}, part{name: "file", body: []byte(pdfBytes)}))
	f.Add([]byte("--xxBOUNDARYxx\r\n\r\n--xxBOUNDARYxx--"))
	f.Add([]byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte) {
		u := &Uploader{Store: newMemStore(), TempDir: dir, MaxBytes: 1 << 16}
		req := httptest.NewRequest("POST", "/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary=xxBOUNDARYxx")
		obj, err := u.FromMultipart(context.Background(), req)
		if err != nil {
			var fe *folio.Error
			if !errors.As(err, &fe) {
				t.Fatalf("non-folio error %v", err)
			}
		} else if obj.Key == "" || obj.Size <= 0 || !u.allowed()[obj.ContentType] {
			t.Fatalf("bad object %+v", obj)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 0 {
			t.Fatalf("%d temp files left", len(entries))
		}
	})
}

// TestFromMultipartIntoS3 runs the pipeline against the real S3-compatible server of
// FOLIO_TEST_S3_* (see .ci/install-versitygw.sh).
func TestFromMultipartIntoS3(t *testing.T) {
	t.Parallel()
	endpoint := os.Getenv("FOLIO_TEST_S3_ENDPOINT")
	if endpoint == "" {
		t.Skip("FOLIO_TEST_S3_ENDPOINT not set; run .ci/install-versitygw.sh and export FOLIO_TEST_S3_* to test against a real S3 server")
	}
	bucket := os.Getenv("FOLIO_TEST_S3_BUCKET")
	if bucket == "" {
		bucket = "folio-test"
	}
	ctx := context.Background()
	store, err := blob.NewS3(ctx, blob.S3Config{Endpoint: endpoint, Bucket: bucket, PathStyle: true,
		AccessKeyID: os.Getenv("FOLIO_TEST_S3_ACCESS_KEY"), SecretAccessKey: os.Getenv("FOLIO_TEST_S3_SECRET")})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.EnsureBucket(ctx); err != nil {
		t.Fatal(err)
	}
	u := &Uploader{Store: store, TempDir: t.TempDir()}
	body := pngBytes(t, 33, 44)
	obj, err := u.FromMultipart(ctx, multipartRequest(part{name: "file", filename: "Ünïcode.png", body: body}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Delete(ctx, obj.Key) })
	rc, meta, err := store.Get(ctx, obj.Key)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, _ := io.ReadAll(rc)
	if !bytes.Equal(got, body) || meta.ContentType != "image/png" || meta.OriginalName != "Ünïcode.png" {
		t.Errorf("stored %d bytes, meta %+v", len(got), meta)
	}
	if obj.Width != 33 || obj.Height != 44 || !strings.HasSuffix(obj.URL, "/"+bucket+"/"+obj.Key) {
		t.Errorf("obj = %+v", obj)
	}
	assertNoTempFiles(t, u.TempDir)
}
