package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/audit"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/identity/passkeytest"
	"github.com/foliohq/folio/internal/sqldb"
)

const passkeyOrigin = "http://localhost"

// registerPasskey runs a registration ceremony for the session cookie's user with authr.
func registerPasskey(t *testing.T, f *identityFixture, cookie string, authr *passkeytest.Authenticator, name string) response {
	t.Helper()
	res := f.do("POST", "/api/auth/passkeys/register/begin", "", nil, "Cookie", cookie)
	if res.Status != 200 {
		t.Fatalf("register/begin: %d %s", res.Status, res.Body)
	}
	cred, err := authr.Create(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return f.do("POST", "/api/auth/passkeys/register/finish", "", map[string]any{"name": name, "credential": json.RawMessage(cred)},
		"Cookie", cookie)
}

// passkeyAssert begins a passkey sign-in and returns authr's assertion of it.
func passkeyAssert(t *testing.T, f *identityFixture, authr *passkeytest.Authenticator) json.RawMessage {
	t.Helper()
	res := f.do("POST", "/api/auth/passkeys/login/begin", "", nil)
	if res.Status != 200 {
		t.Fatalf("login/begin: %d %s", res.Status, res.Body)
	}
	var opts struct {
		PublicKey struct {
			RPID             string `json:"rpId"`
			UserVerification string `json:"userVerification"`
			AllowCredentials []any  `json:"allowCredentials"`
		} `json:"publicKey"`
	}
	if err := json.Unmarshal(res.Body, &opts); err != nil || opts.PublicKey.RPID != "localhost" ||
		opts.PublicKey.UserVerification != "required" || len(opts.PublicKey.AllowCredentials) != 0 {
		t.Fatalf("login/begin options (want discoverable, rpId localhost, user verification required): %s", res.Body)
	}
	a, err := authr.Get(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Ensure a passkey registered through the API signs its user in with no email typed, issuing the
// session cookie password sign-in issues; the counter and backup flags are kept; an assertion is
// used once; a registration ends the user's other sessions but the caller's; renaming and
// removing work and are audited.
func TestPasskeyLifecycle(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{BaseURL: passkeyOrigin})
		f.Audit = audit.New(db.Audit, audit.Options{Now: f.Clock.Now, RetentionDays: 365})
		other := f.login(t, "owner@example.com")
		f.Clock.Advance(2 * time.Second)
		authr := passkeytest.New(passkeyOrigin)
		authr.BackupEligible, authr.BackedUp = true, true

		res := registerPasskey(t, f, f.OwnerCookie, authr, "  Laptop  ")
		if res.Status != 201 {
			t.Fatalf("register/finish: %d %s", res.Status, res.Body)
		}
		pk := res.json(t)["passkey"].(map[string]any)
		id, _ := pk["id"].(string)
		if id == "" || pk["name"] != "Laptop" || pk["createdAt"] == nil || pk["backupEligible"] != true {
			t.Fatalf("registered passkey: %s", res.Body)
		}
		if got := f.do("GET", "/api/user/profile", "", nil, "Cookie", other).Status; got != 401 {
			t.Errorf("another session after a passkey was registered: %d, want 401", got)
		}
		if got := f.as("owner", "GET", "/api/user/profile", nil).Status; got != 200 {
			t.Errorf("the registering session: %d, want 200", got)
		}

		// Sign in with it, no email.
		f.Clock.Advance(2 * time.Second)
		res = f.do("POST", "/api/auth/passkeys/login/finish", "", map[string]any{"credential": passkeyAssert(t, f, authr)})
		if res.Status != 200 || res.json(t)["user"].(map[string]any)["id"] != f.Owner.ID {
			t.Fatalf("passkey login: %d %s", res.Status, res.Body)
		}
		c := sessionCookieOf(t, res, f.ID.CookieName())
		if !c.HttpOnly || c.MaxAge <= 0 {
			t.Errorf("passkey session cookie: %+v", c)
		}
		pkCookie := c.Name + "=" + c.Value
		if got := f.do("GET", "/api/user/profile", "", nil, "Cookie", pkCookie); got.Status != 200 || got.json(t)["id"] != f.Owner.ID {
			t.Errorf("profile with the passkey session: %d %s", got.Status, got.Body)
		}

		// The bare PublicKeyCredential is accepted too; an assertion is used once.
		a := passkeyAssert(t, f, authr)
		if res := f.do("POST", "/api/auth/passkeys/login/finish", "", a); res.Status != 200 {
			t.Fatalf("bare credential: %d %s", res.Status, res.Body)
		}
		if res := f.do("POST", "/api/auth/passkeys/login/finish", "", a); res.Status != 401 || res.errorCode(t) != folio.EUNAUTHORIZED {
			t.Errorf("replayed assertion: %d %s", res.Status, res.Body)
		}

		res = f.do("GET", "/api/auth/passkeys", "", nil, "Cookie", pkCookie)
		var list passkeyList
		if err := json.Unmarshal(res.Body, &list); err != nil || len(list.Passkeys) != 1 {
			t.Fatalf("list: %d %s", res.Status, res.Body)
		}
		if p := list.Passkeys[0]; p.SignCount != 2 || !p.BackupEligible || !p.BackupState || p.LastUsedAt == nil {
			t.Errorf("listed passkey (counter 2 after two sign-ins, backup flags kept): %+v", p)
		}
		if strings.Contains(string(res.Body), "publicKey") || strings.Contains(string(res.Body), "credential") {
			t.Errorf("the list shows the credential record: %s", res.Body)
		}

		// Rename and remove; keys cannot.
		if res := f.as("admin", "DELETE", "/api/auth/passkeys/"+id, nil); res.Status != 403 {
			t.Errorf("delete with an API key: %d %s", res.Status, res.Body)
		}
		if res := f.do("PATCH", "/api/auth/passkeys/"+id, "", map[string]string{"name": ""}, "Cookie", pkCookie); res.Status != 400 {
			t.Errorf("empty name: %d %s", res.Status, res.Body)
		}
		if res := f.do("PATCH", "/api/auth/passkeys/"+id, "", map[string]string{"name": strings.Repeat("x", 65)}, "Cookie", pkCookie); res.Status != 422 {
			t.Errorf("long name: %d %s", res.Status, res.Body)
		}
		res = f.do("PATCH", "/api/auth/passkeys/"+id, "", map[string]string{"name": "Phone"}, "Cookie", pkCookie)
		if res.Status != 200 || res.json(t)["passkey"].(map[string]any)["name"] != "Phone" {
			t.Errorf("rename: %d %s", res.Status, res.Body)
		}
		if res := f.do("PATCH", "/api/auth/passkeys/nope", "", map[string]string{"name": "x"}, "Cookie", pkCookie); res.Status != 404 {
			t.Errorf("rename an unknown passkey: %d %s", res.Status, res.Body)
		}
		if res := f.do("DELETE", "/api/auth/passkeys/"+id, "", nil, "Cookie", f.EditorCookie); res.Status != 404 {
			t.Errorf("another user's passkey: %d %s", res.Status, res.Body)
		}
		if res := f.do("DELETE", "/api/auth/passkeys/"+id, "", nil, "Cookie", pkCookie); res.Status != 204 {
			t.Errorf("delete: %d %s", res.Status, res.Body)
		}
		if res := f.do("POST", "/api/auth/passkeys/login/finish", "", map[string]any{"credential": passkeyAssert(t, f, authr)}); res.Status != 401 {
			t.Errorf("sign-in with a removed passkey: %d %s", res.Status, res.Body)
		}

		if err := f.Audit.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		res = f.as("admin", "GET", "/api/audit?limit=100", nil)
		for _, action := range []string{"auth.passkey.register", "auth.login.passkey", "auth.passkey.rename", "auth.passkey.delete"} {
			if !strings.Contains(string(res.Body), `"action":"`+action+`"`) {
				t.Errorf("audit log lacks %s: %s", action, res.Body)
			}
		}
	})
}

