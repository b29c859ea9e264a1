// Package ratelimit implements folio.Limiter in process memory (one instance) and in Redis
// (shared by every instance).
//
// Both use the same algorithm, a sliding-window log: each identifier keeps the times of the
// requests it was allowed during the last Window. A request is allowed while fewer than Limit
// times are in the window, and then its time is recorded; a denied request is not recorded, so
// a client that keeps retrying is not locked out for longer. This enforces the contract literally
// ("at most N per identifier in any span of Window"), unlike a token bucket or GCRA, which let up
// to twice the limit through across a window boundary. It also makes X-RateLimit-Reset exact:
// the window frees a request when the oldest recorded time is Window old. The cost is Limit
// timestamps per busy identifier (100 for an IP on the public tier, 5000 at most for an admin
// key), which is small.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/foliohq/folio"
)

// sweepEvery is how often Memory drops identifiers whose windows have emptied, which bounds its
// memory by the identifiers seen in the last Window plus this interval.
const sweepEvery = time.Minute

// Memory is a folio.Limiter for a single instance. It is safe for concurrent use.
type Memory struct {
	now func() time.Time

	mu        sync.Mutex
	keys      map[string]*window
	lastSweep time.Time
}

// window is the log of one identifier: the allowed request times still inside the window,
// oldest first, as Unix nanoseconds (8 bytes each rather than time.Time's 24: a busy window
// holds Limit of them).
type window struct {
	times []int64
	span  time.Duration // the Window it was last used with, for the sweep
}

// NewMemory returns an empty in-memory limiter reading the clock through now (time.Now when nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, keys: make(map[string]*window)}
}

// Allow implements folio.Limiter.
func (m *Memory) Allow(_ context.Context, key string, rl folio.RateLimit) (folio.RateDecision, error) {
	if err := checkRule(rl); err != nil {
		return folio.RateDecision{}, err
	}
	now := m.now()

	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Sub(m.lastSweep) >= sweepEvery {
		m.sweep(now)
		m.lastSweep = now
	}

	w := m.keys[key]
	if w == nil {
		w = &window{}
		m.keys[key] = w
	}
	w.span = rl.Window
	w.expire(now.Add(-rl.Window))

	d := folio.RateDecision{Limit: rl.Limit}
	if len(w.times) < rl.Limit {
		w.times = append(w.times, now.UnixNano())
		d.Allowed = true
		d.Remaining = rl.Limit - len(w.times)
		d.Reset = time.Unix(0, w.times[0]).In(now.Location()).Add(rl.Window)
		return d, nil
	}
	// The limit may have been lowered since these times were recorded: the request is allowed
	// again once all but Limit-1 of them have left the window.
	d.Reset = time.Unix(0, w.times[len(w.times)-rl.Limit]).In(now.Location()).Add(rl.Window)
	d.RetryAfter = d.Reset.Sub(now)
	return d, nil
}

// Peek implements folio.Limiter: Allow's decision without recording the request.
func (m *Memory) Peek(_ context.Context, key string, rl folio.RateLimit) (folio.RateDecision, error) {
	if err := checkRule(rl); err != nil {
		return folio.RateDecision{}, err
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	d := folio.RateDecision{Limit: rl.Limit}
	w := m.keys[key]
	if w != nil {
		w.expire(now.Add(-rl.Window))
	}
	if w == nil || len(w.times) == 0 {
		d.Allowed, d.Remaining, d.Reset = true, rl.Limit-1, now.Add(rl.Window)
		return d, nil
	}
	if len(w.times) < rl.Limit {
		d.Allowed, d.Remaining = true, rl.Limit-len(w.times)-1
		d.Reset = time.Unix(0, w.times[0]).In(now.Location()).Add(rl.Window)
		return d, nil
	}
	d.Reset = time.Unix(0, w.times[len(w.times)-rl.Limit]).In(now.Location()).Add(rl.Window)
	d.RetryAfter = d.Reset.Sub(now)
	return d, nil
}

// expire drops the times at or before cutoff (a time exactly Window old is out of the window).
func (w *window) expire(cutoff time.Time) {
	c := cutoff.UnixNano()
	i := 0
	for i < len(w.times) && w.times[i] <= c {
		i++
	}
	if i == 0 {
		return
	}
	// Copy down rather than reslice, so the backing array does not grow without bound.
	n := copy(w.times, w.times[i:])
	clear(w.times[n:])
	w.times = w.times[:n]
}

// sweep drops every identifier whose newest time has left its window. Callers hold m.mu.
func (m *Memory) sweep(now time.Time) {
	for k, w := range m.keys {
		if len(w.times) == 0 || w.times[len(w.times)-1] <= now.Add(-w.span).UnixNano() {
			delete(m.keys, k)
		}
	}
}

// Len returns the number of identifiers currently tracked (for tests and metrics).
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keys)
}

var errBadRule = errors.New("ratelimit: limit and window must be positive")

func checkRule(rl folio.RateLimit) error {
	if rl.Limit <= 0 || rl.Window <= 0 {
		return fmt.Errorf("%w (limit %d, window %s)", errBadRule, rl.Limit, rl.Window)
	}
	return nil
}
