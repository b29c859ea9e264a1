package cli

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/foliohq/folio/internal/config"
)

// newRedis returns the one Redis connection pool of a serve process (rate limits and the listing
// cache share it), or nil when REDIS_URL is unset. A Redis outage must cost a request little:
// one dial per attempt with short timeouts, no retries; the callers fail open.
func newRedis(cfg *config.Config) (*redis.Pool, error) {
	if cfg.RedisURL == "" {
		return nil, nil
	}
	if u, err := url.Parse(cfg.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
		return nil, errors.New("config: REDIS_URL is not a redis:// URL") // the URL may hold a password: not echoed
	}
	return RedisPool(cfg.RedisURL), nil
}

// RedisPool is a connection pool to the Redis server at rawURL (redis:// or rediss://, with an
// optional password and database number) with serve's timeouts.
func RedisPool(rawURL string) *redis.Pool {
	return &redis.Pool{
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			return redis.DialURLContext(ctx, rawURL, redis.DialConnectTimeout(time.Second),
				redis.DialReadTimeout(500*time.Millisecond), redis.DialWriteTimeout(500*time.Millisecond))
		},
		MaxIdle:     16,
		IdleTimeout: 5 * time.Minute,
		// A connection the server closed while idle is found by the first command on it; one
		// PING before reuse after a minute of idleness costs less than a failed request.
		TestOnBorrow: func(c redis.Conn, since time.Time) error {
			if time.Since(since) < time.Minute {
				return nil
			}
			_, err := c.Do("PING")
			return err
		},
	}
}
