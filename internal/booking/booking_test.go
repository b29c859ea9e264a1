package booking_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	arran "github.com/arran4/golang-ical"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/booking/bookingtest"
	"github.com/foliohq/folio/internal/calendar/local"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/sqldb"
)

// Monday 2 March 2026, 12:00 UTC: before the US (8 March) and EU (29 March) transitions.
var testNow = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func testConfig(t testing.TB) folio.BookingConfig {
	return folio.BookingConfig{
		DurationOptions: []int{30, 60}, Weekly: folio.BusinessHours(9, 18, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday),
		Location: mustZone(t, "America/New_York"), AdvanceDays: 400, MinNotice: 24 * time.Hour, SlotStep: 30 * time.Minute,
	}
}

// newService returns a service over db and cal with a pinned clock and the confirmation mails
// going into db's outbox.
func newService(t testing.TB, db *sqldb.DB, cal folio.Calendar, provider string) *booking.Service {
	t.Helper()
	svc, err := booking.New(db.Bookings, db.Jobs, cal, testConfig(t), provider)
	if err != nil {
		t.Fatal(err)
	}
	clock := foliotest.NewClock(testNow)
	svc.Now = clock.Now
	svc.Owner = func(context.Context) folio.Participant {
		return folio.Participant{Name: "Olivia Owner", Email: "owner@example.com"}
	}
	ob := mail.NewOutbox(db.Outbox, nil, folio.MailAddress{Email: "folio@example.com"}, nil)
	ob.Now = clock.Now
	svc.Mail, svc.Outbox = ob, db.Outbox
	return svc
}

func request(start string) folio.BookingRequest {
	return folio.BookingRequest{StartISO: start, DurationMinutes: 30, TimeZone: "Europe/Berlin",
		AttendeeEmail: "vera@example.org", AttendeeName: "Vera Visitor", Description: "Talk about the project"}
}

func errorCode(err error) string {
	if err == nil {
		return ""
	}
	return folio.ErrorCode(err)
}

func status(err error) int {
	var fe *folio.Error
	if !errors.As(err, &fe) {
		return 0
	}
	switch {
	case fe.Code != folio.EINVALID:
		return 0
	case fe.RuleBroken:
		return 422 // as httpapi answers it
	}
	return 400
}

