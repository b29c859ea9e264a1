package booking_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
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
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/radicaletest"
	"github.com/foliohq/folio/internal/sqldb"
)

// failCreates wraps a provider so that, once its free/busy has answered, the fake Google
// server fails every API call: the booking's CreateEvent then fails upstream.
type failCreates struct {
	folio.Calendar
	fake *googlefake.Server
}

func (c failCreates) FreeBusy(ctx context.Context, start, end time.Time) ([]folio.Interval, error) {
	busy, err := c.Calendar.FreeBusy(ctx, start, end)
	c.fake.FailAPI(http.StatusInternalServerError, -1)
	return busy, err
}

// TestGoogleProviderThroughService books through the real Google client against googlefake
// (which checks the service-account assertion, the scopes and the request shapes).
func TestGoogleProviderThroughService(t *testing.T) {
	const calendarID, saEmail = "owner@example.com", "folio@project.iam.gserviceaccount.com"
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	envKey := strings.ReplaceAll(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "\n", `\n`)
	fake := googlefake.New(&key.PublicKey, saEmail, calendarID, google.Scopes)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cal, err := google.New(context.Background(), google.Config{CalendarID: calendarID, ServiceAccountEmail: saEmail,
		PrivateKeyPEM: envKey, APIURL: srv.URL + "/calendar/v3/", TokenURL: srv.URL + "/token",
		HTTPClient: &http.Client{Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	// The owner is busy 11:00–12:00 New York time on Wednesday 4 March.
	fake.AddBusy(calendarID, time.Date(2026, 3, 4, 16, 0, 0, 0, time.UTC), time.Date(2026, 3, 4, 17, 0, 0, 0, time.UTC))

	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		svc := newService(t, db, cal, "google")
		ctx := context.Background()
		slots, err := svc.Available(ctx, "2026-03-04", 60, "America/New_York")
		if err != nil {
			t.Fatal(err)
		}
		if hasSlot(slots, "2026-03-04T11:00:00-05:00") || hasSlot(slots, "2026-03-04T10:30:00-05:00") || !hasSlot(slots, "2026-03-04T10:00:00-05:00") {
			t.Errorf("slots ignore the provider's busy time: %v", slots)
		}
		if _, err := svc.Book(ctx, request("2026-03-04T11:00:00-05:00"), ""); folio.ErrorCode(err) != folio.ECONFLICT {
			t.Errorf("booking busy time: %v", err)
		}

		// Each engine books its own slot on the shared fake calendar.
		start := map[string]string{"sqlite": "2026-03-05T10:00:00-05:00", "postgres": "2026-03-06T10:00:00-05:00"}[lastElem(t.Name())]
		a, err := svc.Book(ctx, request(start), "")
		if err != nil {
			t.Fatal(err)
		}
		var resp booking.BookResponse
		json.Unmarshal(a.Body, &resp)
		var got *googlefake.Event
		for _, e := range fake.Events(calendarID) {
			if e.ID == resp.EventID {
				got = &e
			}
		}
		if got == nil {
			t.Fatalf("event %s not at the provider", resp.EventID)
		}
		// The fake answers a hangoutsMeet create request (sent with conferenceDataVersion=1) with a
		// conference; without one there would be none.
		if got.ConferenceData == nil || len(got.ConferenceData.EntryPoints) == 0 || got.Summary != "Meeting with Vera Visitor" ||
			len(got.Attendees) != 1 || got.Attendees[0].Email != "vera@example.org" || got.Start.TimeZone != "Europe/Berlin" {
			t.Errorf("event at the provider: %+v (start %+v)", got, got.Start)
		}
		if resp.ProviderMeetLink == "" || resp.ProviderMeetLink != got.HangoutLink || resp.ProviderEventLink != got.HTMLLink {
			t.Errorf("response %+v, event links %q %q", resp, got.HangoutLink, got.HTMLLink)
		}
		// The booking is now the provider's busy time too.
		if hit, err := svc.CheckConflict(ctx, folio.ConflictRequest{StartISO: start, DurationMinutes: 30}); err != nil || !hit {
			t.Errorf("check-conflict on the booked slot: %v %v", hit, err)
		}

		// A failing insert leaves no reservation and no event.
		before := len(fake.Events(calendarID))
		failing := newService(t, db, failCreates{cal, fake}, "google")
		_, err = failing.Book(ctx, request("2026-03-09T10:00:00-04:00"), "")
		fake.FailAPI(0, 0)
		if folio.ErrorCode(err) != folio.EUPSTREAM {
			t.Fatalf("insert failure: %v, want UPSTREAM_ERROR", err)
		}
		if n := len(fake.Events(calendarID)); n != before {
			t.Errorf("events %d → %d after a failed insert", before, n)
		}
		if slots, err := svc.Available(ctx, "2026-03-09", 30, "America/New_York"); err != nil || !hasSlot(slots, "2026-03-09T10:00:00-04:00") {
			t.Errorf("slot not free after the failure: %v", err)
		}
	})
}

func lastElem(name string) string { return name[strings.LastIndexByte(name, '/')+1:] }

// TestCalDAVProviderThroughService books against a real Radicale started on loopback.
func TestCalDAVProviderThroughService(t *testing.T) {
	base := radicaletest.Start(t)
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		url := base + "/" + radicaletest.User + "/" + lastElem(t.Name()) + "/"
		radicaletest.MkCalendar(t, url)
		cal, err := caldav.New(caldav.Config{URL: url, Username: radicaletest.User, Password: radicaletest.Password,
			MeetingURLTemplate: "https://meet.example.com/folio-{id}", Location: mustZone(t, "America/New_York"),
			HTTPClient: &http.Client{Timeout: 10 * time.Second}, Now: func() time.Time { return testNow }})
		if err != nil {
			t.Fatal(err)
		}
		svc := newService(t, db, cal, "caldav")
		ctx := context.Background()
		a, err := svc.Book(ctx, request("2026-03-04T10:00:00-05:00"), "")
		if err != nil {
			t.Fatal(err)
		}
		var resp booking.BookResponse
		json.Unmarshal(a.Body, &resp)
		if resp.ProviderMeetLink != "https://meet.example.com/folio-"+resp.EventID || resp.ProviderEventLink != url+resp.EventID+".ics" {
			t.Errorf("response %+v", resp)
		}
		// The event is on the server: its free/busy now reports it.
		busy, err := cal.FreeBusy(ctx, time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC))
		if err != nil || len(busy) != 1 || !busy[0].Start.Equal(time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)) {
			t.Fatalf("server busy = %v (%v)", busy, err)
		}
		// Even a folio instance without the booking row sees the slot taken (the provider says so).
		other := foliotest.MustOpenSQLite(t)
		if _, err := newService(t, other, cal, "caldav").Book(ctx, request("2026-03-04T10:00:00-05:00"), ""); folio.ErrorCode(err) != folio.ECONFLICT {
			t.Errorf("second booking through another database: %v", err)
		}
	})
}
