package cli

import (
	"crypto/hkdf"
	"crypto/sha256"
	"log/slog"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/markdown"
	"github.com/foliohq/folio/internal/newsletter"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/sqldb"
)

// newNewsletter is the subscriber list and its mailings: the confirmation and welcome mails go
// through the outbox in the transactions that store the changes; posts and digests are mailed
// by their jobs straight to the configured mailer, paced by the shared limiter.
func newNewsletter(cfg *config.Config, db *sqldb.DB, m *mailPart, st *settings.Service, limiter folio.Limiter, secret string, log *slog.Logger) (*newsletter.Service, error) {
	// The key of the hashes kept of erased addresses: the same on every instance, and not the
	// secret itself.
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, "folio newsletter erased addresses", 32)
	if err != nil {
		return nil, err
	}
	return &newsletter.Service{Store: db.Subscribers, Mail: m.Outbox, Outbox: db.Outbox, Settings: st.Current,
		EraseKey: key, EventsSecret: cfg.NewsletterEventsKey,
		SendConfig: newsletter.SendConfig{Sends: db.Subscribers, Posts: content.New(db.Content), Mailer: m.Outbox.Mailer,
			Markdown: markdown.New(), Limiter: limiter, RatePerMinute: cfg.NewsletterRate, DomainConcurrency: cfg.NewsletterDomainConc,
			SendTimeout: cfg.NewsletterSendTimeout, Log: log}}, nil
}
