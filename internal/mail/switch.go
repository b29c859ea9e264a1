package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"

	"github.com/foliohq/folio"
	gomail "github.com/wneessen/go-mail"
)

// Switch is a folio.Mailer that delivers through the mailer set last: the owner's mail
// settings (docs/api.md, "Settings") replace it while mail is in flight, on every instance, with
// no restart. It also carries the sender set with it, which the outbox reads (Sender).
type Switch struct{ cur atomic.Pointer[switchTarget] }

type switchTarget struct {
	mailer folio.Mailer
	from   folio.MailAddress
}

var _ folio.Mailer = (*Switch)(nil)

// NewSwitch returns a Switch delivering through m as from.
func NewSwitch(m folio.Mailer, from folio.MailAddress) *Switch {
	s := &Switch{}
	s.Set(m, from)
	return s
}

// Set makes every later Send go through m; from is its configured sender.
func (s *Switch) Set(m folio.Mailer, from folio.MailAddress) {
	s.cur.Store(&switchTarget{mailer: m, from: from})
}

// Send delivers msg through the current mailer.
func (s *Switch) Send(ctx context.Context, msg *folio.MailMessage) error {
	return s.cur.Load().mailer.Send(ctx, msg)
}

// Sender returns the current configured sender.
func (s *Switch) Sender() folio.MailAddress { return s.cur.Load().from }

// Explain says in words why a delivery failed, for the owner testing the mail settings: the
// server's answer when it gave one, else what failed on the way (the name lookup, the
// connection, TLS). Neither go-mail's errors nor the network's carry the password.
func Explain(err error) string {
	var se *gomail.SendError
	var dns *net.DNSError
	var op *net.OpError
	var me *folio.MailError
	if errors.As(err, &se) {
		answer, _, _ := strings.Cut(se.Error(), ", affected message ID")
		return "the mail server refused: " + answer
	}
	if errors.As(err, &dns) {
		return fmt.Sprintf("the host name %s does not resolve (%s)", dns.Name, dns.Err)
	}
	if tlsErr := tlsFailure(err); tlsErr != nil {
		return "TLS with the mail server failed: " + tlsErr.Error()
	}
	if errors.As(err, &op) && op.Op == "dial" {
		return fmt.Sprintf("cannot connect to the mail server at %v: %v", op.Addr, op.Err)
	}
	if errors.As(err, &me) {
		return me.Err.Error()
	}
	return err.Error()
}

// tlsFailure returns the TLS or certificate error in err's chain, nil when there is none.
func tlsFailure(err error) error {
	var unknownCA x509.UnknownAuthorityError
	var badHost x509.HostnameError
	var badCert x509.CertificateInvalidError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &verify):
		return verify
	case errors.As(err, &unknownCA):
		return unknownCA
	case errors.As(err, &badHost):
		return badHost
	case errors.As(err, &badCert):
		return badCert
	case errors.As(err, &record):
		return record
	case errors.As(err, &alert):
		return alert
	}
	return nil
}
