package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// responseCache keeps rendered public GET responses so the hot read path skips the database.
//
// Correctness rests on generations: every scope ("projects", "posts", …) has a counter that each
// write bumps (on this instance at once; on the others through the invalidation bus). A request
// reads the generation before it renders, and its entry is only stored and served while the
// generation is unchanged — so a render that raced with a write is never served.
//
// Memory is bounded in bytes, not entries (a stranger chooses how large and how many responses
// are asked for): each entry holds an exact-size copy of its body and is charged for it, entries
// are evicted by a second-chance sweep once the bound is reached, and invalidating a scope drops
// that scope's entries at once. Only the query parameters a route declares make up the key;
// requests carrying anything else are served uncached (see cacheKey), so junk parameters cannot
// multiply entries.
type responseCache struct {
	maxEntries int
	maxBytes   int64
	mu         sync.RWMutex
	gens       map[string]*atomic.Uint64
	ents       map[string]*cachedResponse
	scopes     map[string]map[string]struct{} // scope → keys of its entries
	bytes      int64                          // charged size of every entry, under mu
}

type cachedResponse struct {
	gen    uint64
	status int
	body   []byte
	etag   string
	scope  string
	// The response's header values, made once and shared by every hit; modValue (Last-Modified)
	// only when the handler set one (feeds, sitemap), with modified its parsed time.
	etagValue, typeValue, lengthValue, modValue []string
	modified                                    time.Time
	size                                        int64
	// used is the second-chance bit: set by a hit, cleared by an eviction sweep that spares it.
	used atomic.Bool
}

// entryOverhead is what an entry costs beyond its body and key: the struct, the map slots and
// the ETag and content-type strings, rounded up.
const entryOverhead = 256

// DefaultPublicCacheBytes is the byte bound of the public response cache when none is given
// (FOLIO_PUBLIC_CACHE_BYTES).
const DefaultPublicCacheBytes = 64 << 20

func newResponseCache(maxEntries int, maxBytes int64) *responseCache {
	if maxBytes <= 0 {
		maxBytes = DefaultPublicCacheBytes
	}
	return &responseCache{maxEntries: max(maxEntries, 1), maxBytes: maxBytes, gens: map[string]*atomic.Uint64{},
		ents: map[string]*cachedResponse{}, scopes: map[string]map[string]struct{}{}}
}

