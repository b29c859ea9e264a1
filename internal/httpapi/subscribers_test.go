package httpapi

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/newsletter"
	"github.com/foliohq/folio/internal/sqldb"
)

// newSubscriberServer is a test server whose subscriber mails go through a real SMTP server.
func newSubscriberServer(t *testing.T, db *sqldb.DB, smtp *smtptest.Server, tweak ...func(*Server)) (*testServer, *mail.Outbox) {
	t.Helper()
	from := folio.MailAddress{Name: "folio", Email: "folio@example.org"}
	mailer, err := mail.NewSMTP(mail.SMTPConfig{Host: smtp.Host, Port: smtp.Port, From: from, TLS: mail.TLSNone, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	outbox := mail.NewOutbox(db.Outbox, mailer, from, nil)
	ts := newTestServer(t, db, append([]func(*Server){func(s *Server) {
		s.Limits.Helper = 1000
		s.Subscribers = &newsletter.Service{Store: db.Subscribers, Mail: outbox, Outbox: db.Outbox, SiteURL: "https://site.test",
			ListMailto: folio.MailAddress{Email: "owner@example.org"}}
	}}, tweak...)...)
	return ts, outbox
}

var confirmLink = regexp.MustCompile(`https://site\.test/subscribe/confirm/([A-Za-z0-9_-]+)`)

// deliver runs the outbox once and returns what the SMTP server received since last time.
func deliver(t *testing.T, outbox *mail.Outbox, smtp *smtptest.Server, seen *int) []smtptest.Message {
	t.Helper()
	if _, err := outbox.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	msgs := smtp.Messages()
	out := msgs[*seen:]
	*seen = len(msgs)
	return out
}

func TestSubscribeConfirm(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		smtp := smtptest.Start(t)
		ts, outbox := newSubscriberServer(t, db, smtp)
		v := newOpenAPIValidator(t, ts)
		seen := 0

		res := ts.do("POST", "/api/subscribers", "", map[string]any{"email": " Ada@Example.com ", "name": "Ada", "source": "footer"})
		if res.Status != http.StatusAccepted || strings.TrimSpace(string(res.Body)) != `{"status":"pending"}` {
			t.Fatalf("subscribe: %d %s", res.Status, res.Body)
		}
		v.check("POST", "/api/subscribers", res)
		msgs := deliver(t, outbox, smtp, &seen)
		if len(msgs) != 1 || msgs[0].To[0] != "ada@example.com" {
			t.Fatalf("confirmation mails: %+v", msgs)
		}
		body := textBody(t, msgs[0])
		m := confirmLink.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no confirm link in the mail:\n%s", body)
		}
		token := m[1]

		// Asking again, at once: the same answer and no second mail.
		res = ts.do("POST", "/api/subscribers", "", map[string]any{"email": "ada@example.com"})
		if res.Status != http.StatusAccepted || strings.TrimSpace(string(res.Body)) != `{"status":"pending"}` {
			t.Fatalf("subscribe again: %d %s", res.Status, res.Body)
		}
		if msgs := deliver(t, outbox, smtp, &seen); len(msgs) != 0 {
			t.Fatalf("a second confirmation mail within the interval: %d", len(msgs))
		}

		res = ts.do("POST", "/api/subscribers/confirm/"+token, "", nil)
		if res.Status != http.StatusOK || strings.TrimSpace(string(res.Body)) != `{"status":"active"}` {
			t.Fatalf("confirm: %d %s", res.Status, res.Body)
		}
		v.check("POST", "/api/subscribers/confirm/{token}", res)
		// The welcome mail carries the unsubscribe headers (RFC 2369, RFC 8058) and a visible link.
		msgs = deliver(t, outbox, smtp, &seen)
		if len(msgs) != 1 || msgs[0].To[0] != "ada@example.com" {
			t.Fatalf("welcome mails: %+v", msgs)
		}
		hdr := msgs[0].Parsed(t).Header
		lu := regexp.MustCompile(`^<https://site\.test/unsubscribe/([A-Za-z0-9_-]{43})>, <mailto:owner@example\.org\?subject=unsubscribe\+ada%40example\.com>$`).FindStringSubmatch(hdr.Get("List-Unsubscribe"))
		if lu == nil || hdr.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
			t.Fatalf("List-Unsubscribe %q, List-Unsubscribe-Post %q", hdr.Get("List-Unsubscribe"), hdr.Get("List-Unsubscribe-Post"))
		}
		unsubToken := lu[1]
		if body := textBody(t, msgs[0]); !strings.Contains(body, "https://site.test/unsubscribe/"+unsubToken) {
			t.Fatalf("no visible unsubscribe link:\n%s", body)
		}
		defer func() {
			// One-click, as a mail provider sends it: a form body and no credentials; repeating it
			// gives the same answer.
			for range 2 {
				res := ts.do("POST", "/unsubscribe/"+unsubToken, "", "List-Unsubscribe=One-Click", "Content-Type", "application/x-www-form-urlencoded")
				if res.Status != http.StatusOK || strings.TrimSpace(string(res.Body)) != `{"status":"unsubscribed"}` {
					t.Fatalf("one-click unsubscribe: %d %s", res.Status, res.Body)
				}
			}
			if res := ts.do("POST", "/unsubscribe/unknown-token-aaaaaaaaaaaa", "", "List-Unsubscribe=One-Click", "Content-Type", "application/x-www-form-urlencoded"); res.Status != http.StatusNotFound {
				t.Fatalf("unknown unsubscribe token: %d %s", res.Status, res.Body)
			}
			if got := ts.do("GET", "/api/subscribers?status=unsubscribed", "admin", nil).json(t); got["total"] != float64(1) {
				t.Fatalf("after unsubscribe: %v", got)
			}
		}()

		for _, tok := range []string{token, "unknown-token-aaaaaaaaaaaa", "x"} {
			if res := ts.do("POST", "/api/subscribers/confirm/"+tok, "", nil); res.Status != http.StatusNotFound || res.errorCode(t) != folio.ENOTFOUND {
				t.Fatalf("confirm %q: %d %s", tok, res.Status, res.Body)
			}
		}

		// An active address: the same answer again, and no mail.
		if res := ts.do("POST", "/api/subscribers", "", map[string]any{"email": "ada@example.com"}); res.Status != http.StatusAccepted {
			t.Fatalf("subscribe an active address: %d %s", res.Status, res.Body)
		}
		// The honeypot: answered alike, nothing stored or sent.
		if res := ts.do("POST", "/api/subscribers", "", map[string]any{"email": "bot@example.com", "website": "http://spam.test"}); res.Status != http.StatusAccepted {
			t.Fatalf("honeypot: %d %s", res.Status, res.Body)
		}
		if msgs := deliver(t, outbox, smtp, &seen); len(msgs) != 0 {
			t.Fatalf("mails to an active address or a bot: %d", len(msgs))
		}
		for _, bad := range []map[string]any{{"email": "not an address"}, {}, {"email": "a@example.com", "name": "two\nlines"}} {
			if res := ts.do("POST", "/api/subscribers", "", bad); res.Status != http.StatusBadRequest || res.errorCode(t) != folio.EINVALID {
				t.Fatalf("subscribe %v: %d %s", bad, res.Status, res.Body)
			}
		}

		if res := ts.do("GET", "/api/subscribers", "", nil); res.Status != http.StatusUnauthorized {
			t.Fatalf("anonymous list: %d", res.Status)
		}
		if res := ts.do("GET", "/api/subscribers", "write", nil); res.Status != http.StatusForbidden {
			t.Fatalf("list by a write key: %d", res.Status)
		}
		res = ts.do("GET", "/api/subscribers?status=active&q=ADA", "admin", nil)
		v.check("GET", "/api/subscribers", res)
		var list struct {
			Subscribers []map[string]any `json:"subscribers"`
			Total       int              `json:"total"`
		}
		if err := json.Unmarshal(res.Body, &list); err != nil || res.Status != 200 || list.Total != 1 || len(list.Subscribers) != 1 {
			t.Fatalf("list: %d %s", res.Status, res.Body)
		}
		got := list.Subscribers[0]
		if got["email"] != "ada@example.com" || got["name"] != "Ada" || got["status"] != "active" || got["id"] == "" || got["createdAt"] == nil || got["confirmedAt"] == nil {
			t.Fatalf("listed subscriber: %v", got)
		}
		if res := ts.do("GET", "/api/subscribers?status=gone", "admin", nil); res.Status != http.StatusBadRequest {
			t.Fatalf("status=gone: %d", res.Status)
		}
	})
}

