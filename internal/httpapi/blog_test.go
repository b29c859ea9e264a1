package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/sqldb"
)

// blogActors adds users with names, so posts get an author.
var blogActors = testAuth{
	"read":   {Level: folio.LevelRead, KeyID: "k-read", UserID: "u1"},
	"write":  {Level: folio.LevelWrite, KeyID: "k-write", UserID: "u1", Name: "Ada Lovelace", Email: "ada@example.org"},
	"editor": {Level: folio.LevelWrite, Role: "editor", Session: true, UserID: "u2", Name: "Grace Hopper", Email: "grace@example.org"},
	"admin":  {Level: folio.LevelAdmin, KeyID: "k-admin", UserID: "u3", Name: "Owner", Email: "owner@example.org"},
}

func newBlogServer(t *testing.T, db *sqldb.DB, tweak ...func(*Server)) *testServer {
	return newTestServer(t, db, append([]func(*Server){func(s *Server) { s.Auth = blogActors }}, tweak...)...)
}

// get sends a GET without following redirects.
func (ts *testServer) getNoFollow(path string, headers ...string) response {
	ts.t.Helper()
	req, _ := http.NewRequest("GET", ts.URL+path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer res.Body.Close()
	return response{Status: res.StatusCode, Header: res.Header}
}

func TestBlogRoutes(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newBlogServer(t, db)
		valid := map[string]any{"title": "Crème brûlée at scale", "content": "# Intro\n\nHello **world**. <script>alert(1)</script>",
			"excerpt": "Short", "category": "Engineering", "tags": []string{"Go", "SQL"}, "status": "published"}

		res := ts.do("POST", "/api/blog", "write", valid)
		if res.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		pub := res.json(t)
		if pub["slug"] != "creme-brulee-at-scale" || res.Header.Get("Location") != "/api/blog/creme-brulee-at-scale" {
			t.Errorf("slug %v, Location %q", pub["slug"], res.Header.Get("Location"))
		}
		if a := pub["author"].(map[string]any); a["name"] != "Ada Lovelace" || a["email"] != "ada@example.org" {
			t.Errorf("author = %v", a)
		}
		if pub["publishedAt"] == nil || pub["content"] != valid["content"] {
			t.Errorf("publishedAt %v, content %v", pub["publishedAt"], pub["content"])
		}
		if h := pub["contentHtml"].(string); !strings.Contains(h, "<strong>world</strong>") || strings.Contains(h, "<script") {
			t.Errorf("contentHtml = %q", h)
		}
		for _, k := range []string{"extblogId", "series", "seo", "settings", "scheduledAt", "crossPlatformPublishing", "archivedAt"} {
			if _, ok := pub[k]; ok {
				t.Errorf("empty sync piece %q shown", k)
			}
		}
		draft := ts.do("POST", "/api/posts", "editor", map[string]any{"title": "Work in progress", "content": "Not yet.", "tags": []string{"go"}}).json(t)
		if draft["status"] != "draft" || draft["publishedAt"] != nil || draft["excerpt"] != "Not yet." {
			t.Errorf("draft defaults: %v", draft)
		}
		if a := draft["author"].(map[string]any); a["name"] != "Grace Hopper" {
			t.Errorf("draft author = %v", a)
		}
		pubSlug, pubID := pub["slug"].(string), pub["id"].(string)
		draftSlug, draftID := draft["slug"].(string), draft["id"].(string)

		// The public list: published only, full posts without content.
		list := ts.do("GET", "/api/blog", "", nil).json(t)
		items := list["posts"].([]any)
		pg := list["pagination"].(map[string]any)
		if len(items) != 1 || pg["total"].(float64) != 1 || pg["page"].(float64) != 1 || pg["limit"].(float64) != 10 || pg["hasMore"] != false {
			t.Fatalf("public list: %v", list)
		}
		item := items[0].(map[string]any)
		for _, k := range []string{"id", "slug", "title", "excerpt", "category", "tags", "status", "publishedAt", "createdAt", "updatedAt", "author"} {
			if _, ok := item[k]; !ok {
				t.Errorf("list item lacks %q", k)
			}
		}
		if _, ok := item["content"]; ok {
			t.Error("list item carries content")
		}
		if _, ok := item["contentHtml"]; ok {
			t.Error("list item carries contentHtml")
		}

		for _, tc := range []struct {
			name, method, path, token string
			body                      any
			status                    int
			code, field               string
			wantTotal                 int
		}{
			{"write sees all", "GET", "/api/blog", "write", nil, 200, "", "", 2},
			{"write filters drafts", "GET", "/api/blog?status=draft", "write", nil, 200, "", "", 1},
			{"status list", "GET", "/api/blog?status=draft,published", "write", nil, 200, "", "", 2},
			{"tag filter", "GET", "/api/blog?tag=GO", "write", nil, 200, "", "", 2},
			{"public tag filter", "GET", "/api/blog?tag=go", "", nil, 200, "", "", 1},
			{"category filter", "GET", "/api/blog?category=engineering", "", nil, 200, "", "", 1},
			{"unknown category", "GET", "/api/blog?category=cooking", "", nil, 200, "", "", 0},
			{"public may not list drafts", "GET", "/api/blog?status=draft", "", nil, 401, "AUTHENTICATION_REQUIRED", "", 0},
			{"read key may not list drafts", "GET", "/api/blog?status=draft", "read", nil, 403, "PERMISSION_DENIED", "", 0},
			{"read key may not list drafts", "GET", "/api/blog?status=draft", "read", nil, 403, "PERMISSION_DENIED", "", 0},
			{"bad status filter", "GET", "/api/blog?status=live", "", nil, 400, "VALIDATION_ERROR", "status", 0},
			{"bad page", "GET", "/api/blog?page=0", "", nil, 400, "VALIDATION_ERROR", "page", 0},
			{"bad limit", "GET", "/api/blog?limit=101", "", nil, 400, "VALIDATION_ERROR", "limit", 0},
			{"get published", "GET", "/api/blog/" + pubSlug, "", nil, 200, "", "", 0},
			{"draft is 404 to public", "GET", "/api/blog/" + draftSlug, "", nil, 404, "RESOURCE_NOT_FOUND", "", 0},
			{"draft is 404 to read key", "GET", "/api/blog/" + draftSlug, "read", nil, 404, "RESOURCE_NOT_FOUND", "", 0},
			{"draft visible to write", "GET", "/api/blog/" + draftSlug, "write", nil, 200, "", "", 0},
			{"draft by id is 404 to public", "GET", "/api/posts/" + draftID, "", nil, 404, "RESOURCE_NOT_FOUND", "", 0},
			{"get by id", "GET", "/api/posts/" + pubID, "", nil, 200, "", "", 0},
			{"unknown slug", "GET", "/api/blog/nope", "", nil, 404, "RESOURCE_NOT_FOUND", "", 0},
			{"unknown id", "GET", "/api/posts/nope", "", nil, 404, "RESOURCE_NOT_FOUND", "", 0},
			{"create without credentials", "POST", "/api/blog", "", valid, 401, "AUTHENTICATION_REQUIRED", "", 0},
			{"create with read key", "POST", "/api/blog", "read", valid, 403, "PERMISSION_DENIED", "", 0},
			{"missing title", "POST", "/api/blog", "write", map[string]any{"content": "x"}, 400, "VALIDATION_ERROR", "title", 0},
			{"missing content", "POST", "/api/posts", "write", map[string]any{"title": "x"}, 400, "VALIDATION_ERROR", "content", 0},
			{"blank content", "POST", "/api/blog", "write", map[string]any{"title": "x", "content": " \n "}, 400, "VALIDATION_ERROR", "content", 0},
			{"wrong type", "POST", "/api/blog", "write", `{"title": "x", "content": "y", "tags": "go"}`, 400, "VALIDATION_ERROR", "tags", 0},
			{"malformed json", "POST", "/api/blog", "write", `{"title": `, 400, "VALIDATION_ERROR", "", 0},
			{"bad status", "POST", "/api/blog", "write", map[string]any{"title": "x", "content": "y", "status": "live"}, 422, "VALIDATION_ERROR", "status", 0},
			{"bad slug", "POST", "/api/blog", "write", map[string]any{"title": "x", "content": "y", "slug": "Not A Slug"}, 422, "VALIDATION_ERROR", "slug", 0},
			{"slug too long", "POST", "/api/blog", "write", map[string]any{"title": "x", "content": "y", "slug": strings.Repeat("a", 101)}, 422, "VALIDATION_ERROR", "slug", 0},
			{"duplicate tag", "POST", "/api/blog", "write", map[string]any{"title": "x", "content": "y", "tags": []string{"Go", "go"}}, 422, "VALIDATION_ERROR", "tags[1]", 0},
			{"unsafe seo image", "POST", "/api/blog", "write", map[string]any{"title": "x", "content": "y", "seo": map[string]any{"image": "javascript:alert(1)"}}, 422, "VALIDATION_ERROR", "seo.image", 0},
			{"title too long", "POST", "/api/blog", "write", map[string]any{"title": strings.Repeat("t", 201), "content": "y"}, 422, "VALIDATION_ERROR", "title", 0},
			{"taken slug", "POST", "/api/blog", "write", map[string]any{"title": "x", "content": "y", "slug": pubSlug}, 409, "CONFLICT", "", 0},
			{"update blank title", "PUT", "/api/blog/" + pubSlug, "write", map[string]any{"title": ""}, 400, "VALIDATION_ERROR", "title", 0},
			{"update unknown", "PUT", "/api/blog/nope", "write", map[string]any{"title": "a"}, 404, "RESOURCE_NOT_FOUND", "", 0},
			{"update by id unknown", "PUT", "/api/posts/nope", "write", map[string]any{"title": "a"}, 404, "RESOURCE_NOT_FOUND", "", 0},
			{"update with read key", "PUT", "/api/posts/" + pubID, "read", map[string]any{"title": "a"}, 403, "PERMISSION_DENIED", "", 0},
			{"delete unknown", "DELETE", "/api/blog/nope", "write", nil, 404, "RESOURCE_NOT_FOUND", "", 0},
			{"method not allowed", "PATCH", "/api/blog/" + pubSlug, "write", nil, 405, "METHOD_NOT_ALLOWED", "", 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := ts.do(tc.method, tc.path, tc.token, tc.body)
				if res.Status != tc.status {
					t.Fatalf("status = %d, want %d: %s", res.Status, tc.status, res.Body)
				}
				if tc.code != "" {
					if got := res.errorCode(t); got != tc.code {
						t.Errorf("code = %s, want %s", got, tc.code)
					}
					if tc.field != "" && !strings.Contains(string(res.Body), `"field":"`+tc.field+`"`) {
						t.Errorf("details do not name %q: %s", tc.field, res.Body)
					}
					return
				}
				if tc.method == "GET" && strings.HasPrefix(tc.path, "/api/blog?") || tc.path == "/api/blog" {
					if got := int(res.json(t)["pagination"].(map[string]any)["total"].(float64)); got != tc.wantTotal {
						t.Errorf("total = %d, want %d", got, tc.wantTotal)
					}
				}
			})
		}

		// PUT replaces present fields only; a new slug keeps the old one answering with a 301.
		res = ts.do("PUT", "/api/blog/"+pubSlug, "write", map[string]any{"slug": "scaling-desserts", "tags": []string{"Rust"}})
		if res.Status != 200 {
			t.Fatalf("rename: %d %s", res.Status, res.Body)
		}
		up := res.json(t)
		if up["title"] != valid["title"] || up["slug"] != "scaling-desserts" || up["publishedAt"] != pub["publishedAt"] ||
			len(up["tags"].([]any)) != 1 || up["contentHtml"] == nil {
			t.Errorf("after PUT: %v", up)
		}
		// An undeclared parameter changes nothing, not even the redirect's Location.
		redir := ts.getNoFollow("/api/blog/" + pubSlug + "?x=1")
		if redir.Status != http.StatusMovedPermanently || redir.Header.Get("Location") != "/api/blog/scaling-desserts" {
			t.Errorf("old slug: %d, Location %q", redir.Status, redir.Header.Get("Location"))
		}
		if got := ts.do("GET", "/api/blog/"+pubSlug, "", nil).json(t); got["slug"] != "scaling-desserts" {
			t.Errorf("following the redirect: %v", got["slug"])
		}
		if res := ts.do("PUT", "/api/blog/"+pubSlug, "write", map[string]any{"title": "x"}); res.Status != 404 || !strings.Contains(string(res.Body), "scaling-desserts") {
			t.Errorf("write on a former slug: %d %s", res.Status, res.Body)
		}
		// A former slug of a draft is as invisible as the draft.
		ts.do("PUT", "/api/posts/"+draftID, "write", map[string]any{"slug": "wip-2"})
		if res := ts.getNoFollow("/api/blog/" + draftSlug); res.Status != 404 {
			t.Errorf("former slug of a draft: %d", res.Status)
		}
		if res := ts.do("PUT", "/api/posts/"+draftID, "write", map[string]any{"status": "published"}).json(t); res["publishedAt"] == nil {
			t.Errorf("publishing by PUT did not set publishedAt: %v", res)
		}
		if res := ts.do("DELETE", "/api/blog/scaling-desserts", "write", nil); res.Status != 204 || len(res.Body) != 0 {
			t.Errorf("delete: %d %q", res.Status, res.Body)
		}
		if res := ts.do("DELETE", "/api/posts/"+draftID, "admin", nil); res.Status != 204 {
			t.Errorf("delete by id: %d", res.Status)
		}
		if res := ts.getNoFollow("/api/blog/" + pubSlug); res.Status != 404 {
			t.Errorf("former slug of a deleted post: %d", res.Status)
		}
		if n := ts.do("GET", "/api/blog", "write", nil).json(t)["pagination"].(map[string]any)["total"].(float64); n != 0 {
			t.Errorf("%v posts left", n)
		}
	})
}

