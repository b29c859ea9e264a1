package identity_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/identity"
	"github.com/foliohq/folio/internal/sqldb"
)

const testSecret = "0123456789abcdef0123456789abcdef"

// attempts is an identity.Attempts that refuses nothing and records what it was asked.
type attempts struct {
	checked []string
	failed  int
}

func (a *attempts) Check(account string) error { a.checked = append(a.checked, account); return nil }
func (a *attempts) Failed()                    { a.failed++ }

func emailHash(email string) string {
	sum := sha256.Sum256([]byte(email))
	return hex.EncodeToString(sum[:16])
}

func newService(t testing.TB) (*identity.Service, *sqldb.DB, *foliotest.Clock, *folio.User) {
	t.Helper()
	db := foliotest.MustOpenSQLite(t)
	clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	db.Now = clock.Now
	hash, err := auth.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	u, err := db.Identity.CreateUser(context.Background(), &folio.UserInput{Email: "ada@example.com", Name: "Ada", Role: folio.RoleOwner}, hash)
	if err != nil {
		t.Fatal(err)
	}
	svc := identity.New(db.Identity, identity.Config{Secret: testSecret, UserCacheTTL: time.Hour, Now: clock.Now})
	return svc, db, clock, u
}

// Ensure a key authenticates as its owner, is cached, stops at once when revoked through the
// service, and that its last use reaches the store only when flushed.
func TestAPIKeyAuthentication(t *testing.T) {
	svc, db, clock, u := newService(t)
	ctx := context.Background()
	secret, k, err := svc.CreateAPIKey(ctx, u.ID, &folio.APIKeyInput{Name: "ci", Level: "write"})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "junk", "folio_" + secret[len("folio_"):len(secret)-1] + "x"} {
		if _, err := svc.AuthenticateKey(ctx, bad); !errors.Is(err, identity.ErrBadKey) {
			t.Errorf("AuthenticateKey(%q) = %v, want ErrBadKey", bad, err)
		}
	}
	if svc.CachedKeys() != 0 {
		t.Errorf("made-up keys were cached: %d", svc.CachedKeys())
	}
	a, err := svc.AuthenticateKey(ctx, secret)
	if err != nil || a.UserID != u.ID || a.KeyID != k.ID || a.Level != folio.LevelWrite || a.Session {
		t.Fatalf("AuthenticateKey = %+v, %v", a, err)
	}
	if svc.CachedKeys() != 1 {
		t.Errorf("CachedKeys = %d, want 1", svc.CachedKeys())
	}
	if got, _ := db.Identity.APIKey(ctx, k.ID); got.LastUsedAt != nil {
		t.Errorf("last use written before a flush: %v", got.LastUsedAt)
	}
	keys, err := svc.APIKeys(ctx)
	if err != nil || len(keys) != 1 || keys[0].LastUsedAt == nil || !keys[0].LastUsedAt.Equal(clock.Now()) {
		t.Errorf("APIKeys does not show this instance's last use: %+v, %v", keys, err)
	}
	if err := svc.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Identity.APIKey(ctx, k.ID); got.LastUsedAt == nil || !got.LastUsedAt.Equal(clock.Now()) {
		t.Errorf("last use after a flush = %v, want %v", got.LastUsedAt, clock.Now())
	}
	if err := svc.RevokeAPIKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AuthenticateKey(ctx, secret); !errors.Is(err, identity.ErrBadKey) {
		t.Errorf("revoked key: %v, want ErrBadKey", err)
	}
}

