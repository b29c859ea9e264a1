package mail

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
)

func newTestSMTP(t *testing.T, cfg SMTPConfig) *SMTP {
	t.Helper()
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.From.IsZero() {
		cfg.From = testSender
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	s, err := NewSMTP(cfg)
	if err != nil {
		t.Fatalf("NewSMTP: %v", err)
	}
	s.Now = func() time.Time { return testNow }
	return s
}

func TestSMTPDelivers(t *testing.T) {
	t.Parallel()
	serverTLS, clientTLS := selfSignedTLS(t)
	users := map[string]string{"folio": "s3cret-pass"}
	tests := []struct {
		name     string
		server   serverOpts
		cfg      SMTPConfig
		msg      func() *folio.MailMessage
		wantTLS  bool
		wantAuth string
	}{
		{name: "none, no auth, plain text",
			cfg: SMTPConfig{TLS: TLSNone}, msg: plainMessage},
		{name: "none refuses STARTTLS the server offers",
			server: serverOpts{startTLS: serverTLS}, cfg: SMTPConfig{TLS: TLSNone}, msg: plainMessage},
		{name: "opportunistic stays plain without STARTTLS",
			cfg: SMTPConfig{TLS: TLSOpportunistic}, msg: plainMessage},
		{name: "opportunistic upgrades with STARTTLS",
			server: serverOpts{startTLS: serverTLS}, cfg: SMTPConfig{TLSConfig: clientTLS}, msg: richMessage, wantTLS: true},
		{name: "starttls with AUTH PLAIN, html and ics",
			server: serverOpts{startTLS: serverTLS, users: users},
			cfg:    SMTPConfig{TLS: TLSStartTLS, TLSConfig: clientTLS, Username: "folio", Password: "s3cret-pass"},
			msg:    richMessage, wantTLS: true, wantAuth: "folio"},
		{name: "implicit tls with AUTH PLAIN",
			server: serverOpts{implicitTLS: serverTLS, users: users},
			cfg:    SMTPConfig{TLS: TLSImplicit, TLSConfig: clientTLS, Username: "folio", Password: "s3cret-pass"},
			msg:    richMessage, wantTLS: true, wantAuth: "folio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startSMTPServer(t, tt.server)
			tt.cfg.Port = srv.Port
			mailer := newTestSMTP(t, tt.cfg)
			msg := tt.msg()
			if err := mailer.Send(context.Background(), msg); err != nil {
				t.Fatalf("Send: %v", err)
			}
			got := srv.deliveries()
			if len(got) != 1 {
				t.Fatalf("server received %d messages, want 1", len(got))
			}
			d := got[0]
			if d.From != testSender.Email {
				t.Errorf("MAIL FROM = %q, want %q", d.From, testSender.Email)
			}
			var wantRcpt []string
			for _, a := range append(append([]folio.MailAddress{}, msg.To...), msg.Cc...) {
				wantRcpt = append(wantRcpt, a.Email)
			}
			if !slices.Equal(d.To, wantRcpt) {
				t.Errorf("RCPT TO = %v, want %v", d.To, wantRcpt)
			}
			if d.TLS != tt.wantTLS {
				t.Errorf("TLS = %v, want %v", d.TLS, tt.wantTLS)
			}
			if d.AuthUser != tt.wantAuth {
				t.Errorf("AUTH user = %q, want %q", d.AuthUser, tt.wantAuth)
			}
			p := parseMail(t, d.Data)
			if !p.Date.Equal(testNow) {
				t.Errorf("Date = %v, want %v", p.Date, testNow)
			}
			if msg.HTML != "" {
				checkRich(t, p)
				return
			}
			if len(p.To) != 1 || p.To[0].Address != "ada@example.com" || p.To[0].Name != "Ada Lovelace" {
				t.Errorf("To = %v", p.To)
			}
			if p.Subject != "Hello" || p.MessageID != "<plain-1@folio.test>" {
				t.Errorf("Subject = %q, Message-ID = %q", p.Subject, p.MessageID)
			}
			if len(p.Parts) != 1 || p.Parts[0].MediaType != "text/plain" || crlfToLF(p.Parts[0].Body) != msg.Text {
				t.Errorf("parts = %+v, want one text/plain %q", p.Parts, msg.Text)
			}
			if len(p.ReplyTo) != 0 {
				t.Errorf("Reply-To = %v, want none", p.ReplyTo)
			}
		})
	}
}

