package cli

import (
	"context"
	"log/slog"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// newAnalytics builds the analytics service. Events are written in batches off the request
// path: the caller starts it, and closes it after the HTTP server has shut down (closeAnalytics).
// Its retention follows the owner's settings.
func newAnalytics(cfg *config.Config, db *sqldb.DB, st *settings.Service, log *slog.Logger) (*analytics.Service, error) {
	an, err := analytics.New(analyticsdb.New(db), db.Projects, analytics.Options{Location: cfg.BookingTimezone, Rotation: cfg.AnalyticsSaltRotation,
		SiteURL: cfg.SiteURL, QueueSize: cfg.AnalyticsQueueSize, RawLimit: cfg.AnalyticsExactLimit,
		MaxDailyValues: cfg.AnalyticsMaxDailyValues, Storage: func() string { return st.Current().Analytics.Storage }, Logger: log})
	if err != nil {
		return nil, err
	}
	st.Subscribe(func(s folio.Settings) { an.SetRetentionDays(s.Analytics.RetentionDays) })
	return an, nil
}

// closeAnalytics writes the events still queued, within FOLIO_SHUTDOWN_TIMEOUT.
func closeAnalytics(an *analytics.Service, cfg *config.Config, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := an.Close(ctx); err != nil {
		log.Error("analytics events lost at shutdown", "error", err.Error())
	}
}
