package httpapi

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/oidc"
	"github.com/foliohq/folio/internal/oidc/oidctest"
	"github.com/foliohq/folio/internal/sqldb"
)

// browser is a cookie-keeping HTTP client that follows redirects until one leads to the
// dashboard, and records the URLs it went through.
type browser struct {
	*http.Client
	visited []*url.URL
}

func newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	b := &browser{}
	b.Client = &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		b.visited = append(b.visited, req.URL)
		if strings.HasPrefix(req.URL.Path, "/admin") {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	return b
}

// signIn starts a provider sign-in at start and returns where it ended (the Location to the
// dashboard) and the callback URL it went through.
func (b *browser) signIn(t *testing.T, start string) (string, *url.URL) {
	t.Helper()
	b.visited = nil
	res, err := b.Get(start)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var callback *url.URL
	for _, u := range b.visited {
		if strings.HasSuffix(u.Path, "/callback") {
			callback = u
		}
	}
	if res.StatusCode != http.StatusFound {
		t.Fatalf("sign-in ended with %d at %v", res.StatusCode, b.visited)
	}
	return res.Header.Get("Location"), callback
}

func (b *browser) sessionOK(t *testing.T, base string) string {
	t.Helper()
	res, err := b.Get(base + "/api/user/profile")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return ""
	}
	return res.Request.URL.String()
}

func errorOf(loc string) string {
	u, _ := url.Parse(loc)
	return u.Query().Get("error")
}

// Ensure OpenID Connect sign-in against a real provider run in the test: a normal sign-in by the
// verified email, a wrong nonce, an expired code, a replayed state, an unverified email, an
// address no user has, a callback in another browser — each refused with its message — and an
// account linked from Security.
func TestProviderSignIn(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		op := oidctest.Start(t)
		f := newIdentityFixture(t, db, IdentityConfig{})
		f.Identity.cfg.BaseURL = f.URL
		providers := []folio.AuthProvider{{ID: "test", Name: "Test IdP", Issuer: op.URL, ClientID: op.ClientID, ClientSecret: op.ClientSecret}}
		if _, err := f.Settings.Update(t.Context(), &folio.SettingsUpdate{Auth: &folio.AuthUpdate{Providers: &providers}}); err != nil {
			t.Fatal(err)
		}
		res := f.do("GET", "/api/auth/providers", "", nil)
		if res.Status != 200 || !strings.Contains(string(res.Body), `{"id":"test","name":"Test IdP"}`) || strings.Contains(string(res.Body), op.ClientSecret) {
			t.Fatalf("providers: %d %s", res.Status, res.Body)
		}
		start := f.URL + "/api/auth/oidc/test/start"

		b := newBrowser(t)
		loc, callback := b.signIn(t, start)
		if loc != "/admin/" || b.sessionOK(t, f.URL) == "" {
			t.Fatalf("normal sign-in ended at %q (error %q)", loc, errorOf(loc))
		}
		// The same callback again: its state was used.
		res2, err := b.Get(callback.String())
		if err != nil {
			t.Fatal(err)
		}
		res2.Body.Close()
		if e := errorOf(res2.Header.Get("Location")); !strings.Contains(e, "start again") {
			t.Errorf("replayed state: %q", res2.Header.Get("Location"))
		}

		refused := func(name, want string) {
			t.Helper()
			b := newBrowser(t)
			loc, _ := b.signIn(t, start)
			if e := errorOf(loc); !strings.Contains(e, want) || b.sessionOK(t, f.URL) != "" {
				t.Errorf("%s: ended at %q, want an error containing %q and no session", name, loc, want)
			}
		}
		op.WrongNonce = true
		refused("wrong nonce", "wrong nonce")
		op.WrongNonce = false
		op.CodeTTL = -time.Second
		refused("expired code", "code was refused")
		op.CodeTTL = 0
		op.EmailVerified, op.Subject = false, "user-3" // an account not linked yet, with the owner's address
		refused("unverified email", "did not confirm")
		op.EmailVerified, op.Subject, op.Email = true, "user-2", "stranger@example.com"
		refused("unknown address", "No user has this account's email")

		// A callback finished in another browser than the one that started is refused.
		other := newBrowser(t)
		first := newBrowser(t)
		first.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
			if strings.HasSuffix(req.URL.Path, "/callback") {
				first.visited = append(first.visited, req.URL)
				return http.ErrUseLastResponse
			}
			return nil
		}
		r1, err := first.Get(start)
		if err != nil {
			t.Fatal(err)
		}
		r1.Body.Close()
		r2, err := other.Get(r1.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		r2.Body.Close()
		if e := errorOf(r2.Header.Get("Location")); !strings.Contains(e, "not started in this browser") {
			t.Errorf("callback in another browser: %q", r2.Header.Get("Location"))
		}

		// Linked from Security: the editor links the stranger account, which then signs in.
		res = f.do("POST", "/api/auth/oidc/test/link", "", nil, "Cookie", f.EditorCookie)
		if res.Status != 200 {
			t.Fatalf("link: %d %s", res.Status, res.Body)
		}
		lb := newBrowser(t)
		u, _ := url.Parse(f.URL)
		lb.Jar.SetCookies(u, []*http.Cookie{{Name: SessionCookieName, Value: strings.TrimPrefix(f.EditorCookie, SessionCookieName+"=")}})
		for _, c := range res.Header.Values("Set-Cookie") {
			if hc, err := http.ParseSetCookie(c); err == nil {
				lb.Jar.SetCookies(u, []*http.Cookie{{Name: hc.Name, Value: hc.Value, Path: hc.Path}})
			}
		}
		link := res.json(t)["url"].(string)
		if loc, _ := lb.signIn(t, link); loc != "/admin/" {
			t.Fatalf("linking ended at %q", loc)
		}
		nb := newBrowser(t)
		if loc, _ := nb.signIn(t, start); loc != "/admin/" {
			t.Fatalf("sign-in with the linked account ended at %q", loc)
		}
		res3, _ := nb.Get(f.URL + "/api/user/profile")
		defer res3.Body.Close()
		if res3.StatusCode != 200 {
			t.Errorf("linked account's session: %d", res3.StatusCode)
		}
		if res := f.do("GET", "/api/auth/oidc/nope/start", "", nil); res.Status != 404 {
			t.Errorf("unknown provider: %d %s", res.Status, res.Body)
		}
		if res := f.as("admin", "POST", "/api/auth/oidc/test/link", nil); res.Status != 403 {
			t.Errorf("link with an API key: %d %s", res.Status, res.Body)
		}
	})
}

