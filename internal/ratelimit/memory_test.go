package ratelimit

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/foliohq/folio"
)

// TestMemorySlidingWindow pins the algorithm: the window slides with each request rather than
// restarting on the hour, so a burst at the end of one window and the start of the next cannot
// exceed the limit.
func TestMemorySlidingWindow(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock.Now)
	rl := folio.RateLimit{Limit: 3, Window: 10 * time.Second}
	start := clock.Now()

	type step struct {
		at            time.Duration // since start
		wantAllowed   bool
		wantRemaining int
		wantReset     time.Duration // since start
		wantRetry     time.Duration
	}
	steps := []step{
		{at: 0, wantAllowed: true, wantRemaining: 2, wantReset: 10 * time.Second},
		{at: 0, wantAllowed: true, wantRemaining: 1, wantReset: 10 * time.Second},
		{at: 5 * time.Second, wantAllowed: true, wantRemaining: 0, wantReset: 10 * time.Second},
		{at: 9 * time.Second, wantAllowed: false, wantReset: 10 * time.Second, wantRetry: time.Second},
		// At 10 s both requests of t=0 have left the window (a time exactly Window old is out).
		{at: 10 * time.Second, wantAllowed: true, wantRemaining: 1, wantReset: 15 * time.Second},
		{at: 10 * time.Second, wantAllowed: true, wantRemaining: 0, wantReset: 15 * time.Second},
		{at: 12 * time.Second, wantAllowed: false, wantReset: 15 * time.Second, wantRetry: 3 * time.Second},
		{at: 15 * time.Second, wantAllowed: true, wantRemaining: 0, wantReset: 20 * time.Second},
	}
	for i, s := range steps {
		clock.Advance(start.Add(s.at).Sub(clock.Now()))
		d := mustAllow(t, m, "k", rl)
		want := folio.RateDecision{Allowed: s.wantAllowed, Limit: 3, Remaining: s.wantRemaining,
			Reset: start.Add(s.wantReset), RetryAfter: s.wantRetry}
		if d != want {
			t.Errorf("step %d at +%s: got %+v, want %+v", i, s.at, d, want)
		}
	}
}

// TestMemoryLoweredLimit: when the configured limit drops below what a key already used, the key
// waits until enough old buckets are forgotten.
func TestMemoryLoweredLimit(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock.Now)
	start := clock.Now()
	for i := range 4 {
		clock.Advance(time.Second)
		if d := mustAllow(t, m, "k", folio.RateLimit{Limit: 10, Window: time.Minute}); !d.Allowed {
			t.Fatalf("request %d denied", i)
		}
	}
	// Anchored at +1s with 7.5 s buckets: bucket 0 holds +1s (forgotten at +61s), bucket 1 holds
	// +2s..+4s (forgotten at +1s+7.5s+60s). With Limit 2 a request is allowed once bucket 1 goes.
	d := mustAllow(t, m, "k", folio.RateLimit{Limit: 2, Window: time.Minute})
	if want := start.Add(68500 * time.Millisecond); d.Allowed || !d.Reset.Equal(want) {
		t.Errorf("got %+v, want denied with Reset %s", d, want)
	}
}

// TestMemoryGuarantee checks the documented guarantee against random traffic: never more than
// Limit allowed in any span of Window, and a request is denied only when at least Limit allowed
// requests lie within the last Window + Window/Buckets. Remaining and Reset must agree with what
// the limiter then does.
func TestMemoryGuarantee(t *testing.T) {
	t.Parallel()
	for seed := range 20 {
		clock := newFakeClock()
		m := NewMemory(clock.Now)
		rl := folio.RateLimit{Limit: 7, Window: 80 * time.Second}
		slack := rl.Window / Buckets
		rng := rand.New(rand.NewPCG(uint64(seed), 1))
		var allowed []time.Time
		for range 600 {
			clock.Advance(time.Duration(rng.Int64N(int64(6 * time.Second))))
			now := clock.Now()
			d := mustAllow(t, m, "k", rl)
			inWindow, inSlack := 0, 0
			for _, a := range allowed {
				if now.Sub(a) < rl.Window {
					inWindow++
				}
				if now.Sub(a) < rl.Window+slack {
					inSlack++
				}
			}
			if d.Allowed {
				if inWindow >= rl.Limit {
					t.Fatalf("seed %d at %s: allowed with %d requests already in the last %s", seed, now, inWindow, rl.Window)
				}
				allowed = append(allowed, now)
				if d.Remaining < 0 || d.Remaining > rl.Limit-1-inWindow {
					t.Fatalf("seed %d: Remaining %d, but %d requests are in the window", seed, d.Remaining, inWindow)
				}
			} else if inSlack < rl.Limit {
				t.Fatalf("seed %d at %s: denied with only %d requests in the last %s", seed, now, inSlack, rl.Window+slack)
			}
			if !d.Reset.After(now) || d.Reset.Sub(now) > rl.Window+slack {
				t.Fatalf("seed %d: Reset %s not in (now, now+%s]", seed, d.Reset.Sub(now), rl.Window+slack)
			}
		}
	}
}

// TestMemoryStateIndependentOfLimit: a huge limit costs no more state than a small one.
func TestMemoryStateIndependentOfLimit(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock.Now)
	rl := folio.RateLimit{Limit: 100_000, Window: time.Hour}
	for range 50_000 {
		clock.Advance(50 * time.Millisecond)
		mustAllow(t, m, "k", rl)
	}
	d := mustAllow(t, m, "k", rl)
	if !d.Allowed || d.Remaining != rl.Limit-50_001 {
		t.Fatalf("got %+v, want allowed with Remaining %d", d, rl.Limit-50_001)
	}
	if size := unsafe.Sizeof(*m.keys["k"]); size > 64 {
		t.Errorf("one identifier's window is %d bytes, want a fixed size of at most 64", size)
	}
}

// TestMemoryBoundedIdentifiers: a flood of distinct identifiers within one window never makes
// the limiter track more than its bound, and the newest identifier is always tracked.
func TestMemoryBoundedIdentifiers(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemoryBounded(clock.Now, 500)
	rl := folio.RateLimit{Limit: 1, Window: time.Hour}
	for i := range 20_000 {
		clock.Advance(time.Millisecond)
		key := fmt.Sprintf("public:2001:db8:%x::/64", i)
		if d := mustAllow(t, m, key, rl); !d.Allowed {
			t.Fatalf("new identifier %d denied", i)
		}
		if d := mustAllow(t, m, key, rl); d.Allowed {
			t.Fatalf("identifier %d allowed twice (the limit is 1)", i)
		}
		if got := m.Len(); got > 500 {
			t.Fatalf("Len = %d after %d identifiers, want at most 500", got, i+1)
		}
	}
}

// TestMemorySweepBoundsKeys: identifiers whose windows have emptied are dropped, so a stream of
// one-off client IPs does not grow the map forever.
func TestMemorySweepBoundsKeys(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := NewMemory(clock.Now)
	rl := folio.RateLimit{Limit: 5, Window: 30 * time.Second}
	for i := range 1000 {
		mustAllow(t, m, fmt.Sprintf("public:198.51.100.%d/%d", i%256, i), rl)
	}
	if got := m.Len(); got != 1000 {
		t.Fatalf("Len = %d after 1000 identifiers, want 1000", got)
	}
	clock.Advance(sweepEvery)
	mustAllow(t, m, "public:203.0.113.9", rl)
	if got := m.Len(); got != 1 {
		t.Errorf("Len = %d after the sweep, want 1 (only the fresh identifier)", got)
	}
}
