package httpapi

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/sqldb"
)

func newContactServer(t *testing.T, db *sqldb.DB, smtp *smtptest.Server, helperLimit int) (*testServer, *mail.Outbox) {
	t.Helper()
	from := folio.MailAddress{Name: "folio", Email: "folio@example.org"}
	mailer, err := mail.NewSMTP(mail.SMTPConfig{Host: smtp.Host, Port: smtp.Port, From: from, TLS: mail.TLSNone, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	outbox := mail.NewOutbox(db.Outbox, mailer, from, nil)
	ts := newTestServer(t, db, func(s *Server) {
		s.Outbox, s.Settings = outbox, testSettings(t, db, "CONTACT_RECIPIENT", "owner@example.org")
		s.Limits.Helper = helperLimit
	})
	return ts, outbox
}

// textBody returns the text/plain part of a delivered message.
func textBody(t *testing.T, m smtptest.Message) string {
	t.Helper()
	msg := m.Parsed(t)
	mt, params, _ := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if !strings.HasPrefix(mt, "multipart/") {
		b, _ := io.ReadAll(msg.Body)
		return string(b)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("no text/plain part: %v", err)
		}
		if strings.HasPrefix(p.Header.Get("Content-Type"), "text/plain") {
			b, _ := io.ReadAll(p) // multipart.Part decodes quoted-printable
			return string(b)
		}
	}
}

func TestContactRoute(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		smtp := smtptest.Start(t)
		ts, outbox := newContactServer(t, db, smtp, 1000)
		v := newOpenAPIValidator(t, ts)

		res := ts.do("POST", "/api/contact", "", map[string]any{"name": "Ada Lovelace", "email": "ada@example.com",
			"subject": "A project", "message": "Hello!\nLet's talk about engines."})
		if res.Status != 200 || string(res.Body) != `{"success":true,"message":"Message sent successfully."}`+"\n" {
			t.Fatalf("contact: %d %s", res.Status, res.Body)
		}
		v.check("POST", "/api/contact", res)
		msgs := smtp.Messages()
		if len(msgs) != 1 {
			t.Fatalf("%d messages delivered", len(msgs))
		}
		m := msgs[0].Parsed(t)
		dec := new(mime.WordDecoder)
		subject, _ := dec.DecodeHeader(m.Header.Get("Subject"))
		if subject != "Contact Form: A project" || !strings.Contains(m.Header.Get("Reply-To"), "ada@example.com") ||
			!strings.Contains(m.Header.Get("To"), "owner@example.org") || !strings.Contains(m.Header.Get("From"), "folio@example.org") ||
			msgs[0].To[0] != "owner@example.org" {
			t.Errorf("headers: subject %q, reply-to %q, to %q, from %q", subject, m.Header.Get("Reply-To"), m.Header.Get("To"), m.Header.Get("From"))
		}
		body := textBody(t, msgs[0])
		for _, want := range []string{"Ada Lovelace", "ada@example.com", "Let's talk about engines."} {
			if !strings.Contains(body, want) {
				t.Errorf("body lacks %q:\n%s", want, body)
			}
		}
		// No subject: "Message from <name>".
		ts.do("POST", "/api/contact", "", map[string]any{"name": "Grace", "email": "grace@example.com", "message": "Hi"})
		if got, _ := dec.DecodeHeader(smtp.Messages()[1].Parsed(t).Header.Get("Subject")); got != "Contact Form: Message from Grace" {
			t.Errorf("subject without one = %q", got)
		}

		for _, tc := range []struct {
			name string
			body any
			want string
		}{
			{"missing message", map[string]any{"name": "a", "email": "a@example.com"}, "Missing required fields: message."},
			{"whitespace only", map[string]any{"name": "  ", "email": "a@example.com", "message": "\t\n"}, "Missing required fields: name, message."},
			{"nothing", map[string]any{}, "Missing required fields: name, email, message."},
			{"invalid email", map[string]any{"name": "a", "email": "not-an-email", "message": "m"}, "The email address is not valid."},
			{"email with display name", map[string]any{"name": "a", "email": "Eve <eve@example.com>", "message": "m"}, "The email address is not valid."},
			{"header injection in subject", map[string]any{"name": "a", "email": "a@example.com", "subject": "hi\r\nBcc: victim@example.com", "message": "m"}, "The field subject must be a single line."},
			{"header injection in name", map[string]any{"name": "a\nBcc: x@example.com", "email": "a@example.com", "message": "m"}, "The field name must be a single line."},
			{"NUL in message", `{"name": "a", "email": "a@example.com", "message": "m\u0000"}`, "The field message must not contain NUL characters."},
			{"NUL in name", `{"name": "a\u0000", "email": "a@example.com", "message": "m"}`, "The field name must be a single line."},
			{"wrong type", `{"name": 5, "email": "a@example.com", "message": "m"}`, "The field name must be a string."},
			{"not json", `name=a`, "The request body must be a JSON object with name, email and message."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := ts.do("POST", "/api/contact", "", tc.body)
				if res.Status != 400 || res.json(t)["error"] != tc.want {
					t.Errorf("got %d %s, want 400 %q", res.Status, res.Body, tc.want)
				}
				v.check("POST", "/api/contact", res)
			})
		}
		if n := len(smtp.Messages()); n != 2 {
			t.Errorf("invalid requests sent mail: %d messages", n)
		}

		// Server down: 500 {error}, the message is stored and delivered by the outbox later.
		smtp.Stop()
		res = ts.do("POST", "/api/contact", "", map[string]any{"name": "Lin", "email": "lin@example.com", "message": "Are you there?"})
		if res.Status != 500 || !strings.Contains(res.json(t)["error"].(string), "failed to send") {
			t.Fatalf("send failure: %d %s", res.Status, res.Body)
		}
		list := ts.do("GET", "/api/contact/messages", "admin", nil)
		v.check("GET", "/api/contact/messages", list)
		lm := list.json(t)["messages"].([]any)
		if len(lm) != 3 {
			t.Fatalf("%d stored messages, want 3", len(lm))
		}
		latest := lm[0].(map[string]any)
		if latest["message"] != "Are you there?" || latest["delivery"].(map[string]any)["status"] != "failed" {
			t.Errorf("stored failed message: %v", latest)
		}
		if ts.do("GET", "/api/contact/messages", "write", nil).Status != 403 {
			t.Error("write key read the contact inbox")
		}
		failed := ts.do("GET", "/api/mail/outbox?status=failed", "admin", nil)
		v.check("GET", "/api/mail/outbox", failed)
		if n := len(failed.json(t)["items"].([]any)); n != 1 {
			t.Errorf("%d failed outbox items, want 1", n)
		}
		// A new server comes up; the worker retries after the backoff and delivers exactly once.
		smtp2 := smtptest.Start(t)
		mailer, _ := mail.NewSMTP(mail.SMTPConfig{Host: smtp2.Host, Port: smtp2.Port, From: folio.MailAddress{Email: "folio@example.org"}, TLS: mail.TLSNone})
		outbox.Mailer = mailer
		outbox.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
		if sent, err := outbox.RunOnce(context.Background()); err != nil || sent != 1 {
			t.Fatalf("retry: sent %d, %v", sent, err)
		}
		if sent, _ := outbox.RunOnce(context.Background()); sent != 0 {
			t.Errorf("second run sent %d more", sent)
		}
		if got := smtp2.Messages(); len(got) != 1 || !strings.Contains(textBody(t, got[0]), "Are you there?") {
			t.Errorf("retried delivery: %d messages", len(got))
		}
	})
}

