package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

const (
	testSessionSecret = "identity-test-secret-0123456789abcdef"
	testPassword      = "correct horse battery staple"
)

// identityFixture is a test server authenticating through the real Identity, with an owner and
// an editor who have signed in, and one API key per level owned by the owner.
type identityFixture struct {
	*testServer
	DB            *sqldb.DB
	ID            *Identity
	Clock         *foliotest.Clock
	Owner, Editor *folio.User
	Keys          map[string]string // "read", "write", "admin" → secret
	KeyIDs        map[string]string
	OwnerCookie   string // "name=value", for a Cookie header
	EditorCookie  string
}

func newIdentityFixture(t *testing.T, db *sqldb.DB, cfg IdentityConfig, tweak ...func(*Server)) *identityFixture {
	t.Helper()
	ctx := context.Background()
	clock := foliotest.NewClock(time.Now())
	if cfg.Secret == "" {
		cfg.Secret = testSessionSecret
	}
	cfg.Now = clock.Now
	db.Now = clock.Now
	id, err := NewIdentity(db.Identity, cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &identityFixture{DB: db, ID: id, Clock: clock, Keys: map[string]string{}, KeyIDs: map[string]string{}}
	f.testServer = newTestServer(t, db, append([]func(*Server){func(s *Server) {
		s.Auth, s.Identity, s.Now = id, id, clock.Now
		s.CORSAllowedOrigins = cfg.AllowedOrigins
	}}, tweak...)...)
	f.Owner = mustCreateUser(t, db, "owner@example.com", "Olivia Owner", folio.RoleOwner)
	f.Editor = mustCreateUser(t, db, "editor@example.com", "Eddie Editor", folio.RoleEditor)
	for _, lv := range []folio.Level{folio.LevelRead, folio.LevelWrite, folio.LevelAdmin} {
		secret, prefix, hash := auth.MintAPIKey()
		k := &folio.APIKey{UserID: f.Owner.ID, Name: lv.String() + " key", Level: lv, Prefix: prefix}
		if err := db.Identity.CreateAPIKey(ctx, k, hash); err != nil {
			t.Fatal(err)
		}
		f.Keys[lv.String()], f.KeyIDs[lv.String()] = secret, k.ID
	}
	f.OwnerCookie = f.login(t, "owner@example.com")
	f.EditorCookie = f.login(t, "editor@example.com")
	return f
}

func mustCreateUser(t *testing.T, db *sqldb.DB, email, name string, role folio.Role) *folio.User {
	t.Helper()
	return mustCreateUserTB(t, db, email, name, role)
}

func mustCreateUserTB(t testing.TB, db *sqldb.DB, email, name string, role folio.Role) *folio.User {
	t.Helper()
	in := &folio.UserInput{Email: email, Name: name, Role: role, Password: testPassword}
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
	h, err := auth.HashPassword(in.Password)
	if err != nil {
		t.Fatal(err)
	}
	u, err := db.Identity.CreateUser(context.Background(), in, h)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// login signs in and returns the session cookie as "name=value".
func (f *identityFixture) login(t *testing.T, email string) string {
	t.Helper()
	res := f.do("POST", "/api/auth/login", "", map[string]string{"email": email, "password": testPassword})
	if res.Status != 200 {
		t.Fatalf("login %s: %d %s", email, res.Status, res.Body)
	}
	c := sessionCookieOf(t, res, f.ID.CookieName())
	return c.Name + "=" + c.Value
}

func sessionCookieOf(t *testing.T, res response, name string) *http.Cookie {
	t.Helper()
	for _, line := range res.Header.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(line)
		if err == nil && c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s cookie in %q", name, res.Header.Values("Set-Cookie"))
	return nil
}

// as sends a request as one of the fixture's callers: "" (nobody), a key level, "editor" or
// "owner" (session cookies).
func (f *identityFixture) as(who, method, path string, body any, headers ...string) response {
	f.t.Helper()
	switch who {
	case "owner":
		return f.do(method, path, "", body, append([]string{"Cookie", f.OwnerCookie}, headers...)...)
	case "editor":
		return f.do(method, path, "", body, append([]string{"Cookie", f.EditorCookie}, headers...)...)
	case "":
		return f.do(method, path, "", body, headers...)
	}
	secret, ok := f.Keys[who]
	if !ok {
		f.t.Fatalf("unknown caller %q", who)
	}
	return f.do(method, path, secret, body, headers...)
}

func TestLoginSessionProfile(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{})
		v := newOpenAPIValidator(t, f.testServer)

		t.Run("login failures look alike", func(t *testing.T) {
			wrong := f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": "nope-nope-nope"})
			unknown := f.do("POST", "/api/auth/login", "", map[string]string{"email": "ghost@example.com", "password": "nope-nope-nope"})
			for _, res := range []response{wrong, unknown} {
				v.check("POST", "/api/auth/login", res)
				if res.Status != 401 || res.errorCode(t) != folio.EUNAUTHORIZED || len(res.Header.Values("Set-Cookie")) != 0 {
					t.Errorf("bad login: %d %s %q", res.Status, res.Body, res.Header.Values("Set-Cookie"))
				}
			}
			if wrong.json(t)["error"].(map[string]any)["message"] != unknown.json(t)["error"].(map[string]any)["message"] {
				t.Errorf("wrong password and unknown email answer differently: %s vs %s", wrong.Body, unknown.Body)
			}
			missing := f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com"})
			v.check("POST", "/api/auth/login", missing)
			if missing.Status != 400 || missing.errorCode(t) != folio.EINVALID {
				t.Errorf("missing password: %d %s", missing.Status, missing.Body)
			}
		})

		t.Run("login sets a safe cookie and returns the user", func(t *testing.T) {
			res := f.do("POST", "/api/auth/login", "", map[string]string{"email": "OWNER@example.com", "password": testPassword})
			v.check("POST", "/api/auth/login", res)
			if res.Status != 200 {
				t.Fatalf("login: %d %s", res.Status, res.Body)
			}
			u := res.json(t)["user"].(map[string]any)
			if u["id"] != f.Owner.ID || u["role"] != "owner" || u["email"] != "owner@example.com" {
				t.Errorf("login user = %v", u)
			}
			if strings.Contains(string(res.Body), "argon2") || strings.Contains(string(res.Body), "password") {
				t.Errorf("login response leaks the password hash: %s", res.Body)
			}
			c := sessionCookieOf(t, res, SessionCookieName)
			if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.MaxAge != 30*24*3600 || c.Secure {
				t.Errorf("cookie flags: %+v", c)
			}
			claims, err := auth.DecodeSession(testSessionSecret, c.Value, f.Clock.Now())
			if err != nil || claims.Sub != f.Owner.ID || claims.Exp-claims.Iat != 30*24*3600 {
				t.Errorf("session token claims: %+v %v", claims, err)
			}
		})

		t.Run("session", func(t *testing.T) {
			res := f.as("owner", "GET", "/api/auth/session", nil)
			v.check("GET", "/api/auth/session", res)
			m := res.json(t)
			if res.Status != 200 || m["user"].(map[string]any)["id"] != f.Owner.ID || m["expires"] == nil {
				t.Errorf("session with cookie: %d %s", res.Status, res.Body)
			}
			for _, who := range []string{"", "admin"} {
				res := f.as(who, "GET", "/api/auth/session", nil)
				v.check("GET", "/api/auth/session", res)
				if res.Status != 200 || strings.TrimSpace(string(res.Body)) != "{}" {
					t.Errorf("session as %q: %d %s, want 200 {}", who, res.Status, res.Body)
				}
			}
		})

		t.Run("profile", func(t *testing.T) {
			for _, who := range []string{"owner", "read", "admin"} {
				res := f.as(who, "GET", "/api/user/profile", nil)
				v.check("GET", "/api/user/profile", res)
				if res.Status != 200 || res.json(t)["id"] != f.Owner.ID {
					t.Errorf("profile as %s: %d %s", who, res.Status, res.Body)
				}
			}
			if res := f.as("editor", "GET", "/api/user/profile", nil); res.json(t)["email"] != "editor@example.com" {
				t.Errorf("editor's profile: %s", res.Body)
			}
			for _, tc := range []struct {
				name   string
				body   map[string]any
				status int
				field  string
			}{
				{"website not http", map[string]any{"website": "javascript:alert(1)"}, 422, "website"},
				{"website relative", map[string]any{"website": "/me"}, 422, "website"},
				{"empty name", map[string]any{"name": "  "}, 422, "name"},
				{"long bio", map[string]any{"bio": strings.Repeat("b", folio.MaxBioLen+1)}, 422, "bio"},
				{"long location", map[string]any{"location": strings.Repeat("l", folio.MaxLocationLen+1)}, 422, "location"},
				{"wrong type", map[string]any{"bio": 7}, 400, "bio"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					res := f.as("owner", "PUT", "/api/user/profile", tc.body)
					v.check("PUT", "/api/user/profile", res)
					if res.Status != tc.status || res.errorCode(t) != folio.EINVALID || !strings.Contains(string(res.Body), `"field":"`+tc.field+`"`) {
						t.Errorf("got %d %s, want %d naming %s", res.Status, res.Body, tc.status, tc.field)
					}
				})
			}
			res := f.as("owner", "PUT", "/api/user/profile", map[string]any{"name": "Olivia O.", "bio": "Builds things.",
				"location": "Lisbon", "website": "https://olivia.example"})
			v.check("PUT", "/api/user/profile", res)
			m := res.json(t)
			if res.Status != 200 || m["name"] != "Olivia O." || m["website"] != "https://olivia.example" || m["location"] != "Lisbon" {
				t.Fatalf("update: %d %s", res.Status, res.Body)
			}
			res = f.as("owner", "PUT", "/api/user/profile", map[string]any{"website": ""})
			if m := res.json(t); res.Status != 200 || m["website"] != "" || m["bio"] != "Builds things." {
				t.Errorf("clearing the website: %d %s", res.Status, res.Body)
			}
			if res := f.as("write", "PUT", "/api/user/profile", map[string]any{"bio": "by key"}); res.Status != 200 || res.json(t)["bio"] != "by key" {
				t.Errorf("a write key updates its owner's profile: %d %s", res.Status, res.Body)
			}
			if res := f.as("read", "PUT", "/api/user/profile", map[string]any{"bio": "x"}); res.Status != 403 {
				t.Errorf("read key PUT profile: %d", res.Status)
			}
			if res := f.as("", "GET", "/api/user/profile", nil); res.Status != 401 || res.errorCode(t) != folio.EUNAUTHORIZED {
				t.Errorf("profile without credentials: %d %s", res.Status, res.Body)
			}
			// The session re-reads its user, so the new name shows at once on this instance.
			if res := f.as("owner", "GET", "/api/auth/session", nil); res.json(t)["user"].(map[string]any)["name"] != "Olivia O." {
				t.Errorf("session after rename: %s", res.Body)
			}
		})

		t.Run("logout", func(t *testing.T) {
			res := f.as("owner", "POST", "/api/auth/logout", nil)
			v.check("POST", "/api/auth/logout", res)
			c := sessionCookieOf(t, res, SessionCookieName)
			if res.Status != 204 || c.MaxAge >= 0 || c.Value != "" {
				t.Errorf("logout: %d %+v", res.Status, c)
			}
		})
	})
}

