package httpapi

import (
	"net/http"

	"github.com/foliohq/folio/internal/httpapi/respcache"
)

// serveCached answers a public GET from the response cache, or renders it with the route's
// handler, stores it and answers. The cache keys on the declared query (declaredQuery).
func (s *Server) serveCached(w http.ResponseWriter, r *http.Request, rt *route) error {
	handle := s.boundedFunc(rt.Handle)
	key := respcache.Key(r.URL.Path, r.URL.RawQuery)
	if wantsActivity(r) {
		key += "\x00activity" // the same URL's ActivityPub variant (fediverse.go)
	}
	g := s.cache.Generation(rt.Cache)
	gen := g.Load()
	if e := s.cache.Get(key, gen); e != nil {
		s.metrics.cacheHit.Inc()
		return e.Write(w, r)
	}
	rec := respcache.NewRecorder()
	if err := handle(rec, respcache.Unconditional(r)); err != nil {
		return err
	}
	e := respcache.NewEntry(gen, rt.Cache, rec.Status(), rec.Header(), rec.Body())
	if e.Status() == http.StatusOK {
		s.cache.Put(key, e, g)
	}
	s.metrics.cacheMiss.Inc()
	for k, v := range rec.Header() {
		if k != "Content-Length" {
			w.Header()[k] = v
		}
	}
	return e.Write(w, r)
}

// declaredQuery is r with only the query parameters its route declares (respcache.Query), for
// the routes with a cache scope: their handler is given it, whoever asks and whether or not the
// cache is on, and the cache keys on it, so an undeclared parameter changes nothing in the
// answer and costs no render.
func declaredQuery(r *http.Request, rt *route) *http.Request {
	q, changed := respcache.Query(r.URL.RawQuery, rt.queryNames)
	if !changed {
		return r
	}
	u := *r.URL
	u.RawQuery = q
	r2 := *r // a shallow copy keeps the mux's path values; only the URL differs
	r2.URL = &u
	return &r2
}

// etagOf is a strong validator of a rendered body (the feeds and the sitemap set their own).
func etagOf(body []byte) string { return respcache.ETag(body) }
