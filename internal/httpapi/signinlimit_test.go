package httpapi

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/audit"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/booking/bookingtest"
	"github.com/foliohq/folio/internal/clientip"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/ratelimit"
	"github.com/foliohq/folio/internal/sqldb"
)

// proxied makes a server believe the X-Forwarded-For of the test client (127.0.0.1), so a test
// can speak as several clients.
func proxied(s *Server) {
	s.ClientIP = clientip.New([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
}

// otherInstance is a second server of f's site: its own connection pool on f's database (the
// same SQLite file or PostgreSQL schema), its own Identity and caches, and the given limiter.
func (f *identityFixture) otherInstance(t *testing.T, limiter folio.Limiter) *testServer {
	t.Helper()
	db, err := sqldb.Open(context.Background(), f.DB.DSN, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Now = f.Clock.Now
	id, err := NewIdentity(db.Identity, IdentityConfig{Secret: testSessionSecret, Now: f.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return newTestServer(t, db, proxied, func(s *Server) {
		s.Auth, s.Identity, s.Now, s.Limiter = id, id, f.Clock.Now, limiter
	})
}

// sharedLimiters are the limiters the sign-in tests run with: one in memory (one instance) and,
// when FOLIO_TEST_REDIS_URL is set, Redis shared by two instances.
var sharedLimiters = map[string]func(t *testing.T) (folio.Limiter, bool){
	"memory": func(t *testing.T) (folio.Limiter, bool) { return ratelimit.NewMemory(time.Now), false },
	"redis": func(t *testing.T) (folio.Limiter, bool) {
		c, prefix := redisTestClient(t)
		return ratelimit.NewRedis(c, prefix), true
	},
}

// Ensure the failure limit of sign-in counts per account and client at every step that checks a
// password or code (login, login/totp, password, totp/disable), whatever else the body holds: an
// "email" field made up anew for each guess buys nothing (#31.6, #31.7). The steps share one
// budget per account and client, a correct password never spends it, another client and another
// account keep theirs, and an unlock clears it for every client (#32.7); on both engines, in
// memory and through Redis shared by two instances.
func TestSignInFailureLimitKeysOnAccountAndClient(t *testing.T) {
	for name, mk := range sharedLimiters {
		t.Run(name, func(t *testing.T) {
			foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
				limiter, shared := mk(t)
				f := newIdentityFixture(t, db, IdentityConfig{}, proxied, func(s *Server) { s.Limiter = limiter })
				servers := []*testServer{f.testServer}
				if shared {
					servers = append(servers, f.otherInstance(t, limiter))
				}
				n := 0
				do := func(method, path, cookie string, body any, client string) response {
					t.Helper()
					n++
					return servers[n%len(servers)].do(method, path, "", body, "Cookie", cookie, "X-Forwarded-For", client)
				}
				secret, _ := totpEnrol(t, f)
				wrong, _ := auth.TOTPCode(secret, f.Clock.Now().Add(-time.Hour))
				statuses := func(what string, want int, try func(i int) response) {
					t.Helper()
					var got []int
					for i := range 8 {
						got = append(got, try(i).Status)
					}
					for i, st := range got {
						if (i < 5 && st != want) || (i >= 5 && st != 429) {
							t.Errorf("%s: statuses %v, want %d×5 then 429", what, got, want)
							break
						}
					}
				}

				// login/totp: each guess on a fresh ticket (the password steps cost nothing) and
				// with a made-up email beside it.
				var tickets []string
				for range 8 {
					res := do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword}, "203.0.113.1")
					if res.Status != 200 || res.json(t)["ticket"] == nil {
						t.Fatalf("password step: %d %s", res.Status, res.Body)
					}
					tickets = append(tickets, res.json(t)["ticket"].(string))
				}
				statuses("login/totp with a new email each time", 401, func(i int) response {
					return do("POST", "/api/auth/login/totp", "", map[string]string{"ticket": tickets[i], "code": wrong,
						"email": fmt.Sprintf("x%d@y.example", i)}, "203.0.113.1")
				})
				// The account is closed to that client at every step, the right password included,
				// and the 429 says when to retry.
				res := do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword}, "203.0.113.1")
				if res.Status != 429 || !strings.Contains(res.json(t)["error"].(map[string]any)["message"].(string), "Try again in") {
					t.Errorf("login after five wrong codes: %d %s", res.Status, res.Body)
				}
				if res := do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword}, "203.0.113.2"); res.Status != 200 {
					t.Errorf("login of the same account from another client: %d %s", res.Status, res.Body)
				}
				if res := do("POST", "/api/auth/login", "", map[string]string{"email": "editor@example.com", "password": testPassword}, "203.0.113.1"); res.Status != 200 {
					t.Errorf("another account from the same client: %d %s", res.Status, res.Body)
				}

				// password and totp/disable, from clients of their own, with the same trick.
				statuses("password with a new email each time", 403, func(i int) response {
					return do("POST", "/api/auth/password", f.OwnerCookie, map[string]string{"currentPassword": "not the password",
						"newPassword": "a brand new passphrase", "email": fmt.Sprintf("x%d@y.example", i)}, "203.0.113.3")
				})
				statuses("totp/disable", 422, func(i int) response {
					return do("POST", "/api/auth/totp/disable", f.OwnerCookie, map[string]string{"password": "not the password",
						"email": fmt.Sprintf("x%d@y.example", i)}, "203.0.113.4")
				})
				if res := do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword}, "203.0.113.4"); res.Status != 429 {
					t.Errorf("login from the client that failed totp/disable: %d, want 429 (one budget for every step)", res.Status)
				}

				// An unlock (folio user unlock) opens the account to every client at once, through
				// the database whatever holds the counts.
				if _, err := db.Identity.UnlockSignIn(t.Context(), f.Owner.ID); err != nil {
					t.Fatal(err)
				}
				for _, client := range []string{"203.0.113.1", "203.0.113.3", "203.0.113.4"} {
					if res := do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword}, client); res.Status != 200 {
						t.Errorf("login from %s after an unlock: %d %s", client, res.Status, res.Body)
					}
				}

				// Unknown emails are limited like accounts, each its own: their answers tell no
				// address apart from an account.
				statuses("an unknown email", 401, func(int) response {
					return do("POST", "/api/auth/login", "", map[string]string{"email": "nobody@example.com", "password": "wrong password"}, "203.0.113.5")
				})
			})
		})
	}
}

