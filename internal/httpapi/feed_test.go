package httpapi

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// feedDoc is what a feed reader reads of an Atom document.
type feedDoc struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	Title   string   `xml:"title"`
	ID      string   `xml:"id"`
	Updated string   `xml:"updated"`
	Links   []struct {
		Rel  string `xml:"rel,attr"`
		Href string `xml:"href,attr"`
	} `xml:"link"`
	Entries []struct {
		Title     string `xml:"title"`
		ID        string `xml:"id"`
		Updated   string `xml:"updated"`
		Published string `xml:"published"`
		Link      struct {
			Href string `xml:"href,attr"`
		} `xml:"link"`
		Author struct {
			Name string `xml:"name"`
		} `xml:"author"`
		Categories []struct {
			Term string `xml:"term,attr"`
		} `xml:"category"`
		Summary string `xml:"summary"`
		Content struct {
			Type string `xml:"type,attr"`
			Body string `xml:",chardata"`
		} `xml:"content"`
	} `xml:"entry"`
}

type sitemapDoc struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
	} `xml:"url"`
}

func TestBlogFeed(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
		db.Now = clock.Now
		ts := newBlogServer(t, db, func(s *Server) { s.Settings = testSettings(t, db, "FOLIO_SITE_URL", "https://ada.example.org/") })
		for i := 1; i <= 22; i++ {
			clock.Advance(time.Hour)
			ts.do("POST", "/api/blog", "write", map[string]any{"title": fmt.Sprintf("Post %d", i), "status": "published", "category": "Notes",
				"tags": []string{"go"}, "content": fmt.Sprintf("Body **%d** <script>x</script>", i), "excerpt": "Ex & <b>cerpt</b>"})
		}
		ts.do("POST", "/api/blog", "write", map[string]any{"title": "Secret draft", "content": "no"})

		res := ts.do("GET", "/api/blog/feed.xml", "", nil)
		if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/atom+xml") {
			t.Fatalf("feed: %d %s", res.Status, res.Header.Get("Content-Type"))
		}
		var f feedDoc
		if err := xml.Unmarshal(res.Body, &f); err != nil {
			t.Fatalf("feed is not Atom XML: %v\n%s", err, res.Body)
		}
		if len(f.Entries) != 20 || f.Entries[0].Title != "Post 22" || f.Entries[19].Title != "Post 3" {
			t.Fatalf("entries: %d, first %q", len(f.Entries), f.Entries[0].Title)
		}
		if f.ID != "https://ada.example.org/blog" || f.Updated != "2026-05-02T10:00:00Z" || f.Title == "" {
			t.Errorf("feed head: id %q updated %q title %q", f.ID, f.Updated, f.Title)
		}
		self := false
		for _, l := range f.Links {
			self = self || l.Rel == "self" && l.Href == "https://ada.example.org/api/blog/feed.xml"
		}
		if !self {
			t.Errorf("no absolute self link: %+v", f.Links)
		}
		e := f.Entries[0]
		if e.Link.Href != "https://ada.example.org/blog/post-22" || !strings.HasPrefix(e.ID, "urn:uuid:") || e.Author.Name != "Ada Lovelace" ||
			e.Published != "2026-05-02T10:00:00Z" || e.Summary != "Ex & <b>cerpt</b>" || len(e.Categories) != 2 {
			t.Errorf("entry: %+v", e)
		}
		if e.Content.Type != "html" || !strings.Contains(e.Content.Body, "<strong>22</strong>") || strings.Contains(e.Content.Body, "<script") {
			t.Errorf("content: %+v", e.Content)
		}
		if strings.Contains(string(res.Body), "Secret draft") {
			t.Error("draft in the feed")
		}

		etag, lm := res.Header.Get("ETag"), res.Header.Get("Last-Modified")
		if etag == "" || lm != "Sat, 02 May 2026 10:00:00 GMT" {
			t.Fatalf("validators: ETag %q Last-Modified %q", etag, lm)
		}
		for _, h := range [][]string{{"If-None-Match", etag}, {"If-Modified-Since", lm}, {"If-None-Match", `"other", ` + etag}} {
			if res := ts.do("GET", "/api/blog/feed.xml", "", nil, h...); res.Status != http.StatusNotModified || len(res.Body) != 0 {
				t.Errorf("%s: %d", h[0], res.Status)
			}
		}
		if res := ts.do("GET", "/api/blog/feed.xml", "", nil, "If-Modified-Since", "Sat, 02 May 2026 09:00:00 GMT"); res.Status != 200 {
			t.Errorf("older If-Modified-Since: %d", res.Status)
		}
		// A change yields a new validator.
		clock.Advance(time.Hour)
		ts.do("PUT", "/api/blog/post-22", "write", map[string]any{"title": "Post 22 (edited)"})
		res = ts.do("GET", "/api/blog/feed.xml", "", nil, "If-None-Match", etag)
		if res.Status != 200 || res.Header.Get("Last-Modified") != "Sat, 02 May 2026 11:00:00 GMT" {
			t.Errorf("after an edit: %d, Last-Modified %q", res.Status, res.Header.Get("Last-Modified"))
		}
	})
}

