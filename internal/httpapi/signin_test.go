package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/audit"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// cookieHeader is a session token as a Cookie header value.
func cookieHeader(tok string) string { return SessionCookieName + "=" + tok }

// frontEndToken is a session token as a Next.js front end with its own sign-in provider writes
// it: sub is the provider's account id, not a folio user id.
func (f *identityFixture) frontEndToken(t *testing.T, sub, email string, iat time.Time) string {
	t.Helper()
	tok, err := auth.EncodeSession(testSessionSecret, auth.SessionClaims{Sub: sub, Email: email, Name: "Front End",
		Iat: iat.Unix(), Exp: iat.Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Ensure a front-end token whose sub is not a folio user id signs in the user with the token's
// email (any letter case), an unknown email is no session, and the Origin check runs after
// authentication (403, not 401, for a valid cookie from a foreign origin).
func TestFrontEndSessionByEmail(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{BaseURL: "http://dashboard.example"})
		tok := f.frontEndToken(t, "github|4242", "OWNER@Example.com", f.Clock.Now())
		res := f.do("GET", "/api/user/profile", "", nil, "Cookie", cookieHeader(tok))
		if res.Status != 200 || res.json(t)["id"] != f.Owner.ID {
			t.Fatalf("front-end token by email: %d %s", res.Status, res.Body)
		}
		if res := f.do("GET", "/api/auth/session", "", nil, "Cookie", cookieHeader(tok)); !strings.Contains(string(res.Body), f.Owner.ID) {
			t.Errorf("session of a front-end token: %s", res.Body)
		}
		stranger := f.frontEndToken(t, "github|1", "nobody@example.com", f.Clock.Now())
		if res := f.do("GET", "/api/user/profile", "", nil, "Cookie", cookieHeader(stranger)); res.Status != 401 {
			t.Errorf("unknown email: %d %s", res.Status, res.Body)
		}
		noEmail := f.frontEndToken(t, "github|1", "", f.Clock.Now())
		if res := f.do("GET", "/api/user/profile", "", nil, "Cookie", cookieHeader(noEmail)); res.Status != 401 {
			t.Errorf("unknown sub without email: %d %s", res.Status, res.Body)
		}
		res = f.do("PUT", "/api/user/profile", "", map[string]string{"bio": "x"}, "Cookie", cookieHeader(tok),
			"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
		if res.Status != 403 || res.errorCode(t) != folio.EFORBIDDEN {
			t.Errorf("valid front-end cookie from a foreign origin: %d %s", res.Status, res.Body)
		}
		res = f.do("PUT", "/api/user/profile", "", map[string]string{"bio": "x"}, "Cookie", cookieHeader(stranger),
			"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
		if res.Status != 401 {
			t.Errorf("invalid cookie from a foreign origin: %d %s, want 401", res.Status, res.Body)
		}
	})
}

// Ensure a token written by the real next-auth package for an OAuth account (sub = the
// provider's id) signs its user in by email.
func TestNextAuthFrontEndSubByEmail(t *testing.T) {
	node, err := exec.LookPath("node")
	dir := filepath.Join("..", "auth", "testdata", "nextauth")
	if err != nil {
		t.Skip("node is not installed; install Node.js ≥ 18 to run the next-auth interop test")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "next-auth", "jwt")); err != nil {
		t.Skip("next-auth is not installed; run: npm ci --prefix internal/auth/testdata/nextauth --legacy-peer-deps --no-audit --no-fund")
	}
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{})
	in, _ := json.Marshal(map[string]any{"op": "encode", "secret": testSessionSecret, "maxAge": 3600,
		"token": map[string]any{"sub": "104713962873464023712", "email": "Editor@Example.COM", "name": "Eddie via Google"}})
	cmd := exec.CommandContext(t.Context(), node, "compat.js")
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(in)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("compat.js: %v", err)
	}
	var enc struct{ Token string }
	if err := json.Unmarshal(b, &enc); err != nil || enc.Token == "" {
		t.Fatalf("compat.js: %s", b)
	}
	res := f.do("GET", "/api/user/profile", "", nil, "Cookie", cookieHeader(enc.Token))
	if res.Status != 200 || res.json(t)["id"] != f.Editor.ID {
		t.Fatalf("next-auth OAuth token: %d %s", res.Status, res.Body)
	}
	// next-auth's iat is the real clock's; revoking (one second on) ends it too.
	f.Clock.Advance(time.Since(f.Clock.Now()) + time.Second)
	if _, err := f.DB.Identity.RevokeSessions(context.Background(), f.Editor.ID); err != nil {
		t.Fatal(err)
	}
	f.Clock.Advance(2 * time.Second)
	if res := f.do("GET", "/api/user/profile", "", nil, "Cookie", cookieHeader(enc.Token)); res.Status != 401 {
		t.Errorf("next-auth token after revocation: %d %s", res.Status, res.Body)
	}
}

