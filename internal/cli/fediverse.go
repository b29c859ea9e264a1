package cli

import (
	"context"
	"errors"
	"log/slog"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/fediverse"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/webmention"
)

// newFediverse is the site's ActivityPub actor. Its RSA key is made once and kept in the
// database, sealed with a key derived from the instance secret; every instance loads that one.
// An instance whose secret does not open it serves without the actor (its routes answer 503,
// the log says why) rather than not at all: the rest of the site does not depend on it.
//
// Its site URL, name and icon follow the settings (site.url, site.name, site.photoUrl) at each use.
func newFediverse(ctx context.Context, cfg *config.Config, db *sqldb.DB, st *settings.Service, log *slog.Logger) (*fediverse.Service, error) {
	secret, err := instanceSecret(cfg)
	if err != nil {
		return nil, err
	}
	key, pub, err := fediverse.LoadKey(ctx, db.Fediverse, secret, db.Now())
	if errors.Is(err, fediverse.ErrKeyUnreadable) {
		log.Error("the fediverse actor is off on this instance: its key was sealed with another instance secret; " +
			"give every instance the same NEXTAUTH_SECRET (docs/operations.md)")
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	svc := fediverse.New(db.Fediverse, content.New(db.Content), cfg.FediverseName, cfg.SiteURL, key, pub,
		fediverse.NewClient(cfg.FediverseAllowPrivate), log)
	svc.Site = siteOf(st)
	return svc, nil
}

// siteOf reads the site's settings as they are now.
func siteOf(st *settings.Service) func() folio.SiteSettings {
	return func() folio.SiteSettings { return st.Current().Site }
}

// newWebmention receives and sends Webmentions; its fetches go through the fediverse's guard
// (FEDIVERSE_ALLOW_PRIVATE).
func newWebmention(cfg *config.Config, db *sqldb.DB, st *settings.Service, log *slog.Logger) *webmention.Service {
	svc := webmention.New(db.Fediverse, content.New(db.Content), cfg.SiteURL, fediverse.NewClient(cfg.FediverseAllowPrivate), log)
	svc.Site = siteOf(st)
	return svc
}
