// Package ratelimit implements folio.Limiter in process memory (one instance) and in Redis
// (shared by every instance).
//
// Both use the same algorithm, a bucketed sliding window. Each identifier keeps its allowed
// requests as counts in Buckets+1 consecutive time buckets of Window/Buckets each, anchored at
// the identifier's first request; a bucket is forgotten once its newest possible request is a
// whole Window old. So the state of one identifier is a fixed few dozen bytes whatever the limit
// is (an exact sliding-window log keeps one time per allowed request), and the guarantee of
// docs/api.md ("Rate limits") holds, stated conservatively:
//
//   - never more than Limit requests of one identifier are allowed in any span of Window;
//   - an allowed request counts for at least Window and at most Window + Window/Buckets after
//     it was made (exactly Window for the requests in the first bucket, the ones made at the
//     identifier's first request);
//   - X-RateLimit-Remaining is exactly how many more requests the limiter will allow right now,
//     and X-RateLimit-Reset (Reset) exactly when it next frees one.
//
// A denied request is not counted, so a client that keeps retrying is not locked out longer.
// A token bucket or GCRA would be smaller still, but lets up to twice the limit through in one
// Window; the bucketed window never does.
//
// Memory bounds the number of identifiers it tracks (MaxIdentifiers): identifiers whose buckets
// have all been forgotten are swept, and when the bound is reached a new identifier evicts the
// least recently used of a few sampled ones (as Redis's approximate LRU does). A flood of
// distinct identifiers therefore costs at most MaxIdentifiers entries; the price is that an
// evicted identifier starts afresh. Redis keeps the same state in a small hash per identifier
// whose TTL ends when its last bucket is forgotten.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/foliohq/folio"
)

// Buckets is how many buckets one Window is cut into: the limiter frees a request at most
// Window/Buckets later than an exact log would.
const Buckets = 8

// ring is how many buckets can hold counted requests at once.
const ring = Buckets + 1

// DefaultMaxIdentifiers is the identifier bound of NewMemory.
const DefaultMaxIdentifiers = 100_000

// sweepEvery is how often Memory drops identifiers whose buckets have all been forgotten.
const sweepEvery = time.Minute

// evictionSample is how many identifiers are compared to pick the one to evict.
const evictionSample = 8

// Memory is a folio.Limiter for a single instance. It is safe for concurrent use.
type Memory struct {
	now     func() time.Time
	maxKeys int

	mu        sync.Mutex
	keys      map[string]*window
	lastSweep int64
}

// window is the state of one identifier: bucket i (relative to anchor) holds the requests
// allowed in (anchor+(i-1)·width, anchor+i·width] and is forgotten at anchor+i·width+span.
type window struct {
	anchor int64 // Unix ns of the identifier's first request in this state
	span   int64 // the Window in ns
	head   int64 // index of the newest bucket
	counts [ring]uint32
}

// NewMemory returns an empty in-memory limiter reading the clock through now (time.Now when nil)
// and tracking at most DefaultMaxIdentifiers identifiers.
func NewMemory(now func() time.Time) *Memory {
	return NewMemoryBounded(now, DefaultMaxIdentifiers)
}

// NewMemoryBounded is NewMemory tracking at most maxIdentifiers identifiers (at least 1).
func NewMemoryBounded(now func() time.Time, maxIdentifiers int) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, maxKeys: max(maxIdentifiers, 1), keys: make(map[string]*window)}
}

func width(span int64) int64 { return max(span/Buckets, 1) }

// floorDiv is a/b rounded towards minus infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// ceilDiv is a/b rounded towards plus infinity (b > 0).
func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// lowest returns the index of the oldest bucket not yet forgotten at now.
func (w *window) lowest(now int64) int64 {
	return floorDiv(now-w.anchor-w.span, width(w.span)) + 1
}

// forgetAt is the moment bucket i is forgotten.
func (w *window) forgetAt(i int64) int64 { return w.anchor + i*width(w.span) + w.span }

// dead reports whether every bucket has been forgotten at now.
func (w *window) dead(now int64) bool { return now >= w.forgetAt(w.head) }