// Ensure revocation ends every session of the user, front-end tokens included, when a session
// asks (a key of any level gets 403 and ends nothing), and that a password change, a role change
// and removing the user do too; new sign-ins work right after.
func TestSessionRevocation(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{})
		ctx := context.Background()
		profile := func(cookie string) int { return f.do("GET", "/api/user/profile", "", nil, "Cookie", cookie).Status }
		second := f.login(t, "owner@example.com")
		front := cookieHeader(f.frontEndToken(t, "github|7", "owner@example.com", f.Clock.Now()))
		for _, c := range []string{f.OwnerCookie, second, front} {
			if profile(c) != 200 {
				t.Fatal("a session does not work before revocation")
			}
		}
		res := f.as("owner", "POST", "/api/auth/sessions/revoke", nil)
		if res.Status != 204 {
			t.Fatalf("revoke: %d %s", res.Status, res.Body)
		}
		if c := sessionCookieOf(t, res, f.ID.CookieName()); c.MaxAge >= 0 {
			t.Errorf("revoke did not expire the caller's cookie: %+v", c)
		}
		for i, c := range []string{f.OwnerCookie, second, front} {
			if st := profile(c); st != 401 {
				t.Errorf("session %d after revocation: %d", i, st)
			}
		}
		if profile(f.EditorCookie) != 200 {
			t.Error("revoking the owner's sessions ended the editor's")
		}
		// Signing in again within the same second works, and so does the API key.
		fresh := f.login(t, "owner@example.com")
		if profile(fresh) != 200 {
			t.Error("a sign-in right after revocation does not work")
		}
		if res := f.as("read", "GET", "/api/user/profile", nil); res.Status != 200 {
			t.Errorf("API key after session revocation: %d", res.Status)
		}

		// A key of the user, of any level, cannot end the user's sessions: that needs a session.
		f.Clock.Advance(2 * time.Second)
		for _, level := range []string{"read", "write", "admin"} {
			if res := f.as(level, "POST", "/api/auth/sessions/revoke", nil); res.Status != 403 || res.errorCode(t) != folio.EFORBIDDEN {
				t.Errorf("revoke by a %s key: %d %s, want 403", level, res.Status, res.Body)
			}
		}
		if profile(fresh) != 200 {
			t.Error("a key's refused revocation ended a session")
		}
		if res := f.do("POST", "/api/auth/sessions/revoke", "", nil, "Cookie", fresh); res.Status != 204 {
			t.Fatalf("revoke by the fresh session: %d %s", res.Status, res.Body)
		}
		if profile(fresh) != 401 {
			t.Error("session survived its own revocation")
		}

		// A role change ends the sessions (they carry the role).
		f.Clock.Advance(2 * time.Second)
		if err := db.Identity.SetUserRole(ctx, f.Editor.ID, folio.RoleOwner); err != nil {
			t.Fatal(err)
		}
		if profile(f.EditorCookie) != 401 {
			t.Error("session survived a role change")
		}
		// Removing the user ends them, and a later account with the same email does not inherit
		// the old front-end token.
		f.Clock.Advance(2 * time.Second)
		ed := f.login(t, "editor@example.com")
		edFront := cookieHeader(f.frontEndToken(t, "github|8", "editor@example.com", f.Clock.Now()))
		if profile(ed) != 200 || profile(edFront) != 200 {
			t.Fatal("editor sessions do not work")
		}
		if err := db.Identity.DeleteUser(ctx, f.Editor.ID); err != nil {
			t.Fatal(err)
		}
		if profile(ed) != 401 || profile(edFront) != 401 {
			t.Error("session survived removing the user")
		}
	})
}