// Ensure the password step: an unknown email and a wrong password fail alike (the latter with
// the user, for the audit log), and a user with TOTP on gets a ticket that the second step takes
// with a current code, once; each step asks the failure limit about the account it checks.
func TestSignIn(t *testing.T) {
	svc, _, clock, u := newService(t)
	ctx := context.Background()
	var att attempts
	if got, _, err := svc.SignIn(ctx, &folio.LoginInput{Email: "nobody@example.com", Password: "x"}, &att); got != nil || !errors.Is(err, identity.ErrBadLogin) {
		t.Errorf("unknown email: %v, %v", got, err)
	}
	if got, _, err := svc.SignIn(ctx, &folio.LoginInput{Email: "ADA@example.com", Password: "wrong"}, &att); got == nil || got.ID != u.ID || !errors.Is(err, identity.ErrBadLogin) {
		t.Errorf("wrong password: %v, %v", got, err)
	}
	got, ticket, err := svc.SignIn(ctx, &folio.LoginInput{Email: "ada@example.com", Password: "correct horse battery"}, &att)
	if err != nil || got.ID != u.ID || ticket != "" {
		t.Fatalf("SignIn = %v, %q, %v", got, ticket, err)
	}
	tok, _, err := svc.NewSession(got)
	if err != nil {
		t.Fatal(err)
	}
	if su, _, ok := svc.SessionUser(ctx, tok); !ok || su.ID != u.ID {
		t.Errorf("SessionUser of a fresh session = %v, %v", su, ok)
	}

	secret, _, _, err := svc.SetupTOTP(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := auth.TOTPCode(secret, clock.Now())
	if _, err := svc.EnableTOTP(ctx, u.ID, code); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	_, ticket, err = svc.SignIn(ctx, &folio.LoginInput{Email: "ada@example.com", Password: "correct horse battery"}, &att)
	if err != nil || ticket == "" {
		t.Fatalf("SignIn with TOTP on = %q, %v; want a ticket", ticket, err)
	}
	code, _ = auth.TOTPCode(secret, clock.Now())
	in := &folio.TOTPLoginInput{Ticket: ticket, Code: code}
	if uid, got, err := svc.SignInSecondFactor(ctx, in, &att); err != nil || uid != u.ID || got.ID != u.ID {
		t.Errorf("SignInSecondFactor = %q, %v, %v", uid, got, err)
	}
	_, ticket, _ = svc.SignIn(ctx, &folio.LoginInput{Email: "ada@example.com", Password: "correct horse battery"}, &att)
	if uid, _, err := svc.SignInSecondFactor(ctx, &folio.TOTPLoginInput{Ticket: ticket, Code: code}, &att); uid != u.ID || !errors.Is(err, identity.ErrBadSecondFactor) {
		t.Errorf("a code used twice: %q, %v", uid, err)
	}
	if uid, _, err := svc.SignInSecondFactor(ctx, &folio.TOTPLoginInput{Ticket: "forged", Code: code}, &att); uid != "" || !errors.Is(err, identity.ErrBadSecondFactor) {
		t.Errorf("a forged ticket: %q, %v", uid, err)
	}
	// Every step asked the limit about the account (or, for the unknown email, a hash of it) and
	// counted the three wrong ones: the unknown email, the wrong password, the used code.
	if att.failed != 3 || att.checked[0] != "email:"+emailHash("nobody@example.com") || att.checked[1] != "user:"+u.ID+".0" {
		t.Errorf("limit asked %v, %d failures counted", att.checked, att.failed)
	}

	// Revoking ends the session at once on this instance.
	if err := svc.RevokeSessions(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := svc.SessionUser(ctx, tok); ok {
		t.Error("a revoked session still signs in")
	}
}

// Ensure a sign-in ticket takes five codes: the fifth wrong one ends it (ErrTicketLocked, each
// counted as a failure) and a right code after that is refused; and that a ticket issued in the
// same second as a revocation (signing in right after "sign out everywhere") works, while one
// issued before the revocation does not.
func TestSignInTicketLimits(t *testing.T) {
	svc, _, clock, u := newService(t)
	ctx := context.Background()
	var att attempts
	secret, _, _, err := svc.SetupTOTP(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := auth.TOTPCode(secret, clock.Now())
	if _, err := svc.EnableTOTP(ctx, u.ID, code); err != nil {
		t.Fatal(err)
	}
	login := func() string {
		t.Helper()
		_, ticket, err := svc.SignIn(ctx, &folio.LoginInput{Email: "ada@example.com", Password: "correct horse battery"}, &att)
		if err != nil || ticket == "" {
			t.Fatalf("SignIn = %q, %v", ticket, err)
		}
		return ticket
	}
	second := func(ticket string) (*folio.User, error) {
		t.Helper()
		clock.Advance(30 * time.Second) // a step of its own, so the code was never used
		code, _ := auth.TOTPCode(secret, clock.Now())
		_, got, err := svc.SignInSecondFactor(ctx, &folio.TOTPLoginInput{Ticket: ticket, Code: code}, &att)
		return got, err
	}

	ticket := login()
	wrong, _ := auth.TOTPCode(secret, clock.Now().Add(-time.Hour))
	for i := 1; i <= 5; i++ {
		want := identity.ErrBadSecondFactor
		if i == 5 {
			want = identity.ErrTicketLocked
		}
		if _, _, err := svc.SignInSecondFactor(ctx, &folio.TOTPLoginInput{Ticket: ticket, Code: wrong}, &att); !errors.Is(err, want) {
			t.Fatalf("wrong code %d: %v, want %v", i, err, want)
		}
	}
	if got, err := second(ticket); got != nil || !errors.Is(err, identity.ErrBadSecondFactor) {
		t.Errorf("a right code after five wrong ones: %v, %v", got, err)
	}
	if att.failed != 5 {
		t.Errorf("%d failures counted, want 5", att.failed)
	}

	// Revoked at 12:0x:yy.3: a ticket issued later in that second survives it.
	clock.Advance(300 * time.Millisecond)
	if err := svc.RevokeSessions(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := second(login()); err != nil || got == nil || got.ID != u.ID {
		t.Errorf("a ticket issued in the second of the revocation: %v, %v", got, err)
	}
	before := login()
	clock.Advance(300 * time.Millisecond)
	if err := svc.RevokeSessions(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := second(before); got != nil || !errors.Is(err, identity.ErrBadSecondFactor) {
		t.Errorf("a ticket issued before a revocation: %v, %v", got, err)
	}
}

// Ensure TOTP secrets are stored encrypted (#31.11): the database never holds the secret set up;
// a plaintext secret stored by an earlier version keeps working and SealTOTPSecrets encrypts it;
// after a rotation of the instance secret, NEXTAUTH_SECRET_PREVIOUS opens the old seals and the
// sweep moves them to the new secret; without it, codes fail (and the sweep names the user) while
// recovery codes still sign in.
func TestTOTPSecretsAtRest(t *testing.T) {
	svc, db, clock, u := newService(t)
	ctx := context.Background()
	var att attempts
	secret, _, _, err := svc.SetupTOTP(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored := func() string {
		t.Helper()
		got, err := db.Identity.User(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.TOTPSecret
	}
	if s := stored(); s == secret || strings.Contains(s, secret) || !strings.HasPrefix(s, "v1:") {
		t.Fatalf("stored TOTP secret %q holds the secret %q", s, secret)
	}
	code, _ := auth.TOTPCode(secret, clock.Now())
	recovery, err := svc.EnableTOTP(ctx, u.ID, code)
	if err != nil {
		t.Fatal(err)
	}
	signIn := func(svc *identity.Service, in folio.TOTPLoginInput) error {
		t.Helper()
		clock.Advance(30 * time.Second)
		_, ticket, err := svc.SignIn(ctx, &folio.LoginInput{Email: "ada@example.com", Password: "correct horse battery"}, &att)
		if err != nil {
			t.Fatal(err)
		}
		in.Ticket = ticket
		if in.RecoveryCode == "" {
			in.Code, _ = auth.TOTPCode(secret, clock.Now())
		}
		_, _, err = svc.SignInSecondFactor(ctx, &in, &att)
		return err
	}
	if err := signIn(svc, folio.TOTPLoginInput{}); err != nil {
		t.Errorf("sign-in with the sealed secret: %v", err)
	}

	// A plaintext secret (an earlier version's) still signs in, and the sweep seals it.
	if ok, err := db.Identity.ReplaceTOTPSecret(ctx, u.ID, stored(), secret); err != nil || !ok {
		t.Fatalf("storing a plaintext secret: %v %v", ok, err)
	}
	if err := signIn(svc, folio.TOTPLoginInput{}); err != nil {
		t.Errorf("sign-in with a plaintext secret: %v", err)
	}
	if n, bad, err := svc.SealTOTPSecrets(ctx); n != 1 || len(bad) != 0 || err != nil {
		t.Errorf("SealTOTPSecrets = %d, %v, %v; want 1 sealed", n, bad, err)
	}
	if s := stored(); strings.Contains(s, secret) {
		t.Errorf("still plaintext after the sweep: %q", s)
	}
	if n, _, _ := svc.SealTOTPSecrets(ctx); n != 0 {
		t.Errorf("a second sweep sealed %d, want 0", n)
	}

	// Rotation with the previous secret kept: the old seal opens, and the sweep re-seals it.
	rotated := identity.New(db.Identity, identity.Config{Secret: "a new instance secret, rotated", PreviousSecret: testSecret, Now: clock.Now})
	if err := signIn(rotated, folio.TOTPLoginInput{}); err != nil {
		t.Errorf("sign-in after a rotation with NEXTAUTH_SECRET_PREVIOUS: %v", err)
	}
	if n, bad, err := rotated.SealTOTPSecrets(ctx); n != 1 || len(bad) != 0 || err != nil {
		t.Errorf("SealTOTPSecrets after a rotation = %d, %v, %v; want 1 sealed", n, bad, err)
	}
	// ...and without it: codes fail, the sweep names the user, a recovery code still works.
	lost := identity.New(db.Identity, identity.Config{Secret: testSecret, Now: clock.Now})
	if err := signIn(lost, folio.TOTPLoginInput{}); !errors.Is(err, identity.ErrBadSecondFactor) {
		t.Errorf("a code whose secret no instance secret opens: %v", err)
	}
	if n, bad, err := lost.SealTOTPSecrets(ctx); n != 0 || len(bad) != 1 || bad[0] != u.ID || err != nil {
		t.Errorf("SealTOTPSecrets with the wrong instance secret = %d, %v, %v", n, bad, err)
	}
	if err := signIn(lost, folio.TOTPLoginInput{RecoveryCode: recovery[0]}); err != nil {
		t.Errorf("a recovery code when the secret cannot be opened: %v", err)
	}
}
