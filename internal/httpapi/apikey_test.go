package httpapi

// API keys through the real Identity: rejections and the create, use, revoke lifecycle.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// Ensure revoked, expired, unknown and malformed keys all get the same 401, and a key never
// acts above its user's role.
func TestAPIKeyRejections(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{})
		ctx := context.Background()
		mk := func(user *folio.User, lv folio.Level, exp *time.Time) (string, string) {
			secret, prefix, hash := auth.MintAPIKey()
			k := &folio.APIKey{UserID: user.ID, Name: "k", Level: lv, Prefix: prefix, ExpiresAt: exp}
			if err := db.Identity.CreateAPIKey(ctx, k, hash); err != nil {
				t.Fatal(err)
			}
			return secret, k.ID
		}
		revoked, revokedID := mk(f.Owner, folio.LevelAdmin, nil)
		if err := db.Identity.RevokeAPIKey(ctx, revokedID); err != nil {
			t.Fatal(err)
		}
		soon := f.Clock.Now().Add(time.Hour)
		expiring, _ := mk(f.Owner, folio.LevelAdmin, &soon)
		if res := f.do("GET", "/api/keys", expiring, nil); res.Status != 200 {
			t.Fatalf("control: an unexpired key: %d", res.Status)
		}
		f.Clock.Advance(time.Hour)
		unknown, _, _ := auth.MintAPIKey()
		doomed := mustCreateUser(t, db, "doomed@example.com", "Doomed", folio.RoleOwner)
		orphan, _ := mk(doomed, folio.LevelAdmin, nil)
		if err := db.Identity.DeleteUser(ctx, doomed.ID); err != nil {
			t.Fatal(err)
		}
		valid := f.Keys["admin"]

		want := ""
		for _, tc := range []struct{ name, header string }{
			{"revoked", "Bearer " + revoked},
			{"expired", "Bearer " + expiring},
			{"unknown", "Bearer " + unknown},
			{"of a deleted user", "Bearer " + orphan},
			{"one character changed", "Bearer " + valid[:20] + flipChar(valid[20]) + valid[21:]},
			{"truncated", "Bearer " + valid[:len(valid)-1]},
			{"junk", "Bearer hunter2"},
			{"empty bearer", "Bearer "},
			{"basic scheme", "Basic " + valid},
			{"no scheme", valid},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, path := range []string{"/api/keys", "/api/projects"} {
					res := f.do("GET", path, "", nil, "Authorization", tc.header)
					if res.Status != 401 || res.errorCode(t) != folio.EUNAUTHORIZED {
						t.Errorf("%s: %d %s, want 401", path, res.Status, res.Body)
					}
					msg := res.json(t)["error"].(map[string]any)["message"].(string)
					if want == "" {
						want = msg
					} else if msg != want {
						t.Errorf("message %q differs from %q: a caller could tell the cases apart", msg, want)
					}
				}
			})
		}
		t.Run("bearer wins over a cookie", func(t *testing.T) {
			if res := f.do("GET", "/api/keys", "", nil, "Authorization", "Bearer "+unknown, "Cookie", f.OwnerCookie); res.Status != 401 {
				t.Errorf("bad key with good cookie: %d, want 401", res.Status)
			}
		})
		t.Run("a key acts at most at its user's role", func(t *testing.T) {
			editorAdmin, _ := mk(f.Editor, folio.LevelAdmin, nil)
			if res := f.do("GET", "/api/keys", editorAdmin, nil); res.Status != 403 {
				t.Errorf("editor's admin key on an admin route: %d, want 403", res.Status)
			}
			if res := f.do("PUT", "/api/user/profile", editorAdmin, map[string]string{"bio": "x"}); res.Status != 200 {
				t.Errorf("editor's admin key on a write route: %d, want 200", res.Status)
			}
		})
	})
}

func flipChar(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}

