package httpapi

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/fediverse"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// bobReplies sends bob's Note number n in reply to inReplyTo.
func bobReplies(t *testing.T, ts *testServer, peer *fediPeer, n int, inReplyTo string) {
	t.Helper()
	id := peer.URL + "/statuses/" + string(rune('0'+n))
	reply := map[string]any{"@context": fediverse.ActivityStreams, "id": id + "/activity", "type": "Create",
		"actor": peer.URL + "/users/bob", "object": map[string]any{"id": id, "type": "Note",
			"attributedTo": peer.URL + "/users/bob", "inReplyTo": inReplyTo, "content": "<p>reply " + id + "</p>",
			"published": time.Now().UTC().Format(time.RFC3339)}}
	if res := peer.send(ts.URL+"/ap/inbox", reply); res.StatusCode != http.StatusAccepted {
		t.Fatalf("reply: %d", res.StatusCode)
	}
}

func commentsWith(t *testing.T, ts *testServer, status string) []map[string]any {
	t.Helper()
	m := ts.do("GET", "/api/comments?status="+status, "admin", nil).json(t)
	var out []map[string]any
	for _, c := range m["comments"].([]any) {
		out = append(out, c.(map[string]any))
	}
	return out
}

// TestOwnerReplyGoesOutAsNote: the owner answers bob's reply; the answer is a Note in reply to
// bob's, addressed to and mentioning bob, delivered signed to his inbox, readable at its id,
// and shown with the post's comments.
func TestOwnerReplyGoesOutAsNote(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts, sched, peer := followedSite(t, db)
		if r := ts.do("POST", "/api/blog", "write", map[string]any{"title": "Talk", "content": "x", "status": "published"}); r.Status != 201 {
			t.Fatalf("create: %d", r.Status)
		}
		bobReplies(t, ts, peer, 1, ts.URL+"/blog/talk")
		pending := commentsWith(t, ts, "pending")
		if len(pending) != 1 || pending[0]["authorId"] != peer.URL+"/users/bob" {
			t.Fatalf("pending: %v", pending)
		}
		id := pending[0]["id"].(string)
		ts.do("POST", "/api/comments/"+id+"/approve", "admin", nil)

		if r := ts.do("POST", "/api/comments/"+id+"/reply", "admin", map[string]any{"content": " "}); r.Status != 400 {
			t.Fatalf("empty reply: %d %s", r.Status, r.Body)
		}
		if r := ts.do("POST", "/api/comments/"+id+"/reply", "admin", map[string]any{"content": strings.Repeat("x", fediverse.MaxReplyLen+1)}); r.Status != 422 {
			t.Fatalf("long reply: %d %s", r.Status, r.Body)
		}
		if r := ts.do("POST", "/api/comments/nope/reply", "admin", map[string]any{"content": "hi"}); r.Status != 404 {
			t.Fatalf("reply to an unknown comment: %d", r.Status)
		}
		if r := ts.do("POST", "/api/comments/"+id+"/reply", "write", map[string]any{"content": "hi"}); r.Status != 403 {
			t.Fatalf("reply with a write key: %d", r.Status)
		}
		r := ts.do("POST", "/api/comments/"+id+"/reply", "admin", map[string]any{"content": "Thanks, **Bob**!"})
		if r.Status != 201 {
			t.Fatalf("reply: %d %s", r.Status, r.Body)
		}
		reply := r.json(t)
		if reply["inReplyTo"] != id || reply["status"] != folio.CommentApproved || reply["authorId"] != ts.URL+"/ap/actor" {
			t.Fatalf("reply comment: %v", reply)
		}
		if r := ts.do("POST", "/api/comments/"+reply["id"].(string)+"/reply", "admin", map[string]any{"content": "again"}); r.Status != 422 {
			t.Fatalf("a reply to the owner's own reply: %d %s", r.Status, r.Body)
		}

		runJobs(t, sched)
		var notes []map[string]any
		for _, a := range peer.activities("Create") {
			if obj := a["object"].(map[string]any); obj["type"] == "Note" {
				notes = append(notes, obj)
			}
		}
		if len(notes) != 1 || len(peer.refused) != 0 {
			t.Fatalf("Notes delivered: %v (refused %v)", notes, peer.refused)
		}
		n := notes[0]
		to, _ := n["to"].([]any)
		tag, _ := n["tag"].([]any)
		if n["inReplyTo"] != peer.URL+"/statuses/1" || n["attributedTo"] != ts.URL+"/ap/actor" || len(to) == 0 || to[0] != peer.URL+"/users/bob" ||
			len(tag) != 1 || tag[0].(map[string]any)["href"] != peer.URL+"/users/bob" || !strings.Contains(n["content"].(string), "<strong>Bob</strong>") ||
			!strings.Contains(n["content"].(string), "@bob@") {
			t.Fatalf("Note: %v", n)
		}
		got := ts.do("GET", strings.TrimPrefix(n["id"].(string), ts.URL), "", nil)
		if got.Status != 200 || got.Header.Get("Content-Type") != "application/activity+json" || got.json(t)["inReplyTo"] != n["inReplyTo"] {
			t.Fatalf("GET the Note: %d %s", got.Status, got.Body)
		}
		if r := ts.do("GET", "/ap/notes/"+id, "", nil); r.Status != 404 {
			t.Fatalf("bob's comment read as our Note: %d", r.Status)
		}

		public := ts.do("GET", "/api/blog/talk/comments", "", nil).json(t)["comments"].([]any)
		if len(public) != 2 || public[0].(map[string]any)["inReplyTo"] != id {
			t.Fatalf("public comments: %v", public)
		}
	})
}

// TestCommentSpam: the owner marks bob's reply spam; it leaves the post, and bob's next reply
// lands as spam, not pending.
func TestCommentSpam(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ts, _, peer := followedSite(t, db)
	if r := ts.do("POST", "/api/blog", "write", map[string]any{"title": "Spammed", "content": "x", "status": "published"}); r.Status != 201 {
		t.Fatalf("create: %d", r.Status)
	}
	bobReplies(t, ts, peer, 1, ts.URL+"/blog/spammed")
	id := commentsWith(t, ts, "pending")[0]["id"].(string)
	ts.do("POST", "/api/comments/"+id+"/approve", "admin", nil)
	if r := ts.do("POST", "/api/comments/"+id+"/spam", "admin", nil); r.Status != 200 || r.json(t)["status"] != folio.CommentSpam {
		t.Fatalf("spam: %d %s", r.Status, r.Body)
	}
	if cs := ts.do("GET", "/api/blog/spammed/comments", "", nil).json(t)["comments"].([]any); len(cs) != 0 {
		t.Fatalf("a spam comment is public: %v", cs)
	}
	bobReplies(t, ts, peer, 2, ts.URL+"/blog/spammed")
	if p := commentsWith(t, ts, "pending"); len(p) != 0 {
		t.Fatalf("bob's next reply is pending: %v", p)
	}
	if s := commentsWith(t, ts, "spam"); len(s) != 2 {
		t.Fatalf("spam: %v", s)
	}
	if r := ts.do("GET", "/api/comments?status=junk", "admin", nil); r.Status != 400 {
		t.Fatalf("bad status: %d", r.Status)
	}
}