// Ensure POST /api/auth/password needs the current password and 12+ characters, ends every
// other session and keeps the caller's (on a fresh cookie).
func TestPasswordChange(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{})
		other := f.login(t, "owner@example.com")
		newPW := "a brand new passphrase"
		for _, tc := range []struct {
			who    string
			body   any
			status int
			code   string
		}{
			{"owner", map[string]string{"currentPassword": testPassword, "newPassword": "short pw 11"}, 422, folio.EINVALID},
			{"owner", map[string]string{"newPassword": newPW}, 400, folio.EINVALID},
			{"owner", map[string]string{"currentPassword": "wrong password!", "newPassword": newPW}, 403, folio.EFORBIDDEN},
			{"admin", map[string]string{"currentPassword": testPassword, "newPassword": newPW}, 403, folio.EFORBIDDEN},
			{"", map[string]string{"currentPassword": testPassword, "newPassword": newPW}, 401, folio.EUNAUTHORIZED},
		} {
			res := f.as(tc.who, "POST", "/api/auth/password", tc.body)
			if res.Status != tc.status || res.errorCode(t) != tc.code {
				t.Errorf("%s %v: %d %s", tc.who, tc.body, res.Status, res.Body)
			}
		}
		res := f.as("owner", "POST", "/api/auth/password", map[string]string{"currentPassword": testPassword, "newPassword": newPW})
		if res.Status != 204 {
			t.Fatalf("change: %d %s", res.Status, res.Body)
		}
		// The caller's own session stays valid as it is; every other one ends.
		if st := f.do("GET", "/api/user/profile", "", nil, "Cookie", f.OwnerCookie).Status; st != 200 {
			t.Errorf("the caller's session after its password change: %d", st)
		}
		for _, old := range []string{other} {
			if st := f.do("GET", "/api/user/profile", "", nil, "Cookie", old).Status; st != 401 {
				t.Errorf("another session after the password change: %d", st)
			}
		}
		if res := f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword}); res.Status != 401 {
			t.Errorf("old password still signs in: %d", res.Status)
		}
		if res := f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": newPW}); res.Status != 200 {
			t.Errorf("new password: %d %s", res.Status, res.Body)
		}
		// A later revocation spares nobody, the session that changed the password included.
		f.Clock.Advance(2 * time.Second)
		if res := f.as("owner", "POST", "/api/auth/sessions/revoke", nil); res.Status != 204 {
			t.Fatalf("revoke: %d", res.Status)
		}
		if st := f.do("GET", "/api/user/profile", "", nil, "Cookie", f.OwnerCookie).Status; st != 401 {
			t.Errorf("the password-changing session after a revocation: %d", st)
		}
	})
}

// Ensure only failed sign-ins count toward the login limit, and the 429 says when to retry.
func TestSignInLimitCountsFailuresOnly(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{})
		good := map[string]string{"email": "owner@example.com", "password": testPassword}
		bad := map[string]string{"email": "owner@example.com", "password": "not the password"}
		for i := range 12 {
			if res := f.do("POST", "/api/auth/login", "", good); res.Status != 200 {
				t.Fatalf("correct sign-in %d: %d %s", i+1, res.Status, res.Body)
			}
		}
		for i := range 5 {
			if res := f.do("POST", "/api/auth/login", "", bad); res.Status != 401 {
				t.Fatalf("failed sign-in %d: %d %s", i+1, res.Status, res.Body)
			}
		}
		res := f.do("POST", "/api/auth/login", "", good)
		if res.Status != 429 || res.errorCode(t) != folio.ERATELIMIT {
			t.Fatalf("after 5 failures: %d %s", res.Status, res.Body)
		}
		e := res.json(t)["error"].(map[string]any)
		ra, _ := e["retryAfter"].(float64)
		if ra < 1 || ra > 3600 || !strings.Contains(e["message"].(string), "Try again in") || res.Header.Get("Retry-After") != strconv.Itoa(int(ra)) {
			t.Errorf("429 does not say when to retry: %s (Retry-After %q)", res.Body, res.Header.Get("Retry-After"))
		}
		// Another email from the same client is a different budget.
		if res := f.do("POST", "/api/auth/login", "", map[string]string{"email": "editor@example.com", "password": testPassword}); res.Status != 200 {
			t.Errorf("other account: %d", res.Status)
		}
	})
}

