package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/archive"
	"github.com/foliohq/folio/internal/audit"
	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/clientip"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/ratelimit"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
	"github.com/foliohq/folio/internal/webhook"
)

func runServe(ctx context.Context, args []string, env Env) error {
	cfg, err := loadConfig("serve", args, env, nil)
	if err != nil {
		return helpOK(err)
	}
	log := newLogger(cfg, env.Stderr)
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}
	db, err := openDB(ctx, cfg, cfg.AutoMigrate, log)
	if err != nil {
		return err
	}
	defer db.Close()

	srv := &httpapi.Server{
		Logger: log, AccessLog: true,
		Content: content.New(db.Content),
		Contact: db.Contact, Sitemap: db.Content, OutboxLog: db.Outbox,
		Health: db, Notifier: db, Unavailable: sqldb.IsUnavailable, MediaLibrary: db.Content, Webhooks: db.Webhooks, AuditLog: db.Audit, Users: db.Identity,
		Archive:             archiveExporter{db},
		RequestTimeout:      cfg.RequestTimeout,
		SiteURL:             cfg.SiteURL,
		PublicCacheSize:     cfg.PublicCacheSize,
		PublicCacheBytes:    cfg.PublicCacheBytes,
		MetricsToken:        cfg.MetricsToken,
		MetricsSeparate:     cfg.MetricsAddr != "",
		ClientIP:            clientip.New(cfg.TrustedProxies),
		WebhookAllowPrivate: cfg.WebhookAllowPrivate,
		Limiter:             ratelimit.NewMemoryBounded(time.Now, cfg.RateLimitMaxIDs),
		Limits: httpapi.Limits{Public: cfg.RateLimitPublic, Authenticated: cfg.RateLimitAuthenticated,
			Admin: cfg.RateLimitAdmin, Helper: cfg.RateLimitHelper, Window: cfg.RateLimitWindow,
			IPv6Prefix: cfg.RateLimitIPv6Prefix},
	}
	if cfg.PublicCacheBytes == 0 {
		srv.PublicCacheSize = 0 // FOLIO_PUBLIC_CACHE_BYTES=0 turns the cache off
	}
	if err := wireMedia(ctx, cfg, srv); err != nil {
		return err
	}
	outbox, recipient, err := newOutbox(cfg, db, log)
	if err != nil {
		return err
	}
	srv.Outbox, srv.ContactRecipient = outbox, recipient
	// Booking: calendar provider (google, caldav or local) and the booking service (booking.go).
	if srv.Bookings, err = wireBookings(ctx, cfg, db, outbox, recipient, log); err != nil {
		return err
	}
	// Identity: session secret, first-start owner, API keys and sessions, Redis limiter (user.go).
	rdb, err := newRedis(cfg)
	if err != nil {
		return err
	}
	if rdb != nil {
		defer rdb.Close()
	}
	runIdentity, err := wireIdentity(ctx, cfg, db, srv, rdb, log)
	if err != nil {
		return err
	}
	// External blog platform: client, publisher, listing cache (extblog.go).
	extblogW, err := wireExtblog(cfg, db, log, srv, rdb)
	if err != nil {
		return err
	}
	// Admin dashboard (/admin/) and public booking page (/book), embedded files (internal/webui).
	if err := wireWebUI(cfg, srv); err != nil {
		return err
	}
	srv.Features = features(cfg) // GET /api/features: what is configured, what is missing (firststart.go)
	handler := srv.Handler()

	// Analytics: events are written in batches off the request path. The deferred Close runs after
	// the HTTP server has shut down (defers run last) and writes everything still queued.
	an, err := analytics.New(analyticsdb.New(db), db.Content, analytics.Options{Location: cfg.BookingTimezone, Rotation: cfg.AnalyticsSaltRotation,
		SiteURL: cfg.SiteURL, QueueSize: cfg.AnalyticsQueueSize, RetentionDays: cfg.AnalyticsRetention, RawLimit: cfg.AnalyticsExactLimit, Logger: log})
	if err != nil {
		return err
	}
	srv.Analytics = an
	srv.Register(an.Collectors()...) // after Handler, which creates the metrics registry
	an.Start()
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		if err := an.Close(dctx); err != nil {
			log.Error("analytics events lost at shutdown", "error", err.Error())
		}
	}()

	// Audit log: entries are written in batches off the request path; Run writes what is left
	// when bg ends, after the HTTP server has shut down.
	srv.Audit = audit.New(db.Audit, audit.Options{RetentionDays: cfg.AuditRetention, Logger: log})

	// Writes drop this instance's cached responses (and cached users, for a revocation) at once
	// and tell the other instances.
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBG()
	var wg sync.WaitGroup
	// The notice to the other instances goes out from a background sender that coalesces bursts
	// (one notice per scope however many writes came meanwhile): a pg_notify per write in the
	// request path cost a round trip and serialised commits. The other instances receive it
	// asynchronously either way.
	notices := sqldb.NewNotifier(db, log)
	db.Changed = func(scope string) {
		srv.Invalidate(scope)
		notices.Notify(scope)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		notices.Run(bg)
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		outbox.Run(bg)
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		an.RunRetention(bg) // returns at once when ANALYTICS_RETENTION_DAYS is 0
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		db.Listen(bg, log, func(scope string) {
			srv.Invalidate(scope)
			extblogW.invalidated(bg, scope)
		})
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		runIdentity(bg) // flushes API keys' last-use times, and once more at shutdown
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		srv.Audit.Run(bg) // and once more at shutdown
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		extblogW.run(bg, log) // SIGHUP token reload
	}()
	// Blog: the durable job scheduler publishes scheduled posts, locally and through the platform
	// publisher (every instance runs one; each job still runs once).
	sched := jobs.New(db.Jobs, log)
	sched.Poll = cfg.JobsPoll
	sched.Handle(folio.JobPublishPost, jobs.PublishPost(db.Content, extblogW.ArticlePublisher(), log))
	// Booking: reminder mails before meetings (BOOKING_REMINDERS), once across instances.
	if srv.Bookings != nil {
		remind := srv.Bookings.Remind
		sched.Handle(booking.JobReminder, func(ctx context.Context, j folio.Job) error { return remind(ctx, j.Key, j.Payload) })
	}
	// Outgoing webhooks: deliveries queued with the writes that caused them (internal/webhook).
	sched.Handle(folio.JobWebhookDelivery, webhook.NewSender(db.Webhooks, cfg.WebhookAllowPrivate, log).Handle)
	pruner := &webhook.Pruner{Queue: db.Jobs, Deliveries: db.Webhooks, Log: log} // settled deliveries leave the log after 30 days
	sched.Handle(webhook.PruneJob, pruner.Handle)
	if err := pruner.Schedule(ctx); err != nil {
		return err
	}
	// Scheduled SQLite snapshots into the media storage (BACKUP_INTERVAL; restore.go).
	if err := wireBackups(ctx, cfg, db, srv, func(kind string, h func(context.Context, folio.Job) error) { sched.Handle(kind, h) }); err != nil {
		return err
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		sched.Run(bg) // returns once the job in hand is finished
	}()

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on FOLIO_ADDR %s: %w", cfg.Addr, err)
	}
	// METRICS_ADDR: /metrics on a listener of its own (an internal network or localhost), and
	// nowhere else.
	var metricsSrv *http.Server
	if cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("listen on METRICS_ADDR %s: %w", cfg.MetricsAddr, err)
		}
		metricsSrv = &http.Server{Handler: srv.MetricsHandler(), ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second, MaxHeaderBytes: 16 << 10, ErrorLog: slogErrorLog(log)}
		log.Info("metrics listening", "addr", mln.Addr().String(), "token", cfg.MetricsToken != "")
		go metricsSrv.Serve(mln)
		defer metricsSrv.Close()
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slogErrorLog(log),
	}
	log.Info("folio listening", "addr", ln.Addr().String(), "database", string(db.Dialect), "env", cfg.Env)
	announceStart(ctx, cfg, db, ln.Addr().String(), log) // where the dashboard is, who can sign in (firststart.go)
	if env.Ready != nil {
		env.Ready(ln.Addr().String())
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down; finishing in-flight requests", "timeout", cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	err = hs.Shutdown(sctx)
	stopBG()
	wg.Wait()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// slogErrorLog routes net/http's own error messages (TLS handshakes, bad requests) into slog.
func slogErrorLog(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelWarn)
}

// archiveExporter is GET /api/export's view of the database (internal/archive).
type archiveExporter struct{ db *sqldb.DB }

func (a archiveExporter) Export(ctx context.Context, media folio.BlobStore, w io.Writer) error {
	return archive.Export(ctx, a.db.Archive, media, w)
}
