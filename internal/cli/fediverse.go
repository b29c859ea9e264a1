package cli

import (
	"context"
	"log/slog"

	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/fediverse"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/webmention"
)

// newFediverse is the site's ActivityPub actor. Its RSA key is made once and kept in the
// database, sealed with a key derived from the instance secret; every instance loads that one.
func newFediverse(ctx context.Context, cfg *config.Config, db *sqldb.DB, log *slog.Logger) (*fediverse.Service, error) {
	secret, err := instanceSecret(cfg)
	if err != nil {
		return nil, err
	}
	key, pub, err := fediverse.LoadKey(ctx, db.Fediverse, secret, db.Now())
	if err != nil {
		return nil, err
	}
	return fediverse.New(db.Fediverse, content.New(db.Content), cfg.FediverseName, cfg.SiteURL, key, pub,
		fediverse.NewClient(cfg.FediverseAllowPrivate), log), nil
}

// newWebmention receives and sends Webmentions; its fetches go through the fediverse's guard
// (FEDIVERSE_ALLOW_PRIVATE).
func newWebmention(cfg *config.Config, db *sqldb.DB, log *slog.Logger) *webmention.Service {
	return webmention.New(db.Fediverse, content.New(db.Content), cfg.SiteURL, fediverse.NewClient(cfg.FediverseAllowPrivate), log)
}