// totpEnrol sets TOTP up for the fixture's owner and returns the secret and recovery codes.
func totpEnrol(t *testing.T, f *identityFixture) (string, []string) {
	t.Helper()
	res := f.as("owner", "POST", "/api/auth/totp/setup", nil)
	if res.Status != 200 {
		t.Fatalf("setup: %d %s", res.Status, res.Body)
	}
	var setup totpSetupResponse
	if err := json.Unmarshal(res.Body, &setup); err != nil {
		t.Fatal(err)
	}
	if setup.Secret == "" || !strings.HasPrefix(setup.OtpauthURL, "otpauth://totp/") || !strings.HasPrefix(setup.QRCode, "data:image/png;base64,") {
		t.Fatalf("setup answer: %s", res.Body)
	}
	if res := f.as("owner", "POST", "/api/auth/totp/enable", map[string]string{"code": "000000"}); res.Status != 422 {
		t.Errorf("enable with a wrong code: %d %s", res.Status, res.Body)
	}
	code, _ := auth.TOTPCode(setup.Secret, f.Clock.Now())
	res = f.as("owner", "POST", "/api/auth/totp/enable", map[string]string{"code": code})
	if res.Status != 200 {
		t.Fatalf("enable: %d %s", res.Status, res.Body)
	}
	var en totpEnableResponse
	if err := json.Unmarshal(res.Body, &en); err != nil || len(en.RecoveryCodes) != 10 {
		t.Fatalf("enable answer: %s", res.Body)
	}
	return setup.Secret, en.RecoveryCodes
}

