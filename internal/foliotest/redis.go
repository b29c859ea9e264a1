package foliotest

import (
	"context"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
)

// RedisPool opens a connection pool to FOLIO_TEST_REDIS_URL for t, checked with a PING and
// closed when t ends. t is skipped with a message when the variable is unset.
func RedisPool(t testing.TB) *redis.Pool {
	t.Helper()
	url := RedisURL()
	if url == "" {
		t.Skip("FOLIO_TEST_REDIS_URL is not set; set it (e.g. redis://127.0.0.1:6379/0) to run the Redis tests")
	}
	p := &redis.Pool{DialContext: func(ctx context.Context) (redis.Conn, error) { return redis.DialURLContext(ctx, url) }, MaxIdle: 8}
	t.Cleanup(func() { p.Close() })
	RedisDo(t, p, "PING")
	return p
}

// UnreachableRedis is a pool whose every dial is refused (port 1 on loopback): a Redis outage.
func UnreachableRedis(t testing.TB) *redis.Pool {
	p := &redis.Pool{DialContext: func(ctx context.Context) (redis.Conn, error) {
		return redis.DialContext(ctx, "tcp", "127.0.0.1:1", redis.DialConnectTimeout(200*time.Millisecond))
	}}
	t.Cleanup(func() { p.Close() })
	return p
}

// RedisDo runs one command for a test's own checks and fails t on an error.
func RedisDo(t testing.TB, p *redis.Pool, cmd string, args ...any) any {
	t.Helper()
	c := p.Get()
	defer c.Close()
	reply, err := c.Do(cmd, args...)
	if err != nil {
		t.Fatalf("redis %s: %v", cmd, err)
	}
	return reply
}

// RedisDeletePrefix deletes every key under prefix, for a test's cleanup.
func RedisDeletePrefix(t testing.TB, p *redis.Pool, prefix string) {
	t.Helper()
	keys, err := redis.Values(RedisDo(t, p, "KEYS", prefix+"*"), nil)
	if err == nil && len(keys) > 0 {
		RedisDo(t, p, "DEL", keys...)
	}
}
