package booking_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	arran "github.com/arran4/golang-ical"

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

// placeCase is one kind of place booked end to end.
type placeCase struct {
	loc    folio.MeetingLocation
	choice *folio.LocationChoice
	// joinPrefix is what the join URL starts with ("" for none); where is in the .ics LOCATION.
	joinPrefix, where string
}

var placeCases = []placeCase{
	{loc: folio.MeetingLocation{Kind: folio.PlaceJitsi}, joinPrefix: "https://jitsi.example.org/folio-"},
	{loc: folio.MeetingLocation{Kind: folio.PlaceLink, Value: "https://zoom.example/j/123"}, joinPrefix: "https://zoom.example/j/123"},
	{loc: folio.MeetingLocation{Kind: folio.PlacePhone}, choice: &folio.LocationChoice{Kind: folio.PlacePhone, Value: "+44 20 7946 0958"}, where: "+44 20 7946 0958"},
	{loc: folio.MeetingLocation{Kind: folio.PlacePhone, Value: "+1 555 010 0100"}, where: "+1 555 010 0100"},
	{loc: folio.MeetingLocation{Kind: folio.PlaceInPerson, Value: "1 Main St, Springfield"}, where: "1 Main St, Springfield"},
	{loc: folio.MeetingLocation{Kind: folio.PlaceCustom, Value: "We'll find a café; I'll text you"}, where: "We'll find a café; I'll text you"},
}

var meetCase = placeCase{loc: folio.MeetingLocation{Kind: folio.PlaceGoogleMeet}, joinPrefix: "https://meet.google.com/"}

// placeType saves a type offering pc's place and two questions.
func placeType(t *testing.T, svc *booking.Service, slug string, pc placeCase) {
	t.Helper()
	_, err := svc.SaveType(context.Background(), "", folio.MeetingTypeInput{Slug: slug, Title: "Talk " + slug, DurationMinutes: 30,
		Description: "A **short** talk", Locations: []folio.MeetingLocation{pc.loc},
		Questions: []folio.Question{{ID: "topic", Label: "Topic", Kind: folio.QuestionChoice, Required: true, Options: []string{"Tax", "Law"}},
			{ID: "notes", Label: "Notes", Kind: folio.QuestionTextarea}}})
	if err != nil {
		t.Fatal(err)
	}
}

// bookPlace books pc on type slug at start, reschedules it a day later, checks the place
// survives with the same join URL, and cancels it. fetch returns the provider's copy of the
// event as iCalendar (nil: the provider has none to show).
func bookPlace(t *testing.T, svc *booking.Service, db *sqldb.DB, slug, start string, pc placeCase, check func(id string, loc folio.BookingLocation)) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.W.Exec(`DELETE FROM outbox`); err != nil { // this booking's mails only
		t.Fatal(err)
	}
	req := request(start)
	req.DurationMinutes, req.Type, req.Location = 0, slug, pc.choice
	req.Answers = map[string]json.RawMessage{"topic": json.RawMessage(`"Law"`), "notes": json.RawMessage(`"About the lease"`)}
	resp, token := book(t, svc, req)
	loc := resp.Location
	if loc == nil || loc.Kind != pc.loc.Kind || loc.Label == "" || !strings.HasPrefix(loc.JoinURL, pc.joinPrefix) || (pc.joinPrefix == "") != (loc.JoinURL == "") {
		t.Fatalf("%s: location %+v", pc.loc.Kind, loc)
	}
	if resp.ProviderMeetLink != loc.JoinURL {
		t.Errorf("%s: providerMeetLink %q, joinUrl %q", pc.loc.Kind, resp.ProviderMeetLink, loc.JoinURL)
	}
	st, err := svc.Get(ctx, token)
	if err != nil || st.Location != *loc {
		t.Fatalf("%s: manage view location %+v, want %+v (%v)", pc.loc.Kind, st.Location, *loc, err)
	}
	b, err := db.Bookings.Booking(ctx, st.ID)
	if err != nil || len(b.Answers) != 2 || b.Answers[0].Value != "Law" || b.Answers[1].Label != "Notes" {
		t.Fatalf("%s: stored answers %+v (%v)", pc.loc.Kind, b, err)
	}
	// Both mails name the place; only the owner's carries the answers; the invite has LOCATION,
	// and URL and CONFERENCE for video, read back with an independent parser.
	for _, m := range mailsOf(t, db, b.AttendeeEmail, "owner@example.com") {
		owner := m.To[0].Email == "owner@example.com"
		if !strings.Contains(m.Text, "Where: "+loc.Label) {
			t.Errorf("%s: mail to %s lacks the place:\n%s", pc.loc.Kind, m.To[0].Email, m.Text)
		}
		if strings.Contains(m.Text, "About the lease") != owner {
			t.Errorf("%s: answers in the mail to %s: %v", pc.loc.Kind, m.To[0].Email, !owner)
		}
		checkPlaceICS(t, m.Attachments[0].Data, pc, loc)
	}
	if check != nil {
		check(st.ID, *loc)
	}
	// A reschedule keeps the place and its link.
	next := strings.Replace(start, start[:10], nextDay(start[:10]), 1)
	moved, err := svc.Reschedule(ctx, token, folio.RescheduleInput{StartTime: next, TimeZone: "America/New_York"})
	if err != nil || moved.Location != *loc {
		t.Fatalf("%s: after reschedule %+v (%v), want location %+v", pc.loc.Kind, moved.Location, err, *loc)
	}
	if check != nil {
		check(st.ID, *loc)
	}
	ics, err := svc.ICS(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	checkPlaceICS(t, ics, pc, loc)
	if c, err := svc.CancelByToken(ctx, token, folio.CancelInput{}); err != nil || c.Location != (folio.BookingLocation{}) {
		t.Fatalf("%s: cancel: %+v %v; want no place any more", pc.loc.Kind, c, err)
	}
	for _, m := range mailsOf(t, db, b.AttendeeEmail, "owner@example.com") {
		if strings.HasPrefix(m.Subject, "Cancelled") && strings.Contains(m.Text, "Where:") {
			t.Errorf("%s: the cancel mail still shows the place:\n%s", pc.loc.Kind, m.Text)
		}
	}
}

