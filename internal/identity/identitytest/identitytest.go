// Package identitytest holds the conformance suite that every identity.Store (the SQL ones on
// both engines included) must pass.
package identitytest

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/identity"
)

// Store is an identity.Store that can also create users, so the suite can set up its data
// (users are created by the CLI and the first start, not by the identity service).
type Store interface {
	identity.Store
	// CreateUser stores a new user with the given password hash; an email already taken, in any
	// letter case, is ECONFLICT.
	CreateUser(ctx context.Context, in *folio.UserInput, passwordHash string) (*folio.User, error)
	// UnlockSignIn counts one more unlock of the user's sign-in failure limit (`folio user
	// unlock`) and returns the count (folio.User.SignInUnlocks), or ENOTFOUND.
	UnlockSignIn(ctx context.Context, id string) (int64, error)
}

// TestStore runs the suite; open returns a new, empty store for each subtest.
func TestStore(t *testing.T, open func(t *testing.T) Store) {
	t.Run("Users", func(t *testing.T) { testUsers(t, open(t)) })
	t.Run("APIKeys", func(t *testing.T) { testAPIKeys(t, open(t)) })
	t.Run("Revocation", func(t *testing.T) { testRevocation(t, open(t)) })
	t.Run("TOTP", func(t *testing.T) { testTOTP(t, open(t)) })
	t.Run("SignInTickets", func(t *testing.T) { testSignInTickets(t, open(t)) })
	t.Run("Passkeys", func(t *testing.T) { testPasskeys(t, open(t)) })
	t.Run("AuthChallenges", func(t *testing.T) { testAuthChallenges(t, open(t)) })
}

