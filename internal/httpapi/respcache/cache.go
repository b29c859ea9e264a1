// Package respcache keeps rendered public GET responses so the hot read path skips the
// database: a byte-bounded store invalidated by scope generations, the request key built from a
// route's declared query parameters only (the handler sees only those), and the ETag /
// If-None-Match answer.
package respcache

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Cache keeps rendered public GET responses so the hot read path skips the database.
//
// Correctness rests on generations: every scope ("projects", "posts", …) has a counter that each
// write bumps (on this instance at once; on the others through the invalidation bus). A request
// reads the generation before it renders, and its entry is only stored and served while the
// generation is unchanged — so a render that raced with a write is never served.
//
// Memory is bounded in bytes, not entries (a stranger chooses how large and how many responses
// are asked for): each entry holds an exact-size copy of its body and is charged for it, entries
// are evicted by a second-chance sweep once the bound is reached, and invalidating a scope drops
// that scope's entries at once. Only the query parameters a route declares make up the key (see
// Query), so junk parameters cannot multiply entries.
//
// Keys with a query (a page of a list, a filter, a feed per tag) are as many as a stranger cares
// to ask for, while the entries worth keeping — each post, each list's first page, the feeds —
// have none. So keyed-by-query entries share a quarter of the bound (bytes and entries) and, to
// make room, evict only each other: a flood of ?page=N can never push out a plain entry.
type Cache struct {
	maxEntries int
	maxBytes   int64
	mu         sync.RWMutex
	gens       map[string]*atomic.Uint64
	ents       map[string]*Entry
	scopes     map[string]map[string]struct{} // scope → keys of its entries
	bytes      int64                          // charged size of every entry, under mu
	// queried holds the entries whose key has a query (also in ents), within their own budget.
	queried      map[string]*Entry
	queriedBytes int64
}

// queriedShare is the part of the bound (bytes and entries) keys with a query may take together.
const queriedShare = 4

// Entry is one kept response. Its header values are made once (NewEntry) and shared by every
// hit.
type Entry struct {
	gen    uint64
	status int
	body   []byte
	etag   string
	scope  string
	// The response's header values, made once and shared by every hit; modValue (Last-Modified)
	// only when the handler set one (feeds, sitemap), with modified its parsed time.
	etagValue, typeValue, lengthValue, modValue []string
	// linkValue and varyValue: a post's Webmention endpoint (Link) and its ActivityPub variant
	// (Vary: Accept), which every hit must carry as the first answer did.
	linkValue, varyValue []string
	modified             time.Time
	size                 int64
	// used is the second-chance bit: set by a hit, cleared by an eviction sweep that spares it.
	used atomic.Bool
}

// entryOverhead is what an entry costs beyond its body and key: the struct, the map slots and
// the ETag and content-type strings, rounded up.
const entryOverhead = 256

// DefaultMaxBytes is the byte bound of a cache when none is given (FOLIO_PUBLIC_CACHE_BYTES).
const DefaultMaxBytes = 64 << 20

// New returns a cache of at most maxEntries entries and maxBytes bytes (0: DefaultMaxBytes).
func New(maxEntries int, maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Cache{maxEntries: max(maxEntries, 1), maxBytes: maxBytes, gens: map[string]*atomic.Uint64{},
		ents: map[string]*Entry{}, scopes: map[string]map[string]struct{}{}, queried: map[string]*Entry{}}
}