// Ensure the GitHub preset signs in by the verified primary email GitHub's API reports, and
// refuses an unverified one.
func TestGitHubSignIn(t *testing.T) {
	gh := oidctest.StartGitHub(t)
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{}, func(s *Server) {
		s.OIDC = &oidc.Client{GitHubAPI: gh.URL, GitHubEndpoint: gh.Endpoint()}
	})
	f.Identity.cfg.BaseURL = f.URL
	providers := []folio.AuthProvider{{ID: "github", Name: "GitHub", Type: "github", ClientID: gh.ClientID, ClientSecret: gh.ClientSecret}}
	if _, err := f.Settings.Update(t.Context(), &folio.SettingsUpdate{Auth: &folio.AuthUpdate{Providers: &providers}}); err != nil {
		t.Fatal(err)
	}
	gh.EmailVerified = false
	b := newBrowser(t)
	if loc, _ := b.signIn(t, f.URL+"/api/auth/oidc/github/start"); !strings.Contains(errorOf(loc), "did not confirm") {
		t.Errorf("unverified GitHub email: ended at %q", loc)
	}
	gh.EmailVerified = true
	b = newBrowser(t)
	if loc, _ := b.signIn(t, f.URL+"/api/auth/oidc/github/start"); loc != "/admin/" || b.sessionOK(t, f.URL) == "" {
		t.Errorf("GitHub sign-in ended at %q (%q)", loc, errorOf(loc))
	}
}

// Ensure a provider whose discovery document cannot be read sends the browser back to the
// sign-in page with the reason.
func TestProviderUnreachable(t *testing.T) {
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{})
	providers := []folio.AuthProvider{{ID: "gone", Name: "Gone", Issuer: "http://127.0.0.1:1", ClientID: "c"}}
	if _, err := f.Settings.Update(t.Context(), &folio.SettingsUpdate{Auth: &folio.AuthUpdate{Providers: &providers}}); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	loc, _ := b.signIn(t, f.URL+"/api/auth/oidc/gone/start")
	if !strings.Contains(errorOf(loc), "discovery document") {
		t.Errorf("unreachable provider: ended at %q", loc)
	}
}
