package ratelimit

import (
	"context"
	"fmt"
)

// Refund gives back the most recent request counted for key: the caller learned that the
// request should not have used up the budget (a booking that lost a race to another visitor,
// issue 16). Refunding a key with nothing counted does nothing.
func (m *Memory) Refund(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w := m.keys[key]; w != nil && len(w.times) > 0 {
		w.times = w.times[:len(w.times)-1]
	}
	return nil
}

// Refund implements the same for Redis: the newest member of the identifier's log is removed
// (ZPOPMAX is atomic, so concurrent refunds each remove one).
func (r *Redis) Refund(ctx context.Context, key string) error {
	if err := r.client.ZPopMax(ctx, r.prefix+key, 1).Err(); err != nil {
		return fmt.Errorf("ratelimit: redis refund: %w", err)
	}
	return nil
}