// Generation is the generation counter of scope: read it before rendering, and Put stores
// the render only while it is unchanged.
func (c *Cache) Generation(scope string) *atomic.Uint64 {
	c.mu.RLock()
	g := c.gens[scope]
	c.mu.RUnlock()
	if g != nil {
		return g
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if g = c.gens[scope]; g == nil {
		g = new(atomic.Uint64)
		c.gens[scope] = g
	}
	return g
}

// Invalidate drops every cached response of the given scopes ("*" drops all). The generation is
// bumped first, so a render in flight for the scope is not stored afterwards (put checks it).
func (c *Cache) Invalidate(scopes ...string) {
	for _, s := range scopes {
		if s == "*" {
			c.mu.Lock()
			for _, g := range c.gens {
				g.Add(1)
			}
			clear(c.ents)
			clear(c.scopes)
			clear(c.queried)
			c.bytes, c.queriedBytes = 0, 0
			c.mu.Unlock()
			continue
		}
		c.Generation(s).Add(1)
		c.mu.Lock()
		for k := range c.scopes[s] {
			c.removeLocked(k)
		}
		delete(c.scopes, s)
		c.mu.Unlock()
	}
}

// Get returns the entry of key rendered in generation gen, nil when there is none.
func (c *Cache) Get(key string, gen uint64) *Entry {
	c.mu.RLock()
	e := c.ents[key]
	c.mu.RUnlock()
	if e == nil || e.gen != gen {
		return nil
	}
	if !e.used.Load() {
		e.used.Store(true)
	}
	return e
}

// Put stores e under key unless its generation is no longer current or it is too large to be
// worth a share of the bound (over an eighth of it), evicting others to make room.
func (c *Cache) Put(key string, e *Entry, g *atomic.Uint64) {
	e.size = int64(len(e.body)+len(key)) + entryOverhead
	if e.size > c.maxBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if g.Load() != e.gen {
		return // a write happened while rendering: the copy is stale already
	}
	if _, ok := c.ents[key]; ok {
		c.removeLocked(key)
	}
	queried := strings.IndexByte(key, '?') >= 0
	if queried {
		c.evictLocked(c.queried, &c.queriedBytes, c.maxBytes/queriedShare, max(c.maxEntries/queriedShare, 1), e.size)
	}
	c.evictLocked(c.ents, &c.bytes, c.maxBytes, c.maxEntries, e.size)
	if queried {
		c.queried[key] = e
		c.queriedBytes += e.size
	}
	c.ents[key] = e
	ks := c.scopes[e.scope]
	if ks == nil {
		ks = map[string]struct{}{}
		c.scopes[e.scope] = ks
	}
	ks[key] = struct{}{}
	c.bytes += e.size
}

func (c *Cache) removeLocked(key string) {
	e := c.ents[key]
	if e == nil {
		return
	}
	delete(c.ents, key)
	if ks := c.scopes[e.scope]; ks != nil {
		delete(ks, key)
	}
	c.bytes -= e.size
	if _, ok := c.queried[key]; ok {
		delete(c.queried, key)
		c.queriedBytes -= e.size
	}
}

// evictLocked frees room in ents (all entries, or the queried ones), whose charged size is
// *bytes, for an entry of the given size within maxBytes and maxEntries: entries not hit since
// the last sweep go first; a hit entry loses its mark and is spared once (second chance). Two
// sweeps always free enough, since the second finds every mark cleared.
func (c *Cache) evictLocked(ents map[string]*Entry, bytes *int64, maxBytes int64, maxEntries int, need int64) {
	for pass := 0; pass < 2 && (*bytes+need > maxBytes || len(ents) >= maxEntries); pass++ {
		for k, e := range ents {
			if *bytes+need <= maxBytes && len(ents) < maxEntries {
				return
			}
			if e.used.Load() && pass == 0 {
				e.used.Store(false)
				continue
			}
			c.removeLocked(k)
		}
	}
}

// EntryBodyLimit is the largest body Put keeps under a key of keyLen bytes.
func (c *Cache) EntryBodyLimit(keyLen int) int64 {
	return c.maxBytes/8 - entryOverhead - int64(keyLen)
}

// Stats reports the entries held and the bytes they are charged for.
func (c *Cache) Stats() (entries int, bytes int64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.ents), c.bytes
}

// NewEntry is the entry of a response rendered in generation gen of scope, with the rendered
// header's Content-Type and Last-Modified. A 200's body is copied to an exact-size slice: the
// recorder's buffer grew by doubling and may be twice the body.
func NewEntry(gen uint64, scope string, status int, header http.Header, body []byte) *Entry {
	if status == http.StatusOK {
		body = append(make([]byte, 0, len(body)), body...)
	}
	e := &Entry{gen: gen, status: status, body: body, scope: scope}
	e.etag = ETag(e.body)
	e.etagValue = []string{e.etag}
	e.typeValue = []string{header.Get("Content-Type")}
	e.lengthValue = []string{strconv.Itoa(len(e.body))}
	e.linkValue, e.varyValue = header.Values("Link"), header.Values("Vary")
	if lm := header.Get("Last-Modified"); lm != "" {
		if t, err := http.ParseTime(lm); err == nil {
			e.modValue, e.modified = []string{lm}, t
		}
	}
	return e
}

// Status is the status the response was rendered with.
func (e *Entry) Status() int { return e.status }
