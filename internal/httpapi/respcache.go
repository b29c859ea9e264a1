package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// responseCache keeps rendered public GET responses so the hot read path skips the database.
//
// Correctness rests on generations: every scope ("projects", "posts", …) has a counter that each
// write bumps (on this instance at once; on the others through the invalidation bus). A request
// reads the generation before it renders, and its entry is only served while the generation is
// unchanged — so a render that raced with a write can be stored but never served.
type responseCache struct {
	max  int
	mu   sync.RWMutex
	gens map[string]*atomic.Uint64
	ents map[string]*cachedResponse
}

type cachedResponse struct {
	gen         uint64
	status      int
	body        []byte
	etag        string
	contentType string
}

func newResponseCache(max int) *responseCache {
	return &responseCache{max: max, gens: map[string]*atomic.Uint64{}, ents: map[string]*cachedResponse{}}
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

// Invalidate drops every cached response of the given scopes ("*" drops all).
func (c *responseCache) Invalidate(scopes ...string) {
	for _, s := range scopes {
		if s == "*" {
			c.mu.RLock()
			for _, g := range c.gens {
				g.Add(1)
			}
			c.mu.RUnlock()
			continue
		}
		c.gen(s).Add(1)
	}
}

func (c *responseCache) get(key string, gen uint64) *cachedResponse {
	c.mu.RLock()
	e := c.ents[key]
	c.mu.RUnlock()
	if e == nil || e.gen != gen {
		return nil
	}
	return e
}

func (c *responseCache) put(key string, e *cachedResponse) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ents) >= c.max {
		// Evict an arbitrary half: simple, bounded, and rare because keys are few (page × filter).
		n := 0
		for k := range c.ents {
			delete(c.ents, k)
			if n++; n >= c.max/2 {
				break
			}
		}
	}
	c.ents[key] = e
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
func (s *Server) serveCached(w http.ResponseWriter, r *http.Request, scope string, h handlerFunc) error {
	key := r.URL.Path + "?" + r.URL.RawQuery
	g := s.cache.gen(scope)
	gen := g.Load()
	if e := s.cache.get(key, gen); e != nil {
		s.metrics.cacheHits.WithLabelValues("hit").Inc()
		return writeCached(w, r, e)
	}
	rec := &recorder{header: http.Header{}}
	if err := h(rec, r); err != nil {
		return err
	}
	e := &cachedResponse{gen: gen, status: rec.status, body: rec.body.Bytes(), contentType: rec.header.Get("Content-Type")}
	e.etag = etagOf(e.body)
	if e.status == http.StatusOK {
		s.cache.put(key, e)
	}
	s.metrics.cacheHits.WithLabelValues("miss").Inc()
	for k, v := range rec.header {
		if k != "Content-Length" {
			w.Header()[k] = v
		}
	}
	return writeCached(w, r, e)
}

func writeCached(w http.ResponseWriter, r *http.Request, e *cachedResponse) error {
	h := w.Header()
	h.Set("ETag", e.etag)
	h.Set("Cache-Control", "no-cache")
	if e.status == http.StatusOK && etagMatches(r.Header.Get("If-None-Match"), e.etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", e.contentType)
	h.Set("Content-Length", strconv.Itoa(len(e.body)))
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		_, err := w.Write(e.body)
		return err
	}
	return nil
}