// Ensure public post GETs carry an ETag, answer 304 to it, and never serve a stale copy after a
// write.
func TestPostsConditionalGET(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newBlogServer(t, db)
		p := ts.do("POST", "/api/blog", "write", map[string]any{"title": "Cached", "content": "v1", "status": "published"}).json(t)
		for _, path := range []string{"/api/blog", "/api/blog/cached", "/api/posts/" + p["id"].(string)} {
			first := ts.do("GET", path, "", nil)
			etag := first.Header.Get("ETag")
			if first.Status != 200 || etag == "" {
				t.Fatalf("%s: %d, ETag %q", path, first.Status, etag)
			}
			if res := ts.do("GET", path, "", nil, "If-None-Match", etag); res.Status != http.StatusNotModified || len(res.Body) != 0 {
				t.Errorf("%s conditional: %d", path, res.Status)
			}
		}
		etag := ts.do("GET", "/api/blog/cached", "", nil).Header.Get("ETag")
		ts.do("PUT", "/api/blog/cached", "write", map[string]any{"content": "v2"})
		res := ts.do("GET", "/api/blog/cached", "", nil, "If-None-Match", etag)
		if res.Status != 200 || res.json(t)["content"] != "v2" {
			t.Errorf("after a write: %d %s", res.Status, res.Body)
		}
	})
}