// refusedPort returns a loopback port with nothing listening on it.
// A mail the server accepted (250 to DATA) is sent, whatever becomes of the QUIT after it: a
// failure there would have the caller send it again.
func TestSMTPAcceptedBeforeQuitFails(t *testing.T) {
	t.Parallel()
	for _, mode := range []smtptest.QuitMode{smtptest.QuitDrop, smtptest.QuitHang} {
		srv := smtptest.Start(t)
		srv.AtQuit(mode)
		s := newTestSMTP(t, SMTPConfig{Port: srv.Port, TLS: TLSNone, Timeout: time.Minute})
		// The deadline is far beyond what the test takes: a Send that waited for the hung QUIT
		// would outlive the test's server and fail with a timeout.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		err := s.Send(ctx, plainMessage())
		cancel()
		if err != nil {
			t.Fatalf("quit mode %d: Send = %v, want nil: the server has the mail", mode, err)
		}
		if got := srv.Messages(); len(got) != 1 || !slices.Equal(got[0].To, []string{"ada@example.com"}) {
			t.Fatalf("quit mode %d: server got %+v", mode, got)
		}
	}
}

func refusedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	return port
}

func TestSMTPFailures(t *testing.T) {
	t.Parallel()
	serverTLS, clientTLS := selfSignedTLS(t)
	reject := func(code int, enh smtp.EnhancedCode, text string) func(string) error {
		return func(to string) error {
			if to == "ada@example.com" {
				return &smtp.SMTPError{Code: code, EnhancedCode: enh, Message: text}
			}
			return nil
		}
	}
	tests := []struct {
		name          string
		server        *serverOpts // nil: nothing listens
		cfg           SMTPConfig
		ctx           func() context.Context
		wantPermanent bool
		wantCode      int
	}{
		{name: "server down", cfg: SMTPConfig{TLS: TLSNone}},
		{name: "RCPT rejected 550 is permanent",
			server: &serverOpts{rcptErr: reject(550, smtp.EnhancedCode{5, 1, 1}, "No such user")},
			cfg:    SMTPConfig{TLS: TLSNone}, wantPermanent: true, wantCode: 550},
		{name: "RCPT deferred 451 is temporary",
			server: &serverOpts{rcptErr: reject(451, smtp.EnhancedCode{4, 3, 0}, "Try again later")},
			cfg:    SMTPConfig{TLS: TLSNone}, wantCode: 451},
		{name: "starttls required but not offered",
			server: &serverOpts{}, cfg: SMTPConfig{TLS: TLSStartTLS, TLSConfig: clientTLS}},
		{name: "untrusted certificate",
			server: &serverOpts{startTLS: serverTLS}, cfg: SMTPConfig{TLS: TLSStartTLS}},
		{name: "wrong password is temporary (fixable configuration)",
			server: &serverOpts{startTLS: serverTLS, users: map[string]string{"folio": "right"}},
			cfg:    SMTPConfig{TLS: TLSStartTLS, TLSConfig: clientTLS, Username: "folio", Password: "wrong-pw-Xyz"}},
		{name: "cancelled context",
			server: &serverOpts{}, cfg: SMTPConfig{TLS: TLSNone},
			ctx: func() context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var srv *smtpServer
			if tt.server != nil {
				srv = startSMTPServer(t, *tt.server)
				tt.cfg.Port = srv.Port
			} else {
				tt.cfg.Port = refusedPort(t)
			}
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = tt.ctx()
			}
			err := newTestSMTP(t, tt.cfg).Send(ctx, plainMessage())
			if err == nil {
				t.Fatal("Send succeeded, want an error")
			}
			var me *folio.MailError
			if !errors.As(err, &me) {
				t.Fatalf("error %T %v is not a *folio.MailError", err, err)
			}
			if me.Permanent != tt.wantPermanent || folio.IsPermanentMailError(err) != tt.wantPermanent {
				t.Errorf("permanent = %v, want %v (%v)", me.Permanent, tt.wantPermanent, err)
			}
			if me.Code != tt.wantCode {
				t.Errorf("code = %d, want %d (%v)", me.Code, tt.wantCode, err)
			}
			if strings.Contains(err.Error(), "wrong-pw-Xyz") {
				t.Errorf("error leaks the password: %v", err)
			}
			if srv != nil && len(srv.deliveries()) != 0 {
				t.Errorf("server accepted %d messages, want 0", len(srv.deliveries()))
			}
		})
	}
}