// mailsOf returns the outbox messages to either address, newest last.
func mailsOf(t *testing.T, db *sqldb.DB, addrs ...string) []folio.MailMessage {
	var out []folio.MailMessage
	for _, m := range outboxMessages(t, db) {
		for _, a := range addrs {
			if len(m.To) == 1 && m.To[0].Email == a && len(m.Attachments) == 1 {
				out = append(out, m)
			}
		}
	}
	return out
}

// checkPlaceICS parses an invite with golang-ical and checks LOCATION, URL and CONFERENCE.
func checkPlaceICS(t *testing.T, data []byte, pc placeCase, loc *folio.BookingLocation) {
	t.Helper()
	cal, err := arran.ParseCalendar(bytes.NewReader(data))
	if err != nil || len(cal.Events()) != 1 {
		t.Fatalf("%s: invite does not parse: %v", pc.loc.Kind, err)
	}
	e := cal.Events()[0]
	where := ""
	if p := e.GetProperty(arran.ComponentPropertyLocation); p != nil {
		where = p.Value
	}
	want := pc.where
	if loc.JoinURL != "" {
		want = loc.JoinURL
	}
	// golang-ical leaves TEXT escapes in Value.
	if strings.NewReplacer(`\,`, ",", `\;`, ";").Replace(where) != want {
		t.Errorf("%s: LOCATION %q, want %q", pc.loc.Kind, where, want)
	}
	conf := e.GetProperty(arran.ComponentProperty("CONFERENCE"))
	url := e.GetProperty(arran.ComponentPropertyUrl)
	if loc.JoinURL == "" {
		if conf != nil || url != nil {
			t.Errorf("%s: CONFERENCE/URL on a place without video", pc.loc.Kind)
		}
		return
	}
	if conf == nil || conf.Value != loc.JoinURL || url == nil || url.Value != loc.JoinURL {
		t.Fatalf("%s: CONFERENCE %+v URL %+v, want %s", pc.loc.Kind, conf, url, loc.JoinURL)
	}
	if v := conf.ICalParameters["VALUE"]; len(v) != 1 || v[0] != "URI" {
		t.Errorf("%s: CONFERENCE VALUE=%v", pc.loc.Kind, v)
	}
	if f := conf.ICalParameters["FEATURE"]; strings.Join(f, ",") != "AUDIO,VIDEO" {
		t.Errorf("%s: CONFERENCE FEATURE=%v", pc.loc.Kind, f)
	}
	if l := conf.ICalParameters["LABEL"]; len(l) != 1 || l[0] != loc.Label {
		t.Errorf("%s: CONFERENCE LABEL=%v, want %q", pc.loc.Kind, l, loc.Label)
	}
}

// placeDays are weekdays in March 2026 (a place per day, the next day for its reschedule).
var placeDays = []string{"2026-03-04", "2026-03-09", "2026-03-11", "2026-03-16", "2026-03-18", "2026-03-23", "2026-03-25"}

func placeService(t *testing.T, db *sqldb.DB, cal folio.Calendar, provider string) *booking.Service {
	svc := newService(t, db, cal, provider)
	st := svc.Settings()
	st.SiteURL, st.JitsiURL = "https://site.example", "https://jitsi.example.org/"
	if err := svc.Apply(st); err != nil {
		t.Fatal(err)
	}
	return svc
}