func mustCreateUser(t *testing.T, s Store, email string, role folio.Role) *folio.User {
	t.Helper()
	u, err := s.CreateUser(context.Background(), &folio.UserInput{Email: email, Name: "User " + email, Role: role}, "hash-1")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func ptr[T any](v T) *T { return &v }

func testUsers(t *testing.T, s Store) {
	ctx := context.Background()
	ada := mustCreateUser(t, s, "Ada@Example.com", folio.RoleOwner)
	for _, email := range []string{"ada@example.com", "ADA@EXAMPLE.COM", " Ada@Example.com "} {
		u, err := s.UserByEmail(ctx, email)
		if err != nil || u.ID != ada.ID || u.Email != "Ada@Example.com" || u.PasswordHash != "hash-1" {
			t.Errorf("UserByEmail(%q) = %+v, %v", email, u, err)
		}
	}
	if _, err := s.CreateUser(ctx, &folio.UserInput{Email: "ADA@example.COM", Name: "Imposter", Role: folio.RoleEditor}, "h"); folio.ErrorCode(err) != folio.ECONFLICT {
		t.Errorf("same email in other case: got %v, want CONFLICT", err)
	}
	if _, err := s.UserByEmail(ctx, "nobody@example.com"); !folio.IsNotFound(err) {
		t.Errorf("unknown email: got %v, want NOT_FOUND", err)
	}
	if _, err := s.User(ctx, "nope"); !folio.IsNotFound(err) {
		t.Errorf("unknown id: got %v, want NOT_FOUND", err)
	}
	got, err := s.User(ctx, ada.ID)
	if err != nil || !got.CreatedAt.Equal(ada.CreatedAt) || got.Role != folio.RoleOwner || got.TOTPEnabled || got.SessionsRevokedAt != 0 {
		t.Errorf("User round trip: got %+v, %v; want %+v", got, err, ada)
	}

	up, err := s.UpdateProfile(ctx, ada.ID, &folio.ProfileUpdate{Bio: ptr("  Builds things. "), Website: ptr("https://ada.dev")})
	if err != nil || up.Bio != "Builds things." || up.Website != "https://ada.dev" || up.Name != ada.Name || up.UpdatedAt.Before(ada.UpdatedAt) {
		t.Errorf("UpdateProfile: %+v, %v", up, err)
	}
	if got, _ := s.User(ctx, ada.ID); got.Bio != "Builds things." || got.Website != "https://ada.dev" || !got.UpdatedAt.Equal(up.UpdatedAt) {
		t.Errorf("profile not stored: %+v", got)
	}
	if up, err := s.UpdateProfile(ctx, ada.ID, &folio.ProfileUpdate{Location: ptr("London")}); err != nil || up.Bio != "Builds things." || up.Location != "London" {
		t.Errorf("absent fields must stay: %+v, %v", up, err)
	}
	if _, err := s.UpdateProfile(ctx, "nope", &folio.ProfileUpdate{}); !folio.IsNotFound(err) {
		t.Errorf("UpdateProfile of an unknown user: %v", err)
	}

	if err := s.SetPasswordHash(ctx, ada.ID, "hash-3"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.User(ctx, ada.ID); got.PasswordHash != "hash-3" || got.SessionsRevokedAt != 0 {
		t.Errorf("SetPasswordHash: hash %q, revoked at %d (a rehash ends no session)", got.PasswordHash, got.SessionsRevokedAt)
	}
}

func testAPIKeys(t *testing.T, s Store) {
	ctx := context.Background()
	owner := mustCreateUser(t, s, "o@example.com", folio.RoleOwner)
	hashA, hashB := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	exp := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	a := &folio.APIKey{UserID: owner.ID, Name: "deploy", Level: folio.LevelWrite, Prefix: "folio_abcdef", ExpiresAt: &exp}
	if err := s.CreateAPIKey(ctx, a, hashA); err != nil {
		t.Fatal(err)
	}
	if a.ID == "" || a.CreatedAt.IsZero() {
		t.Errorf("CreateAPIKey did not set ID and CreatedAt: %+v", a)
	}
	time.Sleep(2 * time.Millisecond) // b is the newer key
	b := &folio.APIKey{UserID: owner.ID, Name: "ci", Level: folio.LevelAdmin, Prefix: "folio_123456"}
	if err := s.CreateAPIKey(ctx, b, hashB); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateAPIKey(ctx, &folio.APIKey{UserID: owner.ID, Name: "dup", Level: folio.LevelRead}, hashA); err == nil {
		t.Error("a second key with the same hash was stored")
	}
	if err := s.CreateAPIKey(ctx, &folio.APIKey{UserID: "ghost", Name: "x", Level: folio.LevelRead}, bytes.Repeat([]byte{3}, 32)); !folio.IsNotFound(err) {
		t.Errorf("key for an unknown user: %v", err)
	}

	k, u, err := s.APIKeyByHash(ctx, hashA)
	if err != nil || k.ID != a.ID || k.Level != folio.LevelWrite || k.Name != "deploy" || k.Prefix != "folio_abcdef" ||
		k.ExpiresAt == nil || !k.ExpiresAt.Equal(exp) || k.LastUsedAt != nil || k.RevokedAt != nil ||
		u.ID != owner.ID || u.Role != folio.RoleOwner || u.Email != "o@example.com" {
		t.Fatalf("APIKeyByHash = %+v %+v %v", k, u, err)
	}
	if _, _, err := s.APIKeyByHash(ctx, bytes.Repeat([]byte{9}, 32)); !folio.IsNotFound(err) {
		t.Errorf("unknown hash: %v", err)
	}

	used := time.Now().Add(time.Minute).UTC().Truncate(time.Microsecond)
	if err := s.TouchAPIKeys(ctx, map[string]time.Time{a.ID: used, "deleted-key": used}); err != nil {
		t.Fatal(err)
	}
	// An older time flushed later (another instance) does not move last use backwards.
	if err := s.TouchAPIKeys(ctx, map[string]time.Time{a.ID: used.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if k, _, _ := s.APIKeyByHash(ctx, hashA); k.LastUsedAt == nil || !k.LastUsedAt.Equal(used) {
		t.Errorf("lastUsedAt = %v, want %v", k.LastUsedAt, used)
	}

	list, err := s.APIKeys(ctx, false)
	if err != nil || len(list) != 2 || list[0].ID != b.ID || list[1].ID != a.ID || list[1].UserEmail != "o@example.com" {
		t.Fatalf("APIKeys = %+v, %v", list, err)
	}
	if err := s.RevokeAPIKey(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeAPIKey(ctx, a.ID); !folio.IsNotFound(err) {
		t.Errorf("revoking twice: %v", err)
	}
	if err := s.RevokeAPIKey(ctx, "nope"); !folio.IsNotFound(err) {
		t.Errorf("revoking an unknown key: %v", err)
	}
	if k, _, _ := s.APIKeyByHash(ctx, hashA); k.RevokedAt == nil || k.Usable(time.Now()) {
		t.Errorf("revoked key still usable: %+v", k)
	}
	if list, _ := s.APIKeys(ctx, false); len(list) != 1 || list[0].ID != b.ID {
		t.Errorf("revoked key still listed: %d keys", len(list))
	}
	if list, _ := s.APIKeys(ctx, true); len(list) != 2 {
		t.Errorf("includeRevoked lists %d keys, want 2", len(list))
	}
}

func testRevocation(t *testing.T, s Store) {
	ctx := context.Background()
	u := mustCreateUser(t, s, "r@example.com", folio.RoleEditor)
	before := time.Now().Unix()
	r1, err := s.RevokeSessions(ctx, u.ID)
	if err != nil || r1 <= before {
		t.Fatalf("RevokeSessions = %d, %v; want a time after %d (sessions issued this second end too)", r1, err, before)
	}
	got, _ := s.User(ctx, u.ID)
	if got.SessionsRevokedAt != r1 || got.SessionValid(r1-1, "") || !got.SessionValid(r1, "") {
		t.Errorf("after RevokeSessions: revoked at %d, want %d", got.SessionsRevokedAt, r1)
	}
	// A session issued right after a revocation takes its time as iat; a second revocation
	// ends it as well.
	r2, err := s.RevokeSessions(ctx, u.ID)
	if err != nil || r2 <= r1 {
		t.Errorf("second RevokeSessions = %d, %v; want after %d", r2, err, r1)
	}
	if _, err := s.RevokeSessions(ctx, "nope"); !folio.IsNotFound(err) {
		t.Errorf("RevokeSessions of an unknown user: %v", err)
	}

	r3, err := s.ChangePassword(ctx, u.ID, "hash-2", "jti-kept")
	if err != nil || r3 <= r2 {
		t.Fatalf("ChangePassword = %d, %v; want after %d", r3, err, r2)
	}
	got, _ = s.User(ctx, u.ID)
	if got.PasswordHash != "hash-2" || got.SessionsRevokedAt != r3 || !got.SessionValid(r3-1, "jti-kept") || got.SessionValid(r3-1, "other") {
		t.Errorf("after ChangePassword: %+v", got)
	}
	// A later revocation keeps no session.
	r4, err := s.RevokeSessions(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.User(ctx, u.ID); got.SessionValid(r4-1, "jti-kept") {
		t.Error("RevokeSessions spared the session ChangePassword kept")
	}
	if _, err := s.ChangePassword(ctx, "nope", "h", ""); !folio.IsNotFound(err) {
		t.Errorf("ChangePassword of an unknown user: %v", err)
	}

	// Unlocking the sign-in limit counts up, for that user only.
	other := mustCreateUser(t, s, "r2@example.com", folio.RoleEditor)
	for want := int64(1); want <= 2; want++ {
		if n, err := s.UnlockSignIn(ctx, u.ID); err != nil || n != want {
			t.Errorf("UnlockSignIn = %d, %v; want %d", n, err, want)
		}
	}
	if got, _ := s.User(ctx, u.ID); got.SignInUnlocks != 2 {
		t.Errorf("SignInUnlocks = %d, want 2", got.SignInUnlocks)
	}
	if got, _ := s.UserByEmail(ctx, other.Email); got.SignInUnlocks != 0 {
		t.Errorf("another user's SignInUnlocks = %d, want 0", got.SignInUnlocks)
	}
	if _, err := s.UnlockSignIn(ctx, "nope"); !folio.IsNotFound(err) {
		t.Errorf("UnlockSignIn of an unknown user: %v", err)
	}
}

func testTOTP(t *testing.T, s Store) {
	ctx := context.Background()
	u := mustCreateUser(t, s, "t@example.com", folio.RoleOwner)
	if ok, err := s.UseTOTPStep(ctx, u.ID, 100); err != nil || ok {
		t.Errorf("UseTOTPStep with TOTP off = %v, %v; want false", ok, err)
	}
	if err := s.EnableTOTP(ctx, u.ID, 100, []string{"r1"}); folio.ErrorCode(err) != folio.ECONFLICT {
		t.Errorf("EnableTOTP before setup: %v, want CONFLICT", err)
	}
	if err := s.SetTOTPSecret(ctx, u.ID, "SECRET1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.User(ctx, u.ID); got.TOTPSecret != "SECRET1" || got.TOTPEnabled {
		t.Errorf("after SetTOTPSecret: secret %q, enabled %v", got.TOTPSecret, got.TOTPEnabled)
	}
	if err := s.SetTOTPSecret(ctx, "nope", "S"); !folio.IsNotFound(err) {
		t.Errorf("SetTOTPSecret of an unknown user: %v", err)
	}
	if err := s.EnableTOTP(ctx, u.ID, 100, []string{"r1", "r2", "r3"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.User(ctx, u.ID); !got.TOTPEnabled || got.TOTPSecret != "SECRET1" {
		t.Errorf("after EnableTOTP: %+v", got)
	}
	if err := s.EnableTOTP(ctx, u.ID, 101, nil); folio.ErrorCode(err) != folio.ECONFLICT {
		t.Errorf("EnableTOTP twice: %v, want CONFLICT", err)
	}
	if err := s.SetTOTPSecret(ctx, u.ID, "SECRET2"); folio.ErrorCode(err) != folio.ECONFLICT {
		t.Errorf("SetTOTPSecret with TOTP on: %v, want CONFLICT", err)
	}
	if n, err := s.RecoveryCodesLeft(ctx, u.ID); err != nil || n != 3 {
		t.Errorf("RecoveryCodesLeft = %d, %v; want 3", n, err)
	}

	// Each step signs in once; the step that proved the setup is used already.
	for _, tc := range []struct {
		step int64
		want bool
	}{{100, false}, {99, false}, {101, true}, {101, false}, {103, true}, {102, false}} {
		if ok, err := s.UseTOTPStep(ctx, u.ID, tc.step); err != nil || ok != tc.want {
			t.Errorf("UseTOTPStep(%d) = %v, %v; want %v", tc.step, ok, err, tc.want)
		}
	}

	if ok, err := s.UseRecoveryCode(ctx, u.ID, "r2"); err != nil || !ok {
		t.Errorf("UseRecoveryCode = %v, %v; want true", ok, err)
	}
	if ok, err := s.UseRecoveryCode(ctx, u.ID, "r2"); err != nil || ok {
		t.Errorf("UseRecoveryCode twice = %v, %v; want false", ok, err)
	}
	if ok, err := s.UseRecoveryCode(ctx, u.ID, "unknown"); err != nil || ok {
		t.Errorf("UseRecoveryCode of an unknown code = %v, %v; want false", ok, err)
	}
	other := mustCreateUser(t, s, "t2@example.com", folio.RoleEditor)
	if ok, err := s.UseRecoveryCode(ctx, other.ID, "r1"); err != nil || ok {
		t.Errorf("another user's recovery code = %v, %v; want false", ok, err)
	}
	if n, _ := s.RecoveryCodesLeft(ctx, u.ID); n != 2 {
		t.Errorf("RecoveryCodesLeft = %d, want 2", n)
	}

	// Enabling again (after disabling) replaces the recovery codes.
	if err := s.DisableTOTP(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.User(ctx, u.ID); got.TOTPEnabled || got.TOTPSecret != "" {
		t.Errorf("after DisableTOTP: %+v", got)
	}
	if n, _ := s.RecoveryCodesLeft(ctx, u.ID); n != 0 {
		t.Errorf("recovery codes kept after DisableTOTP: %d", n)
	}
	if err := s.DisableTOTP(ctx, u.ID); err != nil {
		t.Errorf("DisableTOTP when off: %v", err)
	}
	if err := s.DisableTOTP(ctx, "nope"); !folio.IsNotFound(err) {
		t.Errorf("DisableTOTP of an unknown user: %v", err)
	}
	if err := s.SetTOTPSecret(ctx, u.ID, "SECRET3"); err != nil {
		t.Fatal(err)
	}
	if err := s.EnableTOTP(ctx, u.ID, 5, []string{"n1"}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.UseRecoveryCode(ctx, u.ID, "r1"); ok {
		t.Error("a recovery code from before was accepted after enabling again")
	}
	if ok, err := s.UseTOTPStep(ctx, u.ID, 6); err != nil || !ok {
		t.Errorf("UseTOTPStep after enabling again = %v, %v; want true (the step counter restarts)", ok, err)
	}
	if n, _ := s.RecoveryCodesLeft(ctx, u.ID); n != 1 {
		t.Errorf("RecoveryCodesLeft after enabling again = %d, want 1", n)
	}

	// Every stored secret is listed, and replaced only while it is what the caller read.
	if err := s.SetTOTPSecret(ctx, other.ID, "PENDING"); err != nil {
		t.Fatal(err)
	}
	mustCreateUser(t, s, "t3@example.com", folio.RoleEditor) // no secret: not listed
	if got, err := s.TOTPSecrets(ctx); err != nil || len(got) != 2 || got[u.ID] != "SECRET3" || got[other.ID] != "PENDING" {
		t.Errorf("TOTPSecrets = %v, %v", got, err)
	}
	if ok, err := s.ReplaceTOTPSecret(ctx, u.ID, "SECRET1", "SEALED"); err != nil || ok {
		t.Errorf("ReplaceTOTPSecret of a secret no longer stored = %v, %v; want false", ok, err)
	}
	if ok, err := s.ReplaceTOTPSecret(ctx, u.ID, "SECRET3", "SEALED3"); err != nil || !ok {
		t.Errorf("ReplaceTOTPSecret = %v, %v; want true", ok, err)
	}
	if got, _ := s.User(ctx, u.ID); got.TOTPSecret != "SEALED3" || !got.TOTPEnabled {
		t.Errorf("after ReplaceTOTPSecret: %+v", got)
	}
	if ok, _ := s.ReplaceTOTPSecret(ctx, "nope", "", "X"); ok {
		t.Error("ReplaceTOTPSecret of an unknown user replaced something")
	}
}

func testSignInTickets(t *testing.T, s Store) {
	ctx := context.Background()
	u := mustCreateUser(t, s, "tk@example.com", folio.RoleOwner)
	now := time.Now().Unix()
	want := folio.SignInTicket{UserID: u.ID, IssuedAt: now + 1, ExpiresAt: now + 300}
	if err := s.CreateSignInTicket(ctx, "h1", &want); err != nil {
		t.Fatal(err)
	}
	if got, err := s.SignInTicket(ctx, "h1"); err != nil || *got != want {
		t.Errorf("SignInTicket = %+v, %v; want %+v", got, err, want)
	}
	if _, err := s.SignInTicket(ctx, "nope"); !folio.IsNotFound(err) {
		t.Errorf("an unknown ticket: %v, want NOT_FOUND", err)
	}

	// Tries count up to the limit, however many arrive at once; then none is counted.
	var wg sync.WaitGroup
	tries := make(chan int, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := s.TrySignInTicket(ctx, "h1", 5)
			if err != nil {
				t.Error(err)
			}
			tries <- n
		}()
	}
	wg.Wait()
	close(tries)
	counted := map[int]bool{}
	for n := range tries {
		if n != 0 {
			counted[n] = true
		}
	}
	if len(counted) != 5 || !counted[1] || !counted[5] {
		t.Errorf("20 concurrent tries with a limit of 5 counted %v, want 1…5 once each", counted)
	}
	if got, _ := s.SignInTicket(ctx, "h1"); got.Attempts != 5 {
		t.Errorf("attempts = %d, want 5", got.Attempts)
	}
	if n, err := s.TrySignInTicket(ctx, "nope", 5); err != nil || n != 0 {
		t.Errorf("a try on an unknown ticket = %d, %v", n, err)
	}

	// A ticket is spent once.
	if err := s.CreateSignInTicket(ctx, "h2", &want); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.SpendSignInTicket(ctx, "h2"); err != nil || !ok {
		t.Errorf("SpendSignInTicket = %v, %v; want true", ok, err)
	}
	if ok, err := s.SpendSignInTicket(ctx, "h2"); err != nil || ok {
		t.Errorf("SpendSignInTicket twice = %v, %v; want false", ok, err)
	}
	if _, err := s.SignInTicket(ctx, "h2"); !folio.IsNotFound(err) {
		t.Errorf("a spent ticket: %v, want NOT_FOUND", err)
	}
	if n, _ := s.TrySignInTicket(ctx, "h2", 5); n != 0 {
		t.Errorf("a try on a spent ticket counted: %d", n)
	}

	// Storing a ticket forgets the expired ones.
	if err := s.CreateSignInTicket(ctx, "old", &folio.SignInTicket{UserID: u.ID, IssuedAt: now - 400, ExpiresAt: now - 100}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSignInTicket(ctx, "h3", &want); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignInTicket(ctx, "old"); !folio.IsNotFound(err) {
		t.Errorf("an expired ticket was kept: %v", err)
	}
	if _, err := s.SignInTicket(ctx, "h3"); err != nil {
		t.Errorf("the new ticket: %v", err)
	}
}
