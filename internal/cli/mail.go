package cli

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/sqldb"
)

// mailPart is serve's mail: the durable outbox, delivering through the mailer the mail settings
// choose (rebuilt whenever they change).
type mailPart struct {
	Outbox *mail.Outbox
}

// newMail builds the durable outbox over SMTP, or over .eml files in the data directory when
// no SMTP server is set. The caller runs its worker.
func newMail(cfg *config.Config, db *sqldb.DB, st *settings.Service, log *slog.Logger) (*mailPart, error) {
	mailer, from, err := mailerFor(cfg, st.Current(), log)
	if err != nil {
		return nil, fmt.Errorf("SMTP_*: %w", err)
	}
	if st.Current().Mail.SMTP.Host == "" {
		log.Info("no SMTP server set: mail is written as .eml files", "dir", filepath.Join(cfg.DataDir, "outbox"))
	}
	sw := mail.NewSwitch(mailer, from)
	st.Subscribe(func(s folio.Settings) {
		m, from, err := mailerFor(cfg, s, log)
		if err != nil {
			log.Error("the new mail settings cannot be used; mail keeps the previous ones", "error", err.Error())
			return
		}
		sw.Set(m, from)
	})
	return &mailPart{Outbox: mail.NewOutbox(db.Outbox, sw, from, log)}, nil
}

// mailerFor is the mailer of the settings s and its sender.
func mailerFor(cfg *config.Config, s folio.Settings, log *slog.Logger) (folio.Mailer, folio.MailAddress, error) {
	from := folio.MailAddress{Name: s.Mail.FromName, Email: s.Mail.FromAddress}
	if s.Mail.SMTP.Host == "" {
		eml := mail.NewEMLDir(filepath.Join(cfg.DataDir, "outbox"), log)
		eml.From = from
		return eml, from, nil
	}
	c := s.Mail.SMTP
	smtp, err := mail.NewSMTP(mail.SMTPConfig{Host: c.Host, Port: c.Port, Username: c.Username, Password: c.Password, From: from, TLS: c.TLS})
	return smtp, from, err
}
