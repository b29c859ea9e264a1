package mail

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// DefaultFrom is the sender of EMLDir messages when none is configured.
var DefaultFrom = folio.MailAddress{Name: "folio", Email: "folio@localhost"}

// EMLDir is the folio.Mailer of the embedded default (no SMTP_HOST): every message is written to
// its own .eml file, which any mail client opens, and announced with one log line.
type EMLDir struct {
	dir string
	log *slog.Logger
	// From is the configured sender for messages with a zero From; defaults to DefaultFrom.
	From folio.MailAddress
	// Now supplies the Date header and the file name's timestamp; defaults to time.Now.
	Now func() time.Time
}

var _ folio.Mailer = (*EMLDir)(nil)

// NewEMLDir returns a mailer writing to dir (created on first use). log may be nil.
func NewEMLDir(dir string, log *slog.Logger) *EMLDir {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &EMLDir{dir: dir, log: log, From: DefaultFrom}
}

// Dir returns the directory the files are written to.
func (d *EMLDir) Dir() string { return d.dir }

// Send writes m as <UTC time>-<UUIDv7>.eml (names sort by creation) through a temporary file and
// a rename, so a reader never sees half a message; the temporary file's name does not end in
// .eml, so a reader that picks up "*.eml" never opens it. Errors are *folio.MailError: permanent
// for an invalid message, temporary for I/O.
func (d *EMLDir) Send(ctx context.Context, m *folio.MailMessage) error {
	if err := ctx.Err(); err != nil {
		return &folio.MailError{Err: err}
	}
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	t := now()
	from := d.From
	if from.IsZero() {
		from = DefaultFrom
	}
	raw, err := Render(m, from, t)
	if err != nil {
		return &folio.MailError{Permanent: true, Err: err}
	}
	path, err := d.write(raw, t)
	if err != nil {
		return &folio.MailError{Err: fmt.Errorf("eml outbox: %w", err)}
	}
	d.log.Info("mail written to outbox", "to", recipients(m), "subject", m.Subject, "file", path)
	return nil
}

func (d *EMLDir) write(raw []byte, t time.Time) (string, error) {
	if err := os.MkdirAll(d.dir, 0o750); err != nil {
		return "", err
	}
	name := t.UTC().Format("20060102T150405Z") + "-" + folio.NewID() + ".eml"
	final := filepath.Join(d.dir, name)
	tmp, err := os.CreateTemp(d.dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	cleanup := func() { _ = tmp.Close(); _ = os.Remove(tmp.Name()) }
	if _, err := tmp.Write(raw); err != nil {
		cleanup()
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		cleanup()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return "", err
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		_ = os.Remove(tmp.Name())
		return "", err
	}
	return final, nil
}

// recipients lists the To and Cc addresses for the log line.
func recipients(m *folio.MailMessage) string {
	var out []string
	for _, a := range m.To {
		out = append(out, a.Email)
	}
	for _, a := range m.Cc {
		out = append(out, a.Email)
	}
	return strings.Join(out, ", ")
}