// Ensure a sign-in ticket is good for one sign-in on whichever instance takes it (#31.11), that
// five wrong codes end it even when each comes from another client (and its owner finds that in
// the audit log), and that signing in right after "sign out everywhere", within the same second,
// works; on both engines, two instances over one database.
func TestSignInTicketOnceAcrossInstances(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{}, proxied)
		w := audit.New(db.Audit, audit.Options{Now: f.Clock.Now})
		f.Audit = w
		other := f.otherInstance(t, ratelimit.NewMemory(time.Now))
		other.Audit = w
		secret, _ := totpEnrol(t, f)
		login := func() string {
			t.Helper()
			res := f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword})
			if res.Status != 200 || res.json(t)["ticket"] == nil {
				t.Fatalf("password step: %d %s", res.Status, res.Body)
			}
			return res.json(t)["ticket"].(string)
		}
		second := func(ts *testServer, ticket, client string) response {
			t.Helper()
			f.Clock.Advance(30 * time.Second) // a step of its own: the code was never used
			code, _ := auth.TOTPCode(secret, f.Clock.Now())
			return ts.do("POST", "/api/auth/login/totp", "", map[string]string{"ticket": ticket, "code": code}, "X-Forwarded-For", client)
		}

		ticket := login()
		if res := second(f.testServer, ticket, "198.51.100.1"); res.Status != 200 {
			t.Fatalf("second step: %d %s", res.Status, res.Body)
		}
		for _, ts := range []*testServer{f.testServer, other} {
			if res := second(ts, ticket, "198.51.100.1"); res.Status != 401 {
				t.Errorf("the ticket again, with a new code: %d %s, want 401", res.Status, res.Body)
			}
		}

		ticket = login()
		wrong, _ := auth.TOTPCode(secret, f.Clock.Now().Add(-time.Hour))
		for i := 1; i <= 5; i++ {
			ts := []*testServer{f.testServer, other}[i%2]
			res := ts.do("POST", "/api/auth/login/totp", "", map[string]string{"ticket": ticket, "code": wrong}, "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", 10+i))
			if res.Status != 401 {
				t.Fatalf("wrong code %d: %d %s", i, res.Status, res.Body)
			}
			if msg := res.json(t)["error"].(map[string]any)["message"].(string); i == 5 && !strings.Contains(msg, "Sign in again") {
				t.Errorf("the fifth wrong code's answer does not say the sign-in ended: %q", msg)
			}
		}
		if res := second(other, ticket, "198.51.100.20"); res.Status != 401 {
			t.Errorf("the right code after five wrong ones: %d %s, want 401", res.Status, res.Body)
		}
		if err := w.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		es, _, err := db.Audit.AuditEntries(t.Context(), folio.AuditFilter{Action: "auth.login.totp.locked", Page: 1, Limit: 10})
		if err != nil || len(es) != 1 || es[0].Actor.UserID != f.Owner.ID || es[0].Status != 401 {
			t.Errorf("audit entries of the ended ticket: %+v, %v; want one in the owner's name", es, err)
		}

		// Sign out everywhere at a.3 s, then sign in again within that second.
		now := f.Clock.Now()
		f.Clock.Advance(now.Truncate(time.Second).Add(time.Second + 300*time.Millisecond).Sub(now))
		if res := f.as("owner", "POST", "/api/auth/sessions/revoke", nil); res.Status != 204 {
			t.Fatalf("revoke: %d %s", res.Status, res.Body)
		}
		if res := second(other, login(), "198.51.100.1"); res.Status != 200 {
			t.Errorf("signing in within the second of a revocation: %d %s", res.Status, res.Body)
		}
	})
}