// Ensure the contact form takes the helper limit: 5 per hour per client IP.
func TestContactHelperLimit(t *testing.T) {
	smtp := smtptest.Start(t)
	ts, _ := newContactServer(t, foliotest.MustOpenSQLite(t), smtp, 5)
	for i := 1; i <= 6; i++ {
		res := ts.do("POST", "/api/contact", "", map[string]any{"name": "x", "email": "x@example.com", "message": "m"})
		if i <= 5 && res.Status != 200 {
			t.Fatalf("request %d: %d %s", i, res.Status, res.Body)
		}
		if i == 6 && (res.Status != http.StatusTooManyRequests || res.errorCode(t) != "RATE_LIMIT_EXCEEDED" || res.Header.Get("Retry-After") == "") {
			t.Errorf("sixth request: %d %s", res.Status, res.Body)
		}
	}
	if n := len(smtp.Messages()); n != 5 {
		t.Errorf("%d mails sent, want 5", n)
	}
}

func TestContactRejectedByServer(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	smtp := smtptest.Start(t)
	ts, _ := newContactServer(t, db, smtp, 5)
	smtp.RejectNext(1)
	res := ts.do("POST", "/api/contact", "", map[string]any{"name": "a", "email": "a@example.com", "message": "m"})
	if res.Status != 500 {
		t.Fatalf("rejected: %d %s", res.Status, res.Body)
	}
	lm := ts.do("GET", "/api/contact/messages", "admin", nil).json(t)["messages"].([]any)
	if len(lm) != 1 || lm[0].(map[string]any)["delivery"].(map[string]any)["status"] != "dead" {
		t.Errorf("a permanently rejected message must be kept and marked dead: %v", lm)
	}
}

// Ensure a message that could not be stored is never reported as saved for later delivery.
func TestContactStoreFailure(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	smtp := smtptest.Start(t)
	ts, _ := newContactServer(t, db, smtp, 5)
	db.Close()
	res := ts.do("POST", "/api/contact", "", map[string]any{"name": "a", "email": "a@example.com", "message": "m"})
	if res.Status != http.StatusServiceUnavailable || strings.Contains(string(res.Body), "delivered later") {
		t.Errorf("store failure: %d %s", res.Status, res.Body)
	}
	if n := len(smtp.Messages()); n != 0 {
		t.Errorf("%d mails sent for an unsaved message", n)
	}
}
