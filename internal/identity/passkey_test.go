package identity_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/identity"
	"github.com/foliohq/folio/internal/identity/passkeytest"
)

var testParty = identity.Party{ID: "localhost", Name: "folio tests", Origins: []string{"http://localhost"}}

// newPasskeyService is newService with a passkey of its user registered through a real ceremony.
func newPasskeyService(t testing.TB) (*identity.Service, *passkeytest.Authenticator, *folio.User) {
	t.Helper()
	svc, _, _, u := newService(t)
	ctx := context.Background()
	authr := passkeytest.New("http://localhost")
	opts, err := svc.BeginPasskeyRegistration(ctx, testParty, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(opts)
	cred, err := authr.Create(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.FinishPasskeyRegistration(ctx, testParty, u.ID, cred, "Key", ""); err != nil {
		t.Fatal(err)
	}
	return svc, authr, u
}

func assertion(t testing.TB, svc *identity.Service, authr *passkeytest.Authenticator) []byte {
	opts, err := svc.BeginPasskeyLogin(context.Background(), testParty)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(opts)
	a, err := authr.Get(b)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Ensure a passkey sign-in counts a failure only when it fails, on the passkey's account.
func TestPasskeyLoginCountsFailures(t *testing.T) {
	svc, authr, u := newPasskeyService(t)
	ctx := context.Background()
	var a attempts
	got, err := svc.FinishPasskeyLogin(ctx, testParty, assertion(t, svc, authr), &a)
	if err != nil || got.ID != u.ID || a.failed != 0 || len(a.checked) != 1 {
		t.Fatalf("good sign-in: %v, %v, %+v", got, err, a)
	}
	authr.Origin = "http://evil.example"
	got, err = svc.FinishPasskeyLogin(ctx, testParty, assertion(t, svc, authr), &a)
	if err != identity.ErrBadPasskey || got == nil || got.ID != u.ID || a.failed != 1 {
		t.Errorf("wrong origin: %v, %v, %+v", got, err, a)
	}
}

// FuzzPasskeyLogin feeds mutated assertions to the verifier: it never panics, answers every
// malformed one with a folio error, and signs in only with a valid one.
func FuzzPasskeyLogin(f *testing.F) {
	svc, authr, _ := newPasskeyService(f)
	f.Add(assertion(f, svc, authr))
	f.Add([]byte(`{"id":"AA","rawId":"AA","type":"public-key","response":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a attempts
		u, err := svc.FinishPasskeyLogin(context.Background(), testParty, b, &a)
		if err != nil && folio.ErrorCode(err) == "" {
			t.Fatalf("an error without a code: %v", err)
		}
		if err == nil && (u == nil || a.failed != 0) {
			t.Fatalf("signed in without a user: %v", u)
		}
	})
}

// BenchmarkPasskeyLogin measures one discoverable passkey sign-in on SQLite: begin (a stored
// challenge), the authenticator's signature, and finish (verify, counter update).
func BenchmarkPasskeyLogin(b *testing.B) {
	svc, authr, _ := newPasskeyService(b)
	ctx := context.Background()
	for b.Loop() {
		var a attempts
		if _, err := svc.FinishPasskeyLogin(ctx, testParty, assertion(b, svc, authr), &a); err != nil {
			b.Fatal(err)
		}
	}
}