func (c *responseCache) gen(scope string) *atomic.Uint64 {
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
func (c *responseCache) Invalidate(scopes ...string) {
	for _, s := range scopes {
		if s == "*" {
			c.mu.Lock()
			for _, g := range c.gens {
				g.Add(1)
			}
			clear(c.ents)
			clear(c.scopes)
			c.bytes = 0
			c.mu.Unlock()
			continue
		}
		c.gen(s).Add(1)
		c.mu.Lock()
		for k := range c.scopes[s] {
			c.removeLocked(k)
		}
		delete(c.scopes, s)
		c.mu.Unlock()
	}
}

func (c *responseCache) get(key string, gen uint64) *cachedResponse {
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

// put stores e under key unless its generation is no longer current or it is too large to be
// worth a share of the bound (over an eighth of it), evicting others to make room.
func (c *responseCache) put(key string, e *cachedResponse, g *atomic.Uint64) {
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
	c.evictLocked(e.size)
	c.ents[key] = e
	ks := c.scopes[e.scope]
	if ks == nil {
		ks = map[string]struct{}{}
		c.scopes[e.scope] = ks
	}
	ks[key] = struct{}{}
	c.bytes += e.size
}

func (c *responseCache) removeLocked(key string) {
	e := c.ents[key]
	if e == nil {
		return
	}
	delete(c.ents, key)
	if ks := c.scopes[e.scope]; ks != nil {
		delete(ks, key)
	}
	c.bytes -= e.size
}

// evictLocked frees room for an entry of the given size: entries not hit since the last sweep go
// first; a hit entry loses its mark and is spared once (second chance). Two sweeps always free
// enough, since the second finds every mark cleared.
func (c *responseCache) evictLocked(need int64) {
	for pass := 0; pass < 2 && (c.bytes+need > c.maxBytes || len(c.ents) >= c.maxEntries); pass++ {
		for k, e := range c.ents {
			if c.bytes+need <= c.maxBytes && len(c.ents) < c.maxEntries {
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

// entryBodyLimit is the largest body put keeps under a key of keyLen bytes.
func (c *responseCache) entryBodyLimit(keyLen int) int64 {
	return c.maxBytes/8 - entryOverhead - int64(keyLen)
}

// stats reports the entries held and the bytes they are charged for.
func (c *responseCache) stats() (entries int, bytes int64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.ents), c.bytes
}

// cacheKey is the key of a request to a route that declares the query parameters in declared:
// the path and the declared parameters present, in declared order, values decoded and
// re-encoded (so spelling variants share an entry). ok is false — serve uncached — when the
// query carries an undeclared parameter, a declared one twice, or an escape that does not
// decode: junk cannot mint entries.
func cacheKey(path, rawQuery string, declared []param) (key string, ok bool) {
	if rawQuery == "" {
		return path, true
	}
	if len(declared) == 0 || len(declared) > 16 {
		return "", false
	}
	var vals [16]string
	var seen [16]bool
	n := 0 // bytes of the key's query part
	for q := rawQuery; q != ""; {
		var part string
		part, q, _ = strings.Cut(q, "&")
		if part == "" {
			continue
		}
		name, val, _ := strings.Cut(part, "=")
		if strings.ContainsAny(name, "%+;") || strings.Contains(val, ";") {
			return "", false // escaped names are not worth decoding; ';' is refused by net/url
		}
		i := -1
		for j := range declared {
			if declared[j].Name == name {
				i = j
				break
			}
		}
		if i < 0 || seen[i] {
			return "", false
		}
		if strings.ContainsAny(val, "%+") {
			v, err := url.QueryUnescape(val)
			if err != nil {
				return "", false
			}
			val = url.QueryEscape(v)
		}
		seen[i], vals[i] = true, val
		n += len(name) + len(val) + 2
	}
	var b strings.Builder
	b.Grow(len(path) + n)
	b.WriteString(path)
	sep := byte('?')
	for i, p := range declared {
		if seen[i] {
			b.WriteByte(sep)
			b.WriteString(p.Name)
			b.WriteByte('=')
			b.WriteString(vals[i])
			sep = '&'
		}
	}
	return b.String(), true
}

// etagOf is a strong validator of a response body.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// etagMatches implements If-None-Match (weak comparison, lists, and *).
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// notModified evaluates If-None-Match, or when it is absent If-Modified-Since (RFC 9110 §13.2.2)
// against the entry's Last-Modified, as http.ServeContent does for an uncached answer.
func notModified(r *http.Request, e *cachedResponse) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return etagMatches(inm, e.etag)
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" || e.modValue == nil {
		return false
	}
	t, err := http.ParseTime(ims)
	return err == nil && !e.modified.Truncate(time.Second).After(t)
}

// recorder captures a handler's response so it can be cached.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// serveCached answers a public GET from the cache, or renders it with h, stores it and answers.
// A request whose query the route does not declare is rendered and answered without the cache.
func (s *Server) serveCached(w http.ResponseWriter, r *http.Request, rt *route) error {
	handle := s.boundedFunc(rt.Handle)
	key, ok := cacheKey(r.URL.Path, r.URL.RawQuery, rt.Query)
	if !ok {
		s.metrics.cacheBypass.Inc()
		return handle(w, r)
	}
	g := s.cache.gen(rt.Cache)
	gen := g.Load()
	if e := s.cache.get(key, gen); e != nil {
		s.metrics.cacheHit.Inc()
		return writeCached(w, r, e)
	}
	rec := &recorder{header: http.Header{}}
	if err := handle(rec, unconditional(r)); err != nil {
		return err
	}
	body := rec.body.Bytes()
	if rec.status == http.StatusOK {
		// The kept copy is exact-size: the recorder's buffer grew by doubling and may be twice
		// the body.
		body = make([]byte, rec.body.Len())
		copy(body, rec.body.Bytes())
	}
	e := &cachedResponse{gen: gen, status: rec.status, body: body, scope: rt.Cache}
	e.etag = etagOf(e.body)
	e.etagValue = []string{e.etag}
	e.typeValue = []string{rec.header.Get("Content-Type")}
	e.lengthValue = []string{strconv.Itoa(len(e.body))}
	if lm := rec.header.Get("Last-Modified"); lm != "" {
		if t, err := http.ParseTime(lm); err == nil {
			e.modValue, e.modified = []string{lm}, t
		}
	}
	if e.status == http.StatusOK {
		s.cache.put(key, e, g)
	}
	s.metrics.cacheMiss.Inc()
	for k, v := range rec.header {
		if k != "Content-Length" {
			w.Header()[k] = v
		}
	}
	return writeCached(w, r, e)
}

var noCache = []string{"no-cache"}

// conditionalHeaders are the request headers a handler that serves with http.ServeContent (the
// feeds, the sitemap) would answer with a 304, 206 or 412 instead of the whole body.
var conditionalHeaders = [...]string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "Range", "If-Range"}

// unconditional is r without conditional and range headers, so that the response rendered for the
// cache is the whole body, whatever the first caller asked; writeCached answers the conditions.
func unconditional(r *http.Request) *http.Request {
	for _, k := range conditionalHeaders {
		if _, ok := r.Header[k]; ok {
			r2 := r.Clone(r.Context())
			for _, k := range conditionalHeaders {
				delete(r2.Header, k)
			}
			return r2
		}
	}
	return r
}

func writeCached(w http.ResponseWriter, r *http.Request, e *cachedResponse) error {
	h := w.Header()
	// Canonical keys set directly; the values are the entry's own, made once (headerValues) and
	// never edited.
	h["Etag"] = e.etagValue
	h["Cache-Control"] = noCache
	if e.modValue != nil {
		h["Last-Modified"] = e.modValue
	}
	if e.status == http.StatusOK && notModified(r, e) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h["Content-Type"] = e.typeValue
	h["Content-Length"] = e.lengthValue
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		_, err := w.Write(e.body)
		return err
	}
	return nil
}