// Ensure cross-publishing through publishing-options needs what /api/extblog/publish needs
// (manage:articles or an admin key): a write key turning the flag on, or publishing or
// scheduling a post whose flag is on, is 403 with nothing saved and nothing sent; without the
// flag it publishes locally as before.
func TestPublishingOptionsCrossPublishNeedsPermission(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		var mu sync.Mutex
		sent := 0
		pub := publisherFunc(func(ctx context.Context, p *folio.Post) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			sent++
			return "ext-" + p.ID, nil
		})
		ts := newBlogServer(t, db, func(s *Server) { s.ArticlePublisher = pub })
		v := newOpenAPIValidator(t, ts)
		mk := func(title string) string {
			return ts.do("POST", "/api/blog", "write", map[string]any{"title": title, "content": "Body"}).json(t)["id"].(string)
		}
		opts := func(token string, body map[string]any) response {
			t.Helper()
			res := ts.do("POST", "/api/articles/publishing-options", token, body)
			v.check("POST", "/api/articles/publishing-options", res)
			return res
		}
		on := map[string]any{"extblog": true}
		future := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)

		a := mk("Write key")
		for name, body := range map[string]map[string]any{
			"publish with the flag":  {"articleId": a, "status": "published", "crossPlatformPublishing": on},
			"schedule with the flag": {"articleId": a, "status": "published", "scheduledAt": future, "crossPlatformPublishing": on},
			"draft with the flag":    {"articleId": a, "status": "draft", "crossPlatformPublishing": on},
		} {
			res := opts("write", body)
			if res.Status != 403 || res.errorCode(t) != "PERMISSION_DENIED" || !strings.Contains(string(res.Body), "manage:articles") {
				t.Errorf("write key, %s: %d %s", name, res.Status, res.Body)
			}
		}
		if p := mustPost(t, db, a); p.Status != folio.PostDraft || p.CrossPlatformPublishing != nil || p.ScheduledAt != nil {
			t.Errorf("a refused request changed the post: %+v", p)
		}

		// A post an editor flagged: the write key may not publish it (that would cross-publish),
		// may turn the flag off, and may then publish locally.
		b := mk("Flagged")
		if res := opts("editor", map[string]any{"articleId": b, "status": "draft", "crossPlatformPublishing": on}); res.Status != 200 {
			t.Fatalf("editor flags: %d %s", res.Status, res.Body)
		}
		for _, body := range []map[string]any{
			{"articleId": b, "status": "published"},
			{"articleId": b, "status": "published", "scheduledAt": future},
		} {
			if res := opts("write", body); res.Status != 403 {
				t.Errorf("write key publishing a flagged post (%v): %d %s", body, res.Status, res.Body)
			}
		}
		if res := opts("write", map[string]any{"articleId": b, "status": "draft"}); res.Status != 200 {
			t.Errorf("write key saving a flagged draft without publishing: %d %s", res.Status, res.Body)
		}
		res := opts("write", map[string]any{"articleId": b, "status": "published", "crossPlatformPublishing": map[string]any{"extblog": false}})
		if res.Status != 200 || res.json(t)["platform"].(map[string]any)["status"] != "skipped" {
			t.Errorf("write key publishing locally with the flag off: %d %s", res.Status, res.Body)
		}
		if sent != 0 {
			t.Errorf("the write key's requests reached the platform %d times", sent)
		}
		// The same request from an admin key or an editor session cross-publishes.
		c := mk("Admin")
		for _, tok := range []string{"admin", "editor"} {
			res := opts(tok, map[string]any{"articleId": c, "status": "published", "crossPlatformPublishing": on})
			if res.Status != 200 || res.json(t)["platform"].(map[string]any)["status"] != "published" {
				t.Errorf("%s cross-publishing: %d %s", tok, res.Status, res.Body)
			}
		}
		// /api/extblog/publish answers the write key alike.
		if res := ts.do("POST", "/api/extblog/publish", "write", map[string]any{"articleId": c}); res.Status != 403 {
			t.Errorf("/api/extblog/publish with a write key: %d", res.Status)
		}
	})
}

