// Package analytics is folio's privacy-friendly site analytics: it turns collected page views and
// events into anonymous rows (bots dropped, visitors reduced to salted hashes, query strings and
// referrers trimmed), writes them in batches off the request path, and builds the reports.
//
// Nothing that identifies a person is stored: a visitor is either the client's own random
// anonymous id (hashed) or an HMAC of IP and User-Agent under a salt that rotates (day, week or
// month) and is deleted when its window ends, so hashes of different windows cannot be linked
// and old ones cannot be recomputed. No cookies are set. In the default storage mode (local)
// the tracking script keeps that random id in the browser's localStorage; in mode none it keeps
// nothing on the device and every visitor is a hash under the day's salt (Options.Storage).
package analytics

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"crypto/rand"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/foliohq/folio"
)

// Script is the tracking script served at /api/analytics/script.js in storage mode local. It
// reports page views, SPA navigations (history.pushState/replaceState and popstate) and named
// events (window.folio.track(name, props)), with a random anonymous id kept in localStorage,
// through navigator.sendBeacon or fetch with keepalive. scriptNone is the same script for mode
// none: it keeps nothing, and removes an id an earlier visit stored.
//
//go:embed script.js
var Script []byte

var scriptNone = func() []byte {
	const local, none = "keep = true", "keep = false"
	if bytes.Count(Script, []byte(local)) != 1 {
		panic("analytics: script.js lost its storage switch")
	}
	return bytes.Replace(Script, []byte(local), []byte(none), 1)
}()

// The storage modes of the tracker (Options.Storage, ANALYTICS_STORAGE).
const (
	// StorageLocal: the script keeps a random id in localStorage (folio_vid) and sends it, so a
	// visitor is recognised across days (returning visitors are counted).
	StorageLocal = "local"
	// StorageNone: nothing is kept on the device; a visitor is an HMAC of address, User-Agent and
	// site under the day's salt, so visitors are counted per day and none is returning.
	StorageNone = "none"
)

// ValidStorage reports whether mode is a storage mode.
func ValidStorage(mode string) bool { return mode == StorageLocal || mode == StorageNone }

// Outcome says what Collect did with an event.
type Outcome string

const (
	Queued   Outcome = "queued"     // accepted for writing
	Bot      Outcome = "bot"        // dropped: the User-Agent is a crawler
	Full     Outcome = "queue_full" // dropped: the queue was full
	Shutdown Outcome = "shutdown"   // dropped: the service is closing
)

// DefaultBatchSize is the number of events at which a batch is written by default (see
// Options.BatchSize).
const DefaultBatchSize = 4000

// BacklogBatches is how many times BatchSize a batch may grow to while the writer is behind: when
// more than BatchSize events are already waiting, the batch takes them too. A larger batch costs
// less per event — a visitor, a rollup row and a page of the tables are written once for all its
// events — so a flood is written about 1.6 times as fast as in BatchSize-sized batches (on this
// project's 2-core machine, 34,600-36,900 events/s against 21,300-21,800 on SQLite). The price, in
// a flood only, is that other writes wait for such a batch on SQLite, up to about a second
// (bench/analytics prints that wait beside the rate).
const BacklogBatches = 8

// Options configure a Service. Zero values take the documented defaults.
type Options struct {
	// Location is the owner's time zone: days of reports and of the day column (default UTC).
	Location *time.Location
	// Rotation is how often the visitor-hash salt changes: "day" (default), "week" or "month".
	Rotation string
	// SiteURL is the public site; referrers from its host are self-referrals and dropped.
	SiteURL string
	// QueueSize bounds the events waiting to be written (default 65536); beyond it events are
	// dropped and counted.
	QueueSize int
	// BatchSize is the number of events at which a batch is written (default DefaultBatchSize);
	// while more are already waiting, up to BacklogBatches times as many.
	BatchSize int
	// FlushInterval is the longest an event waits for its batch to fill (default 1s).
	FlushInterval time.Duration
	// RawLimit is the most page views in a range that an unfiltered breakdown reads raw, with
	// exact visitors; above it the daily rollup answers and visitors are estimated (default
	// DefaultRawLimit; negative: always the rollup). A breakdown that has no rollup (a page,
	// entry or exit page or event involved, with filters) reads a sample of the visitors above it.
	RawLimit int
	// SampleTarget is about the most page views such a sampled breakdown reads: it reads the
	// finest sample level within it (default DefaultSampleTarget).
	SampleTarget int
	// RetentionDays is how many days of raw page views and events RunRetention keeps (0: all).
	RetentionDays int
	// MaxDailyValues is the most distinct values of one dimension (page, referrer, source, UTM
	// tag, browser, OS and their versions, event name) a day keeps on this instance; further new
	// values of the day are stored as OtherValue (default DefaultMaxDailyValues; negative: no cap).
	MaxDailyValues int
	// Storage reports the tracker's storage mode in force (StorageLocal or StorageNone; anything
	// else reads as StorageLocal). It is asked on every collect and every script request, so a
	// change of setting takes effect without a restart (nil: always StorageLocal).
	Storage func() string
	// Now and Rand are the clock and the salt's randomness (defaults time.Now, crypto/rand).
	Now    func() time.Time
	Rand   io.Reader
	Logger *slog.Logger
}

