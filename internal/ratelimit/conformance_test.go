package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
)

// harness is one limiter implementation under the shared conformance suite.
type harness struct {
	limiter folio.Limiter
	// now is the limiter's idea of the current time.
	now func() time.Time
	// waitAllowed lets time pass until key under rl is allowed again and returns that decision.
	// Memory moves its clock by exactly d and checks once; Redis sleeps and polls.
	waitAllowed func(t *testing.T, key string, rl folio.RateLimit, d time.Duration) folio.RateDecision
	// shortWindow is the window for tests that wait for it to pass.
	shortWindow time.Duration
}

func TestMemoryConformance(t *testing.T) {
	t.Parallel()
	runConformance(t, func(t *testing.T) *harness {
		clock := newFakeClock()
		m := NewMemory(clock.Now)
		return &harness{
			limiter: m,
			now:     clock.Now,
			waitAllowed: func(t *testing.T, key string, rl folio.RateLimit, d time.Duration) folio.RateDecision {
				t.Helper()
				clock.Advance(d - time.Nanosecond)
				if got := mustAllow(t, m, key, rl); got.Allowed {
					t.Fatalf("allowed %s before RetryAfter (%s) passed", time.Nanosecond, d)
				}
				clock.Advance(time.Nanosecond)
				return mustAllow(t, m, key, rl)
			},
			shortWindow: time.Hour,
		}
	})
}

func TestRedisConformance(t *testing.T) {
	t.Parallel()
	redisURL(t)
	runConformance(t, func(t *testing.T) *harness {
		r := NewRedis(foliotest.RedisPool(t), uniquePrefix(t))
		return &harness{
			limiter:     r,
			now:         time.Now,
			waitAllowed: pollAllowed(r),
			shortWindow: time.Second,
		}
	})
}

func runConformance(t *testing.T, newHarness func(t *testing.T) *harness) {
	ctx := context.Background()

	// Peek is Allow's decision without the count: it never spends the budget, and it denies
	// exactly when Allow would.
	t.Run("peek counts nothing", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		rl := folio.RateLimit{Limit: 3, Window: time.Hour}
		for range 10 {
			d, err := h.limiter.Peek(ctx, "p", rl)
			if err != nil || !d.Allowed || d.Remaining != 2 || d.Limit != 3 {
				t.Fatalf("peek on an empty key: %+v %v", d, err)
			}
		}
		for i := range rl.Limit {
			mustAllow(t, h.limiter, "p", rl)
			d, err := h.limiter.Peek(ctx, "p", rl)
			if err != nil {
				t.Fatal(err)
			}
			wantAllowed := i+1 < rl.Limit
			if d.Allowed != wantAllowed || (wantAllowed && d.Remaining != rl.Limit-i-2) {
				t.Fatalf("after %d counted: peek %+v", i+1, d)
			}
			if !wantAllowed && (d.RetryAfter <= 0 || d.RetryAfter > rl.Window) {
				t.Fatalf("denied peek without a sane RetryAfter: %+v", d)
			}
		}
		if d := mustAllow(t, h.limiter, "p", rl); d.Allowed {
			t.Fatal("Allow allowed what Peek denied")
		}
	})

	t.Run("allows limit then denies", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		rl := folio.RateLimit{Limit: 5, Window: time.Hour}
		start := h.now()
		for i := range rl.Limit {
			d := mustAllow(t, h.limiter, "k", rl)
			if !d.Allowed {
				t.Fatalf("request %d: denied, want allowed", i+1)
			}
			if got, want := d.Remaining, rl.Limit-i-1; got != want {
				t.Errorf("request %d: Remaining = %d, want %d", i+1, got, want)
			}
			if d.Limit != rl.Limit {
				t.Errorf("request %d: Limit = %d, want %d", i+1, d.Limit, rl.Limit)
			}
			if d.RetryAfter != 0 {
				t.Errorf("request %d: RetryAfter = %s on an allowed request, want 0", i+1, d.RetryAfter)
			}
			checkResetNear(t, d.Reset, start.Add(rl.Window))
		}
		for i := range 3 {
			d := mustAllow(t, h.limiter, "k", rl)
			if d.Allowed {
				t.Fatalf("request %d over the limit: allowed, want denied", i+1)
			}
			if d.Remaining != 0 || d.Limit != rl.Limit {
				t.Errorf("denied: Remaining, Limit = %d, %d; want 0, %d", d.Remaining, d.Limit, rl.Limit)
			}
			if d.RetryAfter <= 0 || d.RetryAfter > rl.Window {
				t.Errorf("denied: RetryAfter = %s, want in (0, %s]", d.RetryAfter, rl.Window)
			}
			checkResetNear(t, d.Reset, start.Add(rl.Window))
		}
	})

	t.Run("keys are independent", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		rl := folio.RateLimit{Limit: 2, Window: time.Hour}
		for range rl.Limit {
			mustAllow(t, h.limiter, "public:192.0.2.1", rl)
		}
		if d := mustAllow(t, h.limiter, "public:192.0.2.1", rl); d.Allowed {
			t.Fatal("third request for the first key allowed, want denied")
		}
		d := mustAllow(t, h.limiter, "public:192.0.2.2", rl)
		if !d.Allowed || d.Remaining != rl.Limit-1 {
			t.Errorf("second key: Allowed, Remaining = %t, %d; want true, %d", d.Allowed, d.Remaining, rl.Limit-1)
		}
	})

	t.Run("window frees requests again", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		rl := folio.RateLimit{Limit: 2, Window: h.shortWindow}
		for range rl.Limit {
			mustAllow(t, h.limiter, "k", rl)
		}
		denied := mustAllow(t, h.limiter, "k", rl)
		if denied.Allowed {
			t.Fatal("request over the limit allowed")
		}
		d := h.waitAllowed(t, "k", rl, denied.RetryAfter)
		if !d.Allowed {
			t.Fatalf("after RetryAfter: denied, want allowed")
		}
	})

	t.Run("concurrent requests never exceed the limit", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		rl := folio.RateLimit{Limit: 25, Window: time.Hour}
		var allowed atomic.Int64
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				for range 10 {
					d, err := h.limiter.Allow(ctx, "shared", rl)
					if err != nil {
						t.Error(err)
						return
					}
					if d.Allowed {
						allowed.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if got := allowed.Load(); got != int64(rl.Limit) {
			t.Errorf("allowed %d of 100 concurrent requests, want exactly %d", got, rl.Limit)
		}
	})

	t.Run("rejects a rule that is not positive", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		for _, rl := range []folio.RateLimit{{Limit: 0, Window: time.Hour}, {Limit: 1, Window: 0}, {Limit: -1, Window: -time.Second}} {
			if _, err := h.limiter.Allow(ctx, "k", rl); err == nil {
				t.Errorf("Allow(%+v): no error, want one", rl)
			}
		}
	})
}

