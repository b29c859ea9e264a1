package webui

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEmbedOrigins: with BOOKING_EMBED_ORIGINS only the booking page and its manage view may be
// framed, by those origins; the dashboard, the page's own files and a setup without origins keep
// frame-ancestors 'none' and X-Frame-Options DENY. The manage view serves the booking page. The
// booking page drops the DENY an outer layer set: a browser obeys X-Frame-Options over CSP.
func TestEmbedOrigins(t *testing.T) {
	t.Parallel()
	h := mustHandler(t, Options{EmbedOrigins: []string{"https://owner.example", "https://blog.owner.example/", "bad; script-src *"}})
	plain := mustHandler(t, Options{})
	get := func(h *Handler, path string) (int, string, string, string) {
		req := httptest.NewRequest("GET", "http://folio.test"+path, nil)
		rec := httptest.NewRecorder()
		rec.Header().Set("X-Frame-Options", "DENY") // as the server's outer middleware sets on every answer
		h.ServeHTTP(rec, req)
		body, _ := io.ReadAll(rec.Result().Body)
		return rec.Code, rec.Header().Get("Content-Security-Policy"), rec.Header().Get("X-Frame-Options"), string(body)
	}
	for _, p := range []string{"/book", "/book/manage/abcdefghijklmnopqrstuv", "/book/some-type"} {
		code, csp, xfo, body := get(h, p)
		if code != 200 || !strings.HasSuffix(csp, "frame-ancestors https://owner.example https://blog.owner.example") || xfo != "" {
			t.Errorf("%s: %d, CSP %q, X-Frame-Options %q", p, code, csp, xfo)
		}
		if !strings.Contains(body, `src="/book/book.js"`) {
			t.Errorf("%s does not serve the booking page", p)
		}
	}
	for _, p := range []string{"/admin/", "/book/book.js", "/book/embed.js"} {
		if _, csp, xfo, _ := get(h, p); !strings.HasSuffix(csp, "frame-ancestors 'none'") || xfo != "DENY" {
			t.Errorf("%s: CSP %q, X-Frame-Options %q", p, csp, xfo)
		}
	}
	if _, csp, xfo, _ := get(plain, "/book"); !strings.HasSuffix(csp, "frame-ancestors 'none'") || xfo != "DENY" {
		t.Errorf("/book without embed origins: CSP %q, X-Frame-Options %q", csp, xfo)
	}
	for _, p := range []string{"/book/manage/", "/book/manage/a/b", "/book/Other", "/book/other.js", "/book/a/b"} {
		if code, _, _, _ := get(h, p); code != 404 {
			t.Errorf("%s: %d, want 404", p, code)
		}
	}
	if code, _, _, body := get(h, "/book/embed.js"); code != 200 || !strings.Contains(body, "folio-book:height") {
		t.Errorf("embed.js: %d", code)
	}
}
