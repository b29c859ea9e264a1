package analytics

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/sqldb"
)

// mailParts returns the text and HTML parts of a delivered message.
func mailParts(t *testing.T, m smtptest.Message) (subject, text, htmlPart string) {
	t.Helper()
	msg := m.Parsed(t)
	dec := new(mime.WordDecoder)
	subject, _ = dec.DecodeHeader(msg.Header.Get("Subject"))
	_, params, _ := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return subject, text, htmlPart
		}
		b, _ := io.ReadAll(p)
		switch ct := p.Header.Get("Content-Type"); {
		case strings.HasPrefix(ct, "text/plain"):
			text = string(b)
		case strings.HasPrefix(ct, "text/html"):
			htmlPart = string(b)
		}
	}
}

// reportOutbox is an outbox over db that delivers to an SMTP server of the test's own.
func reportOutbox(t *testing.T, db *sqldb.DB) (*smtptest.Server, *mail.Outbox) {
	t.Helper()
	smtp := smtptest.Start(t)
	from := folio.MailAddress{Name: "folio", Email: "folio@example.org"}
	mailer, err := mail.NewSMTP(mail.SMTPConfig{Host: smtp.Host, Port: smtp.Port, From: from, TLS: mail.TLSNone, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return smtp, mail.NewOutbox(db.Outbox, mailer, from, nil)
}

// TestMailedReports sends the weekly report and a spike alert through the outbox to an SMTP
// server and reads them back, on both engines; a second instance sends neither again.
func TestMailedReports(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		smtp, outbox := reportOutbox(t, db)
		// Wednesday 13 May 2026, 10:30: last week is 4–10 May, the one before 27 April – 3 May.
		now := time.Date(2026, 5, 13, 10, 30, 0, 0, time.UTC)
		s, err := newTestService(db, Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		t.Cleanup(func() { s.Close(context.Background()) })
		visit := func(at time.Time, id, path string) {
			t.Helper()
			now = at
			if _, err := s.Collect(ctx, &folio.CollectInput{Type: folio.CollectPageView, Path: path, VisitorID: id}, "192.0.2.1", browserUA); err != nil {
				t.Fatal(err)
			}
		}
		visit(time.Date(2026, 4, 28, 9, 0, 0, 0, time.UTC), "old", "/")
		for i, id := range []string{"w1", "w2", "w3", "w4"} {
			visit(time.Date(2026, 5, 5, 9, i, 0, 0, time.UTC), id, "/blog/<b>bold</b>")
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		now = time.Date(2026, 5, 5, 9, 10, 0, 0, time.UTC)
		if err := s.RecordConversion(ctx, ConversionInput{Kind: folio.ConversionBooking, VisitorID: "w1", UserAgent: browserUA}); err != nil {
			t.Fatal(err)
		}
		// This hour: 3 visitors by 10:30, a spike against a threshold of 3.
		for i, id := range []string{"s1", "s2", "s3"} {
			visit(time.Date(2026, 5, 13, 10, 5+i, 0, 0, time.UTC), id, "/launch")
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		now = time.Date(2026, 5, 13, 10, 30, 0, 0, time.UTC)
		settings := folio.Settings{Site: folio.SiteSettings{Name: "Ada's site"}, Analytics: folio.AnalyticsSettings{
			Reports: folio.AnalyticsReportSettings{Weekly: true}, Alert: folio.AnalyticsAlertSettings{VisitorsPerHour: 3}}}
		opts := ReporterOptions{Mailer: outbox, Settings: func() folio.Settings { return settings },
			Owner: func(context.Context) folio.Participant {
				return folio.Participant{Name: "Ada", Email: "ada@example.org"}
			}}
		if err := s.NewReporter(opts).RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		// Another instance over the same database finds both claimed.
		other, err := newTestService(db, Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		if err := other.NewReporter(opts).RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := outbox.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		msgs := smtp.Messages()
		if len(msgs) != 2 {
			t.Fatalf("%d mails, want the weekly report and one alert", len(msgs))
		}
		got := map[string][2]string{}
		for _, m := range msgs {
			if len(m.To) != 1 || m.To[0] != "ada@example.org" {
				t.Errorf("mail to %v", m.To)
			}
			subject, text, htmlPart := mailParts(t, m)
			got[strings.SplitN(subject, " ", 2)[0]] = [2]string{text, htmlPart}
			if !strings.Contains(subject, "Ada's site") {
				t.Errorf("subject %q", subject)
			}
		}
		report, alert := got["Weekly"], got["Traffic"]
		for _, want := range []string{"2026-05-04 – 2026-05-10", "Visitors:                 4  (previous 1, +300%)",
			"Bookings:                 1  (previous 0, new)", "Subscribers:              0  (previous 0, =)", "/blog/<b>bold</b>  4 views"} {
			if !strings.Contains(report[0], want) {
				t.Errorf("report text lacks %q:\n%s", want, report[0])
			}
		}
		if strings.Contains(report[0], "Imported") || strings.Contains(report[1], "Imported") {
			t.Errorf("a report without imported days mentions them:\n%s", report[0])
		}
		if !strings.Contains(report[1], "/blog/&lt;b&gt;bold&lt;/b&gt;") || strings.Contains(report[1], "<b>bold") {
			t.Errorf("report HTML does not escape the path:\n%s", report[1])
		}
		if !strings.Contains(alert[0], "3 visitors on Ada's site since 10:00") || !strings.Contains(alert[0], "/launch  3 visitors") ||
			!strings.Contains(alert[0], "Direct / None  3 visitors") || !strings.Contains(alert[1], "<li>/launch — 3 visitors</li>") {
			t.Errorf("alert:\n%s\n%s", alert[0], alert[1])
		}
		// Later the same day the spike goes on, but the cooldown holds the next alert back.
		now = now.Add(2 * time.Hour)
		for i, id := range []string{"t1", "t2", "t3"} {
			visit(now.Add(-time.Duration(10+i)*time.Minute), id, "/launch")
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.NewReporter(opts).RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := outbox.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if n := len(smtp.Messages()); n != 2 {
			t.Errorf("%d mails after the cooldown's first hours, want still 2", n)
		}
	})
}

// TestMailedReportMarksImportedDays: when the period and the one before hold imported days, the
// weekly report read back from the outbox says which, in its text and its HTML, on both engines.
func TestMailedReportMarksImportedDays(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		smtp, outbox := reportOutbox(t, db)
		// Wednesday 13 May 2026: last week is 4–10 May, the one before 27 April – 3 May.
		now := time.Date(2026, 5, 13, 10, 30, 0, 0, time.UTC)
		s, err := newTestService(db, Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		export := plausibleZip(t, map[string]string{
			"imported_visitors_20260428_20260507.csv": "date,visitors,pageviews,bounces,visits,visit_duration\n" +
				"2026-04-28,3,5,1,3,60\n2026-05-05,4,9,1,5,100\n2026-05-06,2,2,2,2,0\n2026-05-07,1,4,0,1,30\n",
			"imported_sources_20260428_20260507.csv": "date,source,referrer,utm_source,utm_medium,utm_campaign,utm_content,utm_term,pageviews,visitors,visits,visit_duration,bounces\n" +
				"2026-05-05,GitHub,https://github.com/ada,,,,,,9,4,5,100,1\n",
		})
		if res, err := s.Import(ctx, ImportPlausible, export); err != nil || res.Days != 4 {
			t.Fatalf("import: %+v, %v", res, err)
		}
		// and one day of the previous week from Umami
		if res, err := s.Import(ctx, ImportUmami, []byte(strings.ReplaceAll(umamiApril, "2026-04-01", "2026-04-27"))); err != nil || res.Days != 1 {
			t.Fatalf("import: %+v, %v", res, err)
		}
		settings := folio.Settings{Site: folio.SiteSettings{Name: "Ada's site"}, Analytics: folio.AnalyticsSettings{
			Reports: folio.AnalyticsReportSettings{Weekly: true}}}
		opts := ReporterOptions{Mailer: outbox, Settings: func() folio.Settings { return settings },
			Owner: func(context.Context) folio.Participant {
				return folio.Participant{Name: "Ada", Email: "ada@example.org"}
			}}
		if err := s.NewReporter(opts).RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := outbox.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		msgs := smtp.Messages()
		if len(msgs) != 1 {
			t.Fatalf("%d mails, want the weekly report", len(msgs))
		}
		subject, text, htmlPart := mailParts(t, msgs[0])
		if !strings.HasPrefix(subject, "Weekly") {
			t.Errorf("subject %q", subject)
		}
		note := "Imported days: 3 days of this period (2026-05-05 – 2026-05-07) and 2 days of the previous period (2026-04-27 – 2026-04-28) hold figures imported from Plausible and Umami (daily totals)"
		for _, want := range []string{note, "Visitors:                 7  (previous 5, +40%)", "Page views:              15  (previous 9, +67%)", "GitHub  5 visits"} {
			if !strings.Contains(text, want) {
				t.Errorf("text lacks %q:\n%s", want, text)
			}
		}
		if !strings.Contains(htmlPart, "<p><em>"+note) {
			t.Errorf("HTML lacks the note:\n%s", htmlPart)
		}
	})
}
