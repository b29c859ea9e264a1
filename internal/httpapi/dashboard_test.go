package httpapi

import (
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestMarkdownPreview(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newTestServer(t, db)
		src := "# Title\n\n- [x] done\n- [ ] to do\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))"
		res := ts.do("POST", "/api/blog/preview", "write", map[string]string{"content": src})
		if res.Status != 200 {
			t.Fatalf("preview: %d %s", res.Status, res.Body)
		}
		html, _ := res.json(t)["html"].(string)
		if html != renderMarkdown(src) {
			t.Errorf("preview differs from the published renderer:\n%s\n%s", html, renderMarkdown(src))
		}
		if !strings.Contains(html, `type="checkbox"`) || strings.Contains(html, "<script") || strings.Contains(html, "javascript:") {
			t.Errorf("preview HTML: %s", html)
		}
		// The same content published shows the same HTML.
		created := ts.do("POST", "/api/posts", "write", map[string]any{"title": "Preview check", "content": src, "status": "published"})
		if created.Status != 201 {
			t.Fatalf("create: %d %s", created.Status, created.Body)
		}
		pub := ts.do("GET", "/api/blog/preview-check", "", nil)
		if got, _ := pub.json(t)["contentHtml"].(string); got != html {
			t.Errorf("published contentHtml differs from the preview:\n%s\n%s", got, html)
		}

		for _, tc := range []struct {
			token  string
			body   any
			status int
			code   string
		}{
			{"", map[string]string{"content": "x"}, 401, folio.EUNAUTHORIZED},
			{"read", map[string]string{"content": "x"}, 403, folio.EFORBIDDEN},
			{"write", "{", 400, folio.EINVALID},
			{"write", `{"content": 5}`, 400, folio.EINVALID},
			{"write", map[string]string{"content": strings.Repeat("é", 600_000)}, 413, folio.ETOOLARGE},
			{"write", map[string]string{"content": strings.Repeat("a", folio.MaxPostContentLen+1)}, 422, folio.EINVALID},
		} {
			res := ts.do("POST", "/api/blog/preview", tc.token, tc.body)
			if res.Status != tc.status || res.errorCode(t) != tc.code {
				t.Errorf("preview as %q: got %d %s, want %d %s", tc.token, res.Status, res.Body, tc.status, tc.code)
			}
		}
		if res := ts.do("POST", "/api/blog/preview", "write", map[string]string{"content": ""}); res.Status != 200 {
			t.Errorf("empty preview: %d %s", res.Status, res.Body)
		}
	})
}

func TestSetupState(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newTestServer(t, db, func(s *Server) {
			s.Features = []Feature{{ID: "imageGeneration", Label: "AI image generation", Missing: []string{"IMAGE_API_KEY"}},
				{ID: "redis", Label: "Redis", Configured: true}}
		})
		res := ts.do("GET", "/api/setup", "", nil)
		if res.Status != 200 || string(res.Body) != "{\"needsOwner\":true}\n" {
			t.Fatalf("setup without users: %d %s", res.Status, res.Body)
		}
		hash, err := auth.HashPassword("a-long-enough-password")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Identity.CreateUser(t.Context(), &folio.UserInput{Email: "o@example.com", Name: "O", Role: folio.RoleOwner, Password: "a-long-enough-password"}, hash); err != nil {
			t.Fatal(err)
		}
		res = ts.do("GET", "/api/setup", "", nil)
		if res.Status != 200 || string(res.Body) != "{\"needsOwner\":false}\n" {
			t.Fatalf("setup with a user: %d %s", res.Status, res.Body)
		}

		if res := ts.do("GET", "/api/features", "", nil); res.Status != 401 {
			t.Errorf("features without credentials: %d", res.Status)
		}
		res = ts.do("GET", "/api/features", "read", nil)
		if res.Status != 200 {
			t.Fatalf("features: %d %s", res.Status, res.Body)
		}
		fs, _ := res.json(t)["features"].([]any)
		if len(fs) != 2 {
			t.Fatalf("features: %s", res.Body)
		}
		redis := fs[1].(map[string]any)
		if redis["configured"] != true || redis["missing"] == nil || len(redis["missing"].([]any)) != 0 {
			t.Errorf("a configured feature: %v (missing must be an empty list)", redis)
		}
	})
}
