package cache

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/foliohq/folio"
)

// Redis is a folio.Cache in Redis, shared by every instance using the same server and prefix.
// A value is stored as 8 bytes of its store time (Unix microseconds, big-endian) followed by the
// value, with the keep time as the key's expiry; generations are INCR counters.
type Redis struct {
	pool   *redis.Pool
	prefix string
	now    func() time.Time
}

var _ folio.Cache = (*Redis)(nil)

// NewRedis returns a cache storing its keys under prefix in pool's database, stamping entries
// with now (nil means time.Now). The pool's timeouts bound how long a call waits when Redis is
// unreachable; callers treat an error as a miss.
func NewRedis(pool *redis.Pool, prefix string, now func() time.Time) *Redis {
	if now == nil {
		now = time.Now
	}
	return &Redis{pool: pool, prefix: prefix, now: now}
}

// do runs one command in a connection of the pool.
func (r *Redis) do(ctx context.Context, cmd string, args ...any) (any, error) {
	conn, err := r.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return redis.DoContext(conn, ctx, cmd, args...)
}

const stampLen = 8

func (r *Redis) entryKey(key string) string { return r.prefix + "e:" + key }
func (r *Redis) genKey(scope string) string { return r.prefix + "g:" + scope }

// Get implements folio.Cache.
func (r *Redis) Get(ctx context.Context, key string) (folio.CacheEntry, bool, error) {
	b, err := redis.Bytes(r.do(ctx, "GET", r.entryKey(key)))
	if errors.Is(err, redis.ErrNil) {
		return folio.CacheEntry{}, false, nil
	}
	if err != nil {
		return folio.CacheEntry{}, false, fmt.Errorf("cache: redis get: %w", err)
	}
	if len(b) < stampLen {
		return folio.CacheEntry{}, false, nil // not written by us; treat as absent
	}
	at := time.UnixMicro(int64(binary.BigEndian.Uint64(b[:stampLen])))
	return folio.CacheEntry{Value: b[stampLen:], StoredAt: at}, true, nil
}

// Set implements folio.Cache. A keep of zero or less stores nothing.
func (r *Redis) Set(ctx context.Context, key string, value []byte, keep time.Duration) error {
	if keep <= 0 {
		return nil
	}
	b := make([]byte, stampLen, stampLen+len(value))
	binary.BigEndian.PutUint64(b, uint64(r.now().UnixMicro()))
	b = append(b, value...)
	if _, err := r.do(ctx, "SET", r.entryKey(key), b, "PX", max(keep.Milliseconds(), 1)); err != nil {
		return fmt.Errorf("cache: redis set: %w", err)
	}
	return nil
}

// DeletePrefix implements folio.Cache. It walks the matching keys with SCAN (never KEYS, which
// blocks the server) and unlinks them in batches.
func (r *Redis) DeletePrefix(ctx context.Context, prefix string) error {
	pattern := globEscape(r.entryKey(prefix)) + "*"
	conn, err := r.pool.GetContext(ctx)
	if err != nil {
		return fmt.Errorf("cache: redis scan: %w", err)
	}
	defer conn.Close()
	var cursor uint64
	for {
		var keys []any
		reply, err := redis.Values(redis.DoContext(conn, ctx, "SCAN", cursor, "MATCH", pattern, "COUNT", 500))
		if err == nil {
			_, err = redis.Scan(reply, &cursor, &keys)
		}
		if err != nil {
			return fmt.Errorf("cache: redis scan: %w", err)
		}
		if len(keys) > 0 {
			if _, err := redis.DoContext(conn, ctx, "UNLINK", keys...); err != nil {
				return fmt.Errorf("cache: redis unlink: %w", err)
			}
		}
		if cursor == 0 {
			return nil
		}
	}
}

// globEscape escapes the characters Redis glob patterns treat specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '*', '?', '[', ']', '\\', '^', '-':
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Generation implements folio.Cache.
func (r *Redis) Generation(ctx context.Context, scope string) (uint64, error) {
	s, err := redis.String(r.do(ctx, "GET", r.genKey(scope)))
	if errors.Is(err, redis.ErrNil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("cache: redis generation: %w", err)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cache: redis generation of %s is not a number", scope)
	}
	return n, nil
}

// Bump implements folio.Cache.
func (r *Redis) Bump(ctx context.Context, scope string) (uint64, error) {
	n, err := redis.Int64(r.do(ctx, "INCR", r.genKey(scope)))
	if err != nil {
		return 0, fmt.Errorf("cache: redis bump: %w", err)
	}
	return uint64(n), nil
}
