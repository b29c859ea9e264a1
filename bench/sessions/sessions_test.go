// Package sessions measures what the revocation check (docs/api.md, "Revocation") costs a
// session request.
//
//	go test ./bench/sessions -run '^$' -bench . -benchmem
package sessions

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/sqldb"
)

const secret = "bench-session-secret-0123456789abcdef"

// BenchmarkSessionAuthenticate authenticates one session cookie:
//   - decode: the JWE decryption alone (the anchor: what every session request paid before);
//   - cached: Identity.Authenticate as served normally: decode, then the user and its revocation
//     time from the per-instance cache (dropped by the change notification on revocation);
//   - uncached: the same with the cache off, so the user (and revocation time) is read from
//     SQLite on every request: the cost right after a notification dropped the cache entry.
//
// The revocation check's own cost is cached − decode.
func BenchmarkSessionAuthenticate(b *testing.B) {
	ctx := context.Background()
	db, err := sqldb.Open(ctx, "", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	in := &folio.UserInput{Email: "bench@example.com", Name: "Bench", Role: folio.RoleOwner, Password: "a long bench password"}
	u, err := db.Identity.CreateUser(ctx, in, "unused-hash")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Identity.RevokeSessions(ctx, u.ID); err != nil { // a real revocation time to compare with
		b.Fatal(err)
	}
	now := time.Now()
	tok, err := auth.EncodeSession(secret, auth.SessionClaims{Sub: u.ID, Email: u.Email, Name: u.Name, Role: "owner",
		Iat: now.Unix() + 5, Exp: now.Add(time.Hour).Unix()})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/api/user/profile", nil)
	req.Header.Set("Cookie", httpapi.SessionCookieName+"="+tok)

	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := auth.DecodeSession(secret, tok, now); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, tc := range []struct {
		name string
		ttl  time.Duration
	}{{"cached", time.Hour}, {"uncached", -1}} {
		b.Run(tc.name, func(b *testing.B) {
			id, err := httpapi.NewIdentity(db.Identity, httpapi.IdentityConfig{Secret: secret, UserCacheTTL: tc.ttl})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				a, err := id.Authenticate(req)
				if err != nil || a.UserID != u.ID {
					b.Fatalf("%+v %v", a, err)
				}
			}
		})
	}
}
