package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/fediverse"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/sqldb"
)

// followedSite is a fediverse site followed by bob of an in-process peer (the Accept delivered).
func followedSite(t *testing.T, db *sqldb.DB) (*testServer, *jobs.Scheduler, *fediPeer) {
	t.Helper()
	ts, sched := newFediSite(t, db)
	peer := newFediPeer(t)
	follow := map[string]any{"@context": fediverse.ActivityStreams, "id": peer.URL + "/follows/1", "type": "Follow",
		"actor": peer.URL + "/users/bob", "object": ts.URL + "/ap/actor"}
	if res := peer.send(ts.URL+"/ap/inbox", follow); res.StatusCode != http.StatusAccepted {
		t.Fatalf("Follow: %d", res.StatusCode)
	}
	runJobs(t, sched)
	if len(peer.activities("Accept")) != 1 {
		t.Fatalf("no Accept (refused: %v)", peer.refused)
	}
	return ts, sched, peer
}

// runJobs runs every job due, as a worker would.
func runJobs(t *testing.T, sched *jobs.Scheduler) {
	t.Helper()
	for range 5 { // a fan-out queues the deliveries, which the next round sends
		if _, err := sched.RunDue(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFediverseDeliversEditsAndDeletes: a published post goes out as Create; edits of it as one
// Update per window carrying the last edit; deleting it as Delete of a Tombstone; every delivery
// signed and received by the follower's shared inbox once.
func TestFediverseDeliversEditsAndDeletes(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts, sched, peer := followedSite(t, db)
		r := ts.do("POST", "/api/blog", "write", map[string]any{"title": "Edited later", "content": "first", "status": "published"})
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		runJobs(t, sched)
		if n := len(peer.activities("Create")); n != 1 {
			t.Fatalf("Create deliveries: %d (refused %v)", n, peer.refused)
		}
		articleID := peer.activities("Create")[0]["object"].(map[string]any)["id"]

		// Two edits, one right after the other: one Update, with the second text, when the
		// window is over (the updates wait for it).
		for _, text := range []string{"second", "third"} {
			if r := ts.do("PUT", "/api/blog/edited-later", "write", map[string]any{"content": text}); r.Status != 200 {
				t.Fatalf("edit: %d %s", r.Status, r.Body)
			}
		}
		runJobs(t, sched)
		if n := len(peer.activities("Update")); n != 0 {
			t.Fatalf("an Update went out before the window closed: %d", n)
		}
		sched.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
		runJobs(t, sched)
		updates := peer.activities("Update")
		if len(updates) != 1 {
			t.Fatalf("Update deliveries: %d, want 1 for two edits (refused %v)", len(updates), peer.refused)
		}
		obj := updates[0]["object"].(map[string]any)
		if obj["type"] != "Article" || obj["id"] != articleID || !strings.Contains(obj["content"].(string), "third") ||
			updates[0]["actor"] != ts.URL+"/ap/actor" {
			t.Fatalf("Update: %v", updates[0])
		}

		// A draft's edits and deletion reach nobody.
		if r := ts.do("POST", "/api/blog", "write", map[string]any{"title": "A draft", "content": "x", "status": "draft"}); r.Status != 201 {
			t.Fatalf("draft: %d", r.Status)
		}
		ts.do("PUT", "/api/blog/a-draft", "write", map[string]any{"content": "y"})
		if r := ts.do("DELETE", "/api/blog/a-draft", "write", nil); r.Status != 204 {
			t.Fatalf("delete draft: %d", r.Status)
		}

		// Deleting the published post delivers a Delete of its Article.
		if r := ts.do("DELETE", "/api/blog/edited-later", "write", nil); r.Status != 204 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		runJobs(t, sched)
		deletes := peer.activities("Delete")
		if len(deletes) != 1 {
			t.Fatalf("Delete deliveries: %d (refused %v)", len(deletes), peer.refused)
		}
		tomb := deletes[0]["object"].(map[string]any)
		if tomb["type"] != "Tombstone" || tomb["id"] != articleID {
			t.Fatalf("Delete: %v", deletes[0])
		}
		if n := len(peer.activities("Update")) + len(peer.activities("Create")); n != 2 {
			t.Fatalf("the draft reached the follower: %d Create/Update in all", n)
		}
		if len(peer.refused) != 0 {
			t.Fatalf("the peer refused deliveries: %v", peer.refused)
		}
	})
}

// TestPostContentNegotiation: GET /api/blog/{slug} asking for ActivityStreams answers the
// Article; the API's JSON stays the answer of everyone else, the cache keeping both apart (and
// a cached answer keeps its Link to the Webmention endpoint).
func TestPostContentNegotiation(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ts, _ := newFediSite(t, db)
	if r := ts.do("POST", "/api/blog", "write", map[string]any{"title": "Negotiated", "content": "*hi*", "status": "published"}); r.Status != 201 {
		t.Fatalf("create: %d", r.Status)
	}
	if r := ts.do("POST", "/api/blog", "write", map[string]any{"title": "Not yet", "content": "x", "status": "draft"}); r.Status != 201 {
		t.Fatalf("create draft: %d", r.Status)
	}
	for _, accept := range []string{"", "application/activity+json", "application/json",
		`application/ld+json; profile="https://www.w3.org/ns/activitystreams"`, "application/activity+json", ""} {
		r := ts.do("GET", "/api/blog/negotiated", "", nil, "Accept", accept)
		m := r.json(t)
		wantAS := strings.Contains(accept, "activity")
		if r.Status != 200 || !strings.Contains(r.Header.Get("Vary"), "Accept") {
			t.Fatalf("Accept %q: %d, Vary %q", accept, r.Status, r.Header.Get("Vary"))
		}
		if wantAS {
			if r.Header.Get("Content-Type") != "application/activity+json" || m["type"] != "Article" ||
				m["url"] != ts.URL+"/blog/negotiated" || !strings.Contains(m["content"].(string), "<em>hi</em>") {
				t.Fatalf("Accept %q: %s %s", accept, r.Header.Get("Content-Type"), r.Body)
			}
		} else if m["slug"] != "negotiated" || m["type"] != nil || !strings.Contains(r.Header.Get("Link"), `rel="webmention"`) {
			t.Fatalf("Accept %q: the API's JSON was expected, got %s", accept, r.Body)
		}
	}
	// A draft has no Article, even for a key that may read it.
	if r := ts.do("GET", "/api/blog/not-yet", "write", nil, "Accept", "application/activity+json"); r.Status != 404 {
		t.Fatalf("draft as an Article: %d", r.Status)
	}
	if wantsActivity(&http.Request{Header: http.Header{"Accept": {"application/json, application/activity+json;q=0.5"}}}) {
		t.Fatal("application/json preferred, yet the Article chosen")
	}
}

// TestWebmentionsResentOnEdit: an edit of a published post sends its Webmentions again, once
// per edit window, as the spec asks of senders.
func TestWebmentionsResentOnEdit(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ts, sched := newFediSite(t, db)
	var mu sync.Mutex
	var sent []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /linked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `</endpoint>; rel="webmention"`)
		_, _ = io.WriteString(w, "<p>a page that takes Webmentions</p>")
	})
	mux.HandleFunc("POST /endpoint", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		mu.Lock()
		sent = append(sent, r.PostForm.Get("target"))
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
	other := httptest.NewServer(mux)
	t.Cleanup(other.Close)
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(sent) }

	content := "See [this page](" + other.URL + "/linked)."
	if r := ts.do("POST", "/api/blog", "write", map[string]any{"title": "Linking", "content": content, "status": "published"}); r.Status != 201 {
		t.Fatalf("create: %d", r.Status)
	}
	runJobs(t, sched)
	if n := count(); n != 1 {
		t.Fatalf("Webmentions after publishing: %d", n)
	}
	for _, c := range []string{content + " Edited.", content + " Edited twice."} {
		if r := ts.do("PUT", "/api/blog/linking", "write", map[string]any{"content": c}); r.Status != 200 {
			t.Fatalf("edit: %d", r.Status)
		}
	}
	sched.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	runJobs(t, sched)
	if n := count(); n != 2 {
		t.Fatalf("Webmentions after two edits in one window: %d, want 2 in all", n)
	}
}

// FuzzWantsActivity: any Accept header is read without a panic, and only one that names an
// ActivityStreams type can choose the Article.
func FuzzWantsActivity(f *testing.F) {
	for _, s := range []string{"", "application/activity+json", `application/ld+json; profile="https://www.w3.org/ns/activitystreams"`,
		"application/json, application/activity+json;q=0.5", "text/html,*/*;q=0.8", "Application/Activity+JSON", "application/activity+json;q=abc", `;;="`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		got := wantsActivity(&http.Request{Header: http.Header{"Accept": {accept}}})
		lower := strings.ToLower(accept)
		if got && !strings.Contains(lower, "activity+json") && !strings.Contains(lower, "ld+json") {
			t.Fatalf("wantsActivity(%q) = true", accept)
		}
	})
}