// Allow implements folio.Limiter.
func (m *Memory) Allow(_ context.Context, key string, rl folio.RateLimit) (folio.RateDecision, error) {
	if err := checkRule(rl); err != nil {
		return folio.RateDecision{}, err
	}
	at := m.now()
	now := at.UnixNano()
	span := int64(rl.Window)

	m.mu.Lock()
	defer m.mu.Unlock()
	if now-m.lastSweep >= int64(sweepEvery) {
		m.sweep(now)
		m.lastSweep = now
	}

	w := m.keys[key]
	if w == nil {
		w = m.newWindow()
		m.keys[key] = w
	}
	if w.span != span || w.anchor == 0 || w.dead(now) {
		*w = window{anchor: now, span: span}
	}
	d := w.take(now, uint32(min(rl.Limit, 1<<31)))
	d.Limit = rl.Limit
	d.Reset = d.Reset.In(at.Location())
	if !d.Allowed {
		d.RetryAfter = d.Reset.Sub(at)
	}
	return d, nil
}

// Peek implements folio.Limiter: Allow's decision without counting the request. It runs the
// same step on a copy of the identifier's window, so the answer is exactly Allow's.
func (m *Memory) Peek(_ context.Context, key string, rl folio.RateLimit) (folio.RateDecision, error) {
	if err := checkRule(rl); err != nil {
		return folio.RateDecision{}, err
	}
	at := m.now()
	now := at.UnixNano()
	span := int64(rl.Window)
	m.mu.Lock()
	var w window
	if cur := m.keys[key]; cur != nil {
		w = *cur
	}
	m.mu.Unlock()
	if w.span != span || w.anchor == 0 || w.dead(now) {
		w = window{anchor: now, span: span}
	}
	d := w.take(now, uint32(min(rl.Limit, 1<<31)))
	d.Limit = rl.Limit
	d.Reset = d.Reset.In(at.Location())
	if !d.Allowed {
		d.RetryAfter = d.Reset.Sub(at)
	}
	return d, nil
}

// take advances w to now and counts one request if the limit allows it.
func (w *window) take(now int64, limit uint32) folio.RateDecision {
	cur := max(ceilDiv(now-w.anchor, width(w.span)), w.head)
	for j := w.head + 1; j <= cur && j <= w.head+ring; j++ {
		w.counts[j%ring] = 0
	}
	w.head = cur
	lo := max(w.lowest(now), 0, cur-Buckets)
	var sum uint64
	for j := lo; j <= cur; j++ {
		sum += uint64(w.counts[j%ring])
	}
	var d folio.RateDecision
	if sum < uint64(limit) {
		w.counts[cur%ring]++
		d.Allowed = true
		d.Remaining = int(uint64(limit) - sum - 1)
		for j := lo; j <= cur; j++ {
			if w.counts[j%ring] > 0 {
				d.Reset = time.Unix(0, w.forgetAt(j))
				break
			}
		}
		return d
	}
	// Denied: a request is allowed again once enough of the oldest buckets are forgotten to
	// bring the count below the limit (it may have been lowered since they were counted).
	for j := lo; j <= cur; j++ {
		sum -= uint64(w.counts[j%ring])
		if sum < uint64(limit) {
			d.Reset = time.Unix(0, w.forgetAt(j))
			break
		}
	}
	return d
}

// newWindow makes room for one more identifier, evicting one when the bound is reached, and
// returns a window to fill (the evicted one's, when there was one). Callers hold m.mu.
func (m *Memory) newWindow() *window {
	if len(m.keys) < m.maxKeys {
		return &window{}
	}
	var victim string
	var oldest int64
	n := 0
	for k, w := range m.keys {
		last := w.anchor + w.head*width(w.span)
		if n == 0 || last < oldest {
			victim, oldest = k, last
		}
		if n++; n == evictionSample {
			break
		}
	}
	w := m.keys[victim]
	delete(m.keys, victim)
	*w = window{}
	return w
}

// sweep drops every identifier whose buckets have all been forgotten. Callers hold m.mu.
func (m *Memory) sweep(now int64) {
	for k, w := range m.keys {
		if w.dead(now) {
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
