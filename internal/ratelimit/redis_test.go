package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
)

// TestRedisTwoInstancesShareLimit: two limiters with their own connections (as two folio
// processes would have) count against one window.
func TestRedisTwoInstancesShareLimit(t *testing.T) {
	t.Parallel()
	prefix := uniquePrefix(t)
	a := NewRedis(foliotest.RedisPool(t), prefix)
	b := NewRedis(foliotest.RedisPool(t), prefix)
	rl := folio.RateLimit{Limit: 4, Window: time.Hour}

	for i, l := range []*Redis{a, b, a, b} {
		d := mustAllow(t, l, "public:192.0.2.10", rl)
		if want := rl.Limit - i - 1; !d.Allowed || d.Remaining != want {
			t.Fatalf("request %d: Allowed, Remaining = %t, %d; want true, %d", i+1, d.Allowed, d.Remaining, want)
		}
	}
	for name, l := range map[string]*Redis{"a": a, "b": b} {
		if d := mustAllow(t, l, "public:192.0.2.10", rl); d.Allowed || d.RetryAfter <= 0 {
			t.Errorf("instance %s over the shared limit: got %+v, want denied with RetryAfter > 0", name, d)
		}
	}
}

// TestRedisUnreachable: with no server, Allow returns an error (the HTTP layer fails open)
// instead of a decision.
func TestRedisUnreachable(t *testing.T) {
	t.Parallel()
	// Port 1 on loopback refuses connections; no test Redis needed.
	r := NewRedis(foliotest.UnreachableRedis(t), "folio-test:")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d, err := r.Allow(ctx, "k", folio.RateLimit{Limit: 1, Window: time.Second})
	if err == nil {
		t.Fatalf("Allow with Redis down: got %+v and no error, want an error", d)
	}
}

// TestRedisKeyExpires: the script sets a TTL, so idle identifiers vanish from Redis on their own.
func TestRedisKeyExpires(t *testing.T) {
	t.Parallel()
	c := foliotest.RedisPool(t)
	prefix := uniquePrefix(t)
	r := NewRedis(c, prefix)
	mustAllow(t, r, "k", folio.RateLimit{Limit: 3, Window: time.Minute})
	ttl := time.Duration(foliotest.RedisDo(t, c, "PTTL", prefix+"k").(int64)) * time.Millisecond
	if ttl <= 0 || ttl > time.Minute+time.Minute/Buckets+time.Second {
		t.Errorf("PTTL = %s, want in (0, 1m+1m/Buckets+1s]", ttl)
	}
}

// TestRedisStateIndependentOfLimit: however many requests a big limit lets through, an
// identifier's hash keeps at most Buckets+4 fields (anchor, window, head and the live buckets).
func TestRedisStateIndependentOfLimit(t *testing.T) {
	t.Parallel()
	c := foliotest.RedisPool(t)
	prefix := uniquePrefix(t)
	r := NewRedis(c, prefix)
	rl := folio.RateLimit{Limit: 1_000_000, Window: 80 * time.Millisecond}
	most := int64(0)
	for i := range 300 {
		if d := mustAllow(t, r, "k", rl); !d.Allowed {
			t.Fatalf("request %d denied under a limit of %d", i, rl.Limit)
		}
		n := foliotest.RedisDo(t, c, "HLEN", prefix+"k").(int64)
		most = max(most, n)
		time.Sleep(time.Millisecond)
	}
	if most > Buckets+4 {
		t.Errorf("the identifier's hash reached %d fields, want at most %d", most, Buckets+4)
	}
}
