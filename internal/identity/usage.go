package identity

import (
	"context"
	"sync"
	"time"

	"github.com/foliohq/folio"
)

// keyUsage keeps API keys' last-use times in memory, so authenticating a request costs no
// database write; Flush writes the new ones in one batch.
type keyUsage struct {
	mu    sync.Mutex
	seen  map[string]time.Time // latest use this instance has seen, per key id
	dirty map[string]bool      // keys whose latest use is not yet written
}

func (u *keyUsage) record(keyID string, at time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if prev, ok := u.seen[keyID]; ok && !at.After(prev) {
		return
	}
	if len(u.seen) >= 100_000 { // bound memory if keys churn; only written entries are dropped
		for k := range u.seen {
			if !u.dirty[k] {
				delete(u.seen, k)
			}
		}
	}
	u.seen[keyID] = at
	u.dirty[keyID] = true
}

// latest returns the last use of keyID seen by this instance.
func (u *keyUsage) latest(keyID string) (time.Time, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	t, ok := u.seen[keyID]
	return t, ok
}

// LastUsed merges this instance's unwritten last-use time into k.
func (s *Service) LastUsed(k *folio.APIKey) {
	if t, ok := s.usage.latest(k.ID); ok && (k.LastUsedAt == nil || t.After(*k.LastUsedAt)) {
		t = t.UTC().Truncate(time.Microsecond)
		k.LastUsedAt = &t
	}
}

// Flush writes the last-use times recorded since the previous flush. On failure they are kept
// for the next one.
func (s *Service) Flush(ctx context.Context) error {
	s.usage.mu.Lock()
	batch := make(map[string]time.Time, len(s.usage.dirty))
	for k := range s.usage.dirty {
		batch[k] = s.usage.seen[k]
	}
	clear(s.usage.dirty)
	s.usage.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := s.store.TouchAPIKeys(ctx, batch); err != nil {
		s.usage.mu.Lock()
		for k := range batch {
			s.usage.dirty[k] = true
		}
		s.usage.mu.Unlock()
		return err
	}
	return nil
}

// Run flushes last-use times every interval (DefaultUsageFlush when ≤ 0) until ctx ends, then
// once more, so a clean shutdown loses none.
func (s *Service) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultUsageFlush
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := s.Flush(fctx); err != nil {
				s.cfg.Logger.Warn("could not write API keys' last-use times at shutdown", "error", err.Error())
			}
			return
		case <-t.C:
			if err := s.Flush(ctx); err != nil && ctx.Err() == nil {
				s.cfg.Logger.Warn("could not write API keys' last-use times; will retry", "error", err.Error())
			}
		}
	}
}
