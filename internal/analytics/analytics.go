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
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"crypto/rand"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/x-way/crawlerdetect"

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

// Collect validates one collected event and queues it for writing. It never waits for the
// database (except once per salt window, to agree on the salt with the other instances). It
// returns a VALIDATION_ERROR for bad input; bots, a full queue and a closing service are not
// errors (the caller answers 202 either way) but are reported in the Outcome and counted.
func (s *Service) Collect(ctx context.Context, in *folio.CollectInput, clientIP, userAgent string) (Outcome, error) {
	if err := in.Validate(); err != nil {
		return "", err
	}
	path, query, ok := normalizePath(in.Path)
	if !ok {
		return "", &folio.Error{Code: folio.EINVALID, Message: "Validation failed.", RuleBroken: true,
			Details: []folio.FieldError{{Field: "path", Message: "is not a valid path or URL"}}}
	}
	if s.bots.isBot(userAgent) {
		s.received.WithLabelValues(string(Bot)).Inc()
		return Bot, nil
	}
	now := s.now()
	day := now.In(s.loc).Format(time.DateOnly)
	var key string
	switch {
	case s.Storage() == StorageNone:
		// An id sent anyway (a script cached from before the change) is not used: a visitor is
		// the day's hash of address, agent and site.
		salt, err := s.currentSalt(ctx, now, "day")
		if err != nil {
			return "", err
		}
		key = hashKey(salt, clientIP, userAgent, s.siteHost)
	case in.VisitorID != "":
		key = clientKey(in.VisitorID)
	default:
		salt, err := s.currentSalt(ctx, now, s.rotation)
		if err != nil {
			return "", err
		}
		key = hashKey(salt, clientIP, userAgent)
	}
	var it item
	if in.Type == folio.CollectPageView {
		ref := referrerDomain(in.Referrer, s.siteHost)
		it.pv = &folio.AnalyticsPageView{At: now, Day: day, VisitorKey: key, Path: path, Query: query,
			Title: truncateUTF8(strings.TrimSpace(in.Title), maxStoredTitle), Referrer: ref, Attrs: s.enrich(in.Path, ref, clientIP, userAgent)}
		s.values.foldPageView(it.pv)
	} else {
		ev := &folio.AnalyticsEvent{At: now, Day: day, VisitorKey: key, Name: in.Name, Path: path, Props: "{}"}
		if len(in.Props) > 0 {
			b, err := json.Marshal(in.Props)
			if err != nil {
				return "", folio.BadRequest("props", "cannot be encoded")
			}
			ev.Props = string(b)
		}
		if in.Name == folio.FunnelErrorEvent {
			ev.Group, _ = in.Props["group"].(string)
			ev.Step, _ = in.Props["step"].(string)
			if len(ev.Step) > folio.MaxEventName {
				ev.Step = ev.Step[:folio.MaxEventName]
			}
		}
		s.values.foldEvent(ev)
		it.ev = ev
	}
	return s.enqueue(it), nil
}

// enrich derives a visit's attributes (docs/api.md, "Breakdowns, realtime") from what arrives with
// its page view: the campaign tags of the page address, the referrer host (already reduced), the
// country of the client address and the User-Agent's device, browser and OS. Neither the address
// nor the agent is kept.
func (s *Service) enrich(addr, refHost, clientIP, userAgent string) folio.VisitAttrs {
	c := ParseCampaign(addr)
	a := s.agents.parse(userAgent)
	return folio.VisitAttrs{Source: SourceName(refHost, c.Source), Referrer: refHost,
		UTMSource: c.Source, UTMMedium: c.Medium, UTMCampaign: c.Campaign, Country: Country(clientIP),
		Device: a.Device, Browser: a.Browser, BrowserVersion: a.BrowserVersion, OS: a.OS, OSVersion: a.OSVersion}
}

func (s *Service) enqueue(it item) Outcome {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		s.dropped.WithLabelValues(string(Shutdown)).Inc()
		return Shutdown
	}
	select {
	case s.queue <- it:
		s.received.WithLabelValues(string(Queued)).Inc()
		return Queued
	default:
		s.dropped.WithLabelValues(string(Full)).Inc()
		return Full
	}
}

// IsBot reports whether a User-Agent belongs to a crawler, a script or nothing at all.
func IsBot(userAgent string) bool {
	return strings.TrimSpace(userAgent) == "" || crawlerdetect.IsCrawler(userAgent)
}

// botCache remembers IsBot's verdict per User-Agent: the crawler list is one large regular
// expression (tens of microseconds a call), while real traffic repeats a few hundred agents.
type botCache struct {
	mu sync.RWMutex
	m  map[string]bool
}

const botCacheSize = 4096

func (c *botCache) isBot(ua string) bool {
	c.mu.RLock()
	bot, ok := c.m[ua]
	c.mu.RUnlock()
	if ok {
		return bot
	}
	bot = IsBot(ua)
	if len(ua) <= 512 {
		c.mu.Lock()
		if c.m == nil || len(c.m) >= botCacheSize {
			c.m = make(map[string]bool, botCacheSize) // start over rather than track recency
		}
		c.m[ua] = bot
		c.mu.Unlock()
	}
	return bot
}

// Prune deletes the raw page views and events older than the retention (see
// Store.PruneAnalytics) and returns how many rows went; without a retention it does nothing.
func (s *Service) Prune(ctx context.Context) (int64, error) {
	days := int(s.retention.Load())
	if days <= 0 {
		return 0, nil
	}
	keepFrom := s.now().In(s.loc).AddDate(0, 0, -days).Format(time.DateOnly)
	return s.store.PruneAnalytics(ctx, keepFrom)
}

