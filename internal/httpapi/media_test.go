package httpapi

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/imagegen"
	"github.com/foliohq/folio/internal/imagegen/imagegenfake"
	"github.com/foliohq/folio/internal/media"
	"github.com/foliohq/folio/internal/sqldb"
)

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func multipartBody(t *testing.T, field, filename string, data []byte) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile(field, filename)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(data)
	mw.Close()
	return mw.FormDataContentType(), b.Bytes()
}

func newMediaServer(t *testing.T, db *sqldb.DB, fake *imagegenfake.Server) *testServer {
	t.Helper()
	local, err := blob.NewLocal(t.TempDir(), "http://folio.test/media")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	up := &media.Uploader{Store: local, MaxBytes: 64 << 10, TempDir: t.TempDir()}
	studio := &media.ImageStudio{Uploader: up, Model: "gpt-image-1"}
	if fake != nil {
		gen, err := imagegen.New(imagegen.Config{BaseURL: fake.BaseURL(), APIKey: "sk-test-secret-key", Model: "gpt-image-1", Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		studio.Generator = gen
	}
	return newTestServer(t, db, func(s *Server) {
		s.Uploader, s.ImageStudio, s.MediaFiles = up, studio, local.Handler()
	})
}

func TestMediaUploadRoute(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newMediaServer(t, db, nil)
		v := newOpenAPIValidator(t, ts)
		img := pngBytes(t, 32, 16)
		ct, body := multipartBody(t, "file", "shot.png", img)
		res := ts.do("POST", "/api/media/upload", "write", body, "Content-Type", ct)
		if res.Status != http.StatusCreated {
			t.Fatalf("upload: %d %s", res.Status, res.Body)
		}
		v.check("POST", "/api/media/upload", res)
		var obj struct {
			URL, Filename, ContentType string
			Size                       int64
			Width, Height              int
		}
		json.Unmarshal(res.Body, &obj)
		if obj.ContentType != "image/png" || obj.Size != int64(len(img)) || obj.Width != 32 || obj.Height != 16 || obj.Filename != "shot.png" ||
			!strings.HasPrefix(obj.URL, "http://folio.test/media/") {
			t.Errorf("upload result %+v", obj)
		}
		// The object is served under /media/ with its type and immutable caching.
		served := ts.do("GET", strings.TrimPrefix(obj.URL, "http://folio.test"), "", nil)
		if served.Status != 200 || !bytes.Equal(served.Body, img) || served.Header.Get("Content-Type") != "image/png" ||
			!strings.Contains(served.Header.Get("Cache-Control"), "immutable") || served.Header.Get("X-Content-Type-Options") != "nosniff" ||
			served.Header.Get("Content-Security-Policy") != "default-src 'none'; sandbox" || served.Header.Get("Content-Disposition") != "" {
			t.Errorf("serving: %d %v", served.Status, served.Header)
		}
		list := ts.do("GET", "/api/media", "write", nil)
		v.check("GET", "/api/media", list)
		if !strings.Contains(string(list.Body), obj.URL) {
			t.Errorf("media list lacks the upload: %s", list.Body)
		}

		htmlCT, htmlBody := multipartBody(t, "file", "page.png", []byte("<html><script>alert(1)</script></html>"))
		bigCT, bigBody := multipartBody(t, "file", "big.png", append(pngBytes(t, 2, 2), make([]byte, 70<<10)...))
		noneCT, noneBody := multipartBody(t, "other", "x.png", img)
		emptyCT, emptyBody := multipartBody(t, "file", "empty.png", nil)
		trickCT, trickBody := multipartBody(t, "file", "../../etc/passwd.png", img)
		for _, tc := range []struct {
			name, token, ct string
			body            []byte
			status          int
			code            string
		}{
			{"no credentials", "", ct, body, 401, "AUTHENTICATION_REQUIRED"},
			{"read key", "read", ct, body, 403, "PERMISSION_DENIED"},
			{"type sniffed, not trusted", "write", htmlCT, htmlBody, 415, "UNSUPPORTED_MEDIA_TYPE"},
			{"too large", "write", bigCT, bigBody, 413, "PAYLOAD_TOO_LARGE"},
			{"missing part", "write", noneCT, noneBody, 400, "VALIDATION_ERROR"},
			{"empty file", "write", emptyCT, emptyBody, 400, "VALIDATION_ERROR"},
			{"path tricks", "write", trickCT, trickBody, 400, "VALIDATION_ERROR"},
			{"not multipart", "write", "application/json", []byte(`{}`), 400, "VALIDATION_ERROR"},
			{"malformed multipart", "write", "multipart/form-data; boundary=xyz", []byte("--xyz\r\ngarbage"), 400, "VALIDATION_ERROR"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := ts.do("POST", "/api/media/upload", tc.token, tc.body, "Content-Type", tc.ct)
				if res.Status != tc.status || res.errorCode(t) != tc.code {
					t.Errorf("got %d %s, want %d %s", res.Status, res.Body, tc.status, tc.code)
				}
				v.check("POST", "/api/media/upload", res)
			})
		}
		if res := ts.do("GET", "/media/../../etc/passwd", "", nil); res.Status == 200 {
			t.Error("path escape served a file")
		}
		if res := ts.do("GET", "/media/", "", nil); res.Status == 200 {
			t.Error("directory listing served")
		}
	})
}

