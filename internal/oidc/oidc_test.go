package oidc_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/oidc"
	"github.com/foliohq/folio/internal/oidc/oidctest"
)

const redirect = "http://localhost/callback"

// code runs the provider's authorization step for f and returns the code it answers.
func code(t testing.TB, c *oidc.Client, p folio.AuthProvider, f oidc.Flow) string {
	to, err := c.AuthURL(context.Background(), p, redirect, f)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := hc.Get(to)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	if loc == nil || loc.Query().Get("state") != f.State {
		t.Fatalf("authorization answered %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	return loc.Query().Get("code")
}

func setup(t testing.TB) (*oidctest.Provider, *oidc.Client, folio.AuthProvider) {
	op := oidctest.Start(t)
	return op, &oidc.Client{}, folio.AuthProvider{ID: "t", Type: "oidc", Issuer: op.URL, ClientID: op.ClientID, ClientSecret: op.ClientSecret}
}

// Ensure the exchange answers the account for a good flow and refuses a wrong nonce, a wrong PKCE
// verifier and an ID token signed by another key.
func TestExchange(t *testing.T) {
	op, c, p := setup(t)
	ctx := context.Background()
	f := oidc.NewFlow()
	a, err := c.Exchange(ctx, p, redirect, code(t, c, p, f), f)
	if err != nil || a.Subject != "user-1" || a.Email != "owner@example.com" || !a.EmailVerified {
		t.Fatalf("Exchange = %+v, %v", a, err)
	}

	op.WrongNonce = true
	f = oidc.NewFlow()
	if _, err := c.Exchange(ctx, p, redirect, code(t, c, p, f), f); !errors.Is(err, oidc.ErrNonce) {
		t.Errorf("wrong nonce: %v", err)
	}
	op.WrongNonce = false

	f = oidc.NewFlow()
	k := code(t, c, p, f)
	f.Verifier = oidc.NewFlow().Verifier
	if _, err := c.Exchange(ctx, p, redirect, k, f); err == nil {
		t.Error("a wrong PKCE verifier was accepted")
	}

	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: other}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	f = oidc.NewFlow()
	forged, _ := jwt.Signed(signer).Claims(map[string]any{"iss": op.URL, "sub": "user-1", "aud": op.ClientID,
		"exp": time.Now().Add(time.Minute).Unix(), "iat": time.Now().Unix(), "nonce": f.Nonce, "email": "owner@example.com", "email_verified": true}).Serialize()
	op.IDToken = forged
	if _, err := c.Exchange(ctx, p, redirect, code(t, c, p, f), f); err == nil {
		t.Error("an ID token signed by another key was accepted")
	}
}

// Ensure an ID token without email claims is completed from the userinfo endpoint, and that a
// userinfo answer about another subject is refused.
func TestExchangeUserInfo(t *testing.T) {
	op, c, p := setup(t)
	ctx := context.Background()
	op.EmailAtUserInfo = true
	f := oidc.NewFlow()
	a, err := c.Exchange(ctx, p, redirect, code(t, c, p, f), f)
	if err != nil || a.Subject != "user-1" || a.Email != "owner@example.com" || !a.EmailVerified || a.Name != "Olivia at the IdP" {
		t.Fatalf("Exchange = %+v, %v", a, err)
	}

	op.EmailVerified = false
	f = oidc.NewFlow()
	if a, err := c.Exchange(ctx, p, redirect, code(t, c, p, f), f); err != nil || a.EmailVerified {
		t.Errorf("unverified at userinfo: %+v, %v", a, err)
	}

	op.EmailVerified, op.UserInfoSubject = true, "user-2"
	f = oidc.NewFlow()
	if a, err := c.Exchange(ctx, p, redirect, code(t, c, p, f), f); !errors.Is(err, oidc.ErrUserInfoSubject) {
		t.Errorf("userinfo about another subject: %+v, %v", a, err)
	}
}

// FuzzIDToken answers arbitrary ID tokens: none is ever accepted.
func FuzzIDToken(f *testing.F) {
	op, c, p := setup(f)
	f.Add("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.")
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, tok string) {
		if tok == "" {
			return
		}
		op.IDToken = tok
		fl := oidc.NewFlow()
		if a, err := c.Exchange(context.Background(), p, redirect, code(t, c, p, fl), fl); err == nil {
			t.Fatalf("accepted %q as %+v", tok, a)
		}
	})
}

// FuzzUserInfo answers arbitrary userinfo documents to an ID token without email: the exchange
// refuses them or answers the ID token's subject, never the document's.
func FuzzUserInfo(f *testing.F) {
	op, c, p := setup(f)
	op.EmailAtUserInfo = true
	f.Add(`{"sub":"user-1","email":"owner@example.com","email_verified":"true"}`)
	f.Add(`{"sub":"user-2","email":"owner@example.com","email_verified":true}`)
	f.Add(`{"sub":["user-1"]}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, body string) {
		if body == "" {
			return
		}
		op.UserInfoBody = body
		fl := oidc.NewFlow()
		a, err := c.Exchange(context.Background(), p, redirect, code(t, c, p, fl), fl)
		if err == nil && a.Subject != "user-1" {
			t.Fatalf("accepted %q as %+v", body, a)
		}
	})
}