func TestSecureCookieWhenNextAuthURLIsHTTPS(t *testing.T) {
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{BaseURL: "https://folio.example"})
	if !strings.HasPrefix(f.OwnerCookie, SecureSessionCookieName+"=") {
		t.Fatalf("cookie %q, want the __Secure- name", f.OwnerCookie)
	}
	res := f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword})
	if c := sessionCookieOf(t, res, SecureSessionCookieName); !c.Secure || !c.HttpOnly {
		t.Errorf("cookie flags over https: %+v", c)
	}
	// The plain name is not read when the secure one is in use: a network attacker could set it.
	plain := SessionCookieName + "=" + strings.TrimPrefix(f.OwnerCookie, SecureSessionCookieName+"=")
	if res := f.do("GET", "/api/user/profile", "", nil, "Cookie", plain); res.Status != 401 {
		t.Errorf("plain cookie name accepted over https: %d", res.Status)
	}
	if res := f.as("owner", "GET", "/api/user/profile", nil); res.Status != 200 {
		t.Errorf("secure cookie: %d", res.Status)
	}
}

// Ensure no tampered, expired, foreign or orphaned session gets in, and that such a cookie
// leaves public routes working.
func TestSessionRejections(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{})
		now := f.Clock.Now()
		token := strings.TrimPrefix(f.OwnerCookie, SessionCookieName+"=")
		encode := func(secret, sub string, exp time.Time) string {
			tok, err := auth.EncodeSession(secret, auth.SessionClaims{Sub: sub, Iat: now.Add(-time.Hour).Unix(), Exp: exp.Unix()})
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		flip := func(s string, i int) string {
			b := []byte(s)
			if b[i] == 'A' {
				b[i] = 'B'
			} else {
				b[i] = 'A'
			}
			return string(b)
		}
		parts := strings.Split(token, ".")
		ghost := mustCreateUser(t, db, "ghost@example.com", "Ghost", folio.RoleEditor)
		ghostToken := encode(testSessionSecret, ghost.ID, now.Add(time.Hour))
		if res := f.do("GET", "/api/user/profile", "", nil, "Cookie", SessionCookieName+"="+ghostToken); res.Status != 200 {
			t.Fatalf("control: a valid session of a live user: %d", res.Status)
		}
		if err := db.Identity.DeleteUser(context.Background(), ghost.ID); err != nil {
			t.Fatal(err)
		}

		for _, tc := range []struct{ name, token string }{
			{"tampered ciphertext", parts[0] + ".." + parts[2] + "." + flip(parts[3], len(parts[3])/2) + "." + parts[4]},
			{"tampered tag", parts[0] + ".." + parts[2] + "." + parts[3] + "." + flip(parts[4], 3)},
			{"tampered header", flip(parts[0], 5) + ".." + parts[2] + "." + parts[3] + "." + parts[4]},
			{"wrong secret", encode("another-secret-entirely-0123456789", f.Owner.ID, now.Add(time.Hour))},
			{"expired", encode(testSessionSecret, f.Owner.ID, now.Add(-time.Minute))},
			{"unknown user", encode(testSessionSecret, "no-such-user", now.Add(time.Hour))},
			{"garbage", "not-a-token"},
			{"empty", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				cookie := SessionCookieName + "=" + tc.token
				if res := f.do("GET", "/api/user/profile", "", nil, "Cookie", cookie); res.Status != 401 || res.errorCode(t) != folio.EUNAUTHORIZED {
					t.Errorf("profile: %d %s, want 401", res.Status, res.Body)
				}
				if res := f.do("GET", "/api/keys", "", nil, "Cookie", cookie); res.Status != 401 {
					t.Errorf("keys: %d, want 401", res.Status)
				}
				if res := f.do("GET", "/api/auth/session", "", nil, "Cookie", cookie); strings.TrimSpace(string(res.Body)) != "{}" {
					t.Errorf("session: %s, want {}", res.Body)
				}
				if res := f.do("GET", "/api/projects", "", nil, "Cookie", cookie); res.Status != 200 {
					t.Errorf("a bad cookie broke a public route: %d", res.Status)
				}
			})
		}
		t.Run("deleted user", func(t *testing.T) {
			// Within UserCacheTTL the cached user may still be served; past it, never.
			f.Clock.Advance(DefaultUserCacheTTL + time.Second)
			if res := f.do("GET", "/api/user/profile", "", nil, "Cookie", SessionCookieName+"="+ghostToken); res.Status != 401 {
				t.Errorf("session of a deleted user: %d, want 401", res.Status)
			}
		})
		t.Run("past thirty days", func(t *testing.T) {
			f.Clock.Advance(30*24*time.Hour + time.Minute)
			if res := f.as("owner", "GET", "/api/user/profile", nil); res.Status != 401 {
				t.Errorf("a 30-day session after 30 days: %d, want 401", res.Status)
			}
		})
	})
}