func TestAPIKeyLifecycle(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{})
		v := newOpenAPIValidator(t, f.testServer)
		exp := f.Clock.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)

		res := f.as("owner", "POST", "/api/keys", map[string]any{"name": "deploy bot", "level": "write", "expiresAt": exp})
		v.check("POST", "/api/keys", res)
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		var created struct {
			Key    string
			APIKey struct {
				ID, Name, Level, Prefix string
				CreatedAt               time.Time
				ExpiresAt, LastUsedAt   *time.Time
			}
		}
		json.Unmarshal(res.Body, &created)
		if !auth.LooksLikeAPIKey(created.Key) || !strings.HasPrefix(created.Key, created.APIKey.Prefix) || created.APIKey.Level != "write" ||
			created.APIKey.ExpiresAt == nil || created.APIKey.ExpiresAt.Format(time.RFC3339) != exp || created.APIKey.LastUsedAt != nil {
			t.Fatalf("created key: %s", res.Body)
		}
		if !strings.Contains(string(res.Body), `"lastUsedAt":null`) {
			t.Errorf("lastUsedAt must be present (null) before first use: %s", res.Body)
		}

		use := f.do("PUT", "/api/user/profile", created.Key, map[string]string{"location": "Porto"})
		if use.Status != 200 {
			t.Fatalf("new key: %d %s", use.Status, use.Body)
		}
		if res := f.do("GET", "/api/keys", created.Key, nil); res.Status != 403 {
			t.Errorf("write key listing keys: %d, want 403", res.Status)
		}
		findKey := func(res response) map[string]any {
			for _, k := range res.json(t)["keys"].([]any) {
				if k.(map[string]any)["id"] == created.APIKey.ID {
					return k.(map[string]any)
				}
			}
			return nil
		}
		list := f.as("admin", "GET", "/api/keys", nil)
		v.check("GET", "/api/keys", list)
		if k := findKey(list); k == nil || k["lastUsedAt"] == nil || k["name"] != "deploy bot" {
			t.Errorf("listed key %v: lastUsedAt must show the use before any flush", k)
		}
		if strings.Contains(string(list.Body), created.Key) {
			t.Error("the secret is listed")
		}
		stored, _ := db.Identity.APIKey(context.Background(), created.APIKey.ID)
		if stored.LastUsedAt != nil {
			t.Errorf("lastUsedAt was written per request (%v); it must wait for a flush", stored.LastUsedAt)
		}
		if err := f.ID.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if stored, _ := db.Identity.APIKey(context.Background(), created.APIKey.ID); stored.LastUsedAt == nil {
			t.Error("flush did not write lastUsedAt")
		}

		for _, tc := range []struct {
			name   string
			body   map[string]any
			status int
			field  string
		}{
			{"missing name", map[string]any{"level": "read"}, 400, "name"},
			{"missing level", map[string]any{"name": "x"}, 400, "level"},
			{"bad level", map[string]any{"name": "x", "level": "root"}, 422, "level"},
			{"past expiry", map[string]any{"name": "x", "level": "read", "expiresAt": "2001-01-01T00:00:00Z"}, 422, "expiresAt"},
			{"unparseable expiry", map[string]any{"name": "x", "level": "read", "expiresAt": "tomorrow"}, 422, "expiresAt"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := f.as("owner", "POST", "/api/keys", tc.body)
				v.check("POST", "/api/keys", res)
				if res.Status != tc.status || !strings.Contains(string(res.Body), `"field":"`+tc.field+`"`) {
					t.Errorf("got %d %s, want %d naming %s", res.Status, res.Body, tc.status, tc.field)
				}
			})
		}
		if res := f.as("editor", "POST", "/api/keys", map[string]any{"name": "x", "level": "read"}); res.Status != 403 {
			t.Errorf("editor creating a key: %d, want 403", res.Status)
		}

		del := f.as("owner", "DELETE", "/api/keys/"+created.APIKey.ID, nil)
		v.check("DELETE", "/api/keys/{id}", del)
		if del.Status != 204 {
			t.Fatalf("revoke: %d %s", del.Status, del.Body)
		}
		if res := f.do("GET", "/api/user/profile", created.Key, nil); res.Status != 401 {
			t.Errorf("revoked key: %d, want 401", res.Status)
		}
		again := f.as("owner", "DELETE", "/api/keys/"+created.APIKey.ID, nil)
		v.check("DELETE", "/api/keys/{id}", again)
		if again.Status != 404 {
			t.Errorf("second revoke: %d, want 404", again.Status)
		}
		if k := findKey(f.as("owner", "GET", "/api/keys", nil)); k != nil {
			t.Errorf("revoked key still listed: %v", k)
		}
	})
}
