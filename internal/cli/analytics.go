package cli

import (
	"context"
	"log/slog"

	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// newAnalytics builds the analytics service. Events are written in batches off the request
// path: the caller starts it, and closes it after the HTTP server has shut down (closeAnalytics).
func newAnalytics(cfg *config.Config, db *sqldb.DB, log *slog.Logger) (*analytics.Service, error) {
	return analytics.New(analyticsdb.New(db), db.Projects, analytics.Options{Location: cfg.BookingTimezone, Rotation: cfg.AnalyticsSaltRotation,
		SiteURL: cfg.SiteURL, QueueSize: cfg.AnalyticsQueueSize, RetentionDays: cfg.AnalyticsRetention, RawLimit: cfg.AnalyticsExactLimit,
		MaxDailyValues: cfg.AnalyticsMaxDailyValues, Storage: func() string { return cfg.AnalyticsStorage }, Logger: log})
}

// closeAnalytics writes the events still queued, within FOLIO_SHUTDOWN_TIMEOUT.
func closeAnalytics(an *analytics.Service, cfg *config.Config, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := an.Close(ctx); err != nil {
		log.Error("analytics events lost at shutdown", "error", err.Error())
	}
}