// Ensure TOTP sign-in as docs/api.md describes it: login answers {mfaRequired, ticket} without a
// cookie; the second step takes a current code once, or a recovery code once; tickets last 5
// minutes; the helper limit applies; disable needs a code or the password.
func TestTOTPSignIn(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		// This test makes more than 5 failed attempts on purpose; TestTOTPSignInLimit checks the limit.
		f := newIdentityFixture(t, db, IdentityConfig{}, func(s *Server) { s.Limits.Helper = 100 })
		if res := f.as("admin", "POST", "/api/auth/totp/setup", nil); res.Status != 403 {
			t.Errorf("setup by key: %d", res.Status)
		}
		secret, recovery := totpEnrol(t, f)
		if res := f.as("owner", "GET", "/api/auth/totp", nil); !strings.Contains(string(res.Body), `"enabled":true`) ||
			!strings.Contains(string(res.Body), `"recoveryCodesLeft":10`) {
			t.Errorf("status: %s", res.Body)
		}
		if res := f.as("owner", "POST", "/api/auth/totp/setup", nil); res.Status != 409 {
			t.Errorf("setup while enabled: %d", res.Status)
		}

		login := func() string {
			t.Helper()
			res := f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword})
			m := res.json(t)
			if res.Status != 200 || m["mfaRequired"] != true || m["ticket"] == nil || m["user"] != nil || len(res.Header.Values("Set-Cookie")) != 0 {
				t.Fatalf("login with TOTP on: %d %s %q", res.Status, res.Body, res.Header.Values("Set-Cookie"))
			}
			return m["ticket"].(string)
		}
		second := func(body map[string]string) response {
			t.Helper()
			return f.do("POST", "/api/auth/login/totp", "", body)
		}
		ticket := login()
		// The code that enabled TOTP was used; it does not sign in again.
		used, _ := auth.TOTPCode(secret, f.Clock.Now())
		if res := second(map[string]string{"ticket": ticket, "code": used}); res.Status != 401 {
			t.Errorf("the enabling code signed in: %d %s", res.Status, res.Body)
		}
		f.Clock.Advance(30 * time.Second)
		code, _ := auth.TOTPCode(secret, f.Clock.Now())
		res := second(map[string]string{"ticket": ticket, "code": code[:3] + " " + code[3:]})
		if res.Status != 200 || res.json(t)["user"] == nil {
			t.Fatalf("second step: %d %s", res.Status, res.Body)
		}
		c := sessionCookieOf(t, res, f.ID.CookieName())
		if st := f.do("GET", "/api/user/profile", "", nil, "Cookie", c.Name+"="+c.Value).Status; st != 200 {
			t.Errorf("cookie from the second step: %d", st)
		}
		if res := second(map[string]string{"ticket": login(), "code": code}); res.Status != 401 {
			t.Errorf("a code accepted twice: %d", res.Status)
		}
		// Recovery codes: once each, any typed form.
		res = second(map[string]string{"ticket": login(), "recoveryCode": strings.ToUpper(recovery[0])})
		if res.Status != 200 {
			t.Errorf("recovery code: %d %s", res.Status, res.Body)
		}
		if res := second(map[string]string{"ticket": login(), "recoveryCode": recovery[0]}); res.Status != 401 {
			t.Errorf("a recovery code accepted twice: %d", res.Status)
		}
		// Tickets expire after 5 minutes; forged tickets fail; missing fields are 400.
		old := login()
		f.Clock.Advance(5*time.Minute + time.Second)
		code, _ = auth.TOTPCode(secret, f.Clock.Now())
		if res := second(map[string]string{"ticket": old, "code": code}); res.Status != 401 {
			t.Errorf("expired ticket: %d", res.Status)
		}
		if res := second(map[string]string{"ticket": "forged.ticket", "code": code}); res.Status != 401 {
			t.Errorf("forged ticket: %d", res.Status)
		}
		if res := second(map[string]string{"code": code}); res.Status != 400 {
			t.Errorf("no ticket: %d", res.Status)
		}
		if res := second(map[string]string{"ticket": login()}); res.Status != 400 {
			t.Errorf("no code: %d", res.Status)
		}
		// Disable: a wrong code or password is refused; the password works.
		if res := f.as("owner", "POST", "/api/auth/totp/disable", map[string]string{"password": "nope nope nope"}); res.Status != 422 {
			t.Errorf("disable with a wrong password: %d", res.Status)
		}
		if res := f.as("owner", "POST", "/api/auth/totp/disable", map[string]string{}); res.Status != 400 {
			t.Errorf("disable without proof: %d", res.Status)
		}
		if res := f.as("owner", "POST", "/api/auth/totp/disable", map[string]string{"password": testPassword}); res.Status != 204 {
			t.Fatalf("disable: %d %s", res.Status, res.Body)
		}
		res = f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword})
		if res.Status != 200 || res.json(t)["user"] == nil {
			t.Errorf("login after disable: %d %s", res.Status, res.Body)
		}
	})
}

// Ensure wrong second-step codes spend the sign-in limit: the sixth attempt is 429.
func TestTOTPSignInLimit(t *testing.T) {
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{})
	secret, _ := totpEnrol(t, f)
	res := f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword})
	ticket := res.json(t)["ticket"].(string)
	for i := range 5 {
		if res := f.do("POST", "/api/auth/login/totp", "", map[string]string{"ticket": ticket, "code": "123456"}); res.Status != 401 {
			t.Fatalf("wrong code %d: %d", i+1, res.Status)
		}
	}
	f.Clock.Advance(30 * time.Second)
	code, _ := auth.TOTPCode(secret, f.Clock.Now())
	if res := f.do("POST", "/api/auth/login/totp", "", map[string]string{"ticket": ticket, "code": code}); res.Status != 429 {
		t.Errorf("after 5 wrong codes: %d %s", res.Status, res.Body)
	}
}