func countBookings(t testing.TB, db *sqldb.DB) int {
	t.Helper()
	var n int
	if err := db.R.QueryRow(`SELECT COUNT(*) FROM bookings`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// outboxMessages returns the stored confirmation messages.
func outboxMessages(t testing.TB, db *sqldb.DB) []folio.MailMessage {
	t.Helper()
	rows, err := db.R.Query(`SELECT payload FROM outbox ORDER BY subject`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []folio.MailMessage
	for rows.Next() {
		var p []byte
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		var m folio.MailMessage
		if err := json.Unmarshal(p, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func TestBookConfirmsAndQueuesMails(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		cal := &bookingtest.Calendar{}
		svc := newService(t, db, cal, "fake")
		ctx := context.Background()
		// Wednesday 4 March, 10:00 in New York = 16:00 in Berlin.
		a, err := svc.Book(ctx, request("2026-03-04T16:00:00+01:00"), "")
		if err != nil {
			t.Fatal(err)
		}
		var resp booking.BookResponse
		if err := json.Unmarshal(a.Body, &resp); err != nil || a.Status != 200 || a.Replayed {
			t.Fatalf("answer %d %s (%v)", a.Status, a.Body, err)
		}
		evs := cal.Events()
		if len(evs) != 1 || resp.EventID != evs[0].ID || resp.ProviderMeetLink != evs[0].MeetLink || resp.ProviderEventLink != evs[0].EventLink || !resp.OK {
			t.Fatalf("response %+v, events %+v", resp, evs)
		}
		ev := evs[0]
		if ev.Summary != "Meeting with Vera Visitor" || ev.TimeZone != "Europe/Berlin" || ev.Organizer.Email != "owner@example.com" ||
			!ev.Start.Equal(time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)) || ev.End.Sub(ev.Start) != 30*time.Minute {
			t.Errorf("event %+v", ev)
		}
		b, err := db.Bookings.Booking(ctx, ev.ID)
		if err != nil || b.Status != folio.BookingConfirmed || b.ProviderEventID != ev.ID || b.Provider != "fake" {
			t.Fatalf("booking %+v (%v)", b, err)
		}

		msgs := outboxMessages(t, db)
		if len(msgs) != 2 {
			t.Fatalf("%d outbox messages, want 2", len(msgs))
		}
		for _, m := range msgs {
			owner := m.To[0].Email == "owner@example.com"
			if !owner && m.To[0].Email != "vera@example.org" {
				t.Errorf("recipient %v", m.To)
			}
			if m.ReplyTo == nil || (owner && m.ReplyTo.Email != "vera@example.org") || (!owner && m.ReplyTo.Email != "owner@example.com") {
				t.Errorf("reply-to %v for %v", m.ReplyTo, m.To)
			}
			// Both zones are shown.
			if !strings.Contains(m.Text, "America/New_York") || !strings.Contains(m.Text, "Europe/Berlin") {
				t.Errorf("mail to %v lacks a zone:\n%s", m.To, m.Text)
			}
			if len(m.Attachments) != 1 || m.Attachments[0].Filename != "invite.ics" ||
				!strings.HasPrefix(m.Attachments[0].ContentType, "text/calendar; method=REQUEST") {
				t.Fatalf("attachments %+v", m.Attachments)
			}
			checkInvite(t, m.Attachments[0].Data, b, ev.MeetLink)
		}
	})
}

// checkInvite parses the invite with an independent iCalendar parser.
func checkInvite(t *testing.T, data []byte, b *folio.Booking, meet string) {
	t.Helper()
	if !bytes.Contains(data, []byte("\r\n")) || bytes.Contains(bytes.ReplaceAll(data, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("invite lines do not all end in CRLF")
	}
	cal, err := arran.ParseCalendar(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if m := cal.CalendarProperties; len(m) == 0 {
		t.Fatal("no calendar properties")
	}
	method := ""
	for _, p := range cal.CalendarProperties {
		if p.IANAToken == string(arran.PropertyMethod) {
			method = p.Value
		}
	}
	if method != "REQUEST" {
		t.Errorf("METHOD = %q", method)
	}
	evs := cal.Events()
	if len(evs) != 1 {
		t.Fatalf("%d events", len(evs))
	}
	e := evs[0]
	if e.Id() != b.ID+"@folio" {
		t.Errorf("UID = %q, want %s@folio", e.Id(), b.ID)
	}
	if start, err := e.GetStartAt(); err != nil || !start.Equal(b.Start) {
		t.Errorf("DTSTART = %v (%v), want %v", start, err, b.Start)
	}
	if end, err := e.GetEndAt(); err != nil || !end.Equal(b.End) {
		t.Errorf("DTEND = %v (%v)", end, err)
	}
	if e.GetProperty(arran.ComponentPropertyDtstamp) == nil {
		t.Error("no DTSTAMP")
	}
	if o := e.GetProperty(arran.ComponentPropertyOrganizer); o == nil || !strings.EqualFold(o.Value, "mailto:owner@example.com") {
		t.Errorf("ORGANIZER = %+v", o)
	}
	atts := e.Attendees()
	if len(atts) != 1 || atts[0].Email() != "vera@example.org" {
		t.Fatalf("attendees %+v", atts)
	}
	if rsvp := atts[0].ICalParameters["RSVP"]; len(rsvp) != 1 || rsvp[0] != "TRUE" {
		t.Errorf("RSVP = %v", rsvp)
	}
	if u := e.GetProperty(arran.ComponentPropertyUrl); u == nil || u.Value != meet {
		t.Errorf("URL = %+v, want %s", u, meet)
	}
}

func TestBookValidation(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	cal := &bookingtest.Calendar{}
	svc := newService(t, db, cal, "fake")
	ok := request("2026-03-04T10:00:00-05:00")
	with := func(f func(r *folio.BookingRequest)) folio.BookingRequest {
		r := ok
		f(&r)
		return r
	}
	for _, tc := range []struct {
		name   string
		req    folio.BookingRequest
		key    string
		status int
		field  string
	}{
		{"missing name", with(func(r *folio.BookingRequest) { r.AttendeeName = " " }), "", 400, "attendeeName"},
		{"missing start", with(func(r *folio.BookingRequest) { r.StartISO = "" }), "", 400, "startISO"},
		{"unparseable start", with(func(r *folio.BookingRequest) { r.StartISO = "4 March 10am" }), "", 400, "startISO"},
		{"unknown zone", with(func(r *folio.BookingRequest) { r.TimeZone = "Mars/Olympus" }), "", 400, "timeZone"},
		{"bad email", with(func(r *folio.BookingRequest) { r.AttendeeEmail = "vera" }), "", 422, "attendeeEmail"},
		{"duration not an option", with(func(r *folio.BookingRequest) { r.DurationMinutes = 45 }), "", 422, "durationMinutes"},
		{"off the grid", with(func(r *folio.BookingRequest) { r.StartISO = "2026-03-04T10:10:00-05:00" }), "", 422, "startISO"},
		{"outside hours", with(func(r *folio.BookingRequest) { r.StartISO = "2026-03-04T18:00:00-05:00" }), "", 422, "startISO"},
		{"weekend", with(func(r *folio.BookingRequest) { r.StartISO = "2026-03-07T10:00:00-05:00" }), "", 422, "startISO"},
		{"short notice", with(func(r *folio.BookingRequest) { r.StartISO = "2026-03-02T15:00:00-05:00" }), "", 422, "startISO"},
		{"beyond advance", with(func(r *folio.BookingRequest) { r.StartISO = "2027-06-01T10:00:00-04:00" }), "", 422, "startISO"},
		{"key with space", ok, "a b", 400, "Idempotency-Key"},
		{"key too long", ok, strings.Repeat("k", 256), 400, "Idempotency-Key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.Book(context.Background(), tc.req, tc.key)
			if errorCode(err) != folio.EINVALID || status(err) != tc.status {
				t.Fatalf("err = %v (status %d), want VALIDATION_ERROR %d", err, status(err), tc.status)
			}
			if fe := err.(*folio.Error); len(fe.Details) == 0 || fe.Details[0].Field != tc.field {
				t.Errorf("details %+v, want field %s", fe.Details, tc.field)
			}
		})
	}
	if _, n := cal.Calls(); n != 0 || countBookings(t, db) != 0 {
		t.Errorf("invalid requests reached the provider (%d) or the database", n)
	}
}

func TestProviderFailureLeavesNothing(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		cal := &bookingtest.Calendar{}
		svc := newService(t, db, cal, "fake")
		ctx := context.Background()
		req := request("2026-03-04T10:00:00-05:00")

		cal.FailCreate(1)
		_, err := svc.Book(ctx, req, "key-1")
		if errorCode(err) != folio.EUPSTREAM {
			t.Fatalf("err = %v, want UPSTREAM_ERROR", err)
		}
		if n := countBookings(t, db); n != 0 || len(cal.Events()) != 0 || len(outboxMessages(t, db)) != 0 {
			t.Fatalf("after failure: %d bookings, %d events, mails queued", n, len(cal.Events()))
		}
		slots, err := svc.Available(ctx, "2026-03-04", 30, "America/New_York")
		if err != nil || !hasSlot(slots, "2026-03-04T10:00:00-05:00") {
			t.Fatalf("slot not free again: %v (%v)", slots, err)
		}
		// The same key may be retried after a failure: nothing was stored under it.
		if a, err := svc.Book(ctx, req, "key-1"); err != nil || a.Status != 200 || a.Replayed {
			t.Fatalf("retry: %+v %v", a, err)
		}

		cal.FailFreeBusy(1)
		if _, err := svc.Available(ctx, "2026-03-05", 30, ""); errorCode(err) != folio.EUPSTREAM {
			t.Errorf("available with provider down: %v", err)
		}
	})
}

func hasSlot(slots []folio.Slot, start string) bool {
	for _, s := range slots {
		if s.Start.Format(time.RFC3339) == start {
			return true
		}
	}
	return false
}

func TestIdempotencyKey(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		cal := &bookingtest.Calendar{}
		svc := newService(t, db, cal, "fake")
		ctx := context.Background()
		req := request("2026-03-04T10:00:00-05:00")
		first, err := svc.Book(ctx, req, "3f1c-key")
		if err != nil {
			t.Fatal(err)
		}
		again, err := svc.Book(ctx, req, "3f1c-key")
		if err != nil || !again.Replayed || again.Status != first.Status || !bytes.Equal(again.Body, first.Body) {
			t.Fatalf("replay = %+v %s (%v), first %s", again, again.Body, err, first.Body)
		}
		other := req
		other.AttendeeName = "Someone Else"
		if _, err := svc.Book(ctx, other, "3f1c-key"); errorCode(err) != folio.EINVALID || status(err) != 422 {
			t.Errorf("key reused with another body: %v", err)
		}
		if n := len(cal.Events()); n != 1 {
			t.Errorf("%d events, want 1", n)
		}
		// Without the key, the same request is a new booking of a taken slot.
		if _, err := svc.Book(ctx, req, ""); errorCode(err) != folio.ECONFLICT {
			t.Errorf("same slot without key: %v", err)
		}
	})
}

