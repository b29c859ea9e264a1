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

// mailPart is serve's mail: the durable outbox and the owner's address (CONTACT_RECIPIENT),
// which receives contact-form messages and copies of bookings.
type mailPart struct {
	Outbox    *mail.Outbox
	Recipient folio.MailAddress
}

// newMail builds the durable outbox over SMTP, or over .eml files in the data directory when
// no SMTP server is configured. The caller runs its worker.
func newMail(cfg *config.Config, db *sqldb.DB, log *slog.Logger) (*mailPart, error) {
	from, err := mail.ParseAddress(cfg.SMTPFrom)
	if err != nil {
		return nil, fmt.Errorf("SMTP_FROM: %w", err)
	}
	recipient, err := mail.ParseAddress(cfg.ContactRecipient)
	if err != nil {
		return nil, fmt.Errorf("CONTACT_RECIPIENT: %w", err)
	}
	var mailer folio.Mailer
	if cfg.SMTPHost != "" {
		smtp, err := mail.NewSMTP(mail.SMTPConfig{Host: cfg.SMTPHost, Port: cfg.SMTPPort, Username: cfg.SMTPUsername,
			Password: cfg.SMTPPassword, From: from, TLS: cfg.SMTPTLS})
		if err != nil {
			return nil, fmt.Errorf("SMTP_*: %w", err)
		}
		mailer = smtp
	} else {
		eml := mail.NewEMLDir(filepath.Join(cfg.DataDir, "outbox"), log)
		eml.From = from
		mailer = eml
		log.Info("no SMTP_HOST: mail is written as .eml files", "dir", eml.Dir())
	}
	return &mailPart{Outbox: mail.NewOutbox(db.Outbox, mailer, from, log), Recipient: recipient}, nil
}
