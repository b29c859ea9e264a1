package blob

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliohq/folio"
)

func mustLocal(t *testing.T) (*Local, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := NewLocal(dir, "https://example.test/media/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, dir
}

func TestLocalConformance(t *testing.T) {
	t.Parallel()
	l, _ := mustLocal(t)
	testStore(t, l, "")
}

func TestLocalURL(t *testing.T) {
	t.Parallel()
	l, _ := mustLocal(t)
	if got, want := l.URL("ab/c d.png"), "https://example.test/media/ab/c%20d.png"; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
	d, err := NewLocal(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got, want := d.URL("x.png"), "/media/x.png"; got != want {
		t.Errorf("default URL = %q, want %q", got, want)
	}
}

func TestLocalLeavesNoTempFiles(t *testing.T) {
	t.Parallel()
	l, dir := mustLocal(t)
	ctx := context.Background()
	mustPut(t, l, "a.txt", []byte("abc"), 3, folio.BlobMeta{ContentType: "text/plain"})
	_ = l.Put(ctx, "b.txt", strings.NewReader("abc"), 99, folio.BlobMeta{})
	entries, err := os.ReadDir(filepath.Join(dir, localTmpDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("temp dir holds %d files after Put, want 0", len(entries))
	}
}

func TestLocalHandler(t *testing.T) {
	t.Parallel()
	l, dir := mustLocal(t)
	body := bytes.Repeat([]byte("0123456789"), 100)
	mustPut(t, l, "abc.png", body, int64(len(body)), folio.BlobMeta{ContentType: "image/png"})
	mustPut(t, l, "sub/pic.svg", []byte("<svg/>"), 6, folio.BlobMeta{ContentType: "image/svg+xml"})
	mustPut(t, l, "doc.pdf", []byte("%PDF-1.4"), 8, folio.BlobMeta{ContentType: "application/pdf"})
	mustPut(t, l, "clip.mp4", []byte("mp4"), 3, folio.BlobMeta{ContentType: "video/mp4"})
	mustPut(t, l, "page.html", []byte("<script>alert(1)</script>"), 25, folio.BlobMeta{ContentType: "text/html; charset=utf-8"})
	mustPut(t, l, "untyped", []byte("<html>"), 6, folio.BlobMeta{})

	// A symlink planted inside the store pointing outside must not be followed.
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.png")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	h := l.Handler()

	tests := []struct {
		name       string
		method     string
		target     string // raw request target
		header     map[string]string
		wantStatus int
		wantBody   string
		wantHeader map[string]string
	}{
		{name: "object", target: "/media/abc.png", wantStatus: 200, wantBody: string(body),
			wantHeader: map[string]string{
				"Content-Type":            "image/png",
				"Cache-Control":           "public, max-age=31536000, immutable",
				"X-Content-Type-Options":  "nosniff",
				"Content-Security-Policy": "default-src 'none'; sandbox",
				"Content-Disposition":     "",
				"Accept-Ranges":           "bytes",
			}},
		{name: "pdf is shown inline", target: "/media/doc.pdf", wantStatus: 200,
			wantHeader: map[string]string{"Content-Type": "application/pdf", "Content-Disposition": "", "Content-Security-Policy": "default-src 'none'; sandbox"}},
		{name: "video is shown inline", target: "/media/clip.mp4", wantStatus: 200,
			wantHeader: map[string]string{"Content-Type": "video/mp4", "Content-Disposition": ""}},
		{name: "html is an attachment", target: "/media/page.html", wantStatus: 200,
			wantHeader: map[string]string{"Content-Type": "text/html; charset=utf-8", "Content-Disposition": "attachment",
				"Content-Security-Policy": "default-src 'none'; sandbox", "X-Content-Type-Options": "nosniff"}},
		{name: "no stored type is an octet-stream attachment, never sniffed", target: "/media/untyped", wantStatus: 200,
			wantHeader: map[string]string{"Content-Type": "application/octet-stream", "Content-Disposition": "attachment"}},
		{name: "head", method: "HEAD", target: "/media/abc.png", wantStatus: 200,
			wantHeader: map[string]string{"Content-Length": "1000"}},
		{name: "range", target: "/media/abc.png", header: map[string]string{"Range": "bytes=10-14"},
			wantStatus: 206, wantBody: "01234", wantHeader: map[string]string{"Content-Range": "bytes 10-14/1000"}},
		{name: "svg is sandboxed", target: "/media/sub/pic.svg", wantStatus: 200,
			wantHeader: map[string]string{"Content-Type": "image/svg+xml", "Content-Security-Policy": "default-src 'none'; sandbox", "Content-Disposition": ""}},
		{name: "missing", target: "/media/nope.png", wantStatus: 404},
		{name: "directory", target: "/media/sub", wantStatus: 404},
		{name: "directory slash", target: "/media/sub/", wantStatus: 404},
		{name: "root", target: "/media/", wantStatus: 404},
		{name: "dot dot", target: "/media/../../etc/passwd", wantStatus: 404},
		{name: "encoded dot dot", target: "/media/%2e%2e/%2e%2e/etc/passwd", wantStatus: 404},
		{name: "encoded slash dot dot", target: "/media/sub%2f..%2f..%2fetc%2fpasswd", wantStatus: 404},
		{name: "backslash", target: `/media/..%5c..%5cetc%5cpasswd`, wantStatus: 404},
		{name: "sidecar metadata", target: "/media/.meta/abc.png.json", wantStatus: 404},
		{name: "temp dir", target: "/media/.tmp/", wantStatus: 404},
		{name: "symlink to outside file", target: "/media/link.png", wantStatus: 404},
		{name: "through symlinked dir", target: "/media/linkdir/secret.txt", wantStatus: 404},
		{name: "outside mount", target: "/other/abc.png", wantStatus: 404},
		{name: "post", method: "POST", target: "/media/abc.png", wantStatus: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			method := tt.method
			if method == "" {
				method = "GET"
			}
			req := httptest.NewRequest(method, tt.target, nil)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d (body %q)", rec.Code, tt.wantStatus, rec.Body.String())
			}
			if tt.wantBody != "" && rec.Body.String() != tt.wantBody {
				t.Errorf("body = %q, want %q", rec.Body.String(), tt.wantBody)
			}
			if strings.Contains(rec.Body.String(), "secret") {
				t.Errorf("body leaks the outside file")
			}
			for k, v := range tt.wantHeader {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestLocalHandlerETag(t *testing.T) {
	t.Parallel()
	l, _ := mustLocal(t)
	mustPut(t, l, "e.png", []byte("etag body"), 9, folio.BlobMeta{ContentType: "image/png"})
	h := l.Handler()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/media/e.png", nil))
	etag := rec.Header().Get("ETag")
	if !strings.HasPrefix(etag, `"`) || len(etag) != 66 {
		t.Fatalf("ETag = %q, want a quoted SHA-256", etag)
	}
	req := httptest.NewRequest("GET", "/media/e.png", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified {
		t.Errorf("conditional GET status = %d, want 304", rec.Code)
	}
}

// TestLocalHandlerThroughServer checks the handler behind a real server and ServeMux, where
// the client sends the raw, unnormalised paths an attacker would.
func TestLocalHandlerThroughServer(t *testing.T) {
	t.Parallel()
	l, _ := mustLocal(t)
	mustPut(t, l, "ok.png", []byte("fine"), 4, folio.BlobMeta{ContentType: "image/png"})
	mux := http.NewServeMux()
	mux.Handle("GET /media/", l.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, target := range []string{"/media/%2e%2e/%2e%2e/etc/passwd", "/media/..%2f..%2fetc%2fpasswd", "/media/.meta/ok.png.json"} {
		req, _ := http.NewRequest("GET", srv.URL+"/", nil)
		req.URL.Opaque = target // sent verbatim
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Errorf("GET %s = 200 %q, want a refusal", target, b)
		}
	}
	resp, err := client.Get(srv.URL + "/media/ok.png")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "fine" {
		t.Errorf("GET ok.png = %d %q", resp.StatusCode, b)
	}
}
