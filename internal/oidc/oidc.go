// Package oidc signs users in with an identity provider (docs/api.md, "Identity providers"):
// OpenID Connect through github.com/coreos/go-oidc (discovery, ID token signature, issuer,
// audience and expiry checks) and golang.org/x/oauth2 (authorization code with PKCE), plus
// GitHub's OAuth app, which is not OpenID Connect: its account comes from GitHub's REST API.
package oidc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/foliohq/folio"
)

// Account is what a provider says about the person who signed in.
type Account struct {
	Subject       string // the provider's stable id of the account
	Email         string
	EmailVerified bool
	Name          string
}

// Flow is the secret state of one sign-in, kept between start and callback.
type Flow struct {
	State, Nonce, Verifier string
}

// NewFlow returns a fresh state, nonce and PKCE verifier.
func NewFlow() Flow {
	return Flow{State: oauth2.GenerateVerifier(), Nonce: oauth2.GenerateVerifier(), Verifier: oauth2.GenerateVerifier()}
}

// ErrNonce is an ID token whose nonce is not the flow's (a replayed or injected token).
var ErrNonce = errors.New("oidc: the ID token's nonce does not match this sign-in")

// Client talks to the configured providers. Discovery documents are cached per issuer for
// CacheTTL. It is safe for concurrent use.
type Client struct {
	// HTTP is the client for the providers (default: 10 s timeout). Issuers are reached
	// wherever the owner points them, private networks included.
	HTTP *http.Client
	// GitHubAPI is GitHub's REST API base (default https://api.github.com); GitHubEndpoint its
	// OAuth endpoint (default github.com's).
	GitHubAPI      string
	GitHubEndpoint oauth2.Endpoint
	CacheTTL       time.Duration

	mu        sync.Mutex
	providers map[string]cachedProvider
}

type cachedProvider struct {
	p  *gooidc.Provider
	at time.Time
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: 10 * time.Second}
}

func (c *Client) ctx(ctx context.Context) context.Context {
	return gooidc.ClientContext(ctx, c.http())
}

// discover returns the issuer's provider, from the cache when fresh.
func (c *Client) discover(ctx context.Context, issuer string) (*gooidc.Provider, error) {
	ttl := c.CacheTTL
	if ttl == 0 {
		ttl = time.Hour
	}
	c.mu.Lock()
	cp, ok := c.providers[issuer]
	c.mu.Unlock()
	if ok && time.Since(cp.at) < ttl {
		return cp.p, nil
	}
	p, err := gooidc.NewProvider(c.ctx(ctx), issuer)
	if err != nil {
		return nil, folio.Errorf(folio.EUPSTREAM, "The identity provider's discovery document (%s/.well-known/openid-configuration) could not be read: %v", issuer, err)
	}
	c.mu.Lock()
	if c.providers == nil {
		c.providers = map[string]cachedProvider{}
	}
	c.providers[issuer] = cachedProvider{p: p, at: time.Now()}
	c.mu.Unlock()
	return p, nil
}

func (c *Client) config(ctx context.Context, p folio.AuthProvider, redirect string) (*oauth2.Config, *gooidc.Provider, error) {
	cfg := &oauth2.Config{ClientID: p.ClientID, ClientSecret: p.ClientSecret, RedirectURL: redirect}
	if p.Type == "github" {
		cfg.Endpoint = c.GitHubEndpoint
		if cfg.Endpoint.AuthURL == "" {
			cfg.Endpoint = oauth2.Endpoint{AuthURL: "https://github.com/login/oauth/authorize", TokenURL: "https://github.com/login/oauth/access_token"}
		}
		cfg.Scopes = []string{"read:user", "user:email"}
		return cfg, nil, nil
	}
	op, err := c.discover(ctx, p.Issuer)
	if err != nil {
		return nil, nil, err
	}
	cfg.Endpoint = op.Endpoint()
	cfg.Scopes = []string{gooidc.ScopeOpenID, "email", "profile"}
	return cfg, op, nil
}

// AuthURL is where the browser goes to sign in at the provider.
func (c *Client) AuthURL(ctx context.Context, p folio.AuthProvider, redirect string, f Flow) (string, error) {
	cfg, _, err := c.config(ctx, p, redirect)
	if err != nil {
		return "", err
	}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(f.Verifier)}
	if p.Type != "github" {
		opts = append(opts, gooidc.Nonce(f.Nonce))
	}
	return cfg.AuthCodeURL(f.State, opts...), nil
}