// SetRetentionDays changes how many days of raw page views and events are kept (0: all), as the
// owner's settings do while the service runs; RunRetention prunes at once.
func (s *Service) SetRetentionDays(days int) {
	if s.retention.Swap(int64(days)) == int64(days) {
		return
	}
	select {
	case s.retentionSet <- struct{}{}:
	default:
	}
}

// RunRetention prunes at once, then every hour and whenever the retention changes, until ctx
// ends. Pruning is idempotent, so every instance runs it and none needs to be elected.
func (s *Service) RunRetention(ctx context.Context) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		if n, err := s.Prune(ctx); err != nil {
			s.log.Warn("analytics retention failed", "error", err.Error())
		} else if n > 0 {
			s.log.Info("analytics retention pruned raw rows", "rows", n, "days_kept", s.retention.Load())
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-s.retentionSet:
		}
	}
}

// Start runs the batching writer until Close. Call it once.
func (s *Service) Start() {
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return
	}
	s.started = true
	s.mu.Unlock()
	go s.run()
}

// Flush blocks until every event queued before the call is written (or ctx ends). Without a
// running writer (Start not called) there is nobody to write them, so it returns at once.
func (s *Service) Flush(ctx context.Context) error {
	ch := make(chan struct{})
	s.mu.RLock()
	if !s.started {
		s.mu.RUnlock()
		return nil
	}
	if s.closed {
		s.mu.RUnlock()
		return s.wait(ctx)
	}
	select {
	case s.queue <- item{flush: ch}:
	case <-ctx.Done():
		s.mu.RUnlock()
		return ctx.Err()
	}
	s.mu.RUnlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting events and waits until every queued one is written, or until ctx ends
// (then the rest is lost and an error says how many). It runs the writer itself when Start was
// never called.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	first := !s.closed
	s.closed = true
	started := s.started
	s.started = true
	if first {
		close(s.queue)
	}
	s.mu.Unlock()
	if first && !started {
		go s.run()
	}
	return s.wait(ctx)
}

func (s *Service) wait(ctx context.Context) error {
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("analytics: shutdown timed out with %d events unwritten: %w", len(s.queue), ctx.Err())
	}
}

func (s *Service) run() {
	defer close(s.done)
	batch := make([]item, 0, s.batch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	flush := func() {
		timer.Stop()
		s.write(batch)
		clear(batch)
		batch = batch[:0]
	}
	for {
		select {
		case it, ok := <-s.queue:
			if !ok {
				flush()
				return
			}
			if it.flush != nil {
				flush()
				close(it.flush)
				continue
			}
			if len(batch) == 0 {
				timer.Reset(s.every)
			}
			batch = append(batch, it)
			if len(batch) >= s.batch && (len(s.queue) < s.batch || len(batch) >= BacklogBatches*s.batch) {
				flush()
			}
		case <-timer.C:
			flush()
		}
	}
}

// write stores one batch, retrying a few times (a locked SQLite file, a PostgreSQL failover);
// a batch that still fails is logged and counted as lost.
func (s *Service) write(batch []item) {
	if len(batch) == 0 {
		return
	}
	nPV := 0
	for _, it := range batch {
		if it.pv != nil {
			nPV++
		}
	}
	pvs := make([]folio.AnalyticsPageView, 0, nPV)
	evs := make([]folio.AnalyticsEvent, 0, len(batch)-nPV)
	for _, it := range batch {
		if it.pv != nil {
			pvs = append(pvs, *it.pv)
		} else {
			evs = append(evs, *it.ev)
		}
	}
	var err error
	for attempt, backoff := 0, 100*time.Millisecond; attempt < 4; attempt, backoff = attempt+1, backoff*3 {
		if attempt > 0 {
			time.Sleep(backoff)
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = s.store.WriteAnalytics(ctx, pvs, evs)
		cancel()
		if err == nil {
			s.batches.Observe(time.Since(start).Seconds())
			s.written.Add(float64(len(batch)))
			return
		}
		s.log.Warn("analytics batch write failed", "events", len(batch), "attempt", attempt+1, "error", err.Error())
	}
	s.log.Error("analytics batch lost", "events", len(batch), "error", err.Error())
	s.dropped.WithLabelValues("write_failed").Add(float64(len(batch)))
}

var errNoSalt = errors.New("analytics: no salt")

// Storage is the tracker's storage mode in force (Options.Storage).
func (s *Service) Storage() string {
	if s.storage != nil && s.storage() == StorageNone {
		return StorageNone
	}
	return StorageLocal
}

// TrackingScript is the tracking script for the storage mode in force.
func (s *Service) TrackingScript() []byte {
	if s.Storage() == StorageNone {
		return scriptNone
	}
	return Script
}

// currentSalt returns the salt of the window of the rotation (day, week or month) containing
// now, agreeing on it with the other instances through the database on the first use of each
// window.
func (s *Service) currentSalt(ctx context.Context, now time.Time, rotation string) ([]byte, error) {
	w := windowKey(rotation, now.In(s.loc))
	s.saltMu.Lock()
	defer s.saltMu.Unlock()
	if w == s.saltWindow && s.salt != nil {
		return s.salt, nil
	}
	var b [32]byte
	if _, err := io.ReadFull(s.rand, b[:]); err != nil {
		return nil, fmt.Errorf("analytics: salt: %w", err)
	}
	stored, err := s.store.AnalyticsSalt(ctx, w, fmt.Sprintf("%x", b))
	if err != nil {
		return nil, err
	}
	if stored == "" {
		return nil, errNoSalt
	}
	s.saltWindow, s.salt = w, []byte(stored)
	return s.salt, nil
}
