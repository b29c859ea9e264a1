package oidctest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"golang.org/x/oauth2"
)

// GitHub is a fake of GitHub's OAuth app flow and the two REST calls folio makes (/user and
// /user/emails): it checks the client, the PKCE verifier and the bearer token.
type GitHub struct {
	URL                    string
	ClientID, ClientSecret string
	UserID                 int64
	Login, Email           string
	EmailVerified          bool

	mu     sync.Mutex
	codes  map[string]string // code → PKCE challenge
	tokens map[string]bool
}

// StartGitHub serves the fake until the test ends.
func StartGitHub(t testing.TB) *GitHub {
	g := &GitHub{ClientID: "gh-client", ClientSecret: "gh-secret", UserID: 4242, Login: "olivia", Email: "owner@example.com",
		EmailVerified: true, codes: map[string]string{}, tokens: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login/oauth/authorize", g.authorize)
	mux.HandleFunc("POST /login/oauth/access_token", g.token)
	mux.HandleFunc("GET /user", g.user)
	mux.HandleFunc("GET /user/emails", g.emails)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// Endpoint is the fake's OAuth endpoint.
func (g *GitHub) Endpoint() oauth2.Endpoint {
	return oauth2.Endpoint{AuthURL: g.URL + "/login/oauth/authorize", TokenURL: g.URL + "/login/oauth/access_token"}
}

func (g *GitHub) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != g.ClientID || q.Get("code_challenge") == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	code := rand.Text()
	g.mu.Lock()
	g.codes[code] = q.Get("code_challenge")
	g.mu.Unlock()
	back, _ := url.Parse(q.Get("redirect_uri"))
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (g *GitHub) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	g.mu.Lock()
	challenge, known := g.codes[r.PostForm.Get("code")]
	delete(g.codes, r.PostForm.Get("code"))
	g.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if id != g.ClientID || secret != g.ClientSecret || !known || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
		oauthError(w, "bad_verification_code")
		return
	}
	tok := rand.Text()
	g.mu.Lock()
	g.tokens[tok] = true
	g.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "bearer", "scope": "read:user,user:email"})
}

func (g *GitHub) authorized(r *http.Request) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := r.Header.Get("Authorization")
	return len(h) > 7 && g.tokens[h[7:]]
}

func (g *GitHub) user(w http.ResponseWriter, r *http.Request) {
	if !g.authorized(r) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": g.UserID, "login": g.Login, "name": ""})
}

func (g *GitHub) emails(w http.ResponseWriter, r *http.Request) {
	if !g.authorized(r) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	writeJSON(w, http.StatusOK, []map[string]any{{"email": "other@example.net", "primary": false, "verified": true},
		{"email": g.Email, "primary": true, "verified": g.EmailVerified}})
}