// Ensure the audit log records writes by keys and sessions, sign-ins (both outcomes), TOTP
// changes, key creation and revocation and session revocation, with a truncated IP and no
// secret, and that GET /api/audit filters and pages.
func TestAuditLog(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{})
		w := audit.New(db.Audit, audit.Options{Now: f.Clock.Now, RetentionDays: 365})
		f.Audit = w
		start := f.Clock.Now().Add(-time.Second)

		f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": "wrong password"})
		f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword})
		res := f.as("write", "POST", "/api/projects", map[string]any{"title": "Audited", "description": "d"})
		if res.Status != 201 {
			t.Fatalf("create project: %d %s", res.Status, res.Body)
		}
		projectID := res.json(t)["id"].(string)
		f.as("owner", "PUT", "/api/projects/"+projectID, map[string]any{"title": "Audited 2", "description": "d"})
		res = f.as("admin", "POST", "/api/keys", map[string]any{"name": "ci", "level": "read"})
		newKey := res.json(t)["key"].(string)
		keyID := res.json(t)["apiKey"].(map[string]any)["id"].(string)
		f.as("admin", "DELETE", "/api/keys/"+keyID, nil)
		totpEnrol(t, f)
		f.as("owner", "POST", "/api/auth/totp/disable", map[string]string{"password": testPassword})
		f.as("editor", "POST", "/api/auth/sessions/revoke", nil)
		f.as("read", "GET", "/api/projects", nil) // reads are not recorded

		res = f.as("admin", "GET", "/api/audit?limit=100", nil)
		if res.Status != 200 {
			t.Fatalf("audit: %d %s", res.Status, res.Body)
		}
		for _, secret := range []string{newKey, testPassword, "wrong password"} {
			if strings.Contains(string(res.Body), secret) {
				t.Errorf("the audit log shows a secret %q", secret)
			}
		}
		var list auditList
		if err := json.Unmarshal(res.Body, &list); err != nil {
			t.Fatal(err)
		}
		got := map[string]folio.AuditEntry{}
		var order []string
		for _, e := range list.Entries {
			k := e.Action + " " + strconv.Itoa(e.Status)
			got[k] = e
			order = append(order, k)
			if e.IP != "127.0.0.0/24" {
				t.Errorf("%s: ip %q, want the /24", k, e.IP)
			}
		}
		for k, want := range map[string]folio.AuditActor{
			"auth.login 401":           {UserID: f.Owner.ID},
			"auth.login 200":           {UserID: f.Owner.ID},
			"projects.create 201":      {UserID: f.Owner.ID, KeyID: f.KeyIDs["write"]},
			"projects.update 200":      {UserID: f.Owner.ID},
			"apikey.create 201":        {UserID: f.Owner.ID, KeyID: f.KeyIDs["admin"]},
			"apikey.revoke 204":        {UserID: f.Owner.ID, KeyID: f.KeyIDs["admin"]},
			"auth.totp.setup 200":      {UserID: f.Owner.ID},
			"auth.totp.enable 200":     {UserID: f.Owner.ID},
			"auth.totp.disable 204":    {UserID: f.Owner.ID},
			"auth.sessions.revoke 204": {UserID: f.Editor.ID},
		} {
			e, ok := got[k]
			if !ok {
				t.Errorf("no %q entry in %v", k, order)
				continue
			}
			if e.Actor.UserID != want.UserID || e.Actor.KeyID != want.KeyID {
				t.Errorf("%s: actor %+v, want %+v", k, e.Actor, want)
			}
			// The list names the user, as they are called now.
			u := f.Owner
			if want.UserID == f.Editor.ID {
				u = f.Editor
			}
			if e.Actor.Name != u.Name || e.Actor.Email != u.Email {
				t.Errorf("%s: actor named %q <%s>, want %q <%s>", k, e.Actor.Name, e.Actor.Email, u.Name, u.Email)
			}
		}
		if got["projects.create 201"].ResourceID != projectID || got["projects.update 200"].ResourceID != projectID ||
			got["apikey.revoke 204"].ResourceID != keyID || got["apikey.create 201"].ResourceID != keyID {
			t.Errorf("resource ids: %+v", list.Entries)
		}
		if _, ok := got["projects.list 200"]; ok {
			t.Error("a read was recorded")
		}
		// Filters.
		q := func(query string) auditList {
			t.Helper()
			res := f.as("admin", "GET", "/api/audit?"+query, nil)
			if res.Status != 200 {
				t.Fatalf("%s: %d %s", query, res.Status, res.Body)
			}
			var l auditList
			_ = json.Unmarshal(res.Body, &l)
			return l
		}
		if l := q("action=auth.login"); l.Total != 2 {
			t.Errorf("action=auth.login: %d entries", l.Total)
		}
		if l := q("action=auth.*"); l.Total < 6 {
			t.Errorf("action=auth.*: %d entries", l.Total)
		}
		if l := q("actor=" + f.KeyIDs["admin"]); l.Total < 2 {
			t.Errorf("actor=admin key: %d", l.Total)
		}
		if l := q("actor=" + f.Editor.ID); l.Total != 1 {
			t.Errorf("actor=editor: %d", l.Total)
		}
		// An email stands for its user, in any case.
		if l := q("actor=" + url.QueryEscape(strings.ToUpper(f.Editor.Email))); l.Total != 1 || l.Entries[0].Actor.UserID != f.Editor.ID {
			t.Errorf("actor=editor's email: %+v", l)
		}
		if l := q("from=" + start.Add(time.Hour).Format(time.RFC3339)); l.Total != 0 {
			t.Errorf("from the future: %d", l.Total)
		}
		if l := q("to=" + start.Format(time.RFC3339)); l.Total != 0 {
			t.Errorf("to the past: %d", l.Total)
		}
		// Bare dates are whole UTC days: from=D from its midnight, to=D through its end.
		first, last := start.UTC().Format(time.DateOnly), f.Clock.Now().UTC().Format(time.DateOnly)
		if l := q("from=" + first + "&to=" + last); l.Total != len(list.Entries) {
			t.Errorf("from=%s&to=%s: %d entries, want all %d", first, last, l.Total, len(list.Entries))
		}
		if l := q("to=" + start.UTC().AddDate(0, 0, -1).Format(time.DateOnly)); l.Total != 0 {
			t.Errorf("to the day before: %d", l.Total)
		}
		if l := q("limit=2&page=2"); len(l.Entries) != 2 || l.Page != 2 || l.Total != len(list.Entries) {
			t.Errorf("paging: %+v", l)
		}
		if res := f.as("admin", "GET", "/api/audit?from=yesterday", nil); res.Status != 400 {
			t.Errorf("bad from: %d", res.Status)
		}
		if res := f.as("owner", "GET", "/api/audit?limit=0", nil); res.Status != 400 {
			t.Errorf("limit=0: %d", res.Status)
		}
		// Retention: entries older than AUDIT_RETENTION_DAYS go.
		f.Clock.Advance(366 * 24 * time.Hour)
		if n, err := w.Prune(context.Background()); err != nil || n < int64(len(list.Entries)) {
			t.Errorf("prune: %d %v", n, err)
		}
	})
}

