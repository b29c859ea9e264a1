package ratelimit

import (
	"context"
	"fmt"

	"github.com/gomodule/redigo/redis"
)

// Refund gives back the most recent request counted for key: the caller learned that the
// request should not have used up the budget (a booking that lost a race to another visitor;
// docs/api.md, "Rate limits"). It takes one from the newest bucket still holding a request. Refunding a key with
// nothing counted does nothing.
func (m *Memory) Refund(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.keys[key]
	if w == nil {
		return nil
	}
	for j := w.head; j >= max(w.head-Buckets, 0); j-- {
		if w.counts[j%ring] > 0 {
			w.counts[j%ring]--
			return nil
		}
	}
	return nil
}

// refundScript takes one request from the newest bucket of the identifier's hash that holds one
// (see bucketedWindowScript), atomically, so concurrent refunds each remove one.
var refundScript = redis.NewScript(1, `
local raw = redis.call('HGETALL', KEYS[1])
local newest = nil
for i = 1, #raw, 2 do
  local j = tonumber(raw[i])
  if j ~= nil and tonumber(raw[i + 1]) > 0 and (newest == nil or j > newest) then newest = j end
end
if newest ~= nil then
  redis.call('HINCRBY', KEYS[1], string.format('%.0f', newest), -1)
end
return 0
`)

// Refund implements the same for Redis.
func (r *Redis) Refund(ctx context.Context, key string) error {
	if _, err := r.script(ctx, refundScript, key); err != nil {
		return fmt.Errorf("ratelimit: redis refund: %w", err)
	}
	return nil
}
