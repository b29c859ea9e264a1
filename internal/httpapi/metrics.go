package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics holds the server's Prometheus collectors in a registry of its own, so several servers
// in one test process never collide.
type metrics struct {
	registry  *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	cacheHits *prometheus.CounterVec
	// LimiterErrors counts rate-limit checks that failed open (e.g. Redis unreachable).
	limiterErrors prometheus.Counter
}

func newMetrics() *metrics {
	m := &metrics{registry: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_http_requests_total", Help: "HTTP requests by route pattern, method and status.",
	}, []string{"route", "method", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "folio_http_request_duration_seconds", Help: "HTTP request latency by route pattern.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route"})
	m.cacheHits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_response_cache_total", Help: "Public response cache lookups by result (hit, miss, not_modified).",
	}, []string{"result"})
	m.limiterErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "folio_ratelimit_errors_total", Help: "Rate-limit checks that could not be made and failed open.",
	})
	m.registry.MustRegister(m.requests, m.latency, m.cacheHits, m.limiterErrors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(route, method string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// Register adds collectors of other packages (workers, queues) to the server's registry.
func (s *Server) Register(cs ...prometheus.Collector) {
	s.metrics.registry.MustRegister(cs...)
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