func TestAuditNetwork(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.77":        "203.0.113.0/24",
		"::ffff:203.0.113.77": "203.0.113.0/24",
		"2001:db8:abcd:12::1": "2001:db8:abcd::/48",
		"fe80::1%eth0":        "fe80::/48",
		"not an ip":           "",
		"":                    "",
	} {
		if got := audit.Network(in); got != want {
			t.Errorf("Network(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAuditActionNames(t *testing.T) {
	for _, tc := range []struct {
		method, pattern, audit string
		action, resource       string
	}{
		{"POST", "/api/projects", "", "projects.create", "projects"},
		{"PUT", "/api/blog/{slug}", "", "blog.update", "blog"},
		{"DELETE", "/api/posts/{id}", "", "posts.delete", "posts"},
		{"POST", "/api/schedule/bookings/{token}/cancel", "", "schedule.bookings.cancel", "schedule"},
		{"POST", "/api/media/upload", "", "media.upload", "media"},
		{"POST", "/api/keys", "apikey.create", "apikey.create", "keys"},
	} {
		a, r := auditAction(route{Method: tc.method, Pattern: tc.pattern, Audit: tc.audit})
		if a != tc.action || r != tc.resource {
			t.Errorf("%s %s: %s %s", tc.method, tc.pattern, a, r)
		}
	}
}