// TestPendingReservationHoldsTheSlot holds one booking between its reservation and its event
// and checks that everything else sees the slot as taken meanwhile.
func TestPendingReservationHoldsTheSlot(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		cal := &bookingtest.Calendar{}
		reached, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		cal.BeforeCreate = func(folio.CalendarEvent) {
			once.Do(func() { close(reached); <-release })
		}
		svc := newService(t, db, cal, "fake")
		ctx := context.Background()
		req := request("2026-03-04T10:00:00-05:00")
		done := make(chan error, 1)
		go func() {
			_, err := svc.Book(ctx, req, "held-key")
			done <- err
		}()
		<-reached

		// The pending 10:00–10:30 takes 10:00; 09:30 and 10:30 only touch it.
		if _, err := svc.Book(ctx, req, ""); errorCode(err) != folio.ECONFLICT {
			t.Errorf("second booking while pending: %v, want CONFLICT", err)
		}
		if _, err := svc.Book(ctx, req, "held-key"); errorCode(err) != folio.ECONFLICT {
			t.Errorf("same key while pending: %v, want CONFLICT", err)
		}
		slots, err := svc.Available(ctx, "2026-03-04", 30, "America/New_York")
		if err != nil || hasSlot(slots, "2026-03-04T10:00:00-05:00") || !hasSlot(slots, "2026-03-04T09:30:00-05:00") || !hasSlot(slots, "2026-03-04T10:30:00-05:00") {
			t.Errorf("while pending, slots = %v (%v)", slots, err)
		}
		hit, err := svc.CheckConflict(ctx, folio.ConflictRequest{StartISO: "2026-03-04T10:15:00-05:00", DurationMinutes: 60})
		if err != nil || !hit {
			t.Errorf("check-conflict while pending: %v %v", hit, err)
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if n := len(cal.Events()); n != 1 {
			t.Errorf("%d events", n)
		}
	})
}

