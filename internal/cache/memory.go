// Package cache implements folio.Cache in process memory (one instance) and in Redis (shared by
// every instance using the same server and key prefix).
package cache

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/foliohq/folio"
)

// DefaultMaxEntries bounds a Memory cache when NewMemory is given 0.
const DefaultMaxEntries = 10_000

// Memory is a folio.Cache held in this process. It is bounded: when full, expired entries go
// first, then the oldest ones.
type Memory struct {
	now func() time.Time
	max int

	mu   sync.Mutex
	ents map[string]memEntry
	gens map[string]uint64
}

type memEntry struct {
	value    []byte
	storedAt time.Time
	expires  time.Time
}

var _ folio.Cache = (*Memory)(nil)

// NewMemory returns an empty Memory cache using now as its clock (nil means time.Now) and holding
// at most maxEntries entries (0 means DefaultMaxEntries).
func NewMemory(now func() time.Time, maxEntries int) *Memory {
	if now == nil {
		now = time.Now
	}
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	return &Memory{now: now, max: maxEntries, ents: map[string]memEntry{}, gens: map[string]uint64{}}
}

// Get implements folio.Cache.
func (m *Memory) Get(_ context.Context, key string) (folio.CacheEntry, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.ents[key]
	if !ok {
		return folio.CacheEntry{}, false, nil
	}
	if !m.now().Before(e.expires) {
		delete(m.ents, key)
		return folio.CacheEntry{}, false, nil
	}
	// A copy, so a caller that changes the slice cannot change the cache.
	return folio.CacheEntry{Value: append([]byte(nil), e.value...), StoredAt: e.storedAt}, true, nil
}

// Set implements folio.Cache. A keep of zero or less stores nothing.
func (m *Memory) Set(_ context.Context, key string, value []byte, keep time.Duration) error {
	if keep <= 0 {
		return nil
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, exists := m.ents[key]; !exists && len(m.ents) >= m.max {
		m.evict(now)
	}
	m.ents[key] = memEntry{value: append([]byte(nil), value...), storedAt: now, expires: now.Add(keep)}
	return nil
}

// evict makes room for one entry: every expired entry goes; if none had expired, the one stored
// longest ago goes.
func (m *Memory) evict(now time.Time) {
	var oldestKey string
	var oldest time.Time
	removed := false
	for k, e := range m.ents {
		if !now.Before(e.expires) {
			delete(m.ents, k)
			removed = true
			continue
		}
		if oldestKey == "" || e.storedAt.Before(oldest) {
			oldestKey, oldest = k, e.storedAt
		}
	}
	if !removed && oldestKey != "" {
		delete(m.ents, oldestKey)
	}
}

// DeletePrefix implements folio.Cache.
func (m *Memory) DeletePrefix(_ context.Context, prefix string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.ents {
		if strings.HasPrefix(k, prefix) {
			delete(m.ents, k)
		}
	}
	return nil
}

// Generation implements folio.Cache.
func (m *Memory) Generation(_ context.Context, scope string) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gens[scope], nil
}

// Bump implements folio.Cache.
func (m *Memory) Bump(_ context.Context, scope string) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gens[scope]++
	return m.gens[scope], nil
}
