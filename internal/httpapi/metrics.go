package httpapi

import (
	"crypto/subtle"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/httpapi/respcache"
)

// metrics holds the server's Prometheus collectors in a registry of its own, so several servers
// in one test process never collide.
//
// Every label value comes from a fixed set (methodLabel, statusLabel, and route patterns of the
// mux or "unmatched"): a label value a stranger chooses would be a new time series kept forever,
// and enough of them exhaust memory and make /metrics itself huge.
type metrics struct {
	registry  *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	cacheHits *prometheus.CounterVec
	// The cacheHits children, resolved once (a label lookup per request costs a hash).
	cacheHit, cacheMiss prometheus.Counter
	// LimiterErrors counts rate-limit checks that failed open (e.g. Redis unreachable).
	limiterErrors prometheus.Counter
	// series holds the requests and latency children of each (route, method label, status) seen,
	// resolved once: a label lookup hashes every value under the vector's lock, on every request.
	// Routes and method labels come from fixed sets and statuses from folio's own handlers, so
	// the map is bounded; the status is kept as a number, so its label is made only on a miss.
	series sync.Map // seriesKey → requestSeries
}

type seriesKey struct {
	route, method string
	status        int
}

type requestSeries struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

func newMetrics() *metrics {
	m := &metrics{registry: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_http_requests_total", Help: "HTTP requests by route pattern, method (OTHER for any non-standard one) and status.",
	}, []string{"route", "method", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "folio_http_request_duration_seconds", Help: "HTTP request latency by route pattern.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route"})
	m.cacheHits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_response_cache_total", Help: "Public response cache lookups by result (hit, miss).",
	}, []string{"result"})
	m.cacheHit, m.cacheMiss = m.cacheHits.WithLabelValues("hit"), m.cacheHits.WithLabelValues("miss")
	m.limiterErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "folio_ratelimit_errors_total", Help: "Rate-limit checks that could not be made and failed open.",
	})
	m.registry.MustRegister(m.requests, m.latency, m.cacheHits, m.limiterErrors,
		// go_gc_heap_live_bytes (the heap the last GC found live) beside the defaults: the figure
		// that shows whether memory is held, which the allocated-heap gauges blur with garbage.
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(
			collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/gc/heap/live:bytes$`)})),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// watchCache exports the response cache's size.
func (m *metrics) watchCache(c *respcache.Cache) {
	m.registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "folio_response_cache_bytes",
			Help: "Bytes the public response cache holds (bounded by FOLIO_PUBLIC_CACHE_BYTES)."},
			func() float64 { _, b := c.Stats(); return float64(b) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "folio_response_cache_entries",
			Help: "Responses the public response cache holds."},
			func() float64 { n, _ := c.Stats(); return float64(n) }))
}

// watchAudit exports how many audit entries were dropped because the audit queue was full.
func (m *metrics) watchAudit(s *Server) {
	m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "folio_audit_dropped_total",
		Help: "Audit-log entries dropped because the audit queue was full (the database lagged)."},
		func() float64 {
			if s.Audit == nil {
				return 0
			}
			return float64(s.Audit.Dropped())
		}))
}

func (m *metrics) observe(route, method string, status int, d time.Duration) {
	k := seriesKey{route, methodLabel(method), status}
	v, ok := m.series.Load(k)
	if !ok {
		v, _ = m.series.LoadOrStore(k, requestSeries{
			requests: m.requests.WithLabelValues(route, k.method, statusLabel(status)),
			latency:  m.latency.WithLabelValues(route),
		})
	}
	rs := v.(requestSeries)
	rs.requests.Inc()
	rs.latency.Observe(d.Seconds())
}

// methodLabel is the method's metrics label: one of the standard methods, else OTHER.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "OTHER"
}

// statusCodes are the statuses folio answers with; any other is labelled by its class.
var statusCodes = map[int]string{}

func init() {
	for _, c := range []int{200, 201, 202, 204, 206, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 405, 406,
		408, 409, 410, 411, 412, 413, 414, 415, 416, 422, 429, 431, 499, 500, 501, 502, 503, 504} {
		statusCodes[c] = strconv.Itoa(c)
	}
}

// statusLabel is the status's metrics label: a code of the fixed set, else its class (2xx…5xx),
// else "other".
func statusLabel(status int) string {
	if s, ok := statusCodes[status]; ok {
		return s
	}
	if status >= 100 && status < 600 {
		return string("012345"[status/100]) + "xx"
	}
	return "other"
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// metricsTokenOK reports whether the request carries METRICS_TOKEN as its bearer token
// (compared in constant time).
func (s *Server) metricsTokenOK(r *http.Request) bool {
	if s.MetricsToken == "" {
		return false
	}
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	return ok && strings.EqualFold(scheme, "Bearer") &&
		subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(s.MetricsToken)) == 1
}

// serveMetrics is /metrics on the main listener: METRICS_TOKEN as a bearer token, or an admin
// key (or owner session). Anything else is 401/403 in the error envelope, and counts against the
// caller's rate-limit tier like an /api request.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if s.metricsTokenOK(r) {
		s.metrics.handler().ServeHTTP(w, r)
		return
	}
	if err := s.metricsAccess(w, r); err != nil {
		if folio.ErrorCode(err) == folio.EUNAUTHORIZED {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
		}
		s.writeError(w, r, err)
		return
	}
	s.metrics.handler().ServeHTTP(w, r)
}

func (s *Server) metricsAccess(w http.ResponseWriter, r *http.Request) error {
	actor, authErr := folio.Actor{}, error(nil)
	if s.Auth != nil {
		actor, authErr = s.Auth.Authenticate(r)
	}
	noteActor(r.Context(), actor)
	if err := s.rateLimit(w, r, actor, limitTier); err != nil {
		return err
	}
	switch {
	case authErr != nil:
		return authErr
	case !actor.Authenticated():
		return folio.Errorf(folio.EUNAUTHORIZED, "/metrics needs METRICS_TOKEN or an admin API key (Authorization: Bearer …).")
	case !actor.AtLeast(folio.LevelAdmin):
		return folio.Errorf(folio.EFORBIDDEN, "/metrics needs admin access; your credentials have %s access.", actor.Level)
	}
	return nil
}

// MetricsHandler serves /metrics alone, for the separate METRICS_ADDR listener: open to whoever
// reaches that address, or only with METRICS_TOKEN when one is set.
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		if s.MetricsToken != "" && !s.metricsTokenOK(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			s.writeError(w, r, folio.Errorf(folio.EUNAUTHORIZED, "/metrics needs METRICS_TOKEN (Authorization: Bearer …)."))
			return
		}
		s.metrics.handler().ServeHTTP(w, r)
	})
	return mux
}