func TestStalePendingReservationFreesTheSlot(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		cal := &bookingtest.Calendar{}
		svc := newService(t, db, cal, "fake")
		ctx := context.Background()
		start := time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)
		crashed := &folio.Booking{ID: folio.NewID(), Start: start, End: start.Add(30 * time.Minute), DurationMinutes: 30,
			TimeZone: "UTC", Summary: "s", AttendeeName: "a", AttendeeEmail: "a@example.org", Provider: "fake",
			CreatedAt: testNow.Add(-booking.DefaultPendingTTL - time.Minute)}
		if err := db.Bookings.ReserveBooking(ctx, crashed, folio.ReserveLimits{}); err != nil {
			t.Fatal(err)
		}
		if slots, _ := svc.Available(ctx, "2026-03-04", 30, "UTC"); !hasSlot(slots, "2026-03-04T15:00:00Z") {
			t.Errorf("stale reservation still holds the slot: %v", slots)
		}
		if _, err := svc.Book(ctx, request("2026-03-04T15:00:00Z"), ""); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Bookings.Booking(ctx, crashed.ID); !folio.IsNotFound(err) {
			t.Errorf("stale reservation not deleted: %v", err)
		}
	})
}

func TestCheckConflictAndBuffer(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		cal := &bookingtest.Calendar{}
		cal.AddBusy(time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC), time.Date(2026, 3, 4, 15, 30, 0, 0, time.UTC)) // 10:00–10:30 EST
		svc := newService(t, db, cal, "fake")
		ctx := context.Background()
		check := func(start string, dur int) bool {
			t.Helper()
			hit, err := svc.CheckConflict(ctx, folio.ConflictRequest{StartISO: start, DurationMinutes: dur, TimeZone: "America/New_York"})
			if err != nil {
				t.Fatal(err)
			}
			return hit
		}
		for _, tc := range []struct {
			start  string
			dur    int
			buffer time.Duration
			want   bool
		}{
			{"2026-03-04T09:30:00-05:00", 30, 0, false}, // ends as busy starts: touching
			{"2026-03-04T10:30:00-05:00", 30, 0, false},
			{"2026-03-04T09:45:00-05:00", 30, 0, true},
			{"2026-03-04T10:10:00-05:00", 5, 0, true},
			{"2026-03-04T09:30:00-05:00", 30, 15 * time.Minute, true},
			{"2026-03-04T10:30:00-05:00", 30, 15 * time.Minute, true},
			{"2026-03-04T09:00:00-05:00", 30, 15 * time.Minute, false},
			{"2026-03-04T10:45:00-05:00", 30, 15 * time.Minute, false},
		} {
			st := svc.Settings()
			st.Config.Buffer = tc.buffer
			if err := svc.Apply(st); err != nil {
				t.Fatal(err)
			}
			if got := check(tc.start, tc.dur); got != tc.want {
				t.Errorf("%s +%dm buffer %v: conflict = %v, want %v", tc.start, tc.dur, tc.buffer, got, tc.want)
			}
		}
		for _, tc := range []struct {
			name   string
			req    folio.ConflictRequest
			status int
		}{
			{"missing start", folio.ConflictRequest{DurationMinutes: 30}, 400},
			{"missing duration", folio.ConflictRequest{StartISO: "2026-03-04T10:00:00Z"}, 400},
			{"unparseable start", folio.ConflictRequest{StartISO: "tomorrow", DurationMinutes: 30}, 400},
			{"unknown zone", folio.ConflictRequest{StartISO: "2026-03-04T10:00:00Z", DurationMinutes: 30, TimeZone: "Nowhere/Land"}, 400},
			{"negative duration", folio.ConflictRequest{StartISO: "2026-03-04T10:00:00Z", DurationMinutes: -5}, 422},
		} {
			if _, err := svc.CheckConflict(ctx, tc.req); errorCode(err) != folio.EINVALID || status(err) != tc.status {
				t.Errorf("%s: %v, want %d", tc.name, err, tc.status)
			}
		}
	})
}

