package webui_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-fed/httpsig"
)

// mastodonPeer is an in-process fediverse server with one account, carol: it serves her actor
// and records what its inboxes receive, with the signature checked against the site's key.
type mastodonPeer struct {
	*httptest.Server
	key      *rsa.PrivateKey
	mu       sync.Mutex
	received []map[string]any
	refused  int
}

func newMastodonPeer(t *testing.T) *mastodonPeer {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &mastodonPeer{key: key}
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /users/carol", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/activity+json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": p.URL + "/users/carol", "type": "Person", "name": "Carol",
			"preferredUsername": "carol", "url": p.URL + "/@carol", "inbox": p.URL + "/users/carol/inbox",
			"publicKey": map[string]string{"id": p.URL + "/users/carol#main-key", "owner": p.URL + "/users/carol",
				"publicKeyPem": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}})
	})
	mux.HandleFunc("POST /users/carol/inbox", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		err := verifySigned(r, body)
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil {
			p.refused++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var act map[string]any
		_ = json.Unmarshal(body, &act)
		p.received = append(p.received, act)
		w.WriteHeader(http.StatusAccepted)
	})
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Close)
	return p
}

// verifySigned checks a delivery as Mastodon does: the Digest of the body, then the signature
// with the key its keyId names, fetched from the sender (the site's actor document).
func verifySigned(r *http.Request, body []byte) error {
	sum := sha256.Sum256(body)
	if r.Header.Get("Digest") != "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]) {
		return errors.New("digest mismatch")
	}
	v, err := httpsig.NewVerifier(r)
	if err != nil {
		return err
	}
	res, err := http.Get(v.KeyId())
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
		return errors.New("no key")
	}
	pub, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		return err
	}
	return v.Verify(pub, httpsig.RSA_SHA256)
}

// send POSTs an activity by carol to inbox, signed with go-fed/httpsig as Mastodon signs.
func (p *mastodonPeer) send(t *testing.T, inbox string, activity map[string]any) int {
	t.Helper()
	body, _ := json.Marshal(activity)
	req, _ := http.NewRequest(http.MethodPost, inbox, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/activity+json")
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("Host", req.URL.Host)
	signer, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
		[]string{httpsig.RequestTarget, "host", "date", "digest"}, httpsig.Signature, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := signer.SignRequest(p.key, p.URL+"/users/carol#main-key", req, body); err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func (p *mastodonPeer) notes() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []map[string]any
	for _, a := range p.received {
		if obj, ok := a["object"].(map[string]any); ok && a["type"] == "Create" && obj["type"] == "Note" {
			out = append(out, obj)
		}
	}
	return out
}

// TestBrowserCommentReply: carol replies from her fediverse server; in the queue the owner
// answers her with the reply form, and her inbox receives the Note, signed, in reply to hers.
func TestBrowserCommentReply(t *testing.T) {
	findChromium(t) // skip before starting anything when there is no browser
	s := startFolioWith(t, map[string]string{"FEDIVERSE_ALLOW_PRIVATE": "true"})
	peer := newMastodonPeer(t)
	if r := s.api(t, "POST", "/api/blog", map[string]any{"title": "Ask me", "content": "Anything.", "status": "published"}, nil); r.status != 201 {
		t.Fatalf("create post: %d %s", r.status, r.body)
	}
	noteID := peer.URL + "/users/carol/statuses/1"
	if code := peer.send(t, s.base+"/ap/inbox", map[string]any{"@context": "https://www.w3.org/ns/activitystreams",
		"id": noteID + "/activity", "type": "Create", "actor": peer.URL + "/users/carol",
		"object": map[string]any{"id": noteID, "type": "Note", "attributedTo": peer.URL + "/users/carol",
			"inReplyTo": s.base + "/blog/ask-me", "content": "<p>What is folio written in?</p>",
			"published": time.Now().UTC().Format(time.RFC3339)}}); code != http.StatusAccepted {
		t.Fatalf("carol's reply: %d", code)
	}
	var list struct {
		Comments []struct{ ID string }
	}
	s.api(t, "GET", "/api/comments?status=pending", nil, nil).decode(t, &list)
	if len(list.Comments) != 1 {
		t.Fatalf("pending comments: %+v", list.Comments)
	}
	id := list.Comments[0].ID

	browserCtx := newBrowser(t)
	desk := newTab(t, browserCtx, ownerZone)
	signIn(t, desk, s.base)
	desk.do(t, "open Comments", chromedp.Navigate(s.base+"/admin/#/comments"), chromedp.WaitVisible(css("#comments-status")))
	card := fmt.Sprintf("article[data-comment=%q]", id)
	desk.waitText(t, card, "What is folio written in?")
	desk.waitText(t, card, "via the fediverse")
	desk.waitText(t, "#block-actor-"+id, "Block author")
	desk.do(t, "approve", chromedp.Click(css("#approve-"+id)))
	desk.waitText(t, "main", "Comment approved.")
	desk.do(t, "show the approved ones", chromedp.SetValue(css("#comments-status"), "approved"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#comments-status').dispatchEvent(new Event('change'))`))
	desk.do(t, "open the reply form", chromedp.WaitVisible(css("#reply-"+id)), chromedp.Click(css("#reply-"+id)),
		chromedp.WaitVisible(css("#reply-text-"+id)))
	desk.screenshot(t, s, "comments-02-reply")
	desk.do(t, "write and send", chromedp.SendKeys(css("#reply-text-"+id), "In **Go**, Carol."),
		chromedp.Click(css("#reply-send-"+id)))
	desk.waitText(t, "main", "Reply sent to the fediverse.")
	desk.waitText(t, "main", "Your reply")
	checkAxe(t, desk, "comments-reply")

	// The job queue delivers the Note (it polls every second): wait for carol's inbox.
	var notes []map[string]any
	for deadline := time.Now().Add(40 * time.Second); len(notes) == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		notes = peer.notes()
	}
	if len(notes) != 1 {
		t.Fatalf("Notes in carol's inbox: %v (refused %d)", notes, peer.refused)
	}
	n := notes[0]
	if n["inReplyTo"] != noteID || n["attributedTo"] != s.base+"/ap/actor" || !strings.Contains(n["content"].(string), "<strong>Go</strong>") ||
		!strings.Contains(n["content"].(string), "@carol@") {
		t.Fatalf("the Note: %v", n)
	}
}
