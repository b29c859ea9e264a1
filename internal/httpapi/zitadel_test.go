package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// This file signs in against an OpenID provider folio's authors did not write: zitadel's
// op.Provider (github.com/zitadel/oidc/v3/pkg/op) with the in-memory storage and login page of
// its example server, served in the test on an httptest server. The browser is driven over HTTP
// with a cookie jar, through zitadel's own login form. Like zitadel itself by default, the
// example puts no email claims in the ID token of a code flow: folio reads them from the
// userinfo endpoint.

// zitadelCodeTTL is how long the provider's storage honours an authorization code.
const zitadelCodeTTL = time.Minute

// zitadelUsers is the provider's user store: Olivia (whose verified address is folio's
// owner's) and an account claiming the editor's address without having confirmed it.
type zitadelUsers map[string]*storage.User

func (u zitadelUsers) GetUserByID(id string) *storage.User { return u[id] }

func (u zitadelUsers) GetUserByUsername(name string) *storage.User {
	for _, user := range u {
		if user.Username == name {
			return user
		}
	}
	return nil
}

func (zitadelUsers) ExampleClientID() string { return storage.ServiceUserID }

// expiringCodes is the example storage with codes that expire: zitadel's op.Provider leaves a
// code's lifetime to its storage, and the example keeps codes until they are used. Its clock
// is the test's, so the test moves time instead of waiting.
type expiringCodes struct {
	*storage.Storage
	clock *foliotest.Clock

	mu     sync.Mutex
	issued map[string]time.Time
}

func (s *expiringCodes) SaveAuthCode(ctx context.Context, id, code string) error {
	s.mu.Lock()
	s.issued[code] = s.clock.Now()
	s.mu.Unlock()
	return s.Storage.SaveAuthCode(ctx, id, code)
}

func (s *expiringCodes) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	at, ok := s.issued[code]
	s.mu.Unlock()
	if ok && s.clock.Now().Sub(at) > zitadelCodeTTL {
		return nil, errors.New("code expired")
	}
	return s.Storage.AuthRequestByCode(ctx, code)
}

// zitadelProvider is zitadel's example OpenID provider with one web client, whose redirect URI
// is folio's callback for the provider id "zitadel".
type zitadelProvider struct {
	URL                    string // the issuer
	ClientID, ClientSecret string
	Clock                  *foliotest.Clock // the storage's clock, for codes
}

func startZitadel(t *testing.T, folioURL string) *zitadelProvider {
	t.Helper()
	users := zitadelUsers{
		"zitadel-olivia": {ID: "zitadel-olivia", Username: "olivia", Password: "correct horse battery",
			FirstName: "Olivia", LastName: "Owner", Email: "owner@example.com", EmailVerified: true},
		"zitadel-eve": {ID: "zitadel-eve", Username: "eve", Password: "correct horse battery",
			FirstName: "Eve", LastName: "Claims", Email: "editor@example.com", EmailVerified: false},
	}
	p := &zitadelProvider{ClientID: "folio", ClientSecret: "zitadel-client-secret", Clock: foliotest.NewClock(time.Now())}
	client := storage.WebClient(p.ClientID, p.ClientSecret, folioURL+"/api/auth/oidc/zitadel/callback")
	store := &expiringCodes{Storage: storage.NewStorageWithClients(users, map[string]*storage.Client{p.ClientID: client}),
		clock: p.Clock, issued: map[string]time.Time{}}
	srv := httptest.NewUnstartedServer(nil)
	p.URL = "http://" + srv.Listener.Addr().String()
	// A nil logger leaves the process's slog default alone (the example replaces it otherwise).
	srv.Config.Handler = exampleop.SetupServer(p.URL, store, nil, false)
	srv.Start()
	t.Cleanup(srv.Close)
	return p
}

// zitadelBrowser is a cookie-keeping client that follows no redirect by itself, so each step of
// the sign-in is seen and can be tampered with.
type zitadelBrowser struct{ *http.Client }

func newZitadelBrowser() zitadelBrowser {
	jar, _ := cookiejar.New(nil)
	return zitadelBrowser{&http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// step sends a request and answers the response with its body read.
func (b zitadelBrowser) step(t *testing.T, method, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, string(data)
}

// redirect checks that res is a 302 and answers its Location, absolute.
func redirect(t *testing.T, what string, res *http.Response, body string) *url.URL {
	t.Helper()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("%s: %d, want 302: %.300s", what, res.StatusCode, body)
	}
	loc, err := res.Request.URL.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatalf("%s: Location %q: %v", what, res.Header.Get("Location"), err)
	}
	return loc
}

var zitadelLoginID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// signInAtZitadel starts at folio, lets tamper change the request to the provider, signs in at
// zitadel's login form as username, and answers the URL of folio's callback the provider sent
// the browser to (not yet visited).
func (b zitadelBrowser) signInAtZitadel(t *testing.T, start, username string, tamper func(url.Values)) *url.URL {
	t.Helper()
	res, body := b.step(t, "GET", start, nil)
	authorize := redirect(t, "folio's start", res, body)
	if tamper != nil {
		q := authorize.Query()
		tamper(q)
		authorize.RawQuery = q.Encode()
	}
	res, body = b.step(t, "GET", authorize.String(), nil)
	login := redirect(t, "zitadel's authorization endpoint", res, body)
	res, body = b.step(t, "GET", login.String(), nil)
	m := zitadelLoginID.FindStringSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("zitadel's login page %s: %d %.300s", login, res.StatusCode, body)
	}
	form := url.Values{"id": {m[1]}, "username": {username}, "password": {"correct horse battery"}}
	res, body = b.step(t, "POST", login.ResolveReference(&url.URL{Path: "/login/username"}).String(), form)
	back := redirect(t, "zitadel's login form", res, body)
	res, body = b.step(t, "GET", back.String(), nil)
	callback := redirect(t, "zitadel's authorization callback", res, body)
	if callback.Path != "/api/auth/oidc/zitadel/callback" || callback.Query().Get("code") == "" {
		t.Fatalf("zitadel sent the browser to %s", callback)
	}
	return callback
}