// Ensure ceremonies the library must refuse are refused: another origin, an authenticator that
// did not verify its user, a cloned authenticator whose counter went backwards, a registration
// begun by another user, a tampered signature.
func TestPasskeyRefusals(t *testing.T) {
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{BaseURL: passkeyOrigin})
	authr := passkeytest.New(passkeyOrigin)
	if res := registerPasskey(t, f, f.OwnerCookie, authr, "Key"); res.Status != 201 {
		t.Fatalf("register: %d %s", res.Status, res.Body)
	}
	f.OwnerCookie = f.login(t, "owner@example.com")

	evil := passkeytest.New("http://evil.example")
	if res := registerPasskey(t, f, f.OwnerCookie, evil, "Evil"); res.Status != 422 {
		t.Errorf("registration from another origin: %d %s", res.Status, res.Body)
	}
	// A registration's answer only finishes the ceremony of the user who began it.
	res := f.do("POST", "/api/auth/passkeys/register/begin", "", nil, "Cookie", f.OwnerCookie)
	cred, _ := passkeytest.New(passkeyOrigin).Create(res.Body)
	if res := f.do("POST", "/api/auth/passkeys/register/finish", "", map[string]any{"credential": json.RawMessage(cred)}, "Cookie", f.EditorCookie); res.Status != 422 {
		t.Errorf("finishing another user's registration: %d %s", res.Status, res.Body)
	}

	authr.UserVerified = false
	if res := f.do("POST", "/api/auth/passkeys/login/finish", "", map[string]any{"credential": passkeyAssert(t, f, authr)}); res.Status != 401 {
		t.Errorf("no user verification: %d %s", res.Status, res.Body)
	}
	authr.UserVerified = true

	// A clone: the same key with a counter behind the stored one.
	if res := f.do("POST", "/api/auth/passkeys/login/finish", "", map[string]any{"credential": passkeyAssert(t, f, authr)}); res.Status != 200 {
		t.Fatalf("good sign-in: %d %s", res.Status, res.Body)
	}
	authr.Credentials()[0].SignCount = 0
	if res := f.do("POST", "/api/auth/passkeys/login/finish", "", map[string]any{"credential": passkeyAssert(t, f, authr)}); res.Status != 401 {
		t.Errorf("counter went backwards: %d %s", res.Status, res.Body)
	}

	a := passkeyAssert(t, f, authr)
	var m map[string]any
	_ = json.Unmarshal(a, &m)
	m["response"].(map[string]any)["signature"] = "MEUCIQDeadBeef"
	if res := f.do("POST", "/api/auth/passkeys/login/finish", "", map[string]any{"credential": m}); res.Status != 401 && res.Status != 422 {
		t.Errorf("tampered signature: %d %s", res.Status, res.Body)
	}
	if res := f.do("POST", "/api/auth/passkeys/login/finish", "", map[string]any{"name": "x"}); res.Status != 400 {
		t.Errorf("no credential: %d %s", res.Status, res.Body)
	}
	if res := f.do("POST", "/api/auth/passkeys/login/finish", "", map[string]any{"credential": map[string]any{"rawId": "AA", "id": "AA"}}); res.Status != 422 {
		t.Errorf("a credential that does not parse: %d %s", res.Status, res.Body)
	}
}

