package httpapi

import (
	"net/http"
	"slices"
	"strings"
)

// publicCORSPaths are /api routes any web page may call (Access-Control-Allow-Origin: *,
// without credentials): the analytics beacon is sent by the public site, wherever it is hosted.
// Routes that should be callable from anywhere join this set.
var publicCORSPaths = map[string]bool{
	"/api/analytics/collect": true,
}

const (
	corsAllowMethods = "GET, HEAD, POST, PUT, PATCH, DELETE"
	corsAllowHeaders = "Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Folio-Visitor, X-Request-Id"
	corsExpose       = "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id, X-Cache, Location, ETag"
	corsMaxAge       = "600"
)

// cors answers CORS preflights for /api and adds the CORS headers for browser callers from
// CORS_ALLOWED_ORIGINS (credentials allowed, so the dashboard's session cookie travels). Other
// origins get no CORS headers, so browsers keep the response from them; that is the whole
// defence CORS offers, and the Origin check on cookie-authenticated writes does the rest.
func (s *Server) cors(next http.Handler) http.Handler {
	allowed := make([]string, 0, len(s.CORSAllowedOrigins))
	for _, o := range s.CORSAllowedOrigins {
		allowed = append(allowed, normaliseOrigin(o))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		origin := r.Header.Get("Origin")
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		switch {
		case publicCORSPaths[r.URL.Path]:
			h.Set("Access-Control-Allow-Origin", "*")
			h.Set("Access-Control-Expose-Headers", corsExpose)
			if preflight {
				h.Set("Access-Control-Allow-Methods", "POST")
				h.Set("Access-Control-Allow-Headers", "Content-Type")
				h.Set("Access-Control-Max-Age", "86400")
			}
		case len(allowed) > 0:
			h.Add("Vary", "Origin")
			if origin != "" && slices.Contains(allowed, normaliseOrigin(origin)) {
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Allow-Credentials", "true")
				h.Set("Access-Control-Expose-Headers", corsExpose)
				if preflight {
					h.Add("Vary", "Access-Control-Request-Method")
					h.Add("Vary", "Access-Control-Request-Headers")
					h.Set("Access-Control-Allow-Methods", corsAllowMethods)
					h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
					h.Set("Access-Control-Max-Age", corsMaxAge)
				}
			}
		}
		if preflight {
			// Answered here, before authentication and rate limits: a preflight carries no
			// credentials and does nothing. A disallowed origin gets 204 without CORS headers,
			// which the browser treats as a refusal.
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// normaliseOrigin lower-cases an origin and drops a trailing slash, so configured and sent forms
// compare equal.
func normaliseOrigin(o string) string {
	return strings.ToLower(strings.TrimRight(strings.TrimSpace(o), "/"))
}