// Ensure a booking's manage link is limited on a budget of its own, never the sign-in one (#32.7):
// a client whose failed sign-ins closed an account still reads and acts on its booking, and a
// client who spent its manage-link budget still signs in; an unlock leaves that budget alone.
func TestManageLinkBudgetIsNotTheSignInOne(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{}, proxied, func(s *Server) {
			svc := newBookingService(t, db, &bookingtest.Calendar{})
			st := svc.Settings()
			st.SiteURL = "https://site.example"
			if err := svc.Apply(st); err != nil {
				t.Fatal(err)
			}
			s.Bookings = svc
		})
		token := bookForToken(t, f.testServer, bookBody("2026-03-04T15:00:00Z"))
		login := func(client string) int {
			return f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": "wrong password"},
				"X-Forwarded-For", client).Status
		}
		read := func(client string) int {
			return f.do("GET", "/api/schedule/bookings/"+token, "", nil, "X-Forwarded-For", client).Status
		}
		for range 6 {
			login("203.0.113.1")
		}
		if st := login("203.0.113.1"); st != 429 {
			t.Fatalf("sign-in after six failures: %d, want 429", st)
		}
		if st := read("203.0.113.1"); st != 200 {
			t.Errorf("the manage link from a client locked out of sign-in: %d", st)
		}
		if res := f.do("POST", "/api/schedule/bookings/"+token+"/cancel", "", nil, "X-Forwarded-For", "203.0.113.1"); res.Status != 200 {
			t.Errorf("cancel from a client locked out of sign-in: %d %s", res.Status, res.Body)
		}

		var reads []int
		for range 6 {
			reads = append(reads, read("203.0.113.2"))
		}
		if reads[4] != 200 || reads[5] != 429 {
			t.Errorf("six reads of a manage link: %v, want the sixth refused (its own budget of 5)", reads)
		}
		if st := login("203.0.113.2"); st != 401 {
			t.Errorf("sign-in from a client that spent its manage-link budget: %d, want 401 (a failure, not 429)", st)
		}
		if _, err := db.Identity.UnlockSignIn(t.Context(), f.Owner.ID); err != nil {
			t.Fatal(err)
		}
		if st := read("203.0.113.2"); st != 429 {
			t.Errorf("a manage-link read after an unlock of sign-in: %d, want 429 still", st)
		}
	})
}