func TestGenerateImageRoute(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	fake := imagegenfake.New("sk-test-secret-key")
	t.Cleanup(fake.Close)
	ts := newMediaServer(t, db, fake)
	v := newOpenAPIValidator(t, ts)

	res := ts.do("POST", "/api/ai/generate-image", "write", map[string]any{"prompt": "a lighthouse at dusk", "size": "1024x1024"})
	if res.Status != 200 {
		t.Fatalf("generate: %d %s", res.Status, res.Body)
	}
	v.check("POST", "/api/ai/generate-image", res)
	var got struct{ ImageURL, Prompt string }
	json.Unmarshal(res.Body, &got)
	if got.Prompt != "a lighthouse at dusk" || !strings.HasPrefix(got.ImageURL, "http://folio.test/media/") {
		t.Errorf("result %+v", got)
	}
	served := ts.do("GET", strings.TrimPrefix(got.ImageURL, "http://folio.test"), "", nil)
	if served.Status != 200 || served.Header.Get("Content-Type") != "image/png" {
		t.Errorf("generated image not served: %d", served.Status)
	}
	if list := ts.do("GET", "/api/media", "write", nil); !strings.Contains(string(list.Body), `"prompt":"a lighthouse at dusk"`) {
		t.Errorf("media list does not keep the prompt: %s", list.Body)
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		field  string
	}{
		{"missing prompt", map[string]any{"size": "1024x1024"}, 400, "prompt"},
		{"size outside the list", map[string]any{"prompt": "x", "size": "10x10"}, 422, "size"},
		{"prompt too long", map[string]any{"prompt": strings.Repeat("p", 4001)}, 422, "prompt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ts.do("POST", "/api/ai/generate-image", "write", tc.body)
			if res.Status != tc.status || !strings.Contains(string(res.Body), `"field":"`+tc.field+`"`) {
				t.Errorf("got %d %s", res.Status, res.Body)
			}
			v.check("POST", "/api/ai/generate-image", res)
		})
	}
	fake.SetMode(imagegenfake.ModeServerError)
	res = ts.do("POST", "/api/ai/generate-image", "admin", map[string]any{"prompt": "x"})
	if res.Status != 502 || res.errorCode(t) != "UPSTREAM_ERROR" || strings.Contains(string(res.Body), "sk-test") {
		t.Errorf("upstream failure: %d %s", res.Status, res.Body)
	}
	// The helper limit (5 per key per hour) counted every call of the write key above: 1 + 3.
	fake.SetMode(imagegenfake.ModeAuto)
	ts.do("POST", "/api/ai/generate-image", "write", map[string]any{"prompt": "fifth"})
	res = ts.do("POST", "/api/ai/generate-image", "write", map[string]any{"prompt": "sixth"})
	if res.Status != 429 || res.errorCode(t) != "RATE_LIMIT_EXCEEDED" || res.Header.Get("Retry-After") == "" {
		t.Errorf("helper limit: %d %s", res.Status, res.Body)
	}
	if n := len(fake.Requests()); n != 3 {
		t.Errorf("upstream saw %d requests, want 3 (validation failures and the limited call never reach it)", n)
	}
}

func TestGenerateImageUnconfigured(t *testing.T) {
	ts := newMediaServer(t, foliotest.MustOpenSQLite(t), nil)
	res := ts.do("POST", "/api/ai/generate-image", "write", map[string]any{"prompt": "x"})
	if res.Status != 503 || res.errorCode(t) != "SERVICE_UNAVAILABLE" || !strings.Contains(string(res.Body), "IMAGE_API_KEY") {
		t.Errorf("unconfigured: %d %s", res.Status, res.Body)
	}

}
