package httpapi

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/audit"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/sqldb"
)

// detailFields lists error.details[].field of a 4xx envelope.
func detailFields(t *testing.T, res response) []string {
	t.Helper()
	var env struct {
		Error struct {
			Details []folio.FieldError `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(res.Body, &env); err != nil {
		t.Fatalf("%s: %v", res.Body, err)
	}
	var out []string
	for _, d := range env.Error.Details {
		out = append(out, d.Field+": "+d.Message)
	}
	return out
}

func TestSettingsRoutes(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		w := audit.New(db.Audit, audit.Options{})
		ts := newTestServer(t, db, func(s *Server) {
			s.Settings = testSettings(t, db, "BOOKING_TIMEZONE", "Europe/Berlin")
			s.Audit = w
		})
		v := newOpenAPIValidator(t, ts)
		for who, want := range map[string]int{"": 401, "read": 403, "write": 403, "editor": 403, "admin": 200} {
			if res := ts.do("GET", "/api/settings", who, nil); res.Status != want {
				t.Errorf("GET as %q: %d, want %d", who, res.Status, want)
			}
		}
		res := ts.do("GET", "/api/settings", "admin", nil)
		v.check("GET", "/api/settings", res)
		got := res.json(t)
		for _, group := range []string{"site", "booking", "mail", "contact", "analytics", "locked"} {
			if _, ok := got[group].(map[string]any); !ok {
				t.Errorf("GET lacks %s: %s", group, res.Body)
			}
		}
		if b := got["booking"].(map[string]any); b["timezone"] != "Europe/Berlin" || b["horizonDays"] != 60.0 ||
			len(b["hours"].(map[string]any)["mon"].([]any)) != 1 || len(b["hours"].(map[string]any)["sun"].([]any)) != 0 {
			t.Errorf("booking: %v", b)
		}
		if l := got["locked"].(map[string]any); len(l) != 1 || l["booking.timezone"] != "BOOKING_TIMEZONE" {
			t.Errorf("locked: %v", l)
		}
		if res.Header.Get("Cache-Control") != "no-store" {
			t.Error("settings may be cached")
		}

		// Any subset; the answer is the whole object.
		res = ts.do("PUT", "/api/settings", "admin", map[string]any{
			"booking": map[string]any{"hours": map[string]any{"sat": []map[string]string{{"start": "10:00", "end": "12:00"}, {"start": "13:00", "end": "15:30"}}},
				"reminders": []string{"2d", "15m"}},
			"mail": map[string]any{"smtp": map[string]any{"host": "smtp.example.com", "password": "s3cret-smtp-pass"}},
		})
		v.check("PUT", "/api/settings", res)
		if res.Status != 200 {
			t.Fatalf("PUT: %d %s", res.Status, res.Body)
		}
		if s := string(res.Body); strings.Contains(s, "s3cret") || !strings.Contains(s, `"password":"set"`) ||
			!strings.Contains(s, `"reminders":["48h","15m"]`) || !strings.Contains(s, `"sat":[{"start":"10:00","end":"12:00"},{"start":"13:00","end":"15:30"}]`) ||
			!strings.Contains(s, `"mon":[{"start":"09:00","end":"18:00"}]`) || !strings.Contains(s, `"site":{`) {
			t.Errorf("PUT answer: %s", s)
		}
		if s := string(ts.do("GET", "/api/settings", "admin", nil).Body); strings.Contains(s, "s3cret") || !strings.Contains(s, `"host":"smtp.example.com"`) {
			t.Errorf("GET after PUT: %s", s)
		}

		for _, tc := range []struct {
			body   string
			status int
			fields []string
		}{
			{`{"booking":{"timezone":"Asia/Tokyo"}}`, 422, []string{"booking.timezone: is set by the environment variable BOOKING_TIMEZONE; change it there"}},
			{`{"booking":{"hours":{"mon":[{"start":"9am","end":"17:00"}]},"bufferMinutes":1000}}`, 422,
				[]string{"booking.hours.mon[0].start: must be a time of day HH:MM from 00:00 to 23:59", "booking.bufferMinutes: must be a whole number from 0 to 240"}},
			{`{"booking":{"embedOrigins":["http://blog.example"]}}`, 422, []string{"booking.embedOrigins[0]: must be an https origin such as https://example.com (no path)"}},
			{`{"mail":{"smtp":{"port":"587"}}}`, 400, []string{"mail.smtp.port: must be of type integer"}},
			{`[]`, 400, nil},
		} {
			res := ts.do("PUT", "/api/settings", "admin", tc.body)
			v.check("PUT", "/api/settings", res)
			if got := detailFields(t, res); res.Status != tc.status || strings.Join(got, "|") != strings.Join(tc.fields, "|") {
				t.Errorf("PUT %s: %d %v, want %d %v", tc.body, res.Status, got, tc.status, tc.fields)
			}
		}

		// Audited, with the fields changed and no value.
		if err := w.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		es, _, err := db.Audit.AuditEntries(t.Context(), folio.AuditFilter{Action: "settings.update", Page: 1, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 6 {
			t.Fatalf("%d audit entries, want 6", len(es))
		}
		found := false
		for _, e := range es {
			b, _ := json.Marshal(e)
			if strings.Contains(string(b), "s3cret") {
				t.Errorf("a secret in the audit log: %s", b)
			}
			found = found || (e.Status == 200 && e.ResourceID == "booking.hours.sat,booking.reminders,mail.smtp.host,mail.smtp.password")
		}
		if !found {
			t.Errorf("no entry names the fields of the accepted PUT: %+v", es)
		}
	})
}

// Ensure POST /api/settings/mail/test mails the owner through the mailer in force, and answers
// 502 quoting the server's refusal or the connection failure.
func TestSettingsMailTest(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	srv := smtptest.Start(t)
	from := folio.MailAddress{Name: "Folio", Email: "folio@example.org"}
	mailer := func(port int) folio.Mailer {
		m, err := mail.NewSMTP(mail.SMTPConfig{Host: "127.0.0.1", Port: port, From: from, TLS: mail.TLSNone, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	sw := mail.NewSwitch(mailer(srv.Port), from)
	ts := newTestServer(t, db, func(s *Server) {
		s.Outbox = mail.NewOutbox(db.Outbox, sw, from, nil)
	})
	if _, err := db.Identity.CreateUser(t.Context(), &folio.UserInput{Email: "olivia@example.org", Name: "Olivia Owner", Role: folio.RoleOwner}, "h"); err != nil {
		t.Fatal(err)
	}
	v := newOpenAPIValidator(t, ts)
	res := ts.do("POST", "/api/settings/mail/test", "admin", nil)
	v.check("POST", "/api/settings/mail/test", res)
	if res.Status != 200 || string(res.Body) != "{\"ok\":true}\n" {
		t.Fatalf("test mail: %d %s", res.Status, res.Body)
	}
	if got := srv.Messages(); len(got) != 1 || got[0].To[0] != "olivia@example.org" || !strings.Contains(got[0].Parsed(t).Header.Get("From"), "folio@example.org") {
		t.Fatalf("delivered: %+v", got)
	}

	srv.RejectNext(1)
	res = ts.do("POST", "/api/settings/mail/test", "admin", nil)
	v.check("POST", "/api/settings/mail/test", res)
	if res.Status != http.StatusBadGateway || res.errorCode(t) != "UPSTREAM_ERROR" || !strings.Contains(string(res.Body), "550") ||
		!strings.Contains(string(res.Body), "no such user") {
		t.Errorf("refused by the server: %d %s", res.Status, res.Body)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	sw.Set(mailer(closed), from)
	res = ts.do("POST", "/api/settings/mail/test", "admin", nil)
	if res.Status != http.StatusBadGateway || !strings.Contains(string(res.Body), "cannot connect to the mail server") ||
		!strings.Contains(string(res.Body), "connection refused") {
		t.Errorf("closed port: %d %s", res.Status, res.Body)
	}
	if n := len(srv.Messages()); n != 1 {
		t.Errorf("%d messages delivered, want the first test only", n)
	}
	var queued int
	db.R.QueryRow(`SELECT COUNT(*) FROM outbox`).Scan(&queued)
	if queued != 0 {
		t.Errorf("%d test mails were queued for retries", queued)
	}
}

// Ensure public post answers show site.ownerEmail as the author's address, never the sign-in
// address of the writer, and change as soon as the setting does.
func TestPublicAuthorEmail(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newBlogServer(t, db)
		created := ts.do("POST", "/api/blog", "write", map[string]any{"title": "Hello", "content": "Body", "status": "published"})
		if created.Status != 201 {
			t.Fatalf("create: %d %s", created.Status, created.Body)
		}
		id := created.json(t)["id"].(string)
		signIn := created.json(t)["author"].(map[string]any)["email"].(string)
		if signIn == "" {
			t.Fatal("the writer's answer lost the writer's address")
		}
		public := []string{"/api/blog", "/api/blog/hello", "/api/posts/" + id, "/api/blog/feed.xml", "/api/blog/feed.json", "/sitemap.xml", "/api/search?q=hello"}
		check := func(want string) {
			t.Helper()
			for _, p := range public {
				res := ts.do("GET", p, "", nil)
				if res.Status != 200 || strings.Contains(string(res.Body), signIn) {
					t.Errorf("GET %s: %d, leaks %s: %s", p, res.Status, signIn, res.Body)
				}
			}
			for _, p := range public[:3] {
				if !strings.Contains(string(ts.do("GET", p, "", nil).Body), `"email":"`+want+`"`) {
					t.Errorf("GET %s: author.email is not %q", p, want)
				}
			}
		}
		check("")
		if res := ts.do("PUT", "/api/settings", "admin", map[string]any{"site": map[string]any{"ownerEmail": "hello@ada.example"}}); res.Status != 200 {
			t.Fatalf("PUT: %d %s", res.Status, res.Body)
		}
		check("hello@ada.example") // the cached answers went with the change
		if a := ts.do("GET", "/api/blog/hello", "write", nil).json(t)["author"].(map[string]any); a["email"] != signIn {
			t.Errorf("the dashboard's answer: %v", a)
		}
	})
}

// Ensure a contact message goes to the owner account's email when no recipient is set, and to
// contact.recipient once it is.
func TestContactGoesToTheOwner(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	srv := smtptest.Start(t)
	ts, _ := newContactServer(t, db, srv, 100)
	ts.Settings = testSettings(t, db) // no CONTACT_RECIPIENT
	if _, err := db.Identity.CreateUser(t.Context(), &folio.UserInput{Email: "olivia@example.org", Name: "Olivia Owner", Role: folio.RoleOwner}, "h"); err != nil {
		t.Fatal(err)
	}
	send := func() string {
		t.Helper()
		res := ts.do("POST", "/api/contact", "", map[string]string{"name": "Vera", "email": "vera@example.com", "message": "Hi"})
		if res.Status != 200 {
			t.Fatalf("contact: %d %s", res.Status, res.Body)
		}
		got := srv.Messages()
		return got[len(got)-1].To[0]
	}
	if to := send(); to != "olivia@example.org" {
		t.Errorf("without a recipient: to %s, want the owner account's email", to)
	}
	if res := ts.do("PUT", "/api/settings", "admin", map[string]any{"contact": map[string]any{"recipient": "inbox@example.org"}}); res.Status != 200 {
		t.Fatalf("PUT: %d %s", res.Status, res.Body)
	}
	if to := send(); to != "inbox@example.org" {
		t.Errorf("with a recipient: to %s", to)
	}
}

// Ensure GET /api/features says the mail server is configured once the settings set one.
func TestFeaturesFollowTheMailSettings(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ts := newTestServer(t, db, func(s *Server) {
		s.Features = []Feature{{ID: "smtp", Label: "Outgoing mail (SMTP)", Missing: []string{"SMTP_HOST"}}}
	})
	smtp := func() map[string]any {
		t.Helper()
		fs, _ := ts.do("GET", "/api/features", "read", nil).json(t)["features"].([]any)
		return fs[0].(map[string]any)
	}
	if f := smtp(); f["configured"] != false {
		t.Fatalf("before: %v", f)
	}
	if res := ts.do("PUT", "/api/settings", "admin", map[string]any{"mail": map[string]any{"smtp": map[string]any{"host": "mail.example.com"}}}); res.Status != 200 {
		t.Fatalf("PUT: %d %s", res.Status, res.Body)
	}
	if f := smtp(); f["configured"] != true || len(f["missing"].([]any)) != 0 {
		t.Errorf("after: %v", f)
	}
}
