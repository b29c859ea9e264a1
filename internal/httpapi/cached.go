package httpapi

import (
	"net/http"

	"github.com/foliohq/folio/internal/httpapi/respcache"
)

// serveCached answers a public GET from the response cache, or renders it with the route's
// handler, stores it and answers. A request whose query the route does not declare is rendered
// and answered without the cache.
func (s *Server) serveCached(w http.ResponseWriter, r *http.Request, rt *route) error {
	handle := s.boundedFunc(rt.Handle)
	key, ok := respcache.Key(r.URL.Path, r.URL.RawQuery, rt.queryNames)
	if !ok {
		s.metrics.cacheBypass.Inc()
		return handle(w, r)
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

// etagOf is a strong validator of a rendered body (the feeds and the sitemap set their own).
func etagOf(body []byte) string { return respcache.ETag(body) }
