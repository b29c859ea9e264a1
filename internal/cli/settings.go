package cli

import (
	"context"
	"log/slog"

	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/sqldb"
)

// newSettings loads the owner's settings over the environment's (docs/api.md, "Settings"). The
// parts that follow them (mail, booking, the booking page, analytics) subscribe to them, and
// changes reloads them when another instance saved them.
func newSettings(ctx context.Context, cfg *config.Config, db *sqldb.DB, secret string, log *slog.Logger) (*settings.Service, error) {
	defaults, locked := cfg.Settings()
	return settings.New(ctx, db.Settings, settings.Options{Defaults: defaults, Locked: locked, Secret: secret,
		PreviousSecret: cfg.NextAuthSecretPrevious, Logger: log, HTTPIssuers: cfg.Env == "development"})
}
