package httpapi

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// countingSitemapStore counts the scans (queries) and rows the sitemap reads.
type countingSitemapStore struct {
	db                      *sqldb.DB
	postScans, projectScans atomic.Int64
	rows                    atomic.Int64
}

func (c *countingSitemapStore) EachPublishedPost(ctx context.Context, fn func(string, time.Time) error) error {
	c.postScans.Add(1)
	return c.db.Content.EachPublishedPost(ctx, func(s string, t time.Time) error { c.rows.Add(1); return fn(s, t) })
}

func (c *countingSitemapStore) EachPublishedProject(ctx context.Context, fn func(string, time.Time) error) error {
	c.projectScans.Add(1)
	return c.db.Content.EachPublishedProject(ctx, func(s string, t time.Time) error { c.rows.Add(1); return fn(s, t) })
}

func (c *countingSitemapStore) scans() (posts, projects int64) {
	return c.postScans.Load(), c.projectScans.Load()
}

type sitemapIndexDoc struct {
	XMLName  xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
	Sitemaps []struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod"`
	} `xml:"sitemap"`
}

func sitemapLocs(t *testing.T, body []byte) []string {
	t.Helper()
	var sm sitemapDoc
	if err := xml.Unmarshal(body, &sm); err != nil {
		t.Fatalf("not a urlset: %v\n%s", err, body)
	}
	var out []string
	for _, u := range sm.URLs {
		out = append(out, u.Loc)
	}
	return out
}

// TestSitemapCacheAndScans: the sitemap is one scan of the posts and one of the projects however
// many posts there are (the old handler paged DB.Posts by 100 with a count per page), a second
// request is answered from the response cache without a scan, and publishing a post or changing
// a project drops the cached copy.
func TestSitemapCacheAndScans(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		store := &countingSitemapStore{db: db}
		ts := newBlogServer(t, db, func(s *Server) {
			s.Settings = testSettings(t, db, "FOLIO_SITE_URL", "https://ada.example.org")
			s.Sitemap = store
		})
		const n = 230 // three pages of the old handler's 100
		for i := 1; i <= n; i++ {
			ts.do("POST", "/api/blog", "write", map[string]any{"title": fmt.Sprintf("Post %d", i), "content": "x", "status": "published"})
		}
		ts.do("POST", "/api/blog", "write", map[string]any{"title": "Later", "content": "x"})

		first := ts.do("GET", "/sitemap.xml", "", nil)
		if first.Status != 200 || len(sitemapLocs(t, first.Body)) != 3+n {
			t.Fatalf("sitemap: %d, %d URLs", first.Status, len(sitemapLocs(t, first.Body)))
		}
		if p, q := store.scans(); p != 1 || q != 1 || store.rows.Load() != n {
			t.Fatalf("first render: %d post scans, %d project scans, %d rows; want 1, 1, %d", p, q, store.rows.Load(), n)
		}
		second := ts.do("GET", "/sitemap.xml", "", nil)
		if p, q := store.scans(); p != 1 || q != 1 || !bytes.Equal(second.Body, first.Body) ||
			second.Header.Get("ETag") != first.Header.Get("ETag") || second.Header.Get("Last-Modified") != first.Header.Get("Last-Modified") {
			t.Fatalf("second request was not the cached copy: %d post scans, %d project scans", p, q)
		}
		if res := ts.do("GET", "/sitemap.xml", "", nil, "If-Modified-Since", first.Header.Get("Last-Modified")); res.Status != http.StatusNotModified {
			t.Errorf("cached If-Modified-Since: %d", res.Status)
		}
		if res := ts.do("GET", "/sitemap.xml", "", nil, "If-None-Match", first.Header.Get("ETag")); res.Status != http.StatusNotModified {
			t.Errorf("cached If-None-Match: %d", res.Status)
		}

		ts.do("PUT", "/api/blog/later", "write", map[string]any{"status": "published"})
		third := ts.do("GET", "/sitemap.xml", "", nil)
		if p, _ := store.scans(); p != 2 || !strings.Contains(string(third.Body), "https://ada.example.org/blog/later<") {
			t.Fatalf("after publishing: %d post scans; new post listed: %v", p, strings.Contains(string(third.Body), "/blog/later<"))
		}
		if third.Header.Get("ETag") == first.Header.Get("ETag") {
			t.Error("same ETag after publishing")
		}
		ts.do("GET", "/sitemap.xml", "", nil)
		proj := ts.do("POST", "/api/projects", "write", map[string]any{"title": "Tidewater", "description": "d", "status": "published"}).json(t)
		fourth := ts.do("GET", "/sitemap.xml", "", nil)
		if _, q := store.scans(); q != 3 || !strings.Contains(string(fourth.Body), "/projects/"+proj["id"].(string)+"<") {
			t.Fatalf("after a project: %d project scans", q)
		}
	})
}

