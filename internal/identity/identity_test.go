package identity_test

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/identity"
)

// BenchmarkRevocationCheck is the per-request work the revocation check adds after the token is
// decrypted: finding the token's user in the instance's cache and comparing iat with the user's
// revocation time (bench/sessions puts it beside the whole authentication).
func BenchmarkRevocationCheck(b *testing.B) {
	db := foliotest.MustOpenSQLite(b)
	ctx := context.Background()
	u, err := db.Identity.CreateUser(ctx, &folio.UserInput{Email: "bench@example.com", Name: "Bench", Role: folio.RoleOwner}, "h")
	if err != nil {
		b.Fatal(err)
	}
	svc := identity.New(db.Identity, identity.Config{Secret: "0123456789abcdef0123456789abcdef", UserCacheTTL: time.Hour})
	now := time.Now()
	iat := now.Unix()
	b.ReportAllocs()
	for b.Loop() {
		got, err := identity.CachedUser(svc, ctx, u.ID, u.Email, now)
		if err != nil || !got.SessionValid(iat, "") {
			b.Fatal("session refused")
		}
	}
}