// publisherFunc adapts a function to folio.ArticlePublisher.
type publisherFunc func(ctx context.Context, p *folio.Post) (string, error)

func (f publisherFunc) PublishArticle(ctx context.Context, p *folio.Post) (string, error) {
	return f(ctx, p)
}

func TestPublishingOptions(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
		db.Now = clock.Now
		var mu sync.Mutex
		sent := map[string]int{}
		var fail error
		pub := publisherFunc(func(ctx context.Context, p *folio.Post) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			sent[p.ID]++
			if fail != nil {
				return "", fail
			}
			if p.Status != folio.PostPublished {
				return "", errors.New("sent unpublished")
			}
			return "ext-" + p.ID, nil
		})
		ts := newBlogServer(t, db, func(s *Server) { s.Now = clock.Now; s.ArticlePublisher = pub })
		v := newOpenAPIValidator(t, ts)
		mk := func(title string) string {
			return ts.do("POST", "/api/blog", "write", map[string]any{"title": title, "content": "Body"}).json(t)["id"].(string)
		}
		opts := func(token string, body any) (response, map[string]any, map[string]any) {
			t.Helper()
			res := ts.do("POST", "/api/articles/publishing-options", token, body)
			v.check("POST", "/api/articles/publishing-options", res)
			if res.Status != 200 {
				return res, nil, nil
			}
			m := res.json(t)
			return res, m["article"].(map[string]any), m["platform"].(map[string]any)
		}

		// Publish now with the flag on: published locally and on the platform.
		a := mk("Now")
		_, art, plat := opts("editor", map[string]any{"articleId": a, "status": "published", "crossPlatformPublishing": map[string]any{"extblog": true},
			"seo": map[string]any{"title": "SEO title", "description": "d", "image": "/media/a.png"}, "series": "Basics",
			"settings": map[string]any{"enableComments": true, "enableReactions": false, "newsletter": true}})
		if art["status"] != "published" || art["publishedAt"] != "2026-05-01T12:00:00Z" || art["extblogId"] != "ext-"+a ||
			art["series"] != "Basics" || art["seo"].(map[string]any)["title"] != "SEO title" || art["settings"].(map[string]any)["newsletter"] != true ||
			art["crossPlatformPublishing"].(map[string]any)["extblog"] != true {
			t.Errorf("article: %v", art)
		}
		if plat["status"] != "published" || plat["extblogId"] != "ext-"+a {
			t.Errorf("platform: %v", plat)
		}
		// publishedAt is the first publication's.
		clock.Advance(time.Hour)
		_, art, _ = opts("admin", map[string]any{"articleId": a, "status": "published"})
		if art["publishedAt"] != "2026-05-01T12:00:00Z" || sent[a] != 2 {
			t.Errorf("republish: publishedAt %v, sent %d", art["publishedAt"], sent[a])
		}

		// A platform failure keeps the local save and reports it.
		b := mk("Platform down")
		fail = &folio.ExtBlogError{Kind: folio.ExtBlogNetwork, Op: "PublishPost", Message: "502 from platform"}
		_, art, plat = opts("admin", map[string]any{"articleId": b, "status": "published", "crossPlatformPublishing": map[string]any{"extblog": true}})
		if art["status"] != "published" || plat["status"] != "failed" || !strings.Contains(plat["error"].(string), "502 from platform") {
			t.Errorf("failure: article %v, platform %v", art["status"], plat)
		}
		fail = errors.New("dial tcp: secret internals")
		_, _, plat = opts("editor", map[string]any{"articleId": b, "status": "published"})
		if plat["status"] != "failed" || strings.Contains(plat["error"].(string), "internals") {
			t.Errorf("opaque failure: %v", plat)
		}
		fail = folio.Errorf(folio.EUNAVAILABLE, "The external blog platform is not configured: set EXTBLOG_API_TOKEN.")
		_, _, plat = opts("editor", map[string]any{"articleId": b, "status": "published"})
		if plat["status"] != "skipped" || !strings.Contains(plat["error"].(string), "EXTBLOG_API_TOKEN") {
			t.Errorf("unconfigured: %v", plat)
		}
		if got := ts.do("GET", "/api/posts/"+b, "", nil); got.Status != 200 {
			t.Errorf("post saved despite the platform: %d", got.Status)
		}
		fail = nil

		// Flag off: nothing sent.
		c := mk("Local only")
		_, art, plat = opts("write", map[string]any{"articleId": c, "status": "published"})
		if plat["status"] != "skipped" || sent[c] != 0 || art["status"] != "published" {
			t.Errorf("flag off: %v, sent %d", plat, sent[c])
		}

		// A future schedule: the post stays a draft, the job publishes it at that time, once.
		d := mk("Scheduled")
		at := clock.Now().Add(2 * time.Hour)
		_, art, plat = opts("editor", map[string]any{"articleId": d, "status": "published", "scheduledAt": at.In(time.FixedZone("CEST", 2*3600)).Format(time.RFC3339),
			"crossPlatformPublishing": map[string]any{"extblog": true}})
		if art["status"] != "draft" || art["scheduledAt"] != at.Format(time.RFC3339) || art["publishedAt"] != nil || plat["status"] != "scheduled" || sent[d] != 0 {
			t.Fatalf("scheduled: article %v, platform %v", art, plat)
		}
		if res := ts.do("GET", "/api/posts/"+d, "", nil); res.Status != 404 {
			t.Errorf("scheduled post visible early: %d", res.Status)
		}
		sched := jobs.New(db.Jobs, nil)
		sched.Now = clock.Now
		sched.Handle(folio.JobPublishPost, jobs.PublishPost(content.New(db.Content), pub, nil))
		if n, _ := sched.RunDue(context.Background()); n != 0 {
			t.Fatal("published before its time")
		}
		clock.Advance(2 * time.Hour)
		if n, _ := sched.RunDue(context.Background()); n != 1 {
			t.Fatal("scheduled job did not run")
		}
		got := ts.do("GET", "/api/posts/"+d, "", nil)
		if got.Status != 200 || got.json(t)["extblogId"] != "ext-"+d || got.json(t)["publishedAt"] != at.Format(time.RFC3339) || sent[d] != 1 {
			t.Errorf("after the schedule: %d %s (sent %d)", got.Status, got.Body, sent[d])
		}

		// A past scheduledAt with status published publishes now; draft unschedules.
		e := mk("Past")
		_, art, _ = opts("write", map[string]any{"articleId": e, "status": "published", "scheduledAt": "2020-01-01T00:00:00Z"})
		if art["status"] != "published" || art["scheduledAt"] != nil {
			t.Errorf("past schedule: %v", art)
		}
		_, art, plat = opts("editor", map[string]any{"articleId": e, "status": "draft", "crossPlatformPublishing": map[string]any{"extblog": true}})
		if art["status"] != "draft" || plat["status"] != "skipped" {
			t.Errorf("draft: %v %v", art, plat)
		}

		for _, tc := range []struct {
			name, token string
			body        any
			status      int
			field       string
		}{
			{"no credentials", "", map[string]any{"articleId": a, "status": "published"}, 401, ""},
			{"read key", "read", map[string]any{"articleId": a, "status": "published"}, 403, ""},
			{"missing articleId", "write", map[string]any{"status": "published"}, 400, "articleId"},
			{"missing status", "write", map[string]any{"articleId": a}, 400, "status"},
			{"bad status", "write", map[string]any{"articleId": a, "status": "live"}, 422, "status"},
			{"bad scheduledAt", "write", map[string]any{"articleId": a, "status": "published", "scheduledAt": "tomorrow"}, 422, "scheduledAt"},
			{"scheduledAt without offset", "write", map[string]any{"articleId": a, "status": "published", "scheduledAt": "2030-01-01T09:00:00"}, 422, "scheduledAt"},
			{"bad seo image", "write", map[string]any{"articleId": a, "status": "published", "seo": map[string]any{"image": "ftp://x"}}, 422, "seo.image"},
			{"wrong type", "write", `{"articleId": "x", "status": "published", "crossPlatformPublishing": true}`, 400, "crossPlatformPublishing"},
			{"unknown article", "write", map[string]any{"articleId": "nope", "status": "published"}, 404, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res, _, _ := opts(tc.token, tc.body)
				if res.Status != tc.status {
					t.Fatalf("status = %d, want %d: %s", res.Status, tc.status, res.Body)
				}
				res.errorCode(t)
				if tc.field != "" && !strings.Contains(string(res.Body), `"field":"`+tc.field+`"`) {
					t.Errorf("details do not name %q: %s", tc.field, res.Body)
				}
			})
		}
	})
}

