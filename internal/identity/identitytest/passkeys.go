package identitytest

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
)

func testPasskeys(t *testing.T, s Store) {
	ctx := context.Background()
	u := mustCreateUser(t, s, "pk@example.com", folio.RoleOwner)
	other := mustCreateUser(t, s, "pk2@example.com", folio.RoleEditor)
	p := &folio.Passkey{UserID: u.ID, Name: "Laptop", CredentialID: []byte{1, 2, 3, 250}, Credential: []byte(`{"id":"AQID-g"}`),
		SignCount: 7, BackupEligible: true}
	at, err := s.CreatePasskey(ctx, p, "jti-1")
	if err != nil || p.ID == "" || p.CreatedAt.IsZero() || at == 0 {
		t.Fatalf("CreatePasskey = %d, %v (%+v)", at, err, p)
	}
	if got, _ := s.User(ctx, u.ID); got.SessionsRevokedAt != at || got.SessionsKeptJTI != "jti-1" {
		t.Errorf("sessions after CreatePasskey: revoked %d kept %q, want %d jti-1", got.SessionsRevokedAt, got.SessionsKeptJTI, at)
	}
	dup := &folio.Passkey{UserID: other.ID, Name: "Same", CredentialID: []byte{1, 2, 3, 250}, Credential: []byte(`{}`)}
	if _, err := s.CreatePasskey(ctx, dup, ""); folio.ErrorCode(err) != folio.ECONFLICT {
		t.Errorf("a credential registered twice: %v, want CONFLICT", err)
	}
	if _, err := s.CreatePasskey(ctx, &folio.Passkey{UserID: "nope", Name: "x", CredentialID: []byte{9}, Credential: []byte(`{}`)}, ""); !folio.IsNotFound(err) {
		t.Errorf("a passkey of an unknown user: %v, want NOT_FOUND", err)
	}
	got, err := s.PasskeyByCredentialID(ctx, []byte{1, 2, 3, 250})
	if err != nil || got.ID != p.ID || got.UserID != u.ID || got.SignCount != 7 || !got.BackupEligible || got.BackupState ||
		!bytes.Equal(got.Credential, p.Credential) || got.LastUsedAt != nil {
		t.Errorf("PasskeyByCredentialID = %+v, %v", got, err)
	}
	if _, err := s.PasskeyByCredentialID(ctx, []byte{4}); !folio.IsNotFound(err) {
		t.Errorf("an unknown credential: %v", err)
	}

	// A counter value signs in once, however many sign-ins arrive at once; 0 (no counter) always.
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.UsePasskey(ctx, p.ID, []byte(`{"n":8}`), 8, true)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("8 concurrent uses of counter 8: %d succeeded, want 1", wins)
	}
	if ok, _ := s.UsePasskey(ctx, p.ID, []byte(`{}`), 5, true); ok {
		t.Error("a counter behind the stored one was accepted")
	}
	list, err := s.Passkeys(ctx, u.ID)
	if err != nil || len(list) != 1 || list[0].SignCount != 8 || !list[0].BackupState || list[0].LastUsedAt == nil || string(list[0].Credential) != `{"n":8}` {
		t.Errorf("Passkeys after use = %+v, %v", list, err)
	}
	if list, _ := s.Passkeys(ctx, other.ID); len(list) != 0 {
		t.Errorf("another user's passkeys: %+v", list)
	}

	if _, _, err := s.RenamePasskey(ctx, other.ID, p.ID, "Mine", ""); !folio.IsNotFound(err) {
		t.Errorf("renaming another user's passkey: %v", err)
	}
	if r, _, err := s.RenamePasskey(ctx, u.ID, p.ID, "Phone", "jti-2"); err != nil || r.Name != "Phone" {
		t.Errorf("RenamePasskey = %+v, %v", r, err)
	}
	if _, err := s.DeletePasskey(ctx, other.ID, p.ID, ""); !folio.IsNotFound(err) {
		t.Errorf("deleting another user's passkey: %v", err)
	}
	if _, err := s.DeletePasskey(ctx, u.ID, p.ID, "jti-3"); err != nil {
		t.Errorf("DeletePasskey: %v", err)
	}
	if got, _ := s.User(ctx, u.ID); got.SessionsKeptJTI != "jti-3" {
		t.Errorf("sessions after DeletePasskey keep %q, want jti-3", got.SessionsKeptJTI)
	}
	if _, err := s.DeletePasskey(ctx, u.ID, p.ID, ""); !folio.IsNotFound(err) {
		t.Errorf("deleting twice: %v", err)
	}
}

func testAuthChallenges(t *testing.T, s Store) {
	ctx := context.Background()
	now := time.Now().Unix()
	c := &folio.AuthChallenge{Kind: "k", UserID: "u", Data: `{"x":1}`, ExpiresAt: now + 60}
	if err := s.CreateAuthChallenge(ctx, "h1", c); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TakeAuthChallenge(ctx, "h1", "other kind"); !folio.IsNotFound(err) {
		t.Errorf("taken as another kind: %v", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	taken := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := s.TakeAuthChallenge(ctx, "h1", "k")
			if err == nil {
				mu.Lock()
				taken++
				mu.Unlock()
				if *got != *c {
					t.Errorf("TakeAuthChallenge = %+v, want %+v", got, c)
				}
			} else if !folio.IsNotFound(err) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if taken != 1 {
		t.Errorf("a challenge taken %d times, want once", taken)
	}
	// Storing one forgets the expired ones.
	if err := s.CreateAuthChallenge(ctx, "old", &folio.AuthChallenge{Kind: "k", ExpiresAt: now - 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateAuthChallenge(ctx, "h2", c); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TakeAuthChallenge(ctx, "old", "k"); !folio.IsNotFound(err) {
		t.Errorf("an expired challenge was kept: %v", err)
	}
}
