package fediverse_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/fediverse"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/go-fed/httpsig"
)

const siteURL = "https://folio.example"

var (
	keyOnce         sync.Once
	siteKey, remKey *rsa.PrivateKey
)

// keys are made once: RSA generation dominates the tests' time otherwise.
func keys(t *testing.T) (*rsa.PrivateKey, *rsa.PrivateKey) {
	keyOnce.Do(func() {
		var err error
		if siteKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if remKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	return siteKey, remKey
}

func pemOf(t *testing.T, pub *rsa.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// remote is a stand-in Mastodon server: it serves its actor alice (with the key it holds now) and
// records what its inbox receives.
type remote struct {
	*httptest.Server
	mu       sync.Mutex
	key      *rsa.PrivateKey
	received [][]byte
	gone     bool
}

func newRemote(t *testing.T, key *rsa.PrivateKey) *remote {
	rm := &remote{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /users/alice", func(w http.ResponseWriter, r *http.Request) {
		// Secure mode: only fetches signed by the site, over (request-target) host date.
		sk, _ := keys(t)
		if v, err := httpsig.NewVerifier(r); err != nil || v.KeyId() != siteURL+"/ap/actor#main-key" || v.Verify(&sk.PublicKey, httpsig.RSA_SHA256) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		rm.mu.Lock()
		defer rm.mu.Unlock()
		if rm.gone {
			w.WriteHeader(http.StatusGone)
			return
		}
		w.Header().Set("Content-Type", "application/activity+json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": rm.URL + "/users/alice", "type": "Person", "inbox": rm.URL + "/users/alice/inbox",
			"endpoints": map[string]string{"sharedInbox": rm.URL + "/inbox"},
			"publicKey": map[string]string{"id": rm.URL + "/users/alice#main-key", "owner": rm.URL + "/users/alice",
				"publicKeyPem": pemOf(t, &rm.key.PublicKey)},
		})
	})
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		_, _ = b.ReadFrom(r.Body)
		rm.mu.Lock()
		rm.received = append(rm.received, b.Bytes())
		rm.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
	rm.Server = httptest.NewServer(mux)
	t.Cleanup(rm.Close)
	return rm
}

func (rm *remote) actor() string { return rm.URL + "/users/alice" }

// fixture reads a Mastodon payload with its hosts made the test's.
func (rm *remote) fixture(t *testing.T, name string) []byte {
	b, err := os.ReadFile("testdata/mastodon/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), "https://mastodon.example", rm.URL))
}

// signedByRemote is body POSTed to the site's inbox, signed by go-fed/httpsig as the remote
// server signs it (not by our own Sign).
func signedByRemote(t *testing.T, key *rsa.PrivateKey, keyID string, body []byte, date time.Time) *http.Request {
	req := httptest.NewRequest(http.MethodPost, siteURL+"/ap/inbox", bytes.NewReader(body))
	req.Header.Set("Date", date.UTC().Format(http.TimeFormat))
	req.Header.Set("Content-Type", "application/activity+json")
	req.Header.Set("Host", req.Host) // what a client sends and signs
	signer, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
		[]string{httpsig.RequestTarget, "host", "date", "digest"}, httpsig.Signature, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := signer.SignRequest(key, keyID, req, body); err != nil {
		t.Fatal(err)
	}
	return req
}

func newService(t *testing.T) (*fediverse.Service, *sqldb.DB) {
	db := foliotest.MustOpenSQLite(t)
	sk, _ := keys(t)
	svc := fediverse.New(db.Fediverse, content.New(db.Content), "site", siteURL, sk, pemOf(t, &sk.PublicKey),
		fediverse.NewClient(true), nil)
	return svc, db
}

func TestOutgoingSignatureVerifiesWithGoFed(t *testing.T) {
	sk, _ := keys(t)
	body := []byte(`{"type":"Accept"}`)
	req, _ := http.NewRequest(http.MethodPost, "https://mastodon.example/inbox", bytes.NewReader(body))
	if err := fediverse.Sign(req, body, sk, siteURL+"/ap/actor#main-key", time.Now()); err != nil {
		t.Fatal(err)
	}
	p, err := fediverse.ParseSignature(req.Header.Get("Signature"))
	if err != nil || strings.Join(p.Headers, " ") != "(request-target) host date digest" || p.Algorithm != "rsa-sha256" || p.KeyID != siteURL+"/ap/actor#main-key" {
		t.Fatalf("Signature header %q parsed as %+v, %v", req.Header.Get("Signature"), p, err)
	}
	// The receiving side sees the request as a server does: Host out of the header map.
	in := httptest.NewRequest(http.MethodPost, "https://mastodon.example/inbox", bytes.NewReader(body))
	for k, v := range req.Header {
		if k != "Host" {
			in.Header[k] = v
		}
	}
	v, err := httpsig.NewVerifier(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Verify(&sk.PublicKey, httpsig.RSA_SHA256); err != nil {
		t.Fatalf("go-fed/httpsig refuses our signature: %v", err)
	}
	if sum, ok := fediverse.ParseDigest(req.Header.Get("Digest")); !ok || len(sum) != 32 {
		t.Fatalf("Digest %q", req.Header.Get("Digest"))
	}
}

func TestInboxFollowSignedByGoFed(t *testing.T) {
	svc, db := newService(t)
	_, rk := keys(t)
	rm := newRemote(t, rk)
	ctx := context.Background()
	body := rm.fixture(t, "follow.json")
	body = bytes.ReplaceAll(body, []byte("https://folio.example"), []byte(siteURL))
	if err := svc.Inbox(ctx, signedByRemote(t, rk, rm.actor()+"#main-key", body, time.Now()), body); err != nil {
		t.Fatalf("Inbox(Follow) = %v", err)
	}
	fs, n, err := db.Fediverse.Followers(ctx, 1, 10)
	if err != nil || n != 1 || fs[0].ActorID != rm.actor() || fs[0].SharedInbox != rm.URL+"/inbox" {
		t.Fatalf("followers = %+v, %d, %v", fs, n, err)
	}
	// The Accept is a queued delivery to alice's own inbox, carrying her Follow.
	j, ok, err := db.Jobs.ClaimJob(ctx, "t", []string{folio.JobFediverseDeliver}, time.Now().Add(time.Second), time.Now().Add(time.Minute))
	if err != nil || !ok {
		t.Fatalf("no Accept queued: %v", err)
	}
	var pl folio.FediverseDeliverPayload
	_ = json.Unmarshal([]byte(j.Payload), &pl)
	var accept struct {
		Type   string `json:"type"`
		Actor  string `json:"actor"`
		Object struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"object"`
	}
	if err := json.Unmarshal([]byte(pl.Activity), &accept); err != nil || pl.Inbox != rm.actor()+"/inbox" || accept.Type != "Accept" ||
		accept.Actor != siteURL+"/ap/actor" || accept.Object.Type != "Follow" {
		t.Fatalf("queued %+v: %s", pl, pl.Activity)
	}
	// Delivering it posts a signed Accept.
	if err := svc.Deliver(ctx, j); err != nil {
		t.Fatalf("Deliver = %v", err)
	}
	if len(rm.received) != 1 {
		t.Fatalf("remote received %d activities", len(rm.received))
	}

	// Undo{Follow}, as Mastodon sends it, ends the follow.
	undo := rm.fixture(t, "undo_follow.json")
	if err := svc.Inbox(ctx, signedByRemote(t, rk, rm.actor()+"#main-key", undo, time.Now()), undo); err != nil {
		t.Fatalf("Inbox(Undo) = %v", err)
	}
	if n, _ := db.Fediverse.FollowerCount(ctx); n != 0 {
		t.Fatalf("followers after Undo = %d", n)
	}
}

func TestInboxActorDelete(t *testing.T) {
	svc, db := newService(t)
	_, rk := keys(t)
	rm := newRemote(t, rk)
	ctx := context.Background()
	if err := db.Fediverse.AddFollower(ctx, folio.Follower{ActorID: rm.actor(), Inbox: rm.actor() + "/inbox", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	// Mastodon deletes the account first, so its key answers 410 Gone.
	rm.gone = true
	del := rm.fixture(t, "delete_actor.json")
	if err := svc.Inbox(ctx, signedByRemote(t, rk, rm.actor()+"#main-key", del, time.Now()), del); err != nil {
		t.Fatalf("Inbox(Delete) = %v", err)
	}
	if n, _ := db.Fediverse.FollowerCount(ctx); n != 0 {
		t.Fatalf("followers after the actor's Delete = %d", n)
	}
	// A gone actor's anything else is refused.
	follow := rm.fixture(t, "follow.json")
	if err := svc.Inbox(ctx, signedByRemote(t, rk, rm.actor()+"#main-key", follow, time.Now()), follow); !errors.Is(err, fediverse.ErrSignature) {
		t.Fatalf("Inbox(Follow by a gone actor) = %v, want ErrSignature", err)
	}
}

// TestInboxAcceptsMastodonPayloads: Create{Note}, Like and Announce, signed, are accepted.
func TestInboxAcceptsMastodonPayloads(t *testing.T) {
	svc, _ := newService(t)
	_, rk := keys(t)
	rm := newRemote(t, rk)
	for _, name := range []string{"create_note_reply.json", "like.json", "announce.json"} {
		body := rm.fixture(t, name)
		if err := svc.Inbox(context.Background(), signedByRemote(t, rk, rm.actor()+"#main-key", body, time.Now()), body); err != nil {
			t.Errorf("Inbox(%s) = %v", name, err)
		}
	}
}

func TestInboxRefusals(t *testing.T) {
	svc, _ := newService(t)
	sk, rk := keys(t)
	rm := newRemote(t, rk)
	body := rm.fixture(t, "follow.json")
	keyID := rm.actor() + "#main-key"
	cases := map[string]func() *http.Request{
		"unsigned": func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, siteURL+"/ap/inbox", bytes.NewReader(body))
			r.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
			return r
		},
		"stale Date":  func() *http.Request { return signedByRemote(t, rk, keyID, body, time.Now().Add(-6*time.Minute)) },
		"future Date": func() *http.Request { return signedByRemote(t, rk, keyID, body, time.Now().Add(6*time.Minute)) },
		"Digest mismatch": func() *http.Request {
			r := signedByRemote(t, rk, keyID, body, time.Now())
			r.Header.Set("Digest", "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
			return r
		},
		"signed by another key": func() *http.Request { return signedByRemote(t, sk, keyID, body, time.Now()) },
		"digest not covered": func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, siteURL+"/ap/inbox", bytes.NewReader(body))
			r.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
			r.Header.Set("Host", r.Host)
			signer, _, _ := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256,
				[]string{httpsig.RequestTarget, "host", "date"}, httpsig.Signature, 0)
			if err := signer.SignRequest(rk, keyID, r, body); err != nil {
				t.Fatal(err)
			}
			return r
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			if err := svc.Inbox(context.Background(), mk(), body); !errors.Is(err, fediverse.ErrSignature) {
				t.Fatalf("Inbox = %v, want ErrSignature", err)
			}
		})
	}
	// The body changed after signing: the Digest no longer matches.
	r := signedByRemote(t, rk, keyID, body, time.Now())
	if err := svc.Inbox(context.Background(), r, append(bytes.Clone(body), ' ')); !errors.Is(err, fediverse.ErrSignature) {
		t.Fatalf("Inbox(changed body) = %v, want ErrSignature", err)
	}
}

// TestKeyRotation: a cached key that no longer verifies is fetched again once.
func TestKeyRotation(t *testing.T) {
	svc, _ := newService(t)
	sk, rk := keys(t)
	rm := newRemote(t, rk)
	ctx := context.Background()
	like := rm.fixture(t, "like.json")
	if err := svc.Inbox(ctx, signedByRemote(t, rk, rm.actor()+"#main-key", like, time.Now()), like); err != nil {
		t.Fatal(err)
	}
	rm.mu.Lock()
	rm.key = sk // alice rotates her key (to one the test already has)
	rm.mu.Unlock()
	if err := svc.Inbox(ctx, signedByRemote(t, sk, rm.actor()+"#main-key", like, time.Now()), like); err != nil {
		t.Fatalf("after rotation: %v", err)
	}
}

func TestLoadKeySealsTheKey(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ctx := context.Background()
	k1, pub1, err := fediverse.LoadKey(ctx, db.Fediverse, "instance-secret-0123456789abcdef", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	k2, pub2, err := fediverse.LoadKey(ctx, db.Fediverse, "instance-secret-0123456789abcdef", time.Now())
	if err != nil || !k1.Equal(k2) || pub1 != pub2 {
		t.Fatalf("a second load made another key: %v", err)
	}
	stored, _ := db.Fediverse.ActorKey(ctx)
	if strings.Contains(stored.SealedPrivate, "PRIVATE KEY") || strings.Contains(stored.SealedPrivate, "MII") {
		t.Fatalf("the private key is stored in clear: %.40s…", stored.SealedPrivate)
	}
	if _, _, err := fediverse.LoadKey(ctx, db.Fediverse, "another-secret-0123456789abcdef", time.Now()); err == nil {
		t.Fatal("the key opened with another instance secret")
	}
}

func FuzzParseDigest(f *testing.F) {
	for _, s := range []string{"SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", "sha-256=x, SHA-512=y", "", "=", "SHA-256=", "MD5=abc,SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		sum, ok := fediverse.ParseDigest(h)
		if ok != (len(sum) == 32) {
			t.Fatalf("ParseDigest(%q) = %x, %v", h, sum, ok)
		}
	})
}

func FuzzParseSignature(f *testing.F) {
	for _, s := range []string{
		`keyId="https://m.example/users/a#main-key",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="abc=="`,
		`keyId="k", signature="s"`, `keyId="k",keyId="k",signature="s"`, `keyId=k`, `keyId="`, `,`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		p, err := fediverse.ParseSignature(h)
		if err == nil && p.KeyID == "" {
			t.Fatalf("ParseSignature(%q) accepted an empty keyId", h)
		}
		if err == nil && len(p.Headers) == 0 {
			t.Fatalf("ParseSignature(%q) has no headers", h)
		}
	})
}

// TestBlockedDomain: a blocked domain's follow ends and its activities are refused (403).
func TestBlockedDomain(t *testing.T) {
	svc, db := newService(t)
	_, rk := keys(t)
	rm := newRemote(t, rk)
	ctx := context.Background()
	follow := rm.fixture(t, "follow.json")
	if err := svc.Inbox(ctx, signedByRemote(t, rk, rm.actor()+"#main-key", follow, time.Now()), follow); err != nil {
		t.Fatal(err)
	}
	host := strings.Split(strings.TrimPrefix(rm.URL, "http://"), ":")[0]
	if _, err := svc.Block(ctx, fediverse.BlockInput{Domain: host}); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.Fediverse.FollowerCount(ctx); n != 0 {
		t.Fatalf("followers after blocking their domain = %d", n)
	}
	err := svc.Inbox(ctx, signedByRemote(t, rk, rm.actor()+"#main-key", follow, time.Now()), follow)
	if folio.ErrorCode(err) != folio.EFORBIDDEN {
		t.Fatalf("Inbox(Follow) from a blocked domain = %v, want EFORBIDDEN", err)
	}
	if _, err := svc.Block(ctx, fediverse.BlockInput{Actor: rm.actor(), Domain: host}); folio.ErrorCode(err) != folio.EINVALID {
		t.Fatalf("Block(actor and domain) = %v, want a 400", err)
	}
}
