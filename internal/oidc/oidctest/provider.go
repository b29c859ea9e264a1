// Package oidctest is an OpenID Connect provider that runs inside a test: discovery, JWKS, an
// authorization endpoint that signs its one account in at once, and a token endpoint that checks
// the client, the PKCE verifier and the code's age and single use, and answers an ID token signed
// with RS256 (github.com/go-jose/go-jose). Knobs make it misbehave the ways a sign-in must refuse.
package oidctest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Provider is the test provider. Set its fields before a sign-in starts.
type Provider struct {
	URL                    string // the issuer
	ClientID, ClientSecret string
	// The account it signs in.
	Subject, Email, Name string
	EmailVerified        bool
	// WrongNonce makes the ID token carry another nonce; CodeTTL is how long a code is good
	// (default one minute); Now is the clock of codes and tokens (default time.Now).
	WrongNonce bool
	CodeTTL    time.Duration
	Now        func() time.Time
	// IDToken, when set, is answered instead of the token the provider would sign (a forged
	// or malformed one).
	IDToken string
	// EmailAtUserInfo leaves the email and name claims out of the ID token, for the userinfo
	// endpoint only (as zitadel does by default); UserInfoSubject, when set, is the subject the
	// userinfo endpoint answers instead of the account's.
	EmailAtUserInfo bool
	UserInfoSubject string
	// UserInfoBody, when set, is answered by the userinfo endpoint as is (a malformed or
	// hostile answer).
	UserInfoBody string

	key  *rsa.PrivateKey
	mu   sync.Mutex
	code map[string]grant
	// tokens are the access tokens issued, good at the userinfo endpoint.
	tokens map[string]bool
}

type grant struct {
	redirect, challenge, nonce string
	at                         time.Time
}

// Start serves a provider until the test ends.
func Start(t testing.TB) *Provider {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{ClientID: "folio-test", ClientSecret: "client-secret", Subject: "user-1", Email: "owner@example.com",
		Name: "Olivia at the IdP", EmailVerified: true, key: key, code: map[string]grant{}, tokens: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("GET /userinfo", p.userinfo)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

func (p *Provider) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"issuer": p.URL, "authorization_endpoint": p.URL + "/authorize",
		"token_endpoint": p.URL + "/token", "jwks_uri": p.URL + "/jwks", "userinfo_endpoint": p.URL + "/userinfo", "response_types_supported": []string{"code"},
		"subject_types_supported": []string{"public"}, "id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported": []string{"S256"}})
}

func (p *Provider) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
}

// authorize signs the account in at once and sends the browser back with a code.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != p.ClientID || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	code := rand.Text()
	p.mu.Lock()
	p.code[code] = grant{redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), nonce: q.Get("nonce"), at: p.now()}
	p.mu.Unlock()
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, "invalid_request")
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != p.ClientID || secret != p.ClientSecret {
		oauthError(w, "invalid_client")
		return
	}
	code := r.PostForm.Get("code")
	p.mu.Lock()
	g, ok := p.code[code]
	delete(p.code, code) // a code is good once
	p.mu.Unlock()
	ttl := p.CodeTTL
	if ttl == 0 {
		ttl = time.Minute
	}
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	switch {
	case !ok || p.now().Sub(g.at) > ttl:
		oauthError(w, "invalid_grant")
		return
	case g.redirect != r.PostForm.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		oauthError(w, "invalid_grant")
		return
	}
	nonce := g.nonce
	if p.WrongNonce {
		nonce = "not-the-nonce"
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: p.key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	now := p.now()
	claims := map[string]any{"iss": p.URL, "sub": p.Subject, "aud": p.ClientID, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"nonce": nonce}
	if !p.EmailAtUserInfo {
		claims["email"], claims["email_verified"], claims["name"] = p.Email, p.EmailVerified, p.Name
	}
	idToken, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if p.IDToken != "" {
		idToken = p.IDToken
	}
	access := rand.Text()
	p.mu.Lock()
	p.tokens[access] = true
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 300, "id_token": idToken})
}

// userinfo answers the account's claims for an access token it issued.
func (p *Provider) userinfo(w http.ResponseWriter, r *http.Request) {
	access, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	ok = ok && p.tokens[access]
	p.mu.Unlock()
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(w, "invalid token", http.StatusUnauthorized)
		return
	}
	if p.UserInfoBody != "" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(p.UserInfoBody))
		return
	}
	sub := p.Subject
	if p.UserInfoSubject != "" {
		sub = p.UserInfoSubject
	}
	writeJSON(w, http.StatusOK, map[string]any{"sub": sub, "email": p.Email, "email_verified": p.EmailVerified, "name": p.Name})
}

func oauthError(w http.ResponseWriter, code string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