// Ensure a passkey completes the second step of a two-factor sign-in, once, and only the ticket
// user's passkey does.
func TestPasskeySecondFactor(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{BaseURL: passkeyOrigin})
		authr := passkeytest.New(passkeyOrigin)
		if res := registerPasskey(t, f, f.OwnerCookie, authr, "Key"); res.Status != 201 {
			t.Fatalf("register: %d %s", res.Status, res.Body)
		}
		editorKey := passkeytest.New(passkeyOrigin)
		if res := registerPasskey(t, f, f.EditorCookie, editorKey, "Editor's"); res.Status != 201 {
			t.Fatalf("register editor's: %d %s", res.Status, res.Body)
		}
		totpEnrol(t, f)
		f.Clock.Advance(2 * time.Second)

		ticket := func() string {
			res := f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword})
			m := res.json(t)
			if m["mfaRequired"] != true || m["ticket"] == "" {
				t.Fatalf("password step: %s", res.Body)
			}
			return m["ticket"].(string)
		}
		tk := ticket()
		if res := f.do("POST", "/api/auth/login/passkey", "", map[string]any{"ticket": tk, "credential": passkeyAssert(t, f, editorKey)}); res.Status != 401 {
			t.Errorf("another user's passkey as the second factor: %d %s", res.Status, res.Body)
		}
		res := f.do("POST", "/api/auth/login/passkey", "", map[string]any{"ticket": tk, "credential": passkeyAssert(t, f, authr)})
		if res.Status != 200 || res.json(t)["user"].(map[string]any)["id"] != f.Owner.ID {
			t.Fatalf("passkey second factor: %d %s", res.Status, res.Body)
		}
		sessionCookieOf(t, res, f.ID.CookieName())
		if res := f.do("POST", "/api/auth/login/passkey", "", map[string]any{"ticket": tk, "credential": passkeyAssert(t, f, authr)}); res.Status != 401 {
			t.Errorf("a spent ticket: %d %s", res.Status, res.Body)
		}
		if res := f.do("POST", "/api/auth/login/passkey", "", map[string]any{"credential": passkeyAssert(t, f, authr)}); res.Status != 400 {
			t.Errorf("no ticket: %d %s", res.Status, res.Body)
		}
	})
}