// finish visits folio's callback and answers where folio sent the browser.
func (b zitadelBrowser) finish(t *testing.T, callback string) string {
	t.Helper()
	res, body := b.step(t, "GET", callback, nil)
	return redirect(t, "folio's callback", res, body).RequestURI()
}

// profile answers the email of the session the browser holds at folio, or "".
func (b zitadelBrowser) profile(t *testing.T, folioURL string) string {
	t.Helper()
	res, body := b.step(t, "GET", folioURL+"/api/user/profile", nil)
	if res.StatusCode != http.StatusOK {
		return ""
	}
	for _, email := range []string{"owner@example.com", "editor@example.com"} {
		if strings.Contains(body, `"`+email+`"`) {
			return email
		}
	}
	return "?"
}

// Ensure sign-in with zitadel's OpenID provider: a normal sign-in by the verified email (the
// email read from the userinfo endpoint), a replayed state, a wrong nonce, a tampered code, an
// expired code and an unverified email — each refused with its message and no session.
func TestZitadelProviderSignIn(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{})
		f.Identity.cfg.BaseURL = f.URL
		zp := startZitadel(t, f.URL)
		providers := []folio.AuthProvider{{ID: "zitadel", Name: "Zitadel", Issuer: zp.URL, ClientID: zp.ClientID, ClientSecret: zp.ClientSecret}}
		if _, err := f.Settings.Update(t.Context(), &folio.SettingsUpdate{Auth: &folio.AuthUpdate{Providers: &providers}}); err != nil {
			t.Fatal(err)
		}
		start := f.URL + "/api/auth/oidc/zitadel/start"

		// A normal sign-in.
		b := newZitadelBrowser()
		callback := b.signInAtZitadel(t, start, "olivia", nil)
		if loc := b.finish(t, callback.String()); loc != "/admin/" {
			t.Fatalf("normal sign-in ended at %q (error %q)", loc, errorOf(loc))
		}
		if who := b.profile(t, f.URL); who != "owner@example.com" {
			t.Fatalf("normal sign-in: the session is %q's, want the owner's", who)
		}

		refused := func(name, loc, want string, b zitadelBrowser) {
			t.Helper()
			if e := errorOf(loc); !strings.Contains(e, want) {
				t.Errorf("%s: ended at %q, want an error containing %q", name, loc, want)
			}
			if who := b.profile(t, f.URL); who != "" {
				t.Errorf("%s: the browser holds %q's session", name, who)
			}
		}

		// A replayed state: the same callback again, from a browser that kept the state cookie
		// (its own cookie was cleared by the first visit), then from the first browser.
		replay := newZitadelBrowser()
		u, _ := url.Parse(f.URL)
		replay.Jar.SetCookies(u.ResolveReference(&url.URL{Path: "/api/auth/oidc/"}),
			[]*http.Cookie{{Name: providerStateCookie, Value: callback.Query().Get("state"), Path: "/api/auth/oidc/"}})
		refused("replayed state", replay.finish(t, callback.String()), "already used; start again", replay)
		if loc := b.finish(t, callback.String()); !strings.Contains(errorOf(loc), "start again") {
			t.Errorf("replayed state in the first browser: ended at %q", loc)
		}

		// A wrong nonce: the request reaching the provider carries another nonce than folio's
		// (an ID token minted for another sign-in), so the provider signs a token for it.
		nb := newZitadelBrowser()
		cb := nb.signInAtZitadel(t, start, "olivia", func(q url.Values) { q.Set("nonce", "nonce-of-another-sign-in") })
		refused("wrong nonce", nb.finish(t, cb.String()), "(wrong nonce); start again", nb)

		// A tampered code: the provider refuses it at the token endpoint.
		tb := newZitadelBrowser()
		cb = tb.signInAtZitadel(t, start, "olivia", nil)
		q := cb.Query()
		q.Set("code", q.Get("code")+"x")
		cb.RawQuery = q.Encode()
		refused("tampered code", tb.finish(t, cb.String()), "the code was refused, expired or its token did not verify", tb)

		// An expired code: the provider's clock passes the code's lifetime before folio redeems it.
		eb := newZitadelBrowser()
		cb = eb.signInAtZitadel(t, start, "olivia", nil)
		zp.Clock.Advance(zitadelCodeTTL + time.Second)
		refused("expired code", eb.finish(t, cb.String()), "the code was refused, expired or its token did not verify", eb)

		// An unverified email: Eve's account claims the editor's address without having
		// confirmed it, so folio matches it to nobody.
		ub := newZitadelBrowser()
		cb = ub.signInAtZitadel(t, start, "eve", nil)
		refused("unverified email", ub.finish(t, cb.String()), "did not confirm this account's email address", ub)

		// Olivia signs in again through the identity linked by the first sign-in.
		ab := newZitadelBrowser()
		if loc := ab.finish(t, ab.signInAtZitadel(t, start, "olivia", nil).String()); loc != "/admin/" || ab.profile(t, f.URL) != "owner@example.com" {
			t.Errorf("second sign-in ended at %q (error %q)", loc, errorOf(loc))
		}
	})
}
