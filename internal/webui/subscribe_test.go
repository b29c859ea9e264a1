package webui

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSubscribePages: /subscribe, a confirmation link and an unsubscribe link serve the subscribe
// page; only the form itself may be framed, by the embed origins (as /book), never the link views.
func TestSubscribePages(t *testing.T) {
	t.Parallel()
	h := mustHandler(t, Options{EmbedOrigins: []string{"https://owner.example"}})
	plain := mustHandler(t, Options{})
	get := func(h *Handler, path string) (int, string, string, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "http://folio.test"+path, nil))
		body, _ := io.ReadAll(rec.Result().Body)
		return rec.Code, rec.Header().Get("Content-Security-Policy"), rec.Header().Get("X-Frame-Options"), string(body)
	}
	code, csp, xfo, body := get(h, "/subscribe")
	if code != 200 || !strings.HasSuffix(csp, "frame-ancestors https://owner.example") || xfo != "" || !strings.Contains(body, `src="/subscribe/subscribe.js"`) {
		t.Errorf("/subscribe: %d, CSP %q, X-Frame-Options %q", code, csp, xfo)
	}
	for _, p := range []string{"/subscribe/confirm/abcdefghijklmnopqrstuv", "/unsubscribe/abcdefghijklmnopqrstuv"} {
		code, csp, xfo, body = get(h, p)
		if code != 200 || !strings.HasSuffix(csp, "frame-ancestors 'none'") || xfo != "DENY" || !strings.Contains(body, `src="/subscribe/subscribe.js"`) {
			t.Errorf("%s: %d, CSP %q, X-Frame-Options %q", p, code, csp, xfo)
		}
	}
	if _, csp, xfo, _ := get(plain, "/subscribe"); !strings.HasSuffix(csp, "frame-ancestors 'none'") || xfo != "DENY" {
		t.Errorf("/subscribe without embed origins: CSP %q, X-Frame-Options %q", csp, xfo)
	}
	for _, p := range []string{"/subscribe/subscribe.js", "/subscribe/shared/api.js", "/subscribe/embed.js", "/subscribe/subscribe.css"} {
		if code, _, xfo, _ := get(h, p); code != 200 || xfo != "DENY" {
			t.Errorf("%s: %d, X-Frame-Options %q", p, code, xfo)
		}
	}
	if code, _, _, _ := get(h, "/subscribe/"); code != 301 {
		t.Errorf("/subscribe/: %d, want 301", code)
	}
	for _, p := range []string{"/subscribe/confirm/", "/subscribe/confirm/a/b", "/subscribe/other", "/unsubscribe/", "/unsubscribe/a/b"} {
		if code, _, _, _ := get(h, p); code != 404 {
			t.Errorf("%s: %d, want 404", p, code)
		}
	}
}