func TestPlacesOnLocal(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		cal, err := local.New(db.Bookings, "https://site.example", "")
		if err != nil {
			t.Fatal(err)
		}
		svc := placeService(t, db, cal, "local")
		for i, pc := range placeCases {
			slug := "p" + string(rune('a'+i))
			placeType(t, svc, slug, pc)
			bookPlace(t, svc, db, slug, placeDays[i]+"T10:00:00-05:00", pc, func(id string, loc folio.BookingLocation) {
				b, _ := db.Bookings.Booking(context.Background(), id)
				ics, err := svc.EventICS(context.Background(), b.ICSToken) // the local event link
				if err != nil {
					t.Fatal(err)
				}
				checkPlaceICS(t, ics, pc, &loc)
			})
		}
		// Google Meet needs the Google provider: such a type can be defined, but a Meet cannot be
		// booked on another provider.
		if _, err = svc.SaveType(context.Background(), "", folio.MeetingTypeInput{Slug: "meet", Title: "Meet", DurationMinutes: 30,
			Locations: []folio.MeetingLocation{{Kind: folio.PlaceGoogleMeet}, {Kind: folio.PlaceJitsi}}}); err != nil {
			t.Fatal(err)
		}
		r := request("2026-03-30T10:00:00-04:00")
		r.DurationMinutes, r.Type, r.Location = 0, "meet", &folio.LocationChoice{Kind: folio.PlaceGoogleMeet}
		if _, err := svc.Book(context.Background(), r, ""); fieldOf(err) != "location" {
			t.Errorf("google_meet booked on local: %v", err)
		}
	})
}

func TestPlacesOnCalDAV(t *testing.T) {
	base := radicaletest.Start(t)
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		url := base + "/" + radicaletest.User + "/places-" + lastElem(t.Name()) + "/"
		radicaletest.MkCalendar(t, url)
		cal, err := caldav.New(caldav.Config{URL: url, Username: radicaletest.User, Password: radicaletest.Password,
			Location: mustZone(t, "America/New_York"), HTTPClient: &http.Client{Timeout: 10 * time.Second}, Now: func() time.Time { return testNow }})
		if err != nil {
			t.Fatal(err)
		}
		svc := placeService(t, db, cal, "caldav")
		for i, pc := range placeCases {
			slug := "p" + string(rune('a'+i))
			placeType(t, svc, slug, pc)
			bookPlace(t, svc, db, slug, placeDays[i]+"T10:00:00-05:00", pc, func(id string, loc folio.BookingLocation) {
				// The event as Radicale stores it.
				req, _ := http.NewRequest(http.MethodGet, url+id+".ics", nil)
				req.SetBasicAuth(radicaletest.User, radicaletest.Password)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("GET event: %d %s", resp.StatusCode, body)
				}
				checkPlaceICS(t, body, pc, &loc)
			})
		}
	})
}

func TestPlacesOnGoogle(t *testing.T) {
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
	event := func(id string) googlefake.Event {
		for _, e := range fake.Events(calendarID) {
			if e.ID == google.EventID(id) {
				return e
			}
		}
		t.Fatalf("no google event for %s", id)
		return googlefake.Event{}
	}
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		svc := placeService(t, db, cal, "google")
		hour := map[string]string{"sqlite": "T10:00:00-05:00", "postgres": "T13:00:00-05:00"}[lastElem(t.Name())]
		for i, pc := range append([]placeCase{meetCase}, placeCases...) {
			slug := "p" + string(rune('a'+i))
			placeType(t, svc, slug, pc)
			bookPlace(t, svc, db, slug, placeDays[i]+hour, pc, func(id string, loc folio.BookingLocation) {
				e := event(id)
				if pc.loc.Kind == folio.PlaceGoogleMeet {
					if e.HangoutLink == "" || e.HangoutLink != loc.JoinURL || e.ConferenceData == nil || e.Location != "" {
						t.Errorf("meet event %+v, join %s", e, loc.JoinURL)
					}
					return
				}
				want := pc.where
				if loc.JoinURL != "" {
					want = loc.JoinURL
				}
				if e.ConferenceData != nil || e.HangoutLink != "" || e.Location != want {
					t.Errorf("%s: google event location %q conference %+v, want %q and none", pc.loc.Kind, e.Location, e.ConferenceData, want)
				}
			})
		}
	})
}

func fieldOf(err error) string {
	fe, ok := err.(*folio.Error)
	if !ok || len(fe.Details) == 0 {
		return ""
	}
	return fe.Details[0].Field
}
