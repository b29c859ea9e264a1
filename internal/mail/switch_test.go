package mail_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/mail/outboxtest"
)

// recorder is a folio.Mailer that keeps what it is given.
type recorder struct{ got []*folio.MailMessage }

func (r *recorder) Send(_ context.Context, m *folio.MailMessage) error {
	r.got = append(r.got, m)
	return nil
}

// Ensure a Switch delivers through the mailer set last, and the outbox names messages after the
// sender set with it.
func TestSwitch(t *testing.T) {
	ctx := context.Background()
	a, b := &recorder{}, &recorder{}
	sw := mail.NewSwitch(a, folio.MailAddress{Email: "folio@first.example"})
	o := mail.NewOutbox(outboxtest.NewMemStore(), sw, folio.MailAddress{Email: "unused@start.example"}, nil)
	msg := &folio.MailMessage{To: []folio.MailAddress{{Email: "v@example.org"}}, Subject: "s", Text: "t"}
	it, err := o.NewItem(msg)
	if err != nil || !strings.Contains(string(it.Payload), "@first.example\\u003e") {
		t.Fatalf("Message-ID of the first sender: %s, %v", it.Payload, err)
	}
	if err := sw.Send(ctx, msg); err != nil || len(a.got) != 1 {
		t.Fatalf("first mailer: %d, %v", len(a.got), err)
	}
	sw.Set(b, folio.MailAddress{Name: "Ada", Email: "ada@second.example"})
	if err := sw.Send(ctx, msg); err != nil || len(a.got) != 1 || len(b.got) != 1 {
		t.Errorf("after Set: first %d, second %d, %v", len(a.got), len(b.got), err)
	}
	if it, _ := o.NewItem(msg); !strings.Contains(string(it.Payload), "@second.example\\u003e") || sw.Sender().Name != "Ada" {
		t.Errorf("Message-ID of the second sender: %s", it.Payload)
	}
}

// Ensure Explain quotes the server's refusal and says which step failed otherwise.
func TestExplain(t *testing.T) {
	srv := smtptest.Start(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	send := func(cfg mail.SMTPConfig) string {
		cfg.From, cfg.Timeout, cfg.Password = folio.MailAddress{Email: "folio@example.com"}, 10*time.Second, "pa55word-never-shown"
		m, err := mail.NewSMTP(cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = m.Send(context.Background(), &folio.MailMessage{To: []folio.MailAddress{{Email: "owner@example.com"}}, Subject: "s", Text: "t"})
		if err == nil {
			t.Fatal("delivered")
		}
		return mail.Explain(err)
	}
	srv.RejectNext(1)
	for got, want := range map[string][]string{
		send(mail.SMTPConfig{Host: srv.Host, Port: srv.Port, TLS: mail.TLSNone}):     {"the mail server refused:", "550", "no such user"},
		send(mail.SMTPConfig{Host: "127.0.0.1", Port: closed, TLS: mail.TLSNone}):    {"cannot connect to the mail server at 127.0.0.1:", "connection refused"},
		send(mail.SMTPConfig{Host: srv.Host, Port: srv.Port, TLS: mail.TLSImplicit}): {"TLS with the mail server failed:"},
		send(mail.SMTPConfig{Host: srv.Host, Port: srv.Port, TLS: mail.TLSStartTLS}): {"STARTTLS"},
	} {
		for _, w := range want {
			if !strings.Contains(got, w) || strings.Contains(got, "pa55word") {
				t.Errorf("Explain = %q, want %q in it and no password", got, w)
			}
		}
	}
}