// Ensure the export is CSV whose visitor-written cells cannot run as formulas, and that erase
// removes the subscriber.
func TestSubscriberExportErase(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		smtp := smtptest.Start(t)
		ts, _ := newSubscriberServer(t, db, smtp)
		for _, in := range []map[string]any{{"email": "eve@example.com", "name": "=HYPERLINK(\"http://x.test\")", "source": "+sidebar"}, {"email": "fox@example.com"}} {
			if res := ts.do("POST", "/api/subscribers", "", in); res.Status != http.StatusAccepted {
				t.Fatalf("subscribe: %d %s", res.Status, res.Body)
			}
		}
		if res := ts.do("GET", "/api/subscribers/export", "write", nil); res.Status != http.StatusForbidden {
			t.Fatalf("export by a write key: %d", res.Status)
		}
		res := ts.do("GET", "/api/subscribers/export", "admin", nil)
		if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("export: %d %s", res.Status, res.Header.Get("Content-Type"))
		}
		rows, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
		if err != nil || len(rows) != 3 {
			t.Fatalf("export rows %v, %v:\n%s", rows, err, res.Body)
		}
		if strings.Join(rows[0], ",") != "email,name,status,source,createdAt,confirmedAt" {
			t.Fatalf("header %v", rows[0])
		}
		eve := rows[2]
		if eve[0] != "eve@example.com" || eve[1] != `'=HYPERLINK("http://x.test")` || eve[2] != "pending" || eve[3] != "'+sidebar" || eve[5] != "" {
			t.Fatalf("eve's row: %q", eve)
		}

		list := ts.do("GET", "/api/subscribers?q=fox", "admin", nil).json(t)
		id := list["subscribers"].([]any)[0].(map[string]any)["id"].(string)
		if res := ts.do("DELETE", "/api/subscribers/"+id, "admin", nil); res.Status != http.StatusNoContent {
			t.Fatalf("erase: %d %s", res.Status, res.Body)
		}
		if res := ts.do("DELETE", "/api/subscribers/"+id, "admin", nil); res.Status != http.StatusNotFound {
			t.Fatalf("erase twice: %d %s", res.Status, res.Body)
		}
		if got := ts.do("GET", "/api/subscribers", "admin", nil).json(t); got["total"] != float64(1) {
			t.Fatalf("after erase: %v", got)
		}
	})
}