// Exchange trades the callback's code for the account: the code with the flow's PKCE verifier,
// then the ID token, verified (signature, issuer, audience, expiry) and bound to the flow's
// nonce, completed from the userinfo endpoint when it carries no email; for GitHub, the user
// and its verified primary email from the REST API.
func (c *Client) Exchange(ctx context.Context, p folio.AuthProvider, redirect, code string, f Flow) (Account, error) {
	cfg, op, err := c.config(ctx, p, redirect)
	if err != nil {
		return Account{}, err
	}
	tok, err := cfg.Exchange(c.ctx(ctx), code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return Account{}, fmt.Errorf("oidc: the provider refused the code: %w", err)
	}
	if p.Type == "github" {
		return c.githubAccount(ctx, cfg, tok)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Account{}, errors.New("oidc: the provider answered no ID token")
	}
	idt, err := op.Verifier(&gooidc.Config{ClientID: p.ClientID}).Verify(c.ctx(ctx), raw)
	if err != nil {
		return Account{}, fmt.Errorf("oidc: the ID token does not verify: %w", err)
	}
	if idt.Nonce != f.Nonce {
		return Account{}, ErrNonce
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"`
		Name          string `json:"name"`
	}
	if err := idt.Claims(&claims); err != nil {
		return Account{}, fmt.Errorf("oidc: ID token claims: %w", err)
	}
	verified := claims.EmailVerified == true || claims.EmailVerified == "true"
	a := Account{Subject: idt.Subject, Email: claims.Email, EmailVerified: verified, Name: claims.Name}
	if a.Email == "" {
		// OpenID Connect Core §5.4: when an access token is issued, the claims the email and
		// profile scopes ask for may be served by the userinfo endpoint only (zitadel does so
		// by default).
		return c.userInfo(ctx, op, tok, a)
	}
	return a, nil
}

// ErrUserInfoSubject is a userinfo answer about another account than the ID token's.
var ErrUserInfoSubject = errors.New("oidc: the userinfo endpoint answered for another subject than the ID token's")

// userInfo completes a with the email and name the provider's userinfo endpoint answers for
// the access token. The answer counts only when its subject is the ID token's (OpenID Connect
// Core §5.3.2): the ID token, not the userinfo response, is what was verified.
func (c *Client) userInfo(ctx context.Context, op *gooidc.Provider, tok *oauth2.Token, a Account) (Account, error) {
	if op.UserInfoEndpoint() == "" {
		return a, nil // the provider says nothing more; the email stays unknown
	}
	info, err := op.UserInfo(c.ctx(ctx), oauth2.StaticTokenSource(tok))
	if err != nil {
		return Account{}, fmt.Errorf("oidc: userinfo: %w", err)
	}
	if info.Subject != a.Subject {
		return Account{}, ErrUserInfoSubject
	}
	var extra struct {
		Name string `json:"name"`
	}
	_ = info.Claims(&extra)
	a.Email, a.EmailVerified = info.Email, info.EmailVerified
	if a.Name == "" {
		a.Name = extra.Name
	}
	return a, nil
}

// githubAccount reads the GitHub user and its primary verified email.
func (c *Client) githubAccount(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (Account, error) {
	api := c.GitHubAPI
	if api == "" {
		api = "https://api.github.com"
	}
	hc := cfg.Client(c.ctx(ctx), tok)
	var user struct {
		ID    int64  `json:"id"`
		Login string `json:"login"`
		Name  string `json:"name"`
	}
	if err := getJSON(ctx, hc, api+"/user", &user); err != nil {
		return Account{}, err
	}
	var emails []struct {
		Email    string `json:"email"`
		Primary  bool   `json:"primary"`
		Verified bool   `json:"verified"`
	}
	if err := getJSON(ctx, hc, api+"/user/emails", &emails); err != nil {
		return Account{}, err
	}
	a := Account{Subject: strconv.FormatInt(user.ID, 10), Name: user.Name}
	if a.Name == "" {
		a.Name = user.Login
	}
	for _, e := range emails {
		if e.Primary {
			a.Email, a.EmailVerified = e.Email, e.Verified
		}
	}
	if user.ID == 0 {
		return Account{}, errors.New("oidc: GitHub answered no user id")
	}
	return a, nil
}

func getJSON(ctx context.Context, hc *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	res, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("oidc: GitHub API: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("oidc: GitHub API %s: %s", url, res.Status)
	}
	return json.NewDecoder(http.MaxBytesReader(nil, res.Body, 1<<20)).Decode(v)
}
