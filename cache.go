package folio

import (
	"context"
	"time"
)

// Cache is a byte-value cache for data fetched from slow or rate-limited upstreams (the external
// blog listing): in process memory for one instance, in Redis when several instances share it.
//
// Entries remember when they were stored, so the caller decides what is fresh and can still serve
// an older copy when the upstream fails. Invalidation does not delete: each scope has a
// generation counter that writers bump, callers store the generation they read with an entry and
// treat an entry of an older generation as stale. All methods are safe for concurrent use.
type Cache interface {
	// Get returns the entry stored under key; ok is false when there is none (never stored,
	// deleted, or past the keep time given to Set).
	Get(ctx context.Context, key string) (e CacheEntry, ok bool, err error)
	// Set stores value under key, stamped with the cache's clock, and keeps it for keep (which
	// should be longer than the freshness the caller wants, so stale copies remain available).
	Set(ctx context.Context, key string, value []byte, keep time.Duration) error
	// DeletePrefix removes every entry whose key starts with prefix.
	DeletePrefix(ctx context.Context, prefix string) error
	// Generation returns scope's generation counter (0 when never bumped).
	Generation(ctx context.Context, scope string) (uint64, error)
	// Bump increments scope's generation counter and returns the new value.
	Bump(ctx context.Context, scope string) (uint64, error)
}

// CacheEntry is one stored value and when it was stored.
type CacheEntry struct {
	Value    []byte
	StoredAt time.Time
}
