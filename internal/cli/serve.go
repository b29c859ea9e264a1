package cli

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/archive"
	"github.com/foliohq/folio/internal/audit"
	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/clientip"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/fediverse"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/newsletter"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/webmention"
)

// runServe builds every part from the configuration, hands them to the HTTP server, runs what
// works beside it, and serves until ctx ends.
func runServe(ctx context.Context, args []string, env Env) error {
	cfg, err := loadConfig("serve", args, env, nil)
	if err != nil {
		return helpOK(err)
	}
	log := newLogger(cfg, env.Stderr)
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}
	db, err := openDB(ctx, cfg, env, cfg.AutoMigrate, log)
	if err != nil {
		return err
	}
	defer db.Close()

	media, err := newMedia(ctx, cfg)
	if err != nil {
		return err
	}
	secret, err := instanceSecret(cfg)
	if err != nil {
		return err
	}
	settings, err := newSettings(ctx, cfg, db, secret, log)
	if err != nil {
		return err
	}
	mail, err := newMail(cfg, db, settings, log)
	if err != nil {
		return err
	}
	bookings, err := newBookings(ctx, bookingDeps{Config: cfg, DB: db, Mail: mail, Settings: settings, Log: log})
	if err != nil {
		return err
	}
	rdb, err := newRedis(cfg) // rate limits and the external blog's listing cache share it
	if err != nil {
		return err
	}
	if rdb != nil {
		defer rdb.Close()
	}
	identity, err := newIdentity(ctx, cfg, db, log)
	if err != nil {
		return err
	}
	limiter := newLimiter(cfg, rdb, log)
	extblog, err := newExtblog(cfg, db, rdb, log)
	if err != nil {
		return err
	}
	ui, err := newWebUI(cfg, settings)
	if err != nil {
		return err
	}
	an, err := newAnalytics(cfg, db, settings, log)
	if err != nil {
		return err
	}
	fedi, err := newFediverse(ctx, cfg, db, log)
	if err != nil {
		return err
	}
	mentions := newWebmention(cfg, db, log)
	letters, err := newNewsletter(cfg, db, mail, settings, limiter, secret, log)
	if err != nil {
		return err
	}
	// The audit log is written in batches off the request path, like analytics.
	auditLog := audit.New(db.Audit, audit.Options{RetentionDays: cfg.AuditRetention, Logger: log})

	srv := newServer(serverDeps{Config: cfg, DB: db, Log: log, Media: media, Mail: mail, Bookings: bookings,
		Identity: identity, Limiter: limiter, Extblog: extblog, UI: ui, Analytics: an, Audit: auditLog, Settings: settings, Fediverse: fedi,
		Webmention: mentions, Newsletter: letters})
	handler := srv.Handler()
	an.Start()
	defer closeAnalytics(an, cfg, log) // after the HTTP server has shut down (defers run last)

	changes := newChanges(db, srv, settings, extblog, log)
	backups, err := newBackups(cfg, db, media.Store, log)
	if err != nil {
		return err
	}
	sched, err := newScheduler(ctx, schedulerDeps{Config: cfg, DB: db, Log: log, Publisher: extblog.ArticlePublisher(),
		Bookings: bookings, Backups: backups, Fediverse: fedi, Webmention: mentions, Newsletter: letters})
	if err != nil {
		return err
	}

	// What runs beside the HTTP server, until bg ends once the server has shut down; the
	// writers (audit, API keys' last use, the outbox, the scheduler's job in hand) finish their
	// work before returning.
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBG()
	var wg sync.WaitGroup
	for _, run := range []func(context.Context){
		changes.send,
		changes.listen,
		func(ctx context.Context) { mail.Outbox.Run(ctx) },
		an.RunRetention,
		func(ctx context.Context) { identity.Run(ctx, httpapi.DefaultUsageFlush) },
		auditLog.Run,
		extblog.run, // SIGHUP token reload
		sched.Run,
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(bg)
		}()
	}
	return listenAndServe(ctx, listenDeps{Config: cfg, Env: env, DB: db, Server: srv, Handler: handler, Log: log,
		StopBackground: func() { stopBG(); wg.Wait() }})
}