// Ensure a CSV import adds new addresses (active only with consent), leaves listed ones as they
// are and reports refused rows by line.
func TestSubscriberImport(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		smtp := smtptest.Start(t)
		ts, outbox := newSubscriberServer(t, db, smtp)
		seen := 0
		ts.do("POST", "/api/subscribers", "", map[string]any{"email": "old@example.com"})
		deliver(t, outbox, smtp, &seen)
		csvBody := "\ufeffEmail,Name,Consent\nnew@example.com,New One,yes\nOLD@example.com,Old,yes\nmaybe@example.com,,no\nnot-an-address,x,yes\nnew@example.com,Twice,yes\n"
		if res := ts.do("POST", "/api/subscribers/import", "write", csvBody, "Content-Type", "text/csv"); res.Status != http.StatusForbidden {
			t.Fatalf("import by a write key: %d", res.Status)
		}
		res := ts.do("POST", "/api/subscribers/import", "admin", csvBody, "Content-Type", "text/csv")
		got := res.json(t)
		inv, _ := got["invalid"].([]any)
		if res.Status != 200 || got["imported"] != float64(2) || got["skipped"] != float64(2) || len(inv) != 1 || inv[0].(map[string]any)["line"] != float64(5) {
			t.Fatalf("import: %d %s", res.Status, res.Body)
		}
		status := map[string]string{}
		for _, s := range ts.do("GET", "/api/subscribers", "admin", nil).json(t)["subscribers"].([]any) {
			m := s.(map[string]any)
			status[m["email"].(string)] = m["status"].(string)
		}
		if status["new@example.com"] != "active" || status["maybe@example.com"] != "pending" || status["old@example.com"] != "pending" || len(status) != 3 {
			t.Fatalf("after import: %v", status)
		}
		// An import sends nothing.
		if msgs := deliver(t, outbox, smtp, &seen); len(msgs) != 0 {
			t.Fatalf("the import sent %d mails", len(msgs))
		}
		for _, bad := range []string{"", "name\nx\n", "email\n\"unterminated\n"} {
			if res := ts.do("POST", "/api/subscribers/import", "admin", bad, "Content-Type", "text/csv"); res.Status != http.StatusBadRequest {
				t.Fatalf("import %q: %d %s", bad, res.Status, res.Body)
			}
		}
	})
}

// Ensure the tokens of confirm and unsubscribe links reach no log (CONTRACT §6): the routes and the pages.
func TestSubscriberTokensReachNoLog(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	smtp := smtptest.Start(t)
	logs := &syncBuffer{}
	ts, _ := newSubscriberServer(t, db, smtp, func(s *Server) {
		s.AccessLog = true
		s.Logger = slog.New(slog.NewJSONHandler(logs, nil))
		s.UI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("page")) })
	})
	const token = "Qx7_d2VhbGx5LXNlY3JldA-f9"
	ts.do("POST", "/api/subscribers/confirm/"+token, "", nil)
	ts.do("GET", "/subscribe/confirm/"+token, "", nil)
	ts.do("POST", "/unsubscribe/"+token, "", "List-Unsubscribe=One-Click", "Content-Type", "application/x-www-form-urlencoded")
	ts.do("GET", "/unsubscribe/"+token, "", nil)
	wantNoToken(t, logs.String(), token)
	wantRoutesLogged(t, accessLogLines(logs.String()), "POST /api/subscribers/confirm/{token}", "GET /subscribe/confirm/{token}",
		"POST /unsubscribe/{token}", "GET /unsubscribe/{token}")
}
