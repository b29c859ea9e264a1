package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/foliohq/folio"
)

// bucketedWindowScript is the whole check, run atomically by Redis: one script call per Allow,
// so concurrent requests on any number of instances cannot both take the last slot. It is the
// algorithm of Memory (see the package comment) on a hash per identifier: field "a" is the
// anchor (µs), "s" the window (µs), "h" the newest bucket index and each other field a bucket
// index with its count, so a key holds at most Buckets+4 small fields whatever the limit. Time
// comes from Redis's own clock (TIME), so instances whose clocks disagree still share one window,
// and the key's TTL ends when its last bucket is forgotten: idle identifiers vanish on their own.
//
// KEYS[1] = the identifier's hash
// ARGV[1] = limit, ARGV[2] = window in microseconds, ARGV[3] = Buckets, ARGV[4] = "1" to peek
// (decide without writing anything: Limiter.Peek)
// Returns {allowed 0|1, remaining, reset µs, now µs}.
var bucketedWindowScript = redis.NewScript(1, `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local span = tonumber(ARGV[2])
local k = tonumber(ARGV[3])
local write = ARGV[4] ~= '1'
local width = math.max(math.floor(span / k), 1)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])

local anchor, spanSeen, head = nil, nil, 0
local counts = {}
local raw = redis.call('HGETALL', key)
for i = 1, #raw, 2 do
  local f, v = raw[i], tonumber(raw[i + 1])
  if f == 'a' then anchor = v elseif f == 's' then spanSeen = v elseif f == 'h' then head = v
  else counts[tonumber(f)] = v end
end
if anchor == nil or spanSeen ~= span or now >= anchor + head * width + span then
  anchor, head, counts = now, 0, {}
  if write then
    redis.call('DEL', key)
    redis.call('HSET', key, 'a', string.format('%.0f', anchor), 's', string.format('%.0f', span))
  end
end

local cur = math.ceil((now - anchor) / width)
if cur < head then cur = head end
local lo = math.floor((now - anchor - span) / width) + 1
local sum = 0
for j, c in pairs(counts) do
  if j < lo then
    if write then redis.call('HDEL', key, tostring(j)) end
  else
    sum = sum + c
  end
end
if cur ~= head then
  head = cur
  if write then redis.call('HSET', key, 'h', string.format('%.0f', head)) end
end

local function forgetAt(j) return anchor + j * width + span end
local ttl = math.ceil((forgetAt(head) - now) / 1000) + 1

if sum < limit then
  counts[cur] = (counts[cur] or 0) + 1
  if write then
    redis.call('HINCRBY', key, string.format('%.0f', cur), 1)
    redis.call('PEXPIRE', key, ttl)
  end
  for j = lo, cur do
    if (counts[j] or 0) > 0 then return {1, limit - sum - 1, forgetAt(j), now} end
  end
end
if write then redis.call('PEXPIRE', key, ttl) end
for j = lo, cur do
  sum = sum - (counts[j] or 0)
  if sum < limit then return {0, 0, forgetAt(j), now} end
end
return {0, 0, forgetAt(cur), now}
`)

// Redis is a folio.Limiter whose counts live in Redis and are shared by every instance using the
// same server and prefix. It is safe for concurrent use.
type Redis struct {
	pool   *redis.Pool
	prefix string
}

// NewRedis returns a limiter storing its state under prefix+key in pool's database. The pool's
// dial and read timeouts bound how long Allow waits when Redis is unreachable.
func NewRedis(pool *redis.Pool, prefix string) *Redis {
	return &Redis{pool: pool, prefix: prefix}
}

// script runs s with one key in a connection of the pool. The script is sent by its hash and,
// the first time a server lacks it, in full.
func (r *Redis) script(ctx context.Context, s *redis.Script, key string, args ...any) (any, error) {
	conn, err := r.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return s.DoContext(ctx, conn, append([]any{r.prefix + key}, args...)...)
}

// Allow implements folio.Limiter. It returns an error, never a decision, when Redis cannot be
// reached or answers unexpectedly; the HTTP layer then fails open.
func (r *Redis) Allow(ctx context.Context, key string, rl folio.RateLimit) (folio.RateDecision, error) {
	if err := checkRule(rl); err != nil {
		return folio.RateDecision{}, err
	}
	return r.run(ctx, key, rl, "0")
}

// Peek implements folio.Limiter: Allow's decision, computed by the same script in Redis, with
// nothing written.
func (r *Redis) Peek(ctx context.Context, key string, rl folio.RateLimit) (folio.RateDecision, error) {
	if err := checkRule(rl); err != nil {
		return folio.RateDecision{}, err
	}
	return r.run(ctx, key, rl, "1")
}

func (r *Redis) run(ctx context.Context, key string, rl folio.RateLimit, peek string) (folio.RateDecision, error) {
	windowMicros := max(rl.Window.Microseconds(), 1)
	res, err := redis.Int64s(r.script(ctx, bucketedWindowScript, key, rl.Limit, windowMicros, Buckets, peek))
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
