package httpapi

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// keysCached is how many keys the instance holds in its key cache.
func keysCached(id *Identity) int { return id.CachedKeys() }

// Ensure a cached key still expires on time, stops working at once when revoked through this
// instance, and that made-up keys are never cached (with a cache TTL of an hour, so nothing
// here passes by the cache going stale).
func TestAPIKeyCache(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{UserCacheTTL: time.Hour})
		ctx := context.Background()
		soon := f.Clock.Now().Add(time.Minute)
		secret, prefix, hash := auth.MintAPIKey()
		k := &folio.APIKey{UserID: f.Owner.ID, Name: "expiring", Level: folio.LevelAdmin, Prefix: prefix, ExpiresAt: &soon}
		if err := db.Identity.CreateAPIKey(ctx, k, hash); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if res := f.do("GET", "/api/keys", secret, nil); res.Status != 200 {
				t.Fatalf("unexpired key: %d %s", res.Status, res.Body)
			}
		}
		f.Clock.Advance(2 * time.Minute)
		if res := f.do("GET", "/api/keys", secret, nil); res.Status != 401 {
			t.Fatalf("expired cached key: %d, want 401", res.Status)
		}

		if res := f.as("write", "GET", "/api/user/profile", nil); res.Status != 200 {
			t.Fatalf("write key: %d", res.Status)
		}
		if res := f.as("admin", "DELETE", "/api/keys/"+f.KeyIDs["write"], nil); res.Status != 204 {
			t.Fatalf("revoke: %d %s", res.Status, res.Body)
		}
		if res := f.as("write", "GET", "/api/user/profile", nil); res.Status != 401 {
			t.Fatalf("revoked cached key: %d, want 401 at once", res.Status)
		}

		before := keysCached(f.ID)
		for range 50 {
			unknown, _, _ := auth.MintAPIKey()
			if res := f.do("GET", "/api/projects", unknown, nil); res.Status != 401 {
				t.Fatalf("unknown key: %d", res.Status)
			}
		}
		if n := keysCached(f.ID); n > before {
			t.Errorf("unknown keys grew the key cache from %d to %d", before, n)
		}

		// A demoted owner's admin key drops to the new role's ceiling at once.
		if err := db.Identity.SetUserRole(ctx, f.Owner.ID, folio.RoleEditor); err != nil {
			t.Fatal(err)
		}
		if res := f.as("admin", "GET", "/api/keys", nil); res.Status != 403 && res.Status != 401 {
			t.Errorf("admin key of a demoted owner: %d, want it refused", res.Status)
		}
	})
}

// Ensure a key revoked on one instance stops working on another instance sharing the
// PostgreSQL database and holding the key in its cache (TTL an hour), through the change
// notification alone.
func TestAPIKeyRevocationReachesOtherInstance(t *testing.T) {
	dsn := foliotest.PostgresSchema(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	open := func() *sqldb.DB {
		db, err := sqldb.Open(ctx, dsn, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	dbA, dbB := open(), open()
	if _, err := dbA.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	a := newIdentityFixture(t, dbA, IdentityConfig{UserCacheTTL: time.Hour})
	idB, err := NewIdentity(dbB.Identity, IdentityConfig{Secret: testSessionSecret, UserCacheTTL: time.Hour, Now: a.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	b := newTestServer(t, dbB, func(s *Server) { s.Auth, s.Identity, s.Now = idB, idB, a.Clock.Now })
	dbA.Changed = func(scope string) {
		a.Invalidate(scope)
		if err := dbA.Notify(ctx, scope); err != nil {
			t.Errorf("notify: %v", err)
		}
	}
	var mu sync.Mutex
	heard := map[string]bool{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		dbB.Listen(ctx, slog.New(slog.DiscardHandler), func(scope string) {
			mu.Lock()
			heard[scope] = true
			mu.Unlock()
			b.Invalidate(scope)
		})
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	// Wait until B's listener is connected: a probe it hears proves it (polling only orders
	// events; the deadline stops a broken build from hanging).
	deadline := time.Now().Add(15 * time.Second)
	for {
		dbA.Notify(ctx, "probe")
		mu.Lock()
		ok := heard["probe"]
		mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("B's listener never heard a notification")
		}
		time.Sleep(10 * time.Millisecond)
	}

	key := a.Keys["write"]
	for range 2 {
		if res := b.do("GET", "/api/user/profile", key, nil); res.Status != 200 {
			t.Fatalf("key on B before revocation: %d %s", res.Status, res.Body)
		}
	}
	if res := a.as("admin", "DELETE", "/api/keys/"+a.KeyIDs["write"], nil); res.Status != 204 {
		t.Fatalf("revoke on A: %d %s", res.Status, res.Body)
	}
	scope := sqldb.ScopeUser(a.Owner.ID)
	for {
		mu.Lock()
		ok := heard[scope]
		mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("B never heard the revocation")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if res := b.do("GET", "/api/user/profile", key, nil); res.Status != 401 {
		t.Fatalf("revoked key on B: %d, want 401", res.Status)
	}
}
