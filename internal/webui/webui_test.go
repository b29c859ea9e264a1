package webui

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func mustHandler(t *testing.T, opt Options) *Handler {
	t.Helper()
	h, err := New(opt)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return h
}

func TestServesPagesWithSecurityHeaders(t *testing.T) {
	t.Parallel()
	h := mustHandler(t, Options{ImageOrigins: []string{"https://cdn.example.com/", "bad origin; script-src *"}})
	tests := []struct {
		name, method, path string
		wantStatus         int
		wantType           string
		wantLocation       string
		wantBody           string
	}{
		{name: "dashboard", method: "GET", path: "/admin/", wantStatus: 200, wantType: "text/html; charset=utf-8", wantBody: `src="/admin/admin.js"`},
		{name: "dashboard without slash", method: "GET", path: "/admin", wantStatus: 301, wantLocation: "/admin/"},
		{name: "dashboard module", method: "GET", path: "/admin/admin.js", wantStatus: 200, wantType: "text/javascript; charset=utf-8", wantBody: "import"},
		{name: "shared module under admin", method: "GET", path: "/admin/shared/api.js", wantStatus: 200, wantType: "text/javascript; charset=utf-8", wantBody: "ApiError"},
		{name: "shared css under book", method: "GET", path: "/book/shared/base.css", wantStatus: 200, wantType: "text/css; charset=utf-8"},
		{name: "booking page", method: "GET", path: "/book", wantStatus: 200, wantType: "text/html; charset=utf-8", wantBody: `src="/book/book.js"`},
		{name: "booking page with slash", method: "GET", path: "/book/", wantStatus: 301, wantLocation: "/book"},
		{name: "booking config", method: "GET", path: "/book/config.json", wantStatus: 200, wantType: "application/json", wantBody: `"durationOptions":[30,60]`},
		{name: "head", method: "HEAD", path: "/book/book.js", wantStatus: 200, wantType: "text/javascript; charset=utf-8"},
		{name: "unknown file", method: "GET", path: "/admin/nope.js", wantStatus: 404},
		{name: "no directory walk", method: "GET", path: "/admin/../book/book.js", wantStatus: 404},
		{name: "book file not under admin", method: "GET", path: "/admin/book.js", wantStatus: 404},
		{name: "post refused", method: "POST", path: "/admin/", wantStatus: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(tt.method, "http://folio.test/", nil)
			req.URL.Path = tt.path
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.wantStatus {
				t.Fatalf("status: got %d, want %d", res.StatusCode, tt.wantStatus)
			}
			csp := res.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "img-src 'self' data: blob: https: https://cdn.example.com;"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "script-src *") || strings.Contains(csp, "unsafe-inline") {
				t.Errorf("CSP %q let a bad origin or inline code in", csp)
			}
			if got := res.Header.Get("X-Frame-Options"); got != "DENY" {
				t.Errorf("X-Frame-Options: got %q, want DENY", got)
			}
			if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options: got %q, want nosniff", got)
			}
			if tt.wantType != "" && res.Header.Get("Content-Type") != tt.wantType {
				t.Errorf("Content-Type: got %q, want %q", res.Header.Get("Content-Type"), tt.wantType)
			}
			if tt.wantLocation != "" && res.Header.Get("Location") != tt.wantLocation {
				t.Errorf("Location: got %q, want %q", res.Header.Get("Location"), tt.wantLocation)
			}
			if tt.wantBody != "" && !strings.Contains(string(body), tt.wantBody) {
				t.Errorf("body lacks %q", tt.wantBody)
			}
		})
	}
}

func TestETagRevalidation(t *testing.T) {
	t.Parallel()
	h := mustHandler(t, Options{})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/admin/admin.css", nil))
	etag := rec.Header().Get("ETag")
	if etag == "" || rec.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("got ETag %q, Cache-Control %q; want an ETag and no-cache", etag, rec.Header().Get("Cache-Control"))
	}
	req := httptest.NewRequest("GET", "/admin/admin.css", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified {
		t.Fatalf("conditional GET: got %d, want 304", rec.Code)
	}
}

func TestBookingConfig(t *testing.T) {
	t.Parallel()
	h := mustHandler(t, Options{Booking: BookingConfig{DurationOptions: []int{15, 45}, AdvanceDays: 10, MinNoticeHours: 2, OwnerTimeZone: "Europe/Berlin"}})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/book/config.json", nil))
	var got BookingConfig
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := BookingConfig{DurationOptions: []int{15, 45}, AdvanceDays: 10, MinNoticeHours: 2, OwnerTimeZone: "Europe/Berlin"}
	if got.AdvanceDays != want.AdvanceDays || got.MinNoticeHours != want.MinNoticeHours || got.OwnerTimeZone != want.OwnerTimeZone ||
		len(got.DurationOptions) != 2 || got.DurationOptions[0] != 15 || got.DurationOptions[1] != 45 {
		t.Fatalf("config: got %+v, want %+v", got, want)
	}
}

// TestNoRemoteOrInlineCode guards the offline, CSP-clean promise: no page or module refers to
// another origin, and no HTML file carries inline scripts, inline styles or event attributes.
func TestNoRemoteOrInlineCode(t *testing.T) {
	t.Parallel()
	h := mustHandler(t, Options{})
	remote := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//|@import\s+url\(\s*["']?https?:|from\s+["']https?:|import\(\s*["']https?:`)
	inline := regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>\s*[^<\s]|<style|\son[a-z]+\s*=|\sstyle\s*=|javascript:`)
	innerHTML := regexp.MustCompile(`\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write`)
	for p, a := range h.assets {
		body := string(a.body)
		if m := remote.FindString(body); m != "" {
			t.Errorf("%s refers to another origin: %q", p, m)
		}
		if strings.HasSuffix(p, "/") || strings.HasSuffix(p, ".html") {
			if m := inline.FindString(body); m != "" {
				t.Errorf("%s has inline code or style: %q", p, m)
			}
		}
		if strings.HasSuffix(p, ".js") {
			if m := innerHTML.FindString(body); m != "" {
				t.Errorf("%s writes HTML strings (%q); build nodes with textContent instead", p, m)
			}
		}
	}
}

// TestNavIconsDistinct: every page of the dashboard's navigation that has an icon has its own,
// and each is one of the vendored icons (Comments once borrowed Inbox's).
func TestNavIconsDistinct(t *testing.T) {
	t.Parallel()
	admin, err := files.ReadFile("ui/admin/admin.js")
	if err != nil {
		t.Fatal(err)
	}
	icons, err := files.ReadFile("ui/shared/icons.js")
	if err != nil {
		t.Fatal(err)
	}
	_, list, _ := strings.Cut(string(admin), "const pages = [")
	list, _, _ = strings.Cut(list, "];")
	row := regexp.MustCompile(`\{ path: '([^']+)'[^\n]*?\bicon: '([^']+)'`)
	rows := row.FindAllStringSubmatch(list, -1)
	if len(rows) < 10 {
		t.Fatalf("found %d pages with icons in admin.js; the pattern no longer reads the page list", len(rows))
	}
	owner := map[string]string{}
	for _, r := range rows {
		page, name := r[1], r[2]
		if other, ok := owner[name]; ok {
			t.Errorf("pages %s and %s share the icon %s", other, page, name)
		}
		owner[name] = page
		if !strings.Contains(string(icons), "\n  '"+name+"': [") {
			t.Errorf("page %s: icon %s is not in icons.js", page, name)
		}
	}
	if owner["message-square-text"] != "comments" {
		t.Errorf("comments has no speech-bubble icon (icons %v)", owner)
	}
}
