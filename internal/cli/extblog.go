package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/cache"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/extblog"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/publishing"
	"github.com/foliohq/folio/internal/sqldb"
)

// extblogPart is the external blog platform's share of serve: the routes' configuration, the
// publishing service, and what runs beside the server (the token reload, the listing cache's
// invalidation).
type extblogPart struct {
	// API configures the external blog routes.
	API *httpapi.ExtBlog
	// Publisher publishes articles; its Blog is nil when the platform is not configured (503).
	Publisher *publishing.Service
	tokens    *extblog.Reloadable
	// local is the listing cache when it lives in this process (no REDIS_URL): other instances'
	// webhook events reach it through the database's notifications.
	local *cache.Memory
	log   *slog.Logger
}

// newExtblog builds the platform client from the configuration, the publishing service and the
// listing cache (in Redis when rdb is not nil). A missing token or publication id leaves the
// platform unconfigured: its routes answer 503 naming the variables, and the rest of folio runs.
func newExtblog(cfg *config.Config, db *sqldb.DB, rdb *redis.Pool, log *slog.Logger) (*extblogPart, error) {
	w := &extblogPart{log: log}
	eb := &httpapi.ExtBlog{CacheTTL: cfg.ExtblogCacheTTL, WebhookSecret: cfg.ExtblogWebhookSecret,
		WebhookTolerance: cfg.ExtblogWebhookTolerance, PublicationID: cfg.ExtblogPublicationID}
	if rdb != nil {
		eb.Cache = cache.NewRedis(rdb, "folio:cache:", time.Now)
	} else {
		w.local = cache.NewMemory(time.Now, 0)
		eb.Cache = w.local
	}
	var missing []string
	if cfg.ExtblogAPIToken == "" && cfg.ExtblogAPITokenFile == "" {
		missing = append(missing, "EXTBLOG_API_TOKEN")
	}
	if cfg.ExtblogPublicationID == "" {
		missing = append(missing, "EXTBLOG_PUBLICATION_ID")
	}
	eb.Missing = missing
	w.Publisher = &publishing.Service{Store: db.Extblog, Posts: db.Posts, Missing: missing, SiteURL: cfg.SiteURL, Logger: log}
	eb.Publisher = w.Publisher
	if len(missing) == 0 {
		// EXTBLOG_API_TOKEN_FILE wins: a mounted secret file can be rotated without a restart.
		var src extblog.TokenSource = extblog.StaticToken(cfg.ExtblogAPIToken)
		if cfg.ExtblogAPITokenFile != "" {
			src = extblog.NewFileToken(cfg.ExtblogAPITokenFile)
		}
		w.tokens = extblog.NewReloadable(src)
		client, err := extblog.New(extblog.Config{URL: cfg.ExtblogAPIURL, Token: w.tokens, PublicationID: cfg.ExtblogPublicationID,
			PublicationHost: cfg.ExtblogPublicationHost, MaxAttempts: cfg.ExtblogMaxAttempts, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("external blog (EXTBLOG_*): %w", err)
		}
		eb.Platform, w.Publisher.Blog = client, client
	} else {
		log.Info("external blog platform not configured; its routes answer 503", "missing", missing)
	}
	w.API = eb
	w.Publisher.Published = func(ctx context.Context) {
		ctx = context.WithoutCancel(ctx)
		if _, err := eb.Cache.Bump(ctx, httpapi.ScopeExtblogPosts); err != nil {
			log.Warn("extblog cache invalidation failed", "error", err.Error())
		}
		if err := db.Notify(ctx, httpapi.ScopeExtblogPosts); err != nil {
			log.Warn("extblog cache invalidation notify failed", "error", err.Error())
		}
	}
	return w, nil
}

// ArticlePublisher is the publisher for the content routes and the scheduler.
func (w *extblogPart) ArticlePublisher() folio.ArticlePublisher { return w.Publisher }

// invalidated drops the process-local listing cache when another instance reports a webhook
// event through the database's notifications (a Redis cache is shared and needs nothing).
func (w *extblogPart) invalidated(ctx context.Context, scope string) {
	if w.local != nil && (scope == httpapi.ScopeExtblogPosts || scope == "*") {
		w.local.Bump(ctx, httpapi.ScopeExtblogPosts)
	}
}

// run reloads the API token on SIGHUP until ctx ends.
func (w *extblogPart) run(ctx context.Context) {
	log := w.log
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if w.tokens != nil {
				w.tokens.Reload()
				log.Info("external blog API token reloaded (SIGHUP)")
			}
		}
	}
}