// Ensure a token written by the real next-auth v4 (the Next.js front end) signs its user in to
// folio, and one folio wrote is read by next-auth.
func TestNextAuthSessionInterop(t *testing.T) {
	node, err := exec.LookPath("node")
	dir := filepath.Join("..", "auth", "testdata", "nextauth")
	if err != nil {
		t.Skip("node is not installed; install Node.js ≥ 18 to run the next-auth interop test")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "next-auth", "jwt")); err != nil {
		t.Skip("next-auth is not installed; run: npm ci --prefix internal/auth/testdata/nextauth --legacy-peer-deps --no-audit --no-fund")
	}
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{})
	run := func(req map[string]any, out any) {
		t.Helper()
		in, _ := json.Marshal(req)
		cmd := exec.CommandContext(t.Context(), node, "compat.js")
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(in)
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("compat.js: %v", err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	var enc struct{ Token string }
	run(map[string]any{"op": "encode", "secret": testSessionSecret, "maxAge": 3600,
		"token": map[string]any{"sub": f.Editor.ID, "email": "editor@example.com", "name": "Eddie Editor"}}, &enc)
	res := f.do("GET", "/api/user/profile", "", nil, "Cookie", SessionCookieName+"="+enc.Token)
	if res.Status != 200 || res.json(t)["id"] != f.Editor.ID {
		t.Errorf("next-auth token: %d %s", res.Status, res.Body)
	}
	var dec struct {
		Payload map[string]any
		Error   string
	}
	run(map[string]any{"op": "decode", "secret": testSessionSecret, "token": strings.TrimPrefix(f.OwnerCookie, SessionCookieName+"=")}, &dec)
	if dec.Error != "" || dec.Payload["sub"] != f.Owner.ID || dec.Payload["email"] != "owner@example.com" {
		t.Errorf("next-auth decoding folio's cookie: %+v", dec)
	}
}

// Ensure cookie-authenticated unsafe requests from other origins are refused, while bearer
// requests, safe methods, this site, NEXTAUTH_URL and CORS_ALLOWED_ORIGINS pass.
func TestOriginCheck(t *testing.T) {
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{BaseURL: "http://dashboard.example",
		AllowedOrigins: []string{"https://admin.example.org"}})
	body := map[string]string{"bio": "x"}
	for _, tc := range []struct {
		name    string
		who     string
		method  string
		headers []string
		status  int
	}{
		{"evil origin, cookie", "owner", "PUT", []string{"Origin", "https://evil.example"}, 403},
		{"evil origin, cross-site fetch metadata", "owner", "PUT", []string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}, 403},
		{"null origin, cookie", "editor", "PUT", []string{"Origin", "null"}, 403},
		{"NEXTAUTH_URL origin", "owner", "PUT", []string{"Origin", "http://dashboard.example"}, 200},
		{"CORS origin", "owner", "PUT", []string{"Origin", "https://admin.example.org"}, 200},
		{"same-origin fetch metadata", "owner", "PUT", []string{"Sec-Fetch-Site", "same-origin"}, 200},
		{"no Origin at all (not a browser)", "owner", "PUT", nil, 200},
		{"evil origin, bearer key", "write", "PUT", []string{"Origin", "https://evil.example"}, 200},
		{"evil origin, safe method", "owner", "GET", []string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b any
			if tc.method == "PUT" {
				b = body
			}
			res := f.as(tc.who, tc.method, "/api/user/profile", b, tc.headers...)
			if res.Status != tc.status {
				t.Errorf("got %d %s, want %d", res.Status, res.Body, tc.status)
			}
			if tc.status == 403 && res.errorCode(t) != folio.EFORBIDDEN {
				t.Errorf("code %s, want PERMISSION_DENIED", res.errorCode(t))
			}
		})
	}
	t.Run("login from another site", func(t *testing.T) {
		res := f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword},
			"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
		if res.Status != 403 || len(res.Header.Values("Set-Cookie")) != 0 {
			t.Errorf("cross-site login: %d %q", res.Status, res.Header.Values("Set-Cookie"))
		}
	})
}

