package booking_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/calendar/caldav"
	"github.com/foliohq/folio/internal/calendar/google"
	"github.com/foliohq/folio/internal/calendar/googlefake"
	"github.com/foliohq/folio/internal/calendar/local"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/radicaletest"
	"github.com/foliohq/folio/internal/sqldb"
)

// rescheduleThenCancel books, moves and cancels through svc, and checks with busyAt (the
// provider's own free/busy) that the same event moved and was then removed.
func rescheduleThenCancel(t *testing.T, svc *booking.Service, cal folio.Calendar, day string) string {
	t.Helper()
	ctx := context.Background()
	live := svc.Settings()
	live.SiteURL = "https://site.example"
	if err := svc.Apply(live); err != nil {
		t.Fatal(err)
	}
	_, token := book(t, svc, request(day+"T10:00:00-05:00"))
	busyOn := func() []folio.Interval {
		start, _ := time.Parse(time.RFC3339, day+"T00:00:00-05:00")
		b, err := cal.FreeBusy(ctx, start, start.Add(72*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if b := busyOn(); len(b) != 1 {
		t.Fatalf("busy after booking: %v", b)
	}
	next := strings.Replace(day+"T13:00:00-05:00", day, nextDay(day), 1)
	st, err := svc.Reschedule(ctx, token, folio.RescheduleInput{StartTime: next, TimeZone: "America/New_York"})
	if err != nil || st.StartTime != next {
		t.Fatalf("reschedule: %+v %v", st, err)
	}
	b := busyOn()
	if len(b) != 1 || b[0].Start.Format(time.RFC3339) != mustParse(t, next).UTC().Format(time.RFC3339) {
		t.Fatalf("provider busy after the move: %v (want only %s: the same event moved)", b, next)
	}
	if c, err := svc.CancelByToken(ctx, token, folio.CancelInput{Reason: "sorry"}); err != nil || c.Status != "cancelled" {
		t.Fatalf("cancel: %+v %v", c, err)
	}
	if b := busyOn(); len(b) != 0 {
		t.Fatalf("provider busy after the cancel: %v", b)
	}
	return st.ID
}

func nextDay(d string) string {
	t, _ := time.Parse("2006-01-02", d)
	return t.AddDate(0, 0, 1).Format("2006-01-02")
}

func mustParse(t *testing.T, s string) time.Time {
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestLifecycleOnGoogle(t *testing.T) {
	const calendarID, saEmail = "owner@example.com", "folio@project.iam.gserviceaccount.com"
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	fake := googlefake.New(&key.PublicKey, saEmail, calendarID, google.Scopes)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cal, err := google.New(context.Background(), google.Config{CalendarID: calendarID, ServiceAccountEmail: saEmail,
		PrivateKeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), APIURL: srv.URL + "/calendar/v3/",
		TokenURL: srv.URL + "/token", HTTPClient: &http.Client{Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	engines := 0 // the engines that ran: the PostgreSQL run skips without FOLIO_TEST_POSTGRES_URL
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		engines++
		day := map[string]string{"sqlite": "2026-03-04", "postgres": "2026-03-05"}[lastElem(t.Name())]
		id := rescheduleThenCancel(t, newService(t, db, cal, "google"), cal, day)
		var ev *googlefake.Event
		for _, e := range fake.Events(calendarID) {
			if e.ID == google.EventID(id) {
				ev = &e
			}
		}
		if ev == nil || ev.Status != "cancelled" || !strings.HasPrefix(ev.Start.DateTime, nextDay(day)) {
			t.Errorf("google event %+v: want the one event, moved, then deleted", ev)
		}
	})
	// One move (events.patch) and one cancel (events.delete) per engine that ran.
	if p, d := fake.Changes(); p != engines || d != engines {
		t.Errorf("%d events.patch and %d events.delete, want %d and %d", p, d, engines, engines)
	}
}

func TestLifecycleOnCalDAV(t *testing.T) {
	base := radicaletest.Start(t)
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		url := base + "/" + radicaletest.User + "/life-" + lastElem(t.Name()) + "/"
		radicaletest.MkCalendar(t, url)
		cal, err := caldav.New(caldav.Config{URL: url, Username: radicaletest.User, Password: radicaletest.Password,
			Location: mustZone(t, "America/New_York"), HTTPClient: &http.Client{Timeout: 10 * time.Second}, Now: func() time.Time { return testNow }})
		if err != nil {
			t.Fatal(err)
		}
		rescheduleThenCancel(t, newService(t, db, cal, "caldav"), cal, "2026-03-04")
	})
}

func TestLifecycleOnLocal(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		cal, err := local.New(db.Bookings, "https://site.example", "")
		if err != nil {
			t.Fatal(err)
		}
		svc := newService(t, db, cal, "local")
		id := rescheduleThenCancel(t, svc, cal, "2026-03-04")
		b, err := db.Bookings.Booking(context.Background(), id)
		if err != nil || b.Status != folio.BookingCancelled || b.ICSToken == "" {
			t.Fatalf("local booking %+v %v", b, err)
		}
		// The event link still answers, now with the cancelled event.
		ics, err := svc.EventICS(context.Background(), b.ICSToken)
		if err != nil || !strings.Contains(string(ics), "STATUS:CANCELLED") || !strings.Contains(string(ics), "SEQUENCE:2") {
			t.Errorf("local .ics after cancel: %v\n%s", err, ics)
		}
	})
}
