package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/foliohq/folio"
)

// slidingLogScript is the whole check, run atomically by Redis: one script call per Allow, so
// concurrent requests on any number of instances cannot both take the last slot. The log is a
// sorted set of request times in microseconds. Time comes from Redis's own clock (TIME), so
// instances whose clocks disagree still share one window.
//
// KEYS[1] = the identifier's sorted set
// ARGV[1] = limit, ARGV[2] = window in microseconds, ARGV[3] = a random member for this request
// (times alone could collide within one microsecond)
// Returns {allowed 0|1, remaining, reset µs, now µs}.
var slidingLogScript = redis.NewScript(`
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count < limit then
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, math.ceil(window / 1000) + 1)
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {1, limit - count - 1, tonumber(oldest[2]) + window, now}
end
local freeing = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
return {0, 0, tonumber(freeing[2]) + window, now}
`)

// peekScript is slidingLogScript without the ZADD: the decision a request would get, with
// nothing recorded. Returns {allowed 0|1, remaining after one more, reset µs (0: empty), now µs}.
var peekScript = redis.NewScript(`
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count == 0 then
  return {1, limit - 1, now + window, now}
end
if count < limit then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {1, limit - count - 1, tonumber(oldest[2]) + window, now}
end
local freeing = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
return {0, 0, tonumber(freeing[2]) + window, now}
`)

// Redis is a folio.Limiter whose counts live in Redis and are shared by every instance using the
// same server and prefix. It is safe for concurrent use.
type Redis struct {
	client *redis.Client
	prefix string
}

// NewRedis returns a limiter storing its logs under prefix+key in client's database. The client's
// dial and read timeouts bound how long Allow waits when Redis is unreachable.
func NewRedis(client *redis.Client, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// Allow implements folio.Limiter. It returns an error, never a decision, when Redis cannot be
// reached or answers unexpectedly; the HTTP layer then fails open.
func (r *Redis) Allow(ctx context.Context, key string, rl folio.RateLimit) (folio.RateDecision, error) {
	if err := checkRule(rl); err != nil {
		return folio.RateDecision{}, err
	}
	windowMicros := rl.Window.Microseconds()
	if windowMicros < 1 {
		windowMicros = 1
	}
	var nonce [12]byte
	_, _ = rand.Read(nonce[:])

	res, err := slidingLogScript.Run(ctx, r.client, []string{r.prefix + key},
		rl.Limit, windowMicros, hex.EncodeToString(nonce[:])).Int64Slice()
	return decision(res, err, rl)
}

// Peek implements folio.Limiter: Allow's decision, computed by Redis, with nothing recorded.
func (r *Redis) Peek(ctx context.Context, key string, rl folio.RateLimit) (folio.RateDecision, error) {
	if err := checkRule(rl); err != nil {
		return folio.RateDecision{}, err
	}
	res, err := peekScript.Run(ctx, r.client, []string{r.prefix + key}, rl.Limit, max(rl.Window.Microseconds(), 1)).Int64Slice()
	return decision(res, err, rl)
}

// decision reads a script's {allowed, remaining, reset µs, now µs}.
func decision(res []int64, err error, rl folio.RateLimit) (folio.RateDecision, error) {
	if err != nil {
		return folio.RateDecision{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	if len(res) != 4 {
		return folio.RateDecision{}, fmt.Errorf("ratelimit: redis: script returned %d values, want 4", len(res))
	}
	reset := time.UnixMicro(res[2])
	now := time.UnixMicro(res[3])
	d := folio.RateDecision{
		Allowed:   res[0] == 1,
		Limit:     rl.Limit,
		Remaining: int(res[1]),
		Reset:     reset,
	}
	if !d.Allowed {
		d.RetryAfter = max(reset.Sub(now), time.Microsecond)
	}
	return d, nil
}
