package ratelimit

import (
	"fmt"
	"testing"
	"time"

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
// waits until enough old requests leave the window.
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
	// Times recorded at +1s..+4s; with Limit 2 a request is allowed once +3s leaves the window.
	d := mustAllow(t, m, "k", folio.RateLimit{Limit: 2, Window: time.Minute})
	if want := start.Add(3*time.Second + time.Minute); d.Allowed || !d.Reset.Equal(want) {
		t.Errorf("got %+v, want denied with Reset %s", d, want)
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
