package httpapi

import (
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestSearchRoute(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newBlogServer(t, db)
		v := newOpenAPIValidator(t, ts)
		mk := func(title, content, status string, tags ...string) map[string]any {
			t.Helper()
			r := ts.do("POST", "/api/blog", "write", map[string]any{"title": title, "content": content, "status": status, "tags": tags})
			if r.Status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			}
			return r.json(t)
		}
		pub := mk("Électricité statique", "Sparks & <b>bold</b> claims about électrons.", "published", "Physics")
		mk("Électricité brouillon", "A draft about électrons.", "draft")
		if r := ts.do("POST", "/api/projects", "write", map[string]any{"title": "Electron app", "description": "A desktop app",
			"status": "published", "technologies": []string{"Electron"}}); r.Status != http.StatusCreated {
			t.Fatalf("project: %d %s", r.Status, r.Body)
		}

		var page folio.SearchPage
		get := func(path, token string) response {
			t.Helper()
			r := ts.do("GET", path, token, nil)
			v.check("GET", "/api/search", r)
			if r.Status == http.StatusOK {
				page = folio.SearchPage{}
				if err := json.Unmarshal(r.Body, &page); err != nil {
					t.Fatal(err)
				}
			}
			return r
		}
		if r := get("/api/search?q=electr", ""); r.Status != 200 || page.Total != 2 || len(page.Results) != 2 || page.Page != 1 || page.Limit != 10 {
			t.Fatalf("public search: %d %s", r.Status, r.Body)
		}
		for _, res := range page.Results {
			if res.Type == "post" && (res.ID != pub["id"] || res.Slug != pub["slug"] || !strings.Contains(res.Snippet, "<mark>")) {
				t.Errorf("post hit: %+v", res)
			}
			if strings.Contains(res.Snippet, "<b>") {
				t.Errorf("content markup reached the snippet: %q", res.Snippet)
			}
		}
		if get("/api/search?q=ELECTRICITE&type=post", "write"); page.Total != 2 {
			t.Errorf("write caller sees drafts too: %+v", page)
		}
		if get("/api/search?q=electricite&type=project", ""); page.Total != 0 {
			t.Errorf("type=project: %+v", page)
		}
		if get("/api/search?q=electr&limit=1&page=2", ""); page.Total != 2 || len(page.Results) != 1 || page.Page != 2 || page.Limit != 1 {
			t.Errorf("paging: %+v", page)
		}
		for _, bad := range []string{"/api/search", "/api/search?q=%20", "/api/search?q=x&type=user", "/api/search?q=x&limit=0",
			"/api/search?q=x&page=0", "/api/search?q=" + strings.Repeat("a", 201)} {
			if r := get(bad, ""); r.Status != 400 || r.errorCode(t) != "VALIDATION_ERROR" {
				t.Errorf("%s: %d %s", bad, r.Status, r.Body)
			}
		}
	})
}

