package httpapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/booking/bookingtest"
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

// TestBookingConversion books a meeting after a visit from a campaign and finds the booking,
// with its id, attributed to that visit; an idempotent replay adds nothing.
func TestBookingConversion(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		now := bookingNow.Add(-5 * time.Minute)
		a, err := analytics.New(analyticsdb.New(db), db.Content, analytics.Options{FlushInterval: time.Hour, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		a.Start()
		t.Cleanup(func() { a.Close(context.Background()) })
		svc := newBookingService(t, db, &bookingtest.Calendar{})
		ts := newTestServer(t, db, func(s *Server) {
			s.Bookings, s.Analytics, s.Now = svc, a, func() time.Time { return bookingNow }
		})
		in := &folio.CollectInput{Type: folio.CollectPageView, Path: "/book?utm_campaign=march", VisitorID: "vid-7"}
		if _, err := a.Collect(context.Background(), in, "192.0.2.7", testBrowserUA); err != nil {
			t.Fatal(err)
		}
		if err := a.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		now = bookingNow
		for range 2 {
			res := ts.do("POST", "/api/schedule/book", "", bookBody("2026-03-04T15:00:00Z"), folio.VisitHeader, "vid-7", "Idempotency-Key", "k-1")
			if res.Status != 200 {
				t.Fatalf("book: %d %s", res.Status, res.Body)
			}
		}
		res := ts.do("GET", "/api/analytics/conversions?start=2026-03-02&end=2026-03-02&by=utm_campaign", "admin", nil)
		if res.Status != 200 || !strings.Contains(string(res.Body), `"rows":[{"value":"march","visits":1,"bookings":1,"contacts":0,"subscriptions":0,"conversionRate":1}]`) {
			t.Errorf("conversions: %d %s", res.Status, res.Body)
		}
		// The conversion names the booking (on SQLite they are in two files: no join).
		var ref string
		var n int
		if err := db.Analytics().R.QueryRow(`SELECT ref_id FROM analytics_conversions WHERE kind = 'booking'`).Scan(&ref); err != nil {
			t.Errorf("the booking's conversion: %v", err)
		} else if err := db.R.QueryRow(`SELECT COUNT(*) FROM bookings WHERE id = $1`, ref).Scan(&n); err != nil || n != 1 {
			t.Errorf("conversions naming a booking: %d, %v", n, err)
		}
	})
}

// TestSubscriptionConversion subscribes after reading a post and finds the subscription under
// that post.
func TestSubscriptionConversion(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		a, err := analytics.New(analyticsdb.New(db), db.Content, analytics.Options{FlushInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		a.Start()
		t.Cleanup(func() { a.Close(context.Background()) })
		ts, _ := newSubscriberServer(t, db, smtptest.Start(t), func(s *Server) { s.Analytics = a })
		body := map[string]any{"type": "pageview", "path": "/blog/why-folio", "visitorId": "reader-1"}
		if res := ts.do("POST", "/api/analytics/collect", "", body, "User-Agent", testBrowserUA); res.Status != 202 {
			t.Fatalf("collect: %d %s", res.Status, res.Body)
		}
		if err := a.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		res := ts.do("POST", "/api/subscribers", "", map[string]any{"email": "reader@example.org"}, folio.VisitHeader, "reader-1", "User-Agent", testBrowserUA)
		if res.Status != 202 {
			t.Fatalf("subscribe: %d %s", res.Status, res.Body)
		}
		day := time.Now().UTC().Format(time.DateOnly)
		res = ts.do("GET", "/api/analytics/conversions?by=post&start="+day+"&end="+day, "admin", nil)
		if !strings.Contains(string(res.Body), `"rows":[{"value":"/blog/why-folio","visits":1,"bookings":0,"contacts":0,"subscriptions":1,"conversionRate":1}]`) {
			t.Errorf("conversions: %d %s", res.Status, res.Body)
		}
	})
}
