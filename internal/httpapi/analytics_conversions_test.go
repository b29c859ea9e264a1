package httpapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// TestAnalyticsConversions follows a visit from a campaign link to a contact message sent with
// the tracker's visitor id, and reads it back by source, post and in CSV; a second message
// without the id is found by the hash of address and agent.
func TestAnalyticsConversions(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		smtp := smtptest.Start(t)
		from := folio.MailAddress{Name: "folio", Email: "folio@example.org"}
		mailer, err := mail.NewSMTP(mail.SMTPConfig{Host: smtp.Host, Port: smtp.Port, From: from, TLS: mail.TLSNone, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		a, err := analytics.New(analyticsdb.New(db), db.Content, analytics.Options{SiteURL: "http://folio.test", FlushInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		a.Start()
		t.Cleanup(func() { a.Close(context.Background()) })
		ts := newTestServer(t, db, func(s *Server) {
			s.Analytics = a
			s.Outbox, s.Settings = mail.NewOutbox(db.Outbox, mailer, from, nil), testSettings(t, db, "CONTACT_RECIPIENT", "owner@example.org")
		})
		v := newOpenAPIValidator(t, ts)
		ua := []string{"User-Agent", testBrowserUA}
		for _, p := range []string{"/blog/hello?utm_campaign=autumn", "/blog/more", "/contact"} {
			body := map[string]any{"type": "pageview", "path": p, "referrer": "https://news.ycombinator.com/item", "visitorId": "vid-42"}
			if res := ts.do("POST", "/api/analytics/collect", "", body, ua...); res.Status != 202 {
				t.Fatalf("collect: %d %s", res.Status, res.Body)
			}
		}
		// A second visitor without an id (storage mode none, or a page that does not send it).
		if res := ts.do("POST", "/api/analytics/collect", "", map[string]any{"type": "pageview", "path": "/"}, "User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"); res.Status != 202 {
			t.Fatalf("collect: %d %s", res.Status, res.Body)
		}
		if err := a.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		msg := map[string]any{"name": "Ada", "email": "ada@example.com", "message": "Hello"}
		if res := ts.do("POST", "/api/contact", "", msg, append([]string{folio.VisitHeader, "vid-42"}, ua...)...); res.Status != 200 {
			t.Fatalf("contact: %d %s", res.Status, res.Body)
		}
		if res := ts.do("POST", "/api/contact", "", msg, "User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"); res.Status != 200 {
			t.Fatalf("contact: %d %s", res.Status, res.Body)
		}
		day := time.Now().UTC().Format(time.DateOnly)
		get := func(by string) folio.Conversions {
			t.Helper()
			res := ts.do("GET", "/api/analytics/conversions?start="+day+"&end="+day+"&by="+by, "admin", nil)
			if res.Status != 200 {
				t.Fatalf("conversions by %s: %d %s", by, res.Status, res.Body)
			}
			v.check("GET", "/api/analytics/conversions", res)
			var c folio.Conversions
			if err := json.Unmarshal(res.Body, &c); err != nil {
				t.Fatal(err)
			}
			return c
		}
		c := get("source")
		want := []folio.ConversionRow{
			{Value: "Direct / None", Visits: 1, Contacts: 1, ConversionRate: 1},
			{Value: "Hacker News", Visits: 1, Contacts: 1, ConversionRate: 1},
		}
		if len(c.Rows) != 2 || c.Rows[0] != want[0] || c.Rows[1] != want[1] || c.Total.Contacts != 2 || c.TimeRange.Start == "" {
			t.Errorf("by source: %+v", c)
		}
		c = get("post")
		if len(c.Rows) != 2 || c.Rows[0].Value != "/blog/hello" || c.Rows[1].Value != "/blog/more" || c.Rows[0].Contacts != 1 {
			t.Errorf("by post: %+v", c.Rows)
		}
		if c = get("utm_campaign"); len(c.Rows) != 2 || c.Rows[0].Value != "autumn" && c.Rows[1].Value != "autumn" {
			t.Errorf("by campaign: %+v", c.Rows)
		}
		res := ts.do("GET", "/api/analytics/conversions?start="+day+"&end="+day+"&by=entry_page&format=csv", "admin", nil)
		if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") ||
			!strings.HasPrefix(string(res.Body), "value,visits,bookings,contacts,subscriptions,conversionRate\n") ||
			!strings.Contains(string(res.Body), "\n/blog/hello,1,0,1,0,1\n") {
			t.Errorf("csv: %d %s", res.Status, res.Body)
		}
		for _, tc := range []struct {
			query, token string
			status       int
			field        string
		}{
			{"by=country", "admin", 400, "by"},
			{"format=xml", "admin", 400, "format"},
			{"start=yesterday", "admin", 400, "start"},
			{"", "", 401, ""},
			{"", "write", 403, ""},
		} {
			res := ts.do("GET", "/api/analytics/conversions?"+tc.query, tc.token, nil)
			if res.Status != tc.status || tc.field != "" && !strings.Contains(string(res.Body), `"field":"`+tc.field+`"`) {
				t.Errorf("%q as %q: %d %s; want %d naming %q", tc.query, tc.token, res.Status, res.Body, tc.status, tc.field)
			}
		}
	})
}