func TestCORS(t *testing.T) {
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{AllowedOrigins: []string{"https://admin.example.org"}})
	preflight := func(path, origin string) response {
		return f.do("OPTIONS", path, "", nil, "Origin", origin, "Access-Control-Request-Method", "PUT",
			"Access-Control-Request-Headers", "authorization,content-type")
	}
	res := preflight("/api/user/profile", "https://admin.example.org")
	h := res.Header
	if res.Status != 204 || h.Get("Access-Control-Allow-Origin") != "https://admin.example.org" || h.Get("Access-Control-Allow-Credentials") != "true" ||
		!strings.Contains(h.Get("Access-Control-Allow-Methods"), "PUT") || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("allowed preflight: %d %v", res.Status, h)
	}
	res = preflight("/api/user/profile", "https://evil.example")
	if res.Status != 204 || res.Header.Get("Access-Control-Allow-Origin") != "" || res.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("disallowed preflight must carry no CORS grant: %d %v", res.Status, res.Header)
	}
	res = f.as("owner", "GET", "/api/user/profile", nil, "Origin", "https://admin.example.org")
	if res.Header.Get("Access-Control-Allow-Origin") != "https://admin.example.org" || !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "Origin") ||
		!strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "X-RateLimit-Remaining") {
		t.Errorf("CORS headers on a real response: %v", res.Header)
	}
	res = preflight("/api/analytics/collect", "https://anyone.example")
	if res.Status != 204 || res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("public beacon preflight: %d %v", res.Status, res.Header)
	}
	for _, hdr := range []string{"X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"} {
		if res := f.do("GET", "/api/projects", "", nil); res.Header.Get(hdr) == "" {
			t.Errorf("security header %s missing", hdr)
		}
	}
}