func TestLocalProvider(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		cal, err := local.New(db.Bookings, "https://folio.example.com/", "https://meet.example.com/room-{id}")
		if err != nil {
			t.Fatal(err)
		}
		svc := newService(t, db, cal, "local")
		ctx := context.Background()
		a, err := svc.Book(ctx, request("2026-03-04T10:00:00-05:00"), "")
		if err != nil {
			t.Fatal(err)
		}
		var resp booking.BookResponse
		json.Unmarshal(a.Body, &resp)
		if resp.ProviderMeetLink != "https://meet.example.com/room-"+resp.EventID {
			t.Errorf("meet link %q for id %s", resp.ProviderMeetLink, resp.EventID)
		}
		prefix := "https://folio.example.com" + local.EventPathPrefix
		file, ok := strings.CutPrefix(resp.ProviderEventLink, prefix)
		token, ok2 := local.TokenFromPath(file)
		if !ok || !ok2 || len(token) < 40 {
			t.Fatalf("event link %q", resp.ProviderEventLink)
		}
		ics, err := svc.EventICS(ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := arran.ParseCalendar(bytes.NewReader(ics))
		if err != nil || len(parsed.Events()) != 1 || parsed.Events()[0].Id() != resp.EventID+"@folio" {
			t.Fatalf("served .ics: %v\n%s", err, ics)
		}
		if _, err := svc.EventICS(ctx, strings.Repeat("A", 43)); !folio.IsNotFound(err) {
			t.Errorf("unknown token: %v", err)
		}
		// The database is the calendar: the booking is busy time of the provider itself.
		busy, err := cal.FreeBusy(ctx, time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC))
		if err != nil || len(busy) != 1 || !busy[0].Start.Equal(time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)) {
			t.Errorf("local busy = %v (%v)", busy, err)
		}
		// A retried CreateEvent keeps the first token.
		again, err := cal.CreateEvent(ctx, folio.CalendarEvent{ID: resp.EventID})
		if err != nil || again.EventLink != resp.ProviderEventLink {
			t.Errorf("retried create: %q (%v)", again.EventLink, err)
		}
		if _, err := cal.CreateEvent(ctx, folio.CalendarEvent{ID: "no-such-booking"}); !folio.IsNotFound(err) {
			t.Errorf("create without a booking: %v", err)
		}
	})
}