// Ensure nil publisher reports skipped with the variable to set.
func TestPublishingOptionsWithoutPlatform(t *testing.T) {
	ts := newBlogServer(t, foliotest.MustOpenSQLite(t))
	id := ts.do("POST", "/api/blog", "write", map[string]any{"title": "T", "content": "C"}).json(t)["id"].(string)
	res := ts.do("POST", "/api/articles/publishing-options", "editor", map[string]any{"articleId": id, "status": "published",
		"crossPlatformPublishing": map[string]any{"extblog": true}})
	plat := res.json(t)["platform"].(map[string]any)
	if res.Status != 200 || plat["status"] != "skipped" || !strings.Contains(plat["error"].(string), "EXTBLOG_API_TOKEN") {
		t.Errorf("%d %s", res.Status, res.Body)
	}
}

// Ensure content is stored as given and every response renders it without script.
func TestPostContentIsSanitized(t *testing.T) {
	ts := newBlogServer(t, foliotest.MustOpenSQLite(t))
	content := "[a](javascript:alert(1)) [b](JaVaScRiPt:alert(2)) [c](&#106;avascript:alert(3))\n\n<img src=x onerror=alert(4)>\n\n" +
		"<iframe src=//evil.example></iframe><svg onload=alert(5)>\n\n![i](data:image/svg+xml;base64,PHN2Zz4=)"
	res := ts.do("POST", "/api/blog", "write", map[string]any{"title": "XSS", "content": content, "status": "published"})
	for _, r := range []response{res, ts.do("GET", "/api/blog/xss", "", nil), ts.do("GET", "/api/posts/"+res.json(t)["id"].(string), "", nil)} {
		m := r.json(t)
		if m["content"] != content {
			t.Errorf("content changed: %q", m["content"])
		}
		h := strings.ToLower(m["contentHtml"].(string))
		for _, bad := range []string{"javascript:", "onerror", "<iframe", "<svg", "onload", "data:image/svg", "<script"} {
			if strings.Contains(h, bad) {
				t.Errorf("contentHtml contains %q: %s", bad, h)
			}
		}
	}
}