func TestSMTPRefusesHeaderInjectionBeforeConnecting(t *testing.T) {
	t.Parallel()
	srv := startSMTPServer(t, serverOpts{})
	mailer := newTestSMTP(t, SMTPConfig{Port: srv.Port, TLS: TLSNone})
	tests := []struct {
		name string
		mut  func(m *folio.MailMessage)
	}{
		{"CRLF in recipient name", func(m *folio.MailMessage) { m.To[0].Name = "Ada\r\nBcc: victim@evil.test" }},
		{"LF in recipient email", func(m *folio.MailMessage) { m.To[0].Email = "ada@example.com\nBcc: victim@evil.test" }},
		{"CR in subject", func(m *folio.MailMessage) { m.Subject = "Hi\rBcc: victim@evil.test" }},
		{"LF in subject", func(m *folio.MailMessage) { m.Subject = "Hi\nBcc: victim@evil.test" }},
		{"CRLF in reply-to name", func(m *folio.MailMessage) {
			m.ReplyTo = &folio.MailAddress{Name: "V\r\nBcc: victim@evil.test", Email: "v@example.net"}
		}},
		{"CRLF in reply-to email", func(m *folio.MailMessage) {
			m.ReplyTo = &folio.MailAddress{Email: "v@example.net\r\nBcc: victim@evil.test"}
		}},
		{"NUL in name", func(m *folio.MailMessage) { m.To[0].Name = "Ada\x00" }},
		{"LF in header value", func(m *folio.MailMessage) { m.Headers["X-Tag"] = "a\nBcc: victim@evil.test" }},
		{"Bcc smuggled as header", func(m *folio.MailMessage) { m.Headers["Bcc"] = "victim@evil.test" }},
		{"invalid address", func(m *folio.MailMessage) { m.To[0].Email = "not-an-address" }},
		{"display name in email field", func(m *folio.MailMessage) { m.To[0].Email = "Ada <ada@example.com>" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := plainMessage()
			tt.mut(m)
			err := mailer.Send(context.Background(), m)
			if !folio.IsPermanentMailError(err) || folio.ErrorCode(err) != folio.EINVALID {
				t.Errorf("err = %v, want a permanent VALIDATION_ERROR", err)
			}
		})
	}
	if n := srv.sessionCount(); n != 0 {
		t.Errorf("server saw %d connections, want 0", n)
	}
}

func TestNewSMTPConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     SMTPConfig
		wantErr string
	}{
		{"ok defaults", SMTPConfig{Host: "smtp.example.com", From: testSender}, ""},
		{"465 implies tls", SMTPConfig{Host: "smtp.example.com", Port: 465, From: testSender}, ""},
		{"no host", SMTPConfig{From: testSender}, "host"},
		{"no sender", SMTPConfig{Host: "smtp.example.com"}, "sender"},
		{"bad sender", SMTPConfig{Host: "smtp.example.com", From: folio.MailAddress{Email: "nope"}}, "sender"},
		{"bad tls mode", SMTPConfig{Host: "smtp.example.com", From: testSender, TLS: "ssl"}, "TLS mode"},
		{"bad port", SMTPConfig{Host: "smtp.example.com", From: testSender, Port: 70000}, "port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewSMTP(tt.cfg)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("NewSMTP err = %v, want containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestSMTPModeAndPort(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tls      string
		port     int
		wantMode string
		wantPort int
	}{
		{"", 0, TLSOpportunistic, 587},
		{TLSOpportunistic, 0, TLSOpportunistic, 587},
		{"", 465, TLSImplicit, 465},
		{TLSOpportunistic, 465, TLSImplicit, 465},
		{TLSImplicit, 0, TLSImplicit, 465},
		{TLSStartTLS, 0, TLSStartTLS, 587},
		{TLSStartTLS, 2525, TLSStartTLS, 2525},
		{TLSNone, 25, TLSNone, 25},
		{TLSNone, 465, TLSNone, 465}, // an explicit mode wins
	}
	for _, tt := range tests {
		s, err := NewSMTP(SMTPConfig{Host: "smtp.example.com", From: testSender, TLS: tt.tls, Port: tt.port})
		if err != nil {
			t.Fatalf("NewSMTP(%q, %d): %v", tt.tls, tt.port, err)
		}
		if s.mode != tt.wantMode || s.port != tt.wantPort {
			t.Errorf("NewSMTP(%q, %d) = %s:%d, want %s:%d", tt.tls, tt.port, s.mode, s.port, tt.wantMode, tt.wantPort)
		}
	}
}