// Service collects analytics events and builds reports. Create it with New, call Start to run
// the writer and Close to drain it on shutdown.
type Service struct {
	store     Store
	projects  Projects
	loc       *time.Location
	rotation  string
	retention atomic.Int64 // days of raw rows kept (Options.RetentionDays, SetRetentionDays)
	// retentionSet wakes RunRetention when the retention changes.
	retentionSet chan struct{}
	rawLimit     int
	sampleTo     int // Options.SampleTarget
	siteHost     string
	storage      func() string // Options.Storage
	batch        int
	every        time.Duration
	now          func() time.Time
	rand         io.Reader
	log          *slog.Logger

	mu      sync.RWMutex // guards closed and sends on queue against close(queue)
	closed  bool
	started bool
	queue   chan item
	done    chan struct{}

	bots   botCache
	agents agentCache
	values valueCap

	saltMu     sync.Mutex
	saltWindow string
	salt       []byte

	received *prometheus.CounterVec
	dropped  *prometheus.CounterVec
	written  prometheus.Counter
	batches  prometheus.Histogram
	queueLen prometheus.GaugeFunc
}

type item struct {
	pv    *folio.AnalyticsPageView
	ev    *folio.AnalyticsEvent
	flush chan struct{}
}

// New returns a Service over store; projects answers whether a project exists, for the
// project report. It returns an error for an unknown rotation or site URL.
func New(store Store, projects Projects, o Options) (*Service, error) {
	s := &Service{store: store, projects: projects, loc: o.Location, rotation: o.Rotation, batch: o.BatchSize, every: o.FlushInterval,
		retentionSet: make(chan struct{}, 1), storage: o.Storage, now: o.Now, rand: o.Rand, log: o.Logger, done: make(chan struct{})}
	s.retention.Store(int64(o.RetentionDays))
	if s.loc == nil {
		s.loc = time.UTC
	}
	switch s.rotation {
	case "":
		s.rotation = "day"
	case "day", "week", "month":
	default:
		return nil, fmt.Errorf("analytics: salt rotation must be day, week or month, not %q", o.Rotation)
	}
	if o.SiteURL != "" {
		u, err := url.Parse(o.SiteURL)
		if err != nil {
			return nil, fmt.Errorf("analytics: site URL: %w", err)
		}
		s.siteHost = bareHost(u.Hostname())
	}
	switch {
	case o.RawLimit == 0:
		s.rawLimit = DefaultRawLimit
	case o.RawLimit < 0:
		s.rawLimit = -1
	default:
		s.rawLimit = o.RawLimit
	}
	s.sampleTo = cmp.Or(max(o.SampleTarget, 0), DefaultSampleTarget)
	s.values.max = cmp.Or(o.MaxDailyValues, DefaultMaxDailyValues)
	if o.QueueSize <= 0 {
		o.QueueSize = 65536
	}
	if s.batch <= 0 {
		s.batch = DefaultBatchSize
	}
	if s.every <= 0 {
		s.every = time.Second
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.rand == nil {
		s.rand = rand.Reader
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.queue = make(chan item, o.QueueSize)
	s.received = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_analytics_received_total", Help: "Analytics events received, by outcome (queued, bot).",
	}, []string{"outcome"})
	s.dropped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "folio_analytics_dropped_total", Help: "Analytics events lost, by reason (queue_full, shutdown, write_failed).",
	}, []string{"reason"})
	s.written = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "folio_analytics_written_total", Help: "Analytics events stored.",
	})
	s.batches = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "folio_analytics_batch_seconds", Help: "Time to write one analytics batch.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	})
	s.queueLen = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "folio_analytics_queue_length", Help: "Analytics events waiting to be written.",
	}, func() float64 { return float64(len(s.queue)) })
	for _, o := range []Outcome{Queued, Bot} {
		s.received.WithLabelValues(string(o))
	}
	for _, r := range []string{string(Full), string(Shutdown), "write_failed"} {
		s.dropped.WithLabelValues(r)
	}
	return s, nil
}

// Collectors returns the service's Prometheus collectors (register them with the HTTP server's
// registry).
func (s *Service) Collectors() []prometheus.Collector {
	return []prometheus.Collector{s.received, s.dropped, s.written, s.batches, s.queueLen}
}
