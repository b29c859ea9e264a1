package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/fediverse"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/webmention"
	"github.com/go-fed/httpsig"
)

// fediPeer is an in-process fediverse server with one account, bob: it serves bob's actor,
// signs what bob sends with go-fed/httpsig, and checks the signature and Digest of every
// activity its inbox receives against the sender's key, fetched from the sender.
type fediPeer struct {
	*httptest.Server
	t        *testing.T
	key      *rsa.PrivateKey
	mu       sync.Mutex
	received []map[string]any
	refused  []string
}

func newFediPeer(t *testing.T) *fediPeer {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &fediPeer{t: t, key: key}
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /users/bob", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/activity+json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": p.URL + "/users/bob", "type": "Person", "name": "Bob",
			"preferredUsername": "bob", "url": p.URL + "/@bob", "inbox": p.URL + "/users/bob/inbox",
			"endpoints": map[string]string{"sharedInbox": p.URL + "/inbox"},
			"publicKey": map[string]string{"id": p.URL + "/users/bob#main-key", "owner": p.URL + "/users/bob",
				"publicKeyPem": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}})
	})
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := p.verify(r, body); err != nil {
			p.mu.Lock()
			p.refused = append(p.refused, err.Error())
			p.mu.Unlock()
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var act map[string]any
		_ = json.Unmarshal(body, &act)
		p.mu.Lock()
		p.received = append(p.received, act)
		p.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Close)
	return p
}

// verify checks a delivery as Mastodon does: Digest of the body, then the signature with the
// key its keyId names, fetched from the sender.
func (p *fediPeer) verify(r *http.Request, body []byte) error {
	sum := sha256.Sum256(body)
	if r.Header.Get("Digest") != "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]) {
		return errString("digest mismatch")
	}
	v, err := httpsig.NewVerifier(r)
	if err != nil {
		return err
	}
	req, _ := http.NewRequest(http.MethodGet, v.KeyId(), nil)
	req.Header.Set("Accept", "application/activity+json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var actor struct {
		PublicKey struct {
			PublicKeyPem string `json:"publicKeyPem"`
		} `json:"publicKey"`
	}
	if err := json.NewDecoder(res.Body).Decode(&actor); err != nil {
		return err
	}
	b, _ := pem.Decode([]byte(actor.PublicKey.PublicKeyPem))
	if b == nil {
		return errString("no key")
	}
	pub, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		return err
	}
	return v.Verify(pub, httpsig.RSA_SHA256)
}

type errString string

func (e errString) Error() string { return string(e) }

// send POSTs an activity by bob to inbox, signed with go-fed/httpsig.
func (p *fediPeer) send(inbox string, activity map[string]any) *http.Response {
	p.t.Helper()
	body, _ := json.Marshal(activity)
	req, _ := http.NewRequest(http.MethodPost, inbox, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/activity+json")
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("Host", req.URL.Host)
	signer, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
		[]string{httpsig.RequestTarget, "host", "date", "digest"}, httpsig.Signature, 0)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := signer.SignRequest(p.key, p.URL+"/users/bob#main-key", req, body); err != nil {
		p.t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	res.Body.Close()
	return res
}

func (p *fediPeer) activities(typ string) []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []map[string]any
	for _, a := range p.received {
		if a["type"] == typ {
			out = append(out, a)
		}
	}
	return out
}

// newFediSite is a test server with the fediverse actor and comments over db, its site URL its
// own address, and the job scheduler that delivers.
func newFediSite(t *testing.T, db *sqldb.DB) (*testServer, *jobs.Scheduler) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	svc := fediverse.New(db.Fediverse, content.New(db.Content), "site", "http://unset", key,
		string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), fediverse.NewClient(true), nil)
	wm := webmention.New(db.Fediverse, content.New(db.Content), "http://unset", fediverse.NewClient(true), nil)
	ts := newTestServer(t, db, func(s *Server) { s.Fediverse, s.Comments, s.Webmention = svc, db.Fediverse, wm })
	svc.SiteURL, wm.SiteURL = ts.URL, ts.URL
	ts.Settings = testSettings(t, db, "FOLIO_SITE_URL", ts.URL) // the site is this test server
	sched := jobs.New(db.Jobs, nil)
	sched.Handle(folio.JobFediversePost, svc.FanOut)
	sched.Handle(folio.JobFediverseDeliver, svc.Deliver)
	sched.Handle(folio.JobWebmentionVerify, wm.Verify)
	sched.Handle(folio.JobWebmentionSend, wm.Send)
	return ts, sched
}

