package sqldb_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestUsers(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 987654321, time.UTC))
		db.Now = clock.Now

		if n, err := db.Identity.CountUsers(ctx); err != nil || n != 0 {
			t.Fatalf("CountUsers on an empty database = %d, %v", n, err)
		}
		first, err := db.Identity.CreateFirstUser(ctx, &folio.UserInput{Email: "Ada@Example.com", Name: "Ada", Role: folio.RoleOwner}, "hash-1")
		if err != nil || first == nil {
			t.Fatalf("CreateFirstUser on an empty table: %v, %v", first, err)
		}
		again, err := db.Identity.CreateFirstUser(ctx, &folio.UserInput{Email: "eve@example.com", Name: "Eve", Role: folio.RoleOwner}, "hash-2")
		if err != nil || again != nil {
			t.Fatalf("CreateFirstUser with a user present: got %v, %v; want nil, nil", again, err)
		}

		for _, email := range []string{"ada@example.com", "ADA@EXAMPLE.COM", " Ada@Example.com "} {
			u, err := db.Identity.UserByEmail(ctx, email)
			if err != nil || u.ID != first.ID || u.Email != "Ada@Example.com" || u.PasswordHash != "hash-1" {
				t.Errorf("UserByEmail(%q) = %+v, %v", email, u, err)
			}
		}
		if _, err := db.Identity.CreateUser(ctx, &folio.UserInput{Email: "ADA@example.COM", Name: "Imposter", Role: folio.RoleEditor}, "h"); folio.ErrorCode(err) != folio.ECONFLICT {
			t.Errorf("same email in other case: got %v, want CONFLICT", err)
		}
		if _, err := db.Identity.UserByEmail(ctx, "nobody@example.com"); !folio.IsNotFound(err) {
			t.Errorf("unknown email: got %v, want NOT_FOUND", err)
		}

		got, err := db.Identity.User(ctx, first.ID)
		if err != nil || !got.CreatedAt.Equal(first.CreatedAt) || got.CreatedAt.Nanosecond() != 987654000 || got.Role != folio.RoleOwner {
			t.Errorf("User round trip: got %+v, %v; want %+v", got, err, first)
		}

		clock.Advance(time.Hour)
		up, err := db.Identity.UpdateProfile(ctx, first.ID, &folio.ProfileUpdate{Bio: ptr("  Builds things. "), Website: ptr("https://ada.dev")})
		if err != nil || up.Bio != "Builds things." || up.Website != "https://ada.dev" || up.Name != "Ada" || !up.UpdatedAt.Equal(clock.Now().Truncate(time.Microsecond)) {
			t.Errorf("UpdateProfile: %+v, %v", up, err)
		}
		if got, _ := db.Identity.User(ctx, first.ID); got.Bio != "Builds things." || !got.UpdatedAt.Equal(up.UpdatedAt) {
			t.Errorf("profile not stored: %+v", got)
		}
		if _, err := db.Identity.UpdateProfile(ctx, "nope", &folio.ProfileUpdate{}); !folio.IsNotFound(err) {
			t.Errorf("UpdateProfile of an unknown user: %v", err)
		}
		if err := db.Identity.SetPasswordHash(ctx, first.ID, "hash-3"); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.Identity.User(ctx, first.ID); got.PasswordHash != "hash-3" {
			t.Errorf("SetPasswordHash not stored: %q", got.PasswordHash)
		}
		users, err := db.Identity.Users(ctx)
		if err != nil || len(users) != 1 {
			t.Errorf("Users = %d, %v", len(users), err)
		}
		if err := db.Identity.DeleteUser(ctx, first.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.Identity.DeleteUser(ctx, first.ID); !folio.IsNotFound(err) {
			t.Errorf("second delete: %v", err)
		}
	})
}