func TestBlogResponsesMatchOpenAPI(t *testing.T) {
	ts := newBlogServer(t, foliotest.MustOpenSQLite(t))
	v := newOpenAPIValidator(t, ts)
	created := ts.do("POST", "/api/blog", "write", map[string]any{"title": "A", "content": "B", "status": "published", "tags": []string{"x"},
		"seo": map[string]any{"title": "S"}, "settings": map[string]any{"enableComments": true}, "series": "One"})
	v.check("POST", "/api/blog", created)
	id, slug := created.json(t)["id"].(string), created.json(t)["slug"].(string)
	v.check("POST", "/api/posts", ts.do("POST", "/api/posts", "write", map[string]any{"title": "C", "content": "D"}))
	v.check("GET", "/api/blog", ts.do("GET", "/api/blog", "", nil))
	v.check("GET", "/api/blog", ts.do("GET", "/api/blog?status=draft", "write", nil))
	v.check("GET", "/api/blog", ts.do("GET", "/api/blog?status=draft", "", nil))
	v.check("GET", "/api/blog/{slug}", ts.do("GET", "/api/blog/"+slug, "", nil))
	v.check("GET", "/api/blog/{slug}", ts.do("GET", "/api/blog/missing", "", nil))
	v.check("GET", "/api/posts/{id}", ts.do("GET", "/api/posts/"+id, "", nil))
	v.check("GET", "/api/posts/{id}", ts.do("GET", "/api/posts/missing", "", nil))
	v.check("PUT", "/api/blog/{slug}", ts.do("PUT", "/api/blog/"+slug, "write", map[string]any{"title": "A2"}))
	v.check("PUT", "/api/posts/{id}", ts.do("PUT", "/api/posts/"+id, "write", map[string]any{"status": "bad"}))
	v.check("PUT", "/api/posts/{id}", ts.do("PUT", "/api/posts/"+id, "write", map[string]any{"slug": "c"}))
	v.check("POST", "/api/blog", ts.do("POST", "/api/blog", "write", map[string]any{"title": "A", "content": "x", "slug": "c"}))
	v.check("POST", "/api/blog", ts.do("POST", "/api/blog", "", map[string]any{}))
	v.check("POST", "/api/blog", ts.do("POST", "/api/blog", "read", map[string]any{}))
	v.check("POST", "/api/articles/publishing-options", ts.do("POST", "/api/articles/publishing-options", "write",
		map[string]any{"articleId": id, "status": "published", "scheduledAt": "2099-01-01T00:00:00Z"}))
	v.check("GET", "/api/blog/feed.xml", ts.do("GET", "/api/blog/feed.xml", "", nil))
	v.check("DELETE", "/api/blog/{slug}", ts.do("DELETE", "/api/blog/c", "write", nil))
	v.check("DELETE", "/api/posts/{id}", ts.do("DELETE", "/api/posts/"+id, "write", nil))
	v.check("DELETE", "/api/posts/{id}", ts.do("DELETE", "/api/posts/"+id, "write", nil))
}