// TestSitemapIndex: past the per-file limit /sitemap.xml is an index of ?page=N files that
// together hold every URL once, each file read with at most one scan per kind that stops at
// the file's end.
func TestSitemapIndex(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		store := &countingSitemapStore{db: db}
		ts := newBlogServer(t, db, func(s *Server) {
			s.Settings = testSettings(t, db, "FOLIO_SITE_URL", "https://ada.example.org")
			s.SitemapFileURLs = 3
			s.Sitemap = store
		})
		for i := 1; i <= 5; i++ {
			ts.do("POST", "/api/blog", "write", map[string]any{"title": fmt.Sprintf("Post %d", i), "content": "x", "status": "published"})
		}
		proj := ts.do("POST", "/api/projects", "write", map[string]any{"title": "Tidewater", "description": "d", "status": "published"}).json(t)

		res := ts.do("GET", "/sitemap.xml", "", nil)
		var idx sitemapIndexDoc
		if err := xml.Unmarshal(res.Body, &idx); res.Status != 200 || err != nil {
			t.Fatalf("index: %d %v\n%s", res.Status, err, res.Body)
		}
		// 3 site pages + 5 posts + 1 project = 9 URLs: three files of three.
		if len(idx.Sitemaps) != 3 {
			t.Fatalf("index lists %d files, want 3: %s", len(idx.Sitemaps), res.Body)
		}
		var all []string
		for i, sm := range idx.Sitemaps {
			want := fmt.Sprintf("https://ada.example.org/sitemap.xml?page=%d", i+1)
			if sm.Loc != want {
				t.Errorf("file %d: loc %q, want %q", i+1, sm.Loc, want)
			}
			if (i == 0) != (sm.LastMod == "") {
				t.Errorf("file %d: lastmod %q", i+1, sm.LastMod)
			}
			before := store.rows.Load()
			page := ts.do("GET", fmt.Sprintf("/sitemap.xml?page=%d", i+1), "", nil)
			locs := sitemapLocs(t, page.Body)
			if page.Status != 200 || len(locs) != 3 {
				t.Fatalf("page %d: %d, %d URLs", i+1, page.Status, len(locs))
			}
			// Linear: a file reads the rows up to its end (and one more to see it ended), never
			// the rows after.
			if read := store.rows.Load() - before; read > int64(3*(i+1)-3+1) {
				t.Errorf("page %d read %d rows", i+1, read)
			}
			all = append(all, locs...)
		}
		if all[0] != "https://ada.example.org/" || all[3] != "https://ada.example.org/blog/post-1" ||
			all[8] != "https://ada.example.org/projects/"+proj["id"].(string) {
			t.Errorf("files in order: %v", all)
		}
		seen := map[string]bool{}
		for _, l := range all {
			if seen[l] {
				t.Errorf("%s twice", l)
			}
			seen[l] = true
		}

		// Past the end: 404, answered from the known layout without a scan.
		p, q := store.scans()
		if res := ts.do("GET", "/sitemap.xml?page=4", "", nil); res.Status != 404 {
			t.Errorf("page 4: %d", res.Status)
		}
		if p2, q2 := store.scans(); p2 != p || q2 != q {
			t.Errorf("a page past the end scanned: %d/%d → %d/%d", p, q, p2, q2)
		}
		for _, bad := range []string{"0", "01", "+1", "x", "", "-1"} {
			if res := ts.do("GET", "/sitemap.xml?page="+bad, "", nil); res.Status != 400 {
				t.Errorf("page=%q: %d", bad, res.Status)
			}
		}
		// Cached files: the index and each file again cost no scan.
		p, q = store.scans()
		for _, path := range []string{"/sitemap.xml", "/sitemap.xml?page=1", "/sitemap.xml?page=2", "/sitemap.xml?page=3"} {
			ts.do("GET", path, "", nil)
		}
		if p2, q2 := store.scans(); p2 != p || q2 != q {
			t.Errorf("cached files scanned again: %d/%d → %d/%d", p, q, p2, q2)
		}
		// Publishing a post grows the last file into a fourth.
		ts.do("POST", "/api/blog", "write", map[string]any{"title": "Post 6", "content": "x", "status": "published"})
		if res := ts.do("GET", "/sitemap.xml?page=4", "", nil); res.Status != 200 || len(sitemapLocs(t, res.Body)) != 1 {
			t.Errorf("page 4 after a publication: %d %s", res.Status, res.Body)
		}
	})
}

type fakeSitemapStore struct{ posts, projects int }

func (f fakeSitemapStore) EachPublishedPost(_ context.Context, fn func(string, time.Time) error) error {
	for i := range f.posts {
		if err := fn(fmt.Sprintf("post-%06d-%s", i, strings.Repeat("x", i%40)), time.Unix(int64(1e9+i), 0)); err != nil {
			return err
		}
	}
	return nil
}

func (f fakeSitemapStore) EachPublishedProject(_ context.Context, fn func(string, time.Time) error) error {
	for i := range f.projects {
		if err := fn(fmt.Sprintf("project-%d", i), time.Unix(int64(2e9+i), 0)); err != nil {
			return err
		}
	}
	return nil
}

// TestSitemapScanBytes: files are split at the byte limit too, every file stays within it, and
// the files hold every URL once, in order; an ampersand in a slug is escaped.
func TestSitemapScanBytes(t *testing.T) {
	store := fakeSitemapStore{posts: 1000, projects: 10}
	const limit = 4096
	var files []sitemapFile
	var got []string
	for want := 1; ; want++ {
		var out bytes.Buffer
		out.WriteString(sitemapHead)
		sc := &sitemapScan{maxURLs: 50_000, maxBytes: limit, want: want, all: want == 1, out: &out}
		if err := sc.run(context.Background(), store, "https://ada.example.org"); err != nil && err != errSitemapDone {
			t.Fatal(err)
		}
		if want == 1 {
			files = sc.files
		}
		if want > len(files) {
			break
		}
		out.WriteString(sitemapTail)
		if out.Len() > limit {
			t.Errorf("file %d is %d bytes, limit %d", want, out.Len(), limit)
		}
		got = append(got, sitemapLocs(t, out.Bytes())...)
	}
	if len(files) < 10 || len(got) != 3+1000+10 || got[3] != "https://ada.example.org/blog/post-000000-" || got[len(got)-1] != "https://ada.example.org/projects/project-9" {
		t.Fatalf("%d files, %d URLs", len(files), len(got))
	}
	b := appendXMLText(nil, "https://a.example/blog/r&d")
	if string(b) != "https://a.example/blog/r&amp;d" {
		t.Errorf("escaped: %s", b)
	}
}