func TestAPIKeys(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
		db.Now = clock.Now
		owner, err := db.Identity.CreateUser(ctx, &folio.UserInput{Email: "o@example.com", Name: "O", Role: folio.RoleOwner}, "h")
		if err != nil {
			t.Fatal(err)
		}
		hashA, hashB := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
		exp := clock.Now().Add(48 * time.Hour)
		a := &folio.APIKey{UserID: owner.ID, Name: "deploy", Level: folio.LevelWrite, Prefix: "folio_abcdef", ExpiresAt: &exp}
		if err := db.Identity.CreateAPIKey(ctx, a, hashA); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
		b := &folio.APIKey{UserID: owner.ID, Name: "ci", Level: folio.LevelAdmin, Prefix: "folio_123456"}
		if err := db.Identity.CreateAPIKey(ctx, b, hashB); err != nil {
			t.Fatal(err)
		}
		if err := db.Identity.CreateAPIKey(ctx, &folio.APIKey{UserID: owner.ID, Name: "dup", Level: folio.LevelRead}, hashA); err == nil {
			t.Error("a second key with the same hash was stored")
		}
		if err := db.Identity.CreateAPIKey(ctx, &folio.APIKey{UserID: "ghost", Name: "x", Level: folio.LevelRead}, bytes.Repeat([]byte{3}, 32)); !folio.IsNotFound(err) {
			t.Errorf("key for an unknown user: %v", err)
		}

		k, u, err := db.Identity.APIKeyByHash(ctx, hashA)
		if err != nil || k.ID != a.ID || k.Level != folio.LevelWrite || k.Name != "deploy" || k.ExpiresAt == nil ||
			!k.ExpiresAt.Equal(exp) || k.LastUsedAt != nil || u.ID != owner.ID || u.Role != folio.RoleOwner || u.Email != "o@example.com" {
			t.Fatalf("APIKeyByHash = %+v %+v %v", k, u, err)
		}
		if _, _, err := db.Identity.APIKeyByHash(ctx, bytes.Repeat([]byte{9}, 32)); !folio.IsNotFound(err) {
			t.Errorf("unknown hash: %v", err)
		}

		used := clock.Now().Add(time.Minute)
		if err := db.Identity.TouchAPIKeys(ctx, map[string]time.Time{a.ID: used, "deleted-key": used}); err != nil {
			t.Fatal(err)
		}
		// An older time flushed later (another instance) does not move last use backwards.
		if err := db.Identity.TouchAPIKeys(ctx, map[string]time.Time{a.ID: used.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if k, _ := db.Identity.APIKey(ctx, a.ID); k.LastUsedAt == nil || !k.LastUsedAt.Equal(used) {
			t.Errorf("lastUsedAt = %v, want %v", k.LastUsedAt, used)
		}

		list, err := db.Identity.APIKeys(ctx, false)
		if err != nil || len(list) != 2 || list[0].ID != b.ID || list[1].UserEmail != "o@example.com" {
			t.Fatalf("APIKeys = %+v, %v", list, err)
		}
		if err := db.Identity.RevokeAPIKey(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.Identity.RevokeAPIKey(ctx, a.ID); !folio.IsNotFound(err) {
			t.Errorf("revoking twice: %v", err)
		}
		if k, _, _ := db.Identity.APIKeyByHash(ctx, hashA); k.RevokedAt == nil || k.Usable(clock.Now()) {
			t.Errorf("revoked key still usable: %+v", k)
		}
		if list, _ := db.Identity.APIKeys(ctx, false); len(list) != 1 {
			t.Errorf("revoked key still listed: %d keys", len(list))
		}
		if list, _ := db.Identity.APIKeys(ctx, true); len(list) != 2 {
			t.Errorf("includeRevoked lists %d keys, want 2", len(list))
		}
		if err := db.Identity.DeleteUser(ctx, owner.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.Identity.APIKeyByHash(ctx, hashB); !folio.IsNotFound(err) {
			t.Errorf("key of a deleted user: %v", err)
		}
	})
}
