package cli

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/sqldb"
)

// newOutbox builds the durable outbox over SMTP, or over .eml files in the data directory when
// no SMTP server is configured. The caller runs its worker.
func newOutbox(cfg *config.Config, db *sqldb.DB, log *slog.Logger) (*mail.Outbox, folio.MailAddress, error) {
	from, err := mail.ParseAddress(cfg.SMTPFrom)
	if err != nil {
		return nil, folio.MailAddress{}, fmt.Errorf("SMTP_FROM: %w", err)
	}
	recipient, err := mail.ParseAddress(cfg.ContactRecipient)
	if err != nil {
		return nil, folio.MailAddress{}, fmt.Errorf("CONTACT_RECIPIENT: %w", err)
	}
	var mailer folio.Mailer
	if cfg.SMTPHost != "" {
		smtp, err := mail.NewSMTP(mail.SMTPConfig{Host: cfg.SMTPHost, Port: cfg.SMTPPort, Username: cfg.SMTPUsername,
			Password: cfg.SMTPPassword, From: from, TLS: cfg.SMTPTLS})
		if err != nil {
			return nil, folio.MailAddress{}, fmt.Errorf("SMTP_*: %w", err)
		}
		mailer = smtp
	} else {
		eml := mail.NewEMLDir(filepath.Join(cfg.DataDir, "outbox"), log)
		eml.From = from
		mailer = eml
		log.Info("no SMTP_HOST: mail is written as .eml files", "dir", eml.Dir())
	}
	return mail.NewOutbox(db.Outbox, mailer, from, log), recipient, nil
}
