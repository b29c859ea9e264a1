package httpapi

import (
	"io"
	"mime/quotedprintable"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/sqldb"
)

var signInLinkRE = regexp.MustCompile(`https://dash\.example/admin/#signin-link=([A-Za-z0-9_-]+)`)

// linkFromMail returns the secret of the sign-in link in msg.
func linkFromMail(t *testing.T, msg smtptest.Message) string {
	t.Helper()
	p := msg.Parsed(t)
	body, _ := io.ReadAll(p.Body)
	if strings.EqualFold(p.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body, _ = io.ReadAll(quotedprintable.NewReader(strings.NewReader(string(body))))
	}
	m := signInLinkRE.FindStringSubmatch(string(body))
	if m == nil {
		t.Fatalf("no sign-in link in the mail: %s", msg.Data)
	}
	return m[1]
}

// Ensure a sign-in link is mailed only to an account's address when links are on, answers 202
// the same way whatever the address, signs in once within 15 minutes, and is limited.
func TestSignInLink(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		smtp := smtptest.Start(t)
		from := folio.MailAddress{Name: "folio", Email: "folio@example.org"}
		mailer, err := mail.NewSMTP(mail.SMTPConfig{Host: smtp.Host, Port: smtp.Port, From: from, TLS: mail.TLSNone, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		outbox := mail.NewOutbox(db.Outbox, mailer, from, nil)
		f := newIdentityFixture(t, db, IdentityConfig{BaseURL: "https://dash.example"}, func(s *Server) { s.Outbox = outbox })
		seen := 0
		ask := func(email string) response {
			t.Helper()
			return f.do("POST", "/api/auth/link", "", map[string]string{"email": email})
		}

		// Off: 202 and no mail.
		if res := ask("owner@example.com"); res.Status != 202 {
			t.Fatalf("links off: %d %s", res.Status, res.Body)
		}
		if msgs := deliver(t, outbox, smtp, &seen); len(msgs) != 0 {
			t.Fatalf("a mail while links are off: %d", len(msgs))
		}
		on := true
		if _, err := f.Settings.Update(t.Context(), &folio.SettingsUpdate{Auth: &folio.AuthUpdate{EmailLinks: &on}}); err != nil {
			t.Fatal(err)
		}

		known, unknown := ask("Owner@Example.com"), ask("nobody@example.com")
		if known.Status != 202 || unknown.Status != 202 || string(known.Body) != string(unknown.Body) {
			t.Fatalf("known %d %s / unknown %d %s: the answers differ", known.Status, known.Body, unknown.Status, unknown.Body)
		}
		if res := ask("not an address"); res.Status != 422 {
			t.Errorf("malformed address: %d %s", res.Status, res.Body)
		}
		msgs := deliver(t, outbox, smtp, &seen)
		if len(msgs) != 1 || len(msgs[0].To) != 1 || msgs[0].To[0] != "owner@example.com" {
			t.Fatalf("mails: %+v", msgs)
		}
		token := linkFromMail(t, msgs[0])

		res := f.do("POST", "/api/auth/link/verify", "", map[string]string{"token": token})
		if res.Status != 200 || res.json(t)["user"].(map[string]any)["id"] != f.Owner.ID {
			t.Fatalf("verify: %d %s", res.Status, res.Body)
		}
		c := sessionCookieOf(t, res, f.ID.CookieName())
		if got := f.do("GET", "/api/user/profile", "", nil, "Cookie", c.Name+"="+c.Value); got.Status != 200 {
			t.Errorf("session of the link: %d", got.Status)
		}
		if res := f.do("POST", "/api/auth/link/verify", "", map[string]string{"token": token}); res.Status != 401 || res.errorCode(t) != folio.EUNAUTHORIZED {
			t.Errorf("a link used twice: %d %s", res.Status, res.Body)
		}

		// A link older than 15 minutes does not sign in.
		f.Limiter = nil
		ask("owner@example.com")
		msgs = deliver(t, outbox, smtp, &seen)
		if len(msgs) != 1 {
			t.Fatalf("second link: %d mails", len(msgs))
		}
		old := linkFromMail(t, msgs[0])
		f.Clock.Advance(15*time.Minute + time.Second)
		if res := f.do("POST", "/api/auth/link/verify", "", map[string]string{"token": old}); res.Status != 401 {
			t.Errorf("an expired link: %d %s", res.Status, res.Body)
		}
		if res := f.do("POST", "/api/auth/link/verify", "", map[string]string{"token": ""}); res.Status != 400 {
			t.Errorf("no token: %d %s", res.Status, res.Body)
		}
	})
}

// Ensure the link requests of one client for one account are limited like sign-in failures.
func TestSignInLinkLimited(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	f := newIdentityFixture(t, db, IdentityConfig{}, func(s *Server) { s.Limits.Helper = 3 })
	on := true
	if _, err := f.Settings.Update(t.Context(), &folio.SettingsUpdate{Auth: &folio.AuthUpdate{EmailLinks: &on}}); err != nil {
		t.Fatal(err)
	}
	statuses := []int{}
	for range 4 {
		statuses = append(statuses, f.do("POST", "/api/auth/link", "", map[string]string{"email": "editor@example.com"}).Status)
	}
	if statuses[0] != 202 || statuses[3] != 429 {
		t.Errorf("four link requests with a limit of 3: %v", statuses)
	}
}