// serverDeps are the parts the HTTP server serves, all built before it.
type serverDeps struct {
	Config     *config.Config
	DB         *sqldb.DB
	Log        *slog.Logger
	Media      *mediaPart
	Mail       *mailPart
	Bookings   *booking.Service
	Identity   *httpapi.Identity
	Limiter    folio.Limiter
	Extblog    *extblogPart
	UI         http.Handler
	Analytics  *analytics.Service
	Audit      *audit.Writer
	Fediverse  *fediverse.Service
	Webmention *webmention.Service
	Settings   *settings.Service
	Newsletter *newsletter.Service
}

// newServer is the HTTP server over the parts.
func newServer(d serverDeps) *httpapi.Server {
	cfg, db, log := d.Config, d.DB, d.Log
	return &httpapi.Server{
		Logger: log, AccessLog: true,
		Content: content.New(db.Content),
		Contact: db.Contact, Sitemap: db.Content, OutboxLog: db.Outbox,
		Health: db, Notifier: db, Unavailable: sqldb.IsUnavailable, MediaLibrary: db.Media, Webhooks: db.Webhooks, AuditLog: db.Audit, Users: db.Identity,
		Archive:             archiveExporter{db},
		RequestTimeout:      cfg.RequestTimeout,
		PublicCacheSize:     publicCacheSize(cfg),
		PublicCacheBytes:    cfg.PublicCacheBytes,
		MetricsToken:        cfg.MetricsToken,
		MetricsSeparate:     cfg.MetricsAddr != "",
		ClientIP:            clientip.New(cfg.TrustedProxies),
		WebhookAllowPrivate: cfg.WebhookAllowPrivate,
		Limiter:             d.Limiter,
		Limits: httpapi.Limits{Public: cfg.RateLimitPublic, Authenticated: cfg.RateLimitAuthenticated,
			Admin: cfg.RateLimitAdmin, Helper: cfg.RateLimitHelper, Window: cfg.RateLimitWindow,
			IPv6Prefix: cfg.RateLimitIPv6Prefix},

		MediaStore: d.Media.Store, MediaFiles: d.Media.Files, Uploader: d.Media.Uploader, ImageStudio: d.Media.Studio,
		Outbox: d.Mail.Outbox, Settings: d.Settings,
		Bookings: d.Bookings,
		Auth:     d.Identity, Identity: d.Identity, CORSAllowedOrigins: cfg.CORSAllowedOrigins,
		ExtBlog: d.Extblog.API,
		// The publishing-options route cross-publishes through the same service (an unconfigured
		// platform is reported there as skipped, naming the variables).
		ArticlePublisher: d.Extblog.Publisher,
		UI:               d.UI,
		Features:         features(cfg), // GET /api/features: what is configured, what is missing (firststart.go)
		Analytics:        d.Analytics,
		Collectors:       d.Analytics.Collectors(),
		Audit:            d.Audit,
		BookingHost:      bookingHost(d.Settings), // the host card of /book
		Fediverse:        d.Fediverse,
		Comments:         d.DB.Fediverse,
		Webmention:       d.Webmention,

		Subscribers: d.Newsletter,
	}
}

// publicCacheSize is how many public responses the server keeps: FOLIO_PUBLIC_CACHE_BYTES=0
// turns the cache off.
func publicCacheSize(cfg *config.Config) int {
	if cfg.PublicCacheBytes == 0 {
		return 0
	}
	return cfg.PublicCacheSize
}

// archiveExporter is GET /api/export's view of the database (internal/archive).
type archiveExporter struct{ db *sqldb.DB }

func (a archiveExporter) Export(ctx context.Context, media folio.BlobStore, w io.Writer) error {
	return archive.Export(ctx, a.db.Archive, media, w)
}