func TestTagsAndFeeds(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
		db.Now = clock.Now
		ts := newBlogServer(t, db, func(s *Server) { s.Settings = testSettings(t, db, "FOLIO_SITE_URL", "https://ada.example.org") })
		mk := func(title, status string, tags ...string) {
			t.Helper()
			clock.Advance(time.Minute)
			if r := ts.do("POST", "/api/blog", "write", map[string]any{"title": title, "content": "Body of " + title, "status": status, "tags": tags}); r.Status != 201 {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			}
		}
		mk("One", "published", "Go", "SQL")
		mk("Two", "published", "go")
		mk("Three", "draft", "go", "secret")
		mk("Four", "published", "C++")

		v := newOpenAPIValidator(t, ts)
		r := ts.do("GET", "/api/blog/tags", "", nil)
		v.check("GET", "/api/blog/tags", r)
		var tags tagList
		if err := json.Unmarshal(r.Body, &tags); err != nil || r.Status != 200 {
			t.Fatalf("tags: %d %s", r.Status, r.Body)
		}
		want := []folio.TagCount{{Tag: "go", Count: 2}, {Tag: "c++", Count: 1}, {Tag: "sql", Count: 1}}
		if len(tags.Tags) != len(want) {
			t.Fatalf("tags: got %+v, want %+v", tags.Tags, want)
		}
		for i := range want {
			if tags.Tags[i] != want[i] {
				t.Errorf("tags[%d] = %+v, want %+v", i, tags.Tags[i], want[i])
			}
		}

		// Per-tag Atom feed.
		r = ts.do("GET", "/api/blog/feed.xml?tag=GO", "", nil)
		var feed feedDoc
		if err := xml.Unmarshal(r.Body, &feed); err != nil || r.Status != 200 {
			t.Fatalf("tag feed: %d %v %s", r.Status, err, r.Body)
		}
		if len(feed.Entries) != 2 || feed.Entries[0].Title != "Two" || !strings.Contains(feed.Title, "GO") ||
			!strings.Contains(feed.ID, "?tag=go") || feed.Links[0].Href != "https://ada.example.org/api/blog/feed.xml?tag=GO" {
			t.Errorf("tag feed: %+v", feed)
		}
		if r := ts.do("GET", "/api/blog/feed.xml?tag=c%2B%2B", "", nil); !strings.Contains(string(r.Body), "<title>Four</title>") {
			t.Errorf("c++ feed: %s", r.Body)
		}
		if r := ts.do("GET", "/api/blog/feed.xml?tag="+strings.Repeat("x", 200), "", nil); r.Status != 400 {
			t.Errorf("long tag: %d", r.Status)
		}

		// JSON Feed 1.1: the spec's required fields (version, title, items; per item id and
		// content_html or content_text) with their types, and dates in RFC 3339.
		r = ts.do("GET", "/api/blog/feed.json", "", nil)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/feed+json") || r.Header.Get("ETag") == "" {
			t.Fatalf("feed.json: %d %v", r.Status, r.Header)
		}
		var jf map[string]any
		if err := json.Unmarshal(r.Body, &jf); err != nil {
			t.Fatal(err)
		}
		if jf["version"] != "https://jsonfeed.org/version/1.1" {
			t.Errorf("version: %v", jf["version"])
		}
		if s, ok := jf["title"].(string); !ok || s == "" {
			t.Errorf("title: %v", jf["title"])
		}
		for _, k := range []string{"home_page_url", "feed_url"} {
			if u, err := url.Parse(jf[k].(string)); err != nil || u.Scheme != "https" {
				t.Errorf("%s: %v", k, jf[k])
			}
		}
		items, ok := jf["items"].([]any)
		if !ok || len(items) != 3 {
			t.Fatalf("items: %v", jf["items"])
		}
		seen := map[string]bool{}
		for _, it := range items {
			m := it.(map[string]any)
			id, ok := m["id"].(string)
			if !ok || id == "" || seen[id] {
				t.Errorf("item id: %v", m["id"])
			}
			seen[id] = true
			_, html := m["content_html"].(string)
			_, text := m["content_text"].(string)
			if !html && !text {
				t.Errorf("item without content: %v", m)
			}
			for _, k := range []string{"date_published", "date_modified"} {
				if _, err := time.Parse(time.RFC3339, m[k].(string)); err != nil {
					t.Errorf("%s: %v", k, m[k])
				}
			}
			if _, ok := m["tags"].([]any); !ok {
				t.Errorf("tags: %v", m["tags"])
			}
		}
		if items[0].(map[string]any)["title"] != "Four" {
			t.Errorf("newest first: %v", items[0])
		}
		r = ts.do("GET", "/api/blog/feed.json?tag=sql", "", nil)
		if err := json.Unmarshal(r.Body, &jf); err != nil || len(jf["items"].([]any)) != 1 || !strings.HasSuffix(jf["feed_url"].(string), "?tag=sql") {
			t.Errorf("tag json feed: %s", r.Body)
		}
		// Conditional GET.
		etag := ts.do("GET", "/api/blog/feed.json", "", nil).Header.Get("ETag")
		if r := ts.do("GET", "/api/blog/feed.json", "", nil, "If-None-Match", etag); r.Status != http.StatusNotModified {
			t.Errorf("If-None-Match: %d", r.Status)
		}
	})
}
