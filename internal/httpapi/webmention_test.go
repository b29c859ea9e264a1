package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// TestWebmentionReceiveAndSend: a Webmention whose source links to a post becomes a pending
// comment with its h-entry's author and content; one that does not, none; a bad target is a 400;
// the post advertises the endpoint; publishing a post notifies the pages it links to.
func TestWebmentionReceiveAndSend(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts, sched := newFediSite(t, db)
		ctx := context.Background()
		var mu sync.Mutex
		var received []url.Values
		var page string
		mux := http.NewServeMux()
		mux.HandleFunc("GET /reply", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			mu.Lock()
			defer mu.Unlock()
			_, _ = io.WriteString(w, page)
		})
		mux.HandleFunc("GET /linked", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", `</endpoint>; rel="webmention"`)
			_, _ = io.WriteString(w, "<p>a page that takes Webmentions</p>")
		})
		mux.HandleFunc("POST /endpoint", func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			mu.Lock()
			received = append(received, r.PostForm)
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
		})
		other := httptest.NewServer(mux)
		t.Cleanup(other.Close)

		r := ts.do("POST", "/api/blog", "write", map[string]any{"title": "Mentioned", "status": "published",
			"content": "See [this page](" + other.URL + "/linked) and [mine](" + ts.URL + "/blog/x)."})
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		if _, err := sched.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		target := ts.URL + "/blog/mentioned"
		if len(received) != 1 || received[0].Get("source") != target || received[0].Get("target") != other.URL+"/linked" {
			t.Fatalf("sent Webmentions: %v", received)
		}
		if r := ts.do("GET", "/api/blog/mentioned", "", nil); r.Header.Get("Link") != "<"+ts.URL+`/webmention>; rel="webmention"` {
			t.Fatalf("post Link header %q", r.Header.Get("Link"))
		}

		form := func(source, target string) response {
			return ts.do("POST", "/webmention", "", url.Values{"source": {source}, "target": {target}}.Encode(),
				"Content-Type", "application/x-www-form-urlencoded")
		}
		for _, bad := range []string{ts.URL + "/blog/nope", ts.URL + "/api/blog/mentioned", "https://elsewhere.example/blog/mentioned", ""} {
			if r := form(other.URL+"/reply", bad); r.Status != 400 {
				t.Fatalf("target %q: %d %s", bad, r.Status, r.Body)
			}
		}

		// A source that does not link to the target makes no comment.
		page = `<p>nothing here</p>`
		if r := form(other.URL+"/reply", target); r.Status != 202 {
			t.Fatalf("webmention: %d %s", r.Status, r.Body)
		}
		if _, err := sched.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		if m := ts.do("GET", "/api/comments", "admin", nil).json(t); len(m["comments"].([]any)) != 0 {
			t.Fatalf("a source without the link made a comment: %v", m)
		}

		// Now it links, with an h-entry.
		mu.Lock()
		page = `<html><body><article class="h-entry">
			<a class="p-author h-card" href="/me"><span class="p-name">Carol</span></a>
			<div class="e-content"><p>Replying to <a href="` + target + `">your post</a>.<img src=x onerror=alert(1)></p></div>
			<time class="dt-published" datetime="2026-11-20T10:00:00Z">20 Nov</time>
			<a class="u-url" href="/reply">permalink</a></article></body></html>`
		mu.Unlock()
		if r := form(other.URL+"/reply", target); r.Status != 202 {
			t.Fatalf("webmention: %d %s", r.Status, r.Body)
		}
		if _, err := sched.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		m := ts.do("GET", "/api/comments?status=pending", "admin", nil).json(t)
		cs := m["comments"].([]any)
		if len(cs) != 1 {
			t.Fatalf("pending: %v", m)
		}
		c := cs[0].(map[string]any)
		if c["authorName"] != "Carol" || c["authorUrl"] != other.URL+"/me" || c["source"] != "webmention" ||
			c["url"] != other.URL+"/reply" || strings.Contains(c["content"].(string), "onerror") || !strings.Contains(c["content"].(string), "Replying to") ||
			c["publishedAt"] != "2026-11-20T10:00:00Z" {
			t.Fatalf("comment: %v", c)
		}
	})
}