// checkResetNear allows a little slack because Redis stamps requests with its own clock.
func checkResetNear(t *testing.T, got, want time.Time) {
	t.Helper()
	if diff := got.Sub(want); diff < -time.Second || diff > time.Second {
		t.Errorf("Reset = %s, want about %s", got.Format(time.RFC3339Nano), want.Format(time.RFC3339Nano))
	}
}

func mustAllow(t *testing.T, l folio.Limiter, key string, rl folio.RateLimit) folio.RateDecision {
	t.Helper()
	d, err := l.Allow(context.Background(), key, rl)
	if err != nil {
		t.Fatalf("Allow(%q): %v", key, err)
	}
	return d
}

// fakeClock is a manually advanced clock for the memory limiter.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// redisURL returns FOLIO_TEST_REDIS_URL or skips the test.
func redisURL(t *testing.T) string {
	t.Helper()
	url := os.Getenv("FOLIO_TEST_REDIS_URL")
	if url == "" {
		t.Skip("FOLIO_TEST_REDIS_URL is not set; set it (e.g. redis://127.0.0.1:6379/0) to run the Redis limiter tests")
	}
	return url
}

// uniquePrefix keeps parallel tests (and earlier runs) from sharing keys, and deletes the
// test's keys afterwards.
func uniquePrefix(t *testing.T) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := fmt.Sprintf("folio-test:ratelimit:%s:%s:", t.Name(), hex.EncodeToString(b[:]))
	pool := foliotest.RedisPool(t)
	t.Cleanup(func() { foliotest.RedisDeletePrefix(t, pool, prefix) })
	return prefix
}

// pollAllowed sleeps until RetryAfter has passed, then asks again every 20 ms until allowed.
// It makes no claim about how long that took; it only fails after a generous deadline.
func pollAllowed(l folio.Limiter) func(t *testing.T, key string, rl folio.RateLimit, d time.Duration) folio.RateDecision {
	return func(t *testing.T, key string, rl folio.RateLimit, d time.Duration) folio.RateDecision {
		t.Helper()
		time.Sleep(d)
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := mustAllow(t, l, key, rl)
			if got.Allowed || time.Now().After(deadline) {
				return got
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
