package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"github.com/foliohq/folio"
	gomail "github.com/wneessen/go-mail"
)

// TLS modes of SMTPConfig.TLS (SMTP_TLS).
const (
	// TLSOpportunistic uses STARTTLS when the server offers it and plain SMTP otherwise.
	TLSOpportunistic = "opportunistic"
	// TLSStartTLS requires STARTTLS; a server without it is a (temporary) failure.
	TLSStartTLS = "starttls"
	// TLSImplicit speaks TLS from the first byte ("SMTPS", usually port 465).
	TLSImplicit = "tls"
	// TLSNone never encrypts; only for a relay on the same host or network.
	TLSNone = "none"
)

// DefaultSMTPTimeout bounds connecting and every SMTP command when SMTPConfig.Timeout is zero.
const DefaultSMTPTimeout = 30 * time.Second

// SMTPConfig configures SMTP delivery.
type SMTPConfig struct {
	Host string
	// Port defaults to 587, or 465 for TLSImplicit.
	Port int
	// Username enables SMTP AUTH (the strongest of the server's PLAIN, LOGIN, CRAM-MD5, SCRAM
	// mechanisms); empty means no authentication.
	Username string
	Password string // NB: secret; never logged or put into errors.
	// From is the configured sender, used for messages with a zero From; also the envelope sender.
	From folio.MailAddress
	// TLS is one of TLSOpportunistic (default), TLSStartTLS, TLSImplicit, TLSNone. Port 465 with
	// the default mode means TLSImplicit.
	TLS string
	// Timeout defaults to DefaultSMTPTimeout.
	Timeout time.Duration
	// TLSConfig overrides the TLS client configuration (tests pass RootCAs). ServerName defaults
	// to Host.
	TLSConfig *tls.Config
}

// SMTP is a folio.Mailer that delivers each message over a new SMTP connection.
type SMTP struct {
	host string
	port int
	mode string
	from folio.MailAddress
	opts []gomail.Option
	// timeout bounds connecting and each command (ctx's deadline may shorten it).
	timeout time.Duration
	// Now supplies the Date header; defaults to time.Now.
	Now func() time.Time
}

var _ folio.Mailer = (*SMTP)(nil)

// NewSMTP checks cfg and returns the mailer. It does not connect.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	if cfg.Host == "" {
		return nil, errors.New("mail: SMTP host is required")
	}
	if cfg.From.IsZero() {
		return nil, errors.New("mail: SMTP sender (From) is required")
	}
	probe := folio.MailMessage{From: cfg.From, To: []folio.MailAddress{cfg.From}, Text: "-"}
	if err := probe.Validate(); err != nil {
		return nil, fmt.Errorf("mail: SMTP sender: %w", err)
	}
	mode := cfg.TLS
	if mode == "" {
		mode = TLSOpportunistic
	}
	if mode == TLSOpportunistic && cfg.Port == 465 {
		mode = TLSImplicit // nothing speaks STARTTLS on the SMTPS port
	}
	port := cfg.Port
	if port == 0 {
		port = 587
		if mode == TLSImplicit {
			port = 465
		}
	}
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("mail: SMTP port %d out of range", port)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultSMTPTimeout
	}
	tlsConfig := &tls.Config{ServerName: cfg.Host, MinVersion: tls.VersionTLS12}
	if cfg.TLSConfig != nil {
		tlsConfig = cfg.TLSConfig.Clone()
		if tlsConfig.ServerName == "" {
			tlsConfig.ServerName = cfg.Host
		}
	}

	// One message per connection: no NOOP before it and no RSET after it, so the server's 250
	// to DATA is the last answer Send waits for.
	opts := []gomail.Option{
		gomail.WithPort(port),
		gomail.WithTLSConfig(tlsConfig),
		gomail.WithoutNoop(),
		gomail.WithoutRset(),
	}
	switch mode {
	case TLSOpportunistic:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	case TLSStartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		return nil, fmt.Errorf("mail: SMTP TLS mode %q is not one of opportunistic, starttls, tls, none", cfg.TLS)
	}
	if cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(cfg.Username), gomail.WithPassword(cfg.Password))
	}
	return &SMTP{host: cfg.Host, port: port, mode: mode, from: cfg.From, opts: opts, timeout: timeout}, nil
}

// Send validates m, connects, delivers it to every To and Cc recipient, and returns as soon as
// the server has accepted it (its 250 to DATA); the QUIT goes on in the background, as its
// outcome changes nothing: the mail is the server's. ctx's deadline bounds the whole
// conversation up to the acceptance.
// Failures are *folio.MailError: permanent for an invalid message or a 5xx reply to MAIL, RCPT
// or DATA; temporary for everything else (connection, TLS, authentication, 4xx, ctx).
func (s *SMTP) Send(ctx context.Context, m *folio.MailMessage) error {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	msg, err := build(m, s.from, now())
	if err != nil {
		return &folio.MailError{Permanent: true, Err: err}
	}
	// go-mail applies its timeout twice at most (connection with greeting, EHLO, STARTTLS and
	// AUTH; then MAIL, RCPT and DATA), and ctx only to the dial.
	timeout := s.timeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl)/2)
	}
	if err := ctx.Err(); err != nil || timeout <= 0 {
		return &folio.MailError{Err: fmt.Errorf("smtp %s: no time left to send: %w", s.host, context.DeadlineExceeded)}
	}
	client, err := gomail.NewClient(s.host, append(s.opts[:len(s.opts):len(s.opts)], gomail.WithTimeout(timeout))...)
	if err != nil {
		return &folio.MailError{Err: fmt.Errorf("smtp %s: %w", s.host, err)}
	}
	conn, err := client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return classify(s.host, fmt.Errorf("dial failed: %w", err))
	}
	err = client.SendWithSMTPClient(conn, msg)
	go func() {
		if client.CloseWithSMTPClient(conn) != nil {
			_ = conn.Close() // QUIT failed: the connection may still be open
		}
	}()
	if err != nil && !msg.IsDelivered() {
		return classify(s.host, fmt.Errorf("send failed: %w", err))
	}
	return nil
}

// classify turns a go-mail error into a *folio.MailError. Only a 5xx answer to the transaction
// itself is permanent: a 5xx to EHLO or AUTH means misconfiguration on our side or the server's,
// which can be fixed while the message waits in the outbox.
func classify(host string, err error) error {
	wrapped := fmt.Errorf("smtp %s: %w", host, err)
	var se *gomail.SendError
	if errors.As(err, &se) {
		code := se.ErrorCode()
		permanent := code >= 500 && code < 600 || se.Reason == gomail.ErrNoUnencoded
		return &folio.MailError{Permanent: permanent, Code: code, Err: wrapped}
	}
	return &folio.MailError{Err: wrapped}
}