func TestEmptyFeed(t *testing.T) {
	ts := newBlogServer(t, foliotest.MustOpenSQLite(t))
	res := ts.do("GET", "/api/blog/feed.xml", "", nil)
	var f feedDoc
	if err := xml.Unmarshal(res.Body, &f); res.Status != 200 || err != nil || len(f.Entries) != 0 || f.Updated == "" {
		t.Errorf("empty feed: %d %v %s", res.Status, err, res.Body)
	}
}

func TestSitemap(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
		db.Now = clock.Now
		ts := newBlogServer(t, db, func(s *Server) { s.Settings = testSettings(t, db, "FOLIO_SITE_URL", "https://ada.example.org") })
		ts.do("POST", "/api/blog", "write", map[string]any{"title": "Hello world", "content": "x", "status": "published"})
		ts.do("POST", "/api/blog", "write", map[string]any{"title": "Draft", "content": "x"})
		clock.Advance(time.Hour)
		proj := ts.do("POST", "/api/projects", "write", map[string]any{"title": "Tidewater", "description": "d", "status": "published"}).json(t)
		ts.do("POST", "/api/projects", "write", map[string]any{"title": "Hidden", "description": "d", "status": "draft"})

		res := ts.do("GET", "/sitemap.xml", "", nil)
		if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/xml") {
			t.Fatalf("sitemap: %d %s", res.Status, res.Header.Get("Content-Type"))
		}
		var sm sitemapDoc
		if err := xml.Unmarshal(res.Body, &sm); err != nil {
			t.Fatalf("not a sitemap: %v", err)
		}
		got := map[string]string{}
		for _, u := range sm.URLs {
			got[u.Loc] = u.LastMod
		}
		want := map[string]string{
			"https://ada.example.org/":                                "",
			"https://ada.example.org/blog":                            "",
			"https://ada.example.org/projects":                        "",
			"https://ada.example.org/blog/hello-world":                "2026-05-01T12:00:00Z",
			"https://ada.example.org/projects/" + proj["id"].(string): "2026-05-01T13:00:00Z",
		}
		if len(got) != len(want) {
			t.Errorf("sitemap URLs = %v, want %v", got, want)
		}
		for loc, lm := range want {
			if g, ok := got[loc]; !ok || g != lm {
				t.Errorf("%s: lastmod %q (present %v), want %q", loc, g, ok, lm)
			}
		}
		if res.Header.Get("Last-Modified") != "Fri, 01 May 2026 13:00:00 GMT" {
			t.Errorf("Last-Modified %q", res.Header.Get("Last-Modified"))
		}
		for _, h := range [][]string{{"If-None-Match", res.Header.Get("ETag")}, {"If-Modified-Since", res.Header.Get("Last-Modified")}} {
			if res := ts.do("GET", "/sitemap.xml", "", nil, h...); res.Status != http.StatusNotModified {
				t.Errorf("%s: %d", h[0], res.Status)
			}
		}
		if res := ts.do("HEAD", "/sitemap.xml", "", nil); res.Status != 200 || len(res.Body) != 0 {
			t.Errorf("HEAD: %d", res.Status)
		}
	})
}