// TestFediverseFollowPublishReply: a fediverse server follows the site over loopback, receives a
// published post signed, replies to it; the reply is pending, then, approved, public.
func TestFediverseFollowPublishReply(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts, sched := newFediSite(t, db)
		peer := newFediPeer(t)
		ctx := context.Background()
		host := strings.TrimPrefix(ts.URL, "http://")

		// Discovery: WebFinger, then the actor.
		r := ts.do("GET", "/.well-known/webfinger?resource="+url.QueryEscape("acct:site@"+host), "", nil)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/jrd+json") {
			t.Fatalf("webfinger: %d %s", r.Status, r.Body)
		}
		var jrd fediverse.JRD
		_ = json.Unmarshal(r.Body, &jrd)
		if len(jrd.Links) == 0 || jrd.Links[0].Rel != "self" || jrd.Links[0].Type != "application/activity+json" || jrd.Links[0].Href != ts.URL+"/ap/actor" {
			t.Fatalf("webfinger links: %s", r.Body)
		}
		if r := ts.do("GET", "/.well-known/webfinger?resource=acct:nobody@"+host, "", nil); r.Status != 404 {
			t.Fatalf("webfinger of an unknown account: %d", r.Status)
		}
		r = ts.do("GET", "/ap/actor", "", nil, "Accept", "application/activity+json")
		m := r.json(t)
		if r.Status != 200 || r.Header.Get("Content-Type") != "application/activity+json" || m["type"] != "Person" ||
			m["preferredUsername"] != "site" || m["inbox"] != ts.URL+"/ap/inbox" || m["outbox"] != ts.URL+"/ap/outbox" ||
			m["followers"] != ts.URL+"/ap/followers" || !strings.Contains(m["publicKey"].(map[string]any)["publicKeyPem"].(string), "PUBLIC KEY") {
			t.Fatalf("actor: %d %s", r.Status, r.Body)
		}

		// An unsigned activity is refused with the envelope.
		if r := ts.do("POST", "/ap/inbox", "", `{"type":"Follow"}`); r.Status != 401 || r.errorCode(t) != folio.EUNAUTHORIZED {
			t.Fatalf("unsigned inbox POST: %d %s", r.Status, r.Body)
		}

		// bob follows: 202, then the Accept arrives signed.
		follow := map[string]any{"@context": fediverse.ActivityStreams, "id": peer.URL + "/follows/1", "type": "Follow",
			"actor": peer.URL + "/users/bob", "object": ts.URL + "/ap/actor"}
		if res := peer.send(ts.URL+"/ap/inbox", follow); res.StatusCode != http.StatusAccepted {
			t.Fatalf("Follow: %d", res.StatusCode)
		}
		if _, err := sched.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		if acc := peer.activities("Accept"); len(acc) != 1 || acc[0]["object"].(map[string]any)["id"] != peer.URL+"/follows/1" {
			t.Fatalf("Accept: %v (refused: %v)", peer.received, peer.refused)
		}
		if m := ts.do("GET", "/ap/followers", "", nil).json(t); m["totalItems"] != float64(1) || m["orderedItems"] != nil {
			t.Fatalf("followers, public: %v", m)
		}
		if m := ts.do("GET", "/ap/followers", "admin", nil).json(t); len(m["orderedItems"].([]any)) != 1 {
			t.Fatalf("followers, owner: %v", m)
		}

		// Publishing a post delivers Create{Article} to bob's shared inbox, signed.
		r = ts.do("POST", "/api/blog", "write", map[string]any{"title": "Hello fediverse", "content": "Hi **there**", "status": "published", "tags": []string{"go"}})
		if r.Status != 201 {
			t.Fatalf("create post: %d %s", r.Status, r.Body)
		}
		if _, err := sched.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		creates := peer.activities("Create")
		if len(creates) != 1 {
			t.Fatalf("Create deliveries: %d (refused: %v)", len(creates), peer.refused)
		}
		art := creates[0]["object"].(map[string]any)
		postURL := ts.URL + "/blog/hello-fediverse"
		if art["type"] != "Article" || art["url"] != postURL || art["name"] != "Hello fediverse" || !strings.Contains(art["content"].(string), "<strong>there</strong>") {
			t.Fatalf("Article: %v", art)
		}
		if m := ts.do("GET", "/ap/outbox", "", nil).json(t); m["totalItems"] != float64(1) {
			t.Fatalf("outbox: %v", m)
		}

		// bob replies; the reply waits for moderation.
		reply := map[string]any{"@context": fediverse.ActivityStreams, "id": peer.URL + "/statuses/1/activity", "type": "Create",
			"actor": peer.URL + "/users/bob", "object": map[string]any{"id": peer.URL + "/statuses/1", "type": "Note",
				"attributedTo": peer.URL + "/users/bob", "inReplyTo": postURL, "url": peer.URL + "/@bob/1",
				"content": `<p>Nice post!<script>alert(1)</script></p>`, "published": time.Now().UTC().Format(time.RFC3339)}}
		if res := peer.send(ts.URL+"/ap/inbox", reply); res.StatusCode != http.StatusAccepted {
			t.Fatalf("reply: %d", res.StatusCode)
		}
		like := map[string]any{"@context": fediverse.ActivityStreams, "id": peer.URL + "/likes/1", "type": "Like",
			"actor": peer.URL + "/users/bob", "object": art["id"]}
		if res := peer.send(ts.URL+"/ap/inbox", like); res.StatusCode != http.StatusAccepted {
			t.Fatalf("like: %d", res.StatusCode)
		}
		public := func() map[string]any { return ts.do("GET", "/api/blog/hello-fediverse/comments", "", nil).json(t) }
		if m := public(); len(m["comments"].([]any)) != 0 || m["reactions"].(map[string]any)["likes"] != float64(1) {
			t.Fatalf("public comments before approval: %v", m)
		}
		m = ts.do("GET", "/api/comments?status=pending", "admin", nil).json(t)
		pending := m["comments"].([]any)
		if len(pending) != 1 {
			t.Fatalf("pending: %v", m)
		}
		id := pending[0].(map[string]any)["id"].(string)
		if r := ts.do("GET", "/api/comments", "write", nil); r.Status != 403 {
			t.Fatalf("moderation queue for a write key: %d", r.Status)
		}
		if r := ts.do("POST", "/api/comments/"+id+"/approve", "admin", nil); r.Status != 200 {
			t.Fatalf("approve: %d %s", r.Status, r.Body)
		}
		cs := public()["comments"].([]any)
		if len(cs) != 1 {
			t.Fatalf("public comments after approval: %v", cs)
		}
		c := cs[0].(map[string]any)
		if c["authorName"] != "Bob" || c["authorUrl"] != peer.URL+"/@bob" || c["source"] != "activitypub" ||
			c["content"] != "<p>Nice post!</p>" || c["publishedAt"] == nil {
			t.Fatalf("comment: %v", c)
		}
		if m := ts.do("GET", "/api/blog/hello-fediverse", "", nil).json(t); m["commentCount"] != float64(1) {
			t.Fatalf("post commentCount after approval: %v", m["commentCount"])
		}
		if r := ts.do("POST", "/api/comments/"+id+"/reject", "admin", nil); r.Status != 200 || len(public()["comments"].([]any)) != 0 {
			t.Fatalf("reject: %d", r.Status)
		}
		if r := ts.do("POST", "/api/comments/nope/approve", "admin", nil); r.Status != 404 {
			t.Fatalf("approve unknown: %d", r.Status)
		}
	})
}