// FuzzAuthenticate feeds arbitrary Authorization headers and session cookies to the real
// Identity: it must never panic, a header lets a caller in only when it carries the real key,
// and a cookie only when it is a valid session token.
func FuzzAuthenticate(f *testing.F) {
	db := foliotest.MustOpenSQLite(f)
	owner := mustCreateUserTB(f, db, "owner@example.com", "Owner", folio.RoleOwner)
	secret, prefix, hash := auth.MintAPIKey()
	if err := db.Identity.CreateAPIKey(context.Background(), &folio.APIKey{UserID: owner.ID, Name: "k", Level: folio.LevelAdmin, Prefix: prefix}, hash); err != nil {
		f.Fatal(err)
	}
	now := time.Now()
	tok, err := auth.EncodeSession(testSessionSecret, auth.SessionClaims{Sub: owner.ID, Iat: now.Unix(), Exp: now.Add(time.Hour).Unix()})
	if err != nil {
		f.Fatal(err)
	}
	id, err := NewIdentity(db.Identity, IdentityConfig{Secret: testSessionSecret, Now: func() time.Time { return now }})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("Bearer "+secret, "")
	f.Add("bearer  "+secret+" ", "")
	f.Add("Bearer "+secret[:len(secret)-1]+"x", "")
	f.Add("", tok)
	f.Add("", tok[:len(tok)-2])
	f.Add("Basic Zm9vOmJhcg==", "")
	f.Add("Bearer folio_", "a.b.c.d.e")
	f.Fuzz(func(t *testing.T, header, cookie string) {
		r, _ := http.NewRequest("POST", "http://folio.test/api/user/profile", nil)
		if header != "" {
			r.Header["Authorization"] = []string{header}
		}
		if cookie != "" {
			r.Header["Cookie"] = []string{SessionCookieName + "=" + cookie}
		}
		actor, err := id.Authenticate(r)
		if err != nil && actor.Authenticated() {
			t.Fatalf("error %v with an authenticated actor %+v", err, actor)
		}
		if !actor.Authenticated() {
			return
		}
		if header != "" && !strings.Contains(header, secret) {
			t.Fatalf("header %q authenticated without the key", header)
		}
		if header == "" {
			c, err := r.Cookie(SessionCookieName)
			if err != nil {
				t.Fatalf("authenticated without a readable cookie: %q", cookie)
			}
			if _, err := auth.DecodeSession(testSessionSecret, c.Value, now); err != nil {
				t.Fatalf("cookie %q authenticated but is not a valid session: %v", cookie, err)
			}
		}
	})
}
