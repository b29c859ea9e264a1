package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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

// bookingNow is Monday 2 March 2026, 12:00 UTC: before the US (8 March) and EU (29 March)
// daylight-saving transitions.
var bookingNow = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

func bookingConfig(t testing.TB) folio.BookingConfig {
	t.Helper()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	return folio.BookingConfig{
		DurationOptions: []int{30, 60}, Weekly: folio.BusinessHours(9, 18, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday),
		Location: ny, AdvanceDays: 400, MinNotice: 24 * time.Hour, SlotStep: 30 * time.Minute,
	}
}

// newBookingService returns the booking service over db and cal with a pinned clock and the
// confirmation mails going into db's outbox; tweak adjusts the owner's configuration.
func newBookingService(t testing.TB, db *sqldb.DB, cal folio.Calendar, tweak ...func(*folio.BookingConfig)) *booking.Service {
	t.Helper()
	cfg := bookingConfig(t)
	for _, f := range tweak {
		f(&cfg)
	}
	svc, err := booking.New(db.Bookings, db.Jobs, cal, cfg, "test")
	if err != nil {
		t.Fatal(err)
	}
	svc.Now = func() time.Time { return bookingNow }
	svc.Owner = func(context.Context) folio.Participant {
		return folio.Participant{Name: "Olivia Owner", Email: "owner@example.com"}
	}
	ob := mail.NewOutbox(db.Outbox, nil, folio.MailAddress{Email: "folio@example.com"}, nil)
	ob.Now = svc.Now
	svc.Mail, svc.Outbox = ob, db.Outbox
	return svc
}

// newBookingServer serves svc with a helper limit high enough for the concurrency tests.
func newBookingServer(t *testing.T, db *sqldb.DB, svc *booking.Service) *testServer {
	t.Helper()
	return newTestServer(t, db, func(s *Server) {
		s.Bookings = svc
		s.Now = func() time.Time { return bookingNow }
		s.Limits.Helper = 1000
	})
}

func bookBody(start string) map[string]any {
	return map[string]any{"startISO": start, "durationMinutes": 30, "timeZone": "Europe/London",
		"attendeeEmail": "vera@example.org", "attendeeName": "Vera Visitor", "description": "About the project"}
}

func slotStarts(t *testing.T, res response) []string {
	t.Helper()
	if res.Status != 200 {
		t.Fatalf("available: %d %s", res.Status, res.Body)
	}
	var body struct {
		Slots []struct {
			Start, End string
			Duration   int
		}
	}
	if err := json.Unmarshal(res.Body, &body); err != nil || body.Slots == nil {
		t.Fatalf("available body %s (%v)", res.Body, err)
	}
	out := make([]string, len(body.Slots))
	for i, s := range body.Slots {
		out[i] = s.Start
	}
	return out
}

func TestBookingRouteValidation(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	cal := &bookingtest.Calendar{}
	ts := newBookingServer(t, db, newBookingService(t, db, cal))
	v := newOpenAPIValidator(t, ts)
	valid := bookBody("2026-03-04T15:00:00Z") // 10:00 in New York
	with := func(k string, val any) map[string]any {
		m := map[string]any{}
		for kk, vv := range valid {
			m[kk] = vv
		}
		if val == nil {
			delete(m, k)
		} else {
			m[k] = val
		}
		return m
	}
	for _, tc := range []struct {
		name, method, path string
		body               any
		headers            []string
		status             int
		field              string
	}{
		{"available: no date", "GET", "/api/schedule/available", nil, nil, 400, "date"},
		{"available: not a date", "GET", "/api/schedule/available?date=2026-02-30", nil, nil, 400, "date"},
		{"available: US format", "GET", "/api/schedule/available?date=03/04/2026", nil, nil, 400, "date"},
		{"available: duration not a number", "GET", "/api/schedule/available?date=2026-03-04&duration=half", nil, nil, 400, "duration"},
		{"available: duration not an option", "GET", "/api/schedule/available?date=2026-03-04&duration=45", nil, nil, 422, "duration"},
		{"available: unknown zone", "GET", "/api/schedule/available?date=2026-03-04&timezone=Mars/Olympus", nil, nil, 400, "timezone"},
		{"available: Local is no zone", "GET", "/api/schedule/available?date=2026-03-04&timezone=Local", nil, nil, 400, "timezone"},
		{"available: ok", "GET", "/api/schedule/available?date=2026-03-04&duration=60&timezone=Asia/Kathmandu", nil, nil, 200, ""},
		{"available: past date is empty", "GET", "/api/schedule/available?date=2020-01-06", nil, nil, 200, ""},
		{"conflict: empty body", "POST", "/api/schedule/check-conflict", "", nil, 400, ""},
		{"conflict: missing start", "POST", "/api/schedule/check-conflict", map[string]any{"durationMinutes": 30}, nil, 400, "startISO"},
		{"conflict: start not a string", "POST", "/api/schedule/check-conflict", `{"startISO": 5, "durationMinutes": 30}`, nil, 400, "startISO"},
		{"conflict: start without offset", "POST", "/api/schedule/check-conflict", map[string]any{"startISO": "2026-03-04T10:00:00", "durationMinutes": 30}, nil, 400, "startISO"},
		{"conflict: unknown zone", "POST", "/api/schedule/check-conflict", map[string]any{"startISO": "2026-03-04T10:00:00Z", "durationMinutes": 30, "timeZone": "Nowhere"}, nil, 400, "timeZone"},
		{"conflict: negative duration", "POST", "/api/schedule/check-conflict", map[string]any{"startISO": "2026-03-04T10:00:00Z", "durationMinutes": -30}, nil, 422, "durationMinutes"},
		{"conflict: ok", "POST", "/api/schedule/check-conflict", map[string]any{"startISO": "2026-03-04T10:00:00Z", "durationMinutes": 30}, nil, 200, ""},
		{"book: empty object", "POST", "/api/schedule/book", map[string]any{}, nil, 400, "attendeeEmail"},
		{"book: malformed json", "POST", "/api/schedule/book", `{"startISO":`, nil, 400, ""},
		{"book: duration wrong type", "POST", "/api/schedule/book", with("durationMinutes", "30"), nil, 400, "durationMinutes"},
		{"book: missing zone", "POST", "/api/schedule/book", with("timeZone", nil), nil, 400, "timeZone"},
		{"book: duration not an option", "POST", "/api/schedule/book", with("durationMinutes", 45), nil, 422, "durationMinutes"},
		{"book: bad email", "POST", "/api/schedule/book", with("attendeeEmail", "vera at example"), nil, 422, "attendeeEmail"},
		{"book: name with newline", "POST", "/api/schedule/book", with("attendeeName", "Vera\nBcc: x@example.org"), nil, 422, "attendeeName"},
		{"book: not an offered slot", "POST", "/api/schedule/book", with("startISO", "2026-03-04T15:10:00Z"), nil, 422, "startISO"},
		{"book: Saturday", "POST", "/api/schedule/book", with("startISO", "2026-03-07T15:00:00Z"), nil, 422, "startISO"},
		{"book: bad idempotency key", "POST", "/api/schedule/book", valid, []string{"Idempotency-Key", "has space"}, 400, "Idempotency-Key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ts.do(tc.method, tc.path, "", tc.body, tc.headers...)
			if res.Status != tc.status {
				t.Fatalf("status = %d, want %d: %s", res.Status, tc.status, res.Body)
			}
			pattern, _, _ := strings.Cut(tc.path, "?")
			v.check(tc.method, pattern, res)
			if tc.status < 400 {
				return
			}
			if code := res.errorCode(t); code != "VALIDATION_ERROR" {
				t.Errorf("code = %s", code)
			}
			if tc.field != "" && !strings.Contains(string(res.Body), `"field":"`+tc.field+`"`) {
				t.Errorf("details do not name %q: %s", tc.field, res.Body)
			}
		})
	}
	if _, n := cal.Calls(); n != 0 || countRows(t, db, "bookings") != 0 {
		t.Errorf("invalid requests created something: %d provider creates", n)
	}
	if res := ts.do("GET", "/api/schedule/available?date=2020-01-06", "", nil); string(res.Body) != "{\"slots\":[]}\n" {
		t.Errorf("empty list renders as %q", res.Body)
	}
}

func countRows(t testing.TB, db *sqldb.DB, table string) int {
	t.Helper()
	var n int
	if err := db.R.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBookingSlotsAcrossDST lists slots through the HTTP layer on days around the US and EU
// transitions, for visitors in other zones, and for an owner whose hours cross the gap.
func TestBookingSlotsAcrossDST(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ts := newBookingServer(t, db, newBookingService(t, db, &bookingtest.Calendar{}))
	v := newOpenAPIValidator(t, ts)
	for _, tc := range []struct {
		name, query  string
		first, last  string
		n            int
		alsoIncludes string
	}{
		// New York 09:00–18:00. Before 8 March both zones are on standard time: 5 hours apart.
		{"London, both standard", "date=2026-03-06&timezone=Europe/London", "2026-03-06T14:00:00Z", "2026-03-06T22:30:00Z", 18, ""},
		// After the US change, before the EU one: 4 hours apart for three weeks.
		{"London, US summer time only", "date=2026-03-09&timezone=Europe/London", "2026-03-09T13:00:00Z", "2026-03-09T21:30:00Z", 18, ""},
		{"London, both summer time", "date=2026-03-30&timezone=Europe/London", "2026-03-30T14:00:00+01:00", "2026-03-30T22:30:00+01:00", 18, ""},
		{"London, EU back, US not yet", "date=2026-10-26&timezone=Europe/London", "2026-10-26T13:00:00Z", "2026-10-26T21:30:00Z", 18, ""},
		{"London, both standard again", "date=2026-11-02&timezone=Europe/London", "2026-11-02T14:00:00Z", "2026-11-02T22:30:00Z", 18, ""},
		// Owner's zone by default: the US spring-forward Monday after it.
		{"owner zone after spring forward", "date=2026-03-09", "2026-03-09T09:00:00-04:00", "2026-03-09T17:30:00-04:00", 18, ""},
		// A Kolkata date spans the end of Monday and the start of Tuesday in New York.
		{"Kolkata spans two owner days", "date=2026-03-10&timezone=Asia/Kolkata", "2026-03-10T00:00:00+05:30", "2026-03-10T23:30:00+05:30", 18, "2026-03-10T18:30:00+05:30"},
		{"Kathmandu 45-minute offset, 60 minutes", "date=2026-03-04&duration=60&timezone=Asia/Kathmandu", "2026-03-04T00:15:00+05:45", "2026-03-04T23:45:00+05:45", 17, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ts.do("GET", "/api/schedule/available?"+tc.query, "", nil)
			v.check("GET", "/api/schedule/available", res)
			got := slotStarts(t, res)
			if len(got) != tc.n || got[0] != tc.first || got[len(got)-1] != tc.last {
				t.Fatalf("%d slots %v…%v, want %d %s…%s", len(got), first(got), last(got), tc.n, tc.first, tc.last)
			}
			if tc.alsoIncludes != "" && !contains(got, tc.alsoIncludes) {
				t.Errorf("no slot %s in %v", tc.alsoIncludes, got)
			}
		})
	}

	t.Run("owner hours across the spring-forward gap", func(t *testing.T) {
		db := foliotest.MustOpenSQLite(t)
		svc := newBookingService(t, db, &bookingtest.Calendar{}, func(c *folio.BookingConfig) {
			c.Weekly = folio.BusinessHours(0, 5, time.Sunday)
		})
		ts := newBookingServer(t, db, svc)
		got := slotStarts(t, ts.do("GET", "/api/schedule/available?date=2026-03-08&timezone=America/New_York", "", nil))
		want := []string{"2026-03-08T00:00:00-05:00", "2026-03-08T00:30:00-05:00", "2026-03-08T01:00:00-05:00", "2026-03-08T01:30:00-05:00",
			"2026-03-08T03:00:00-04:00", "2026-03-08T03:30:00-04:00", "2026-03-08T04:00:00-04:00", "2026-03-08T04:30:00-04:00"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("slots\n got %v\nwant %v", got, want)
		}
		// And the booking route accepts a start after the gap, with its summer-time offset.
		body := bookBody("2026-03-08T03:00:00-04:00")
		if res := ts.do("POST", "/api/schedule/book", "", body); res.Status != 200 {
			t.Errorf("book after the gap: %d %s", res.Status, res.Body)
		}
	})
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func TestBookingBufferThroughHTTP(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	cal := &bookingtest.Calendar{}
	cal.AddBusy(time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC), time.Date(2026, 3, 4, 15, 30, 0, 0, time.UTC)) // 10:00–10:30 EST
	for _, tc := range []struct {
		buffer           time.Duration
		offered, missing []string
	}{
		{0, []string{"09:30", "10:30"}, []string{"10:00"}},
		{15 * time.Minute, []string{"09:00", "11:00"}, []string{"09:30", "10:00", "10:30"}},
	} {
		t.Run(fmt.Sprint(tc.buffer), func(t *testing.T) {
			svc := newBookingService(t, db, cal, func(c *folio.BookingConfig) { c.Buffer = tc.buffer })
			ts := newBookingServer(t, db, svc)
			got := slotStarts(t, ts.do("GET", "/api/schedule/available?date=2026-03-04", "", nil))
			for _, hm := range tc.offered {
				if !contains(got, "2026-03-04T"+hm+":00-05:00") {
					t.Errorf("%s not offered: %v", hm, got)
				}
			}
			for _, hm := range tc.missing {
				if contains(got, "2026-03-04T"+hm+":00-05:00") {
					t.Errorf("%s offered: %v", hm, got)
				}
				res := ts.do("POST", "/api/schedule/check-conflict", "", map[string]any{"startISO": "2026-03-04T" + hm + ":00-05:00", "durationMinutes": 30})
				if res.Status != 200 || res.json(t)["hasConflict"] != true {
					t.Errorf("check-conflict %s: %d %s", hm, res.Status, res.Body)
				}
			}
		})
	}
}

// raceBook fires n bookings of one slot at the given servers (round robin) at once and
// returns how many answers each status got.
func raceBook(t *testing.T, servers []*testServer, n int, start string) map[int]int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	ready := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts := servers[i%len(servers)]
			body, _ := json.Marshal(bookBody(start))
			<-ready
			res, err := http.Post(ts.URL+"/api/schedule/book", "application/json", bytes.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			mu.Lock()
			statuses[res.StatusCode]++
			mu.Unlock()
		}()
	}
	close(ready)
	wg.Wait()
	return statuses
}

func TestBookingRaceOneSlot(t *testing.T) {
	const n = 50
	start := "2026-03-04T15:00:00Z"
	t.Run("sqlite", func(t *testing.T) {
		db := foliotest.MustOpenSQLite(t)
		cal := &bookingtest.Calendar{}
		ts := newBookingServer(t, db, newBookingService(t, db, cal))
		got := raceBook(t, []*testServer{ts}, n, start)
		if got[200] != 1 || got[409] != n-1 || len(cal.Events()) != 1 || countRows(t, db, "bookings") != 1 {
			t.Fatalf("statuses %v, %d events, %d bookings; want 1×200, %d×409, one event", got, len(cal.Events()), countRows(t, db, "bookings"), n-1)
		}
	})
	t.Run("postgres, two instances", func(t *testing.T) {
		dsn := foliotest.PostgresSchema(t)
		ctx := context.Background()
		open := func() *sqldb.DB {
			db, err := sqldb.Open(ctx, dsn, "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}
		db1, db2 := open(), open()
		if _, err := db1.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		cal := &bookingtest.Calendar{} // the provider both instances share
		ts1 := newBookingServer(t, db1, newBookingService(t, db1, cal))
		ts2 := newBookingServer(t, db2, newBookingService(t, db2, cal))
		got := raceBook(t, []*testServer{ts1, ts2}, n, start)
		if got[200] != 1 || got[409] != n-1 || len(cal.Events()) != 1 || countRows(t, db2, "bookings") != 1 {
			t.Fatalf("statuses %v, %d events, %d bookings; want 1×200, %d×409, one event", got, len(cal.Events()), countRows(t, db2, "bookings"), n-1)
		}
		if m := countRows(t, db1, "outbox"); m != 2 {
			t.Errorf("%d confirmation mails queued, want 2", m)
		}
	})
}

func TestBookingIdempotencyAndFailureThroughHTTP(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		cal := &bookingtest.Calendar{}
		ts := newBookingServer(t, db, newBookingService(t, db, cal))
		v := newOpenAPIValidator(t, ts)
		body := bookBody("2026-03-04T15:00:00Z")

		// A provider failure: 502, nothing left, the slot free again, the key still usable.
		cal.FailCreate(1)
		res := ts.do("POST", "/api/schedule/book", "", body, "Idempotency-Key", "k-123")
		if res.Status != 502 || res.errorCode(t) != "UPSTREAM_ERROR" {
			t.Fatalf("provider failure: %d %s", res.Status, res.Body)
		}
		v.check("POST", "/api/schedule/book", res)
		if countRows(t, db, "bookings") != 0 || len(cal.Events()) != 0 || countRows(t, db, "outbox") != 0 {
			t.Fatal("a failed booking left something behind")
		}
		if !contains(slotStarts(t, ts.do("GET", "/api/schedule/available?date=2026-03-04&timezone=UTC", "", nil)), "2026-03-04T15:00:00Z") {
			t.Error("slot not free after the failure")
		}

		first := ts.do("POST", "/api/schedule/book", "", body, "Idempotency-Key", "k-123")
		if first.Status != 200 || first.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("book: %d %s", first.Status, first.Body)
		}
		v.check("POST", "/api/schedule/book", first)
		m := first.json(t)
		if m["ok"] != true || m["eventId"] == "" || m["providerMeetLink"] == "" || m["providerEventLink"] == "" {
			t.Errorf("answer %s", first.Body)
		}
		again := ts.do("POST", "/api/schedule/book", "", body, "Idempotency-Key", "k-123")
		if again.Status != first.Status || !bytes.Equal(again.Body, first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("replay: %d %s (replayed %q), first %s", again.Status, again.Body, again.Header.Get("Idempotent-Replayed"), first.Body)
		}
		other := bookBody("2026-03-04T16:00:00Z")
		if res := ts.do("POST", "/api/schedule/book", "", other, "Idempotency-Key", "k-123"); res.Status != 422 || !strings.Contains(string(res.Body), `"field":"Idempotency-Key"`) {
			t.Errorf("key reused with another body: %d %s", res.Status, res.Body)
		}
		res = ts.do("POST", "/api/schedule/book", "", body)
		if res.Status != 409 || res.errorCode(t) != "CONFLICT" {
			t.Errorf("taken slot without key: %d %s", res.Status, res.Body)
		}
		v.check("POST", "/api/schedule/book", res)
		if len(cal.Events()) != 1 || countRows(t, db, "bookings") != 1 || countRows(t, db, "outbox") != 2 {
			t.Errorf("%d events, %d bookings, %d mails", len(cal.Events()), countRows(t, db, "bookings"), countRows(t, db, "outbox"))
		}
	})
}

func TestBookingLocalEventLink(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		var ts *testServer
		cal, err := local.New(db.Bookings, "http://folio.test", "")
		if err != nil {
			t.Fatal(err)
		}
		ts = newBookingServer(t, db, newBookingService(t, db, cal))
		v := newOpenAPIValidator(t, ts)
		res := ts.do("POST", "/api/schedule/book", "", bookBody("2026-03-04T15:00:00Z"))
		if res.Status != 200 {
			t.Fatalf("book: %d %s", res.Status, res.Body)
		}
		m := res.json(t)
		if m["providerMeetLink"] != "https://meet.jit.si/folio-"+m["eventId"].(string) {
			t.Errorf("meet link %v", m["providerMeetLink"])
		}
		path, ok := strings.CutPrefix(m["providerEventLink"].(string), "http://folio.test")
		if !ok || !strings.HasPrefix(path, local.EventPathPrefix) || !strings.HasSuffix(path, ".ics") {
			t.Fatalf("event link %v", m["providerEventLink"])
		}
		// The owner's dashboard lists the confirmed booking.
		list := ts.do("GET", "/api/schedule/bookings?from=2026-03-01T00:00:00Z", "admin", nil)
		v.check("GET", "/api/schedule/bookings", list)
		if bs := list.json(t)["bookings"].([]any); len(bs) != 1 || bs[0].(map[string]any)["id"] != m["eventId"] {
			t.Errorf("bookings list: %s", list.Body)
		}
		if n := len(ts.do("GET", "/api/schedule/bookings?from=2026-03-05T00:00:00Z", "admin", nil).json(t)["bookings"].([]any)); n != 0 {
			t.Errorf("a booking that ended before from is listed")
		}
		if res := ts.do("GET", "/api/schedule/bookings?from=yesterday", "admin", nil); res.Status != 400 {
			t.Errorf("bad from: %d", res.Status)
		}
		ics := ts.do("GET", path, "", nil)
		if ics.Status != 200 || !strings.HasPrefix(ics.Header.Get("Content-Type"), "text/calendar") {
			t.Fatalf("event link: %d %s %s", ics.Status, ics.Header.Get("Content-Type"), ics.Body)
		}
		v.check("GET", "/api/schedule/events/{file}", ics)
		cal2, err := arran.ParseCalendar(bytes.NewReader(ics.Body))
		if err != nil || len(cal2.Events()) != 1 {
			t.Fatalf("served .ics does not parse: %v\n%s", err, ics.Body)
		}
		e := cal2.Events()[0]
		if start, err := e.GetStartAt(); err != nil || !start.Equal(time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)) || e.Id() != m["eventId"].(string)+"@folio" {
			t.Errorf("event %s at %v (%v)", e.Id(), start, err)
		}
		for _, p := range []string{local.EventPathPrefix + strings.Repeat("x", 43) + ".ics", local.EventPathPrefix + "short.ics",
			strings.TrimSuffix(path, ".ics")} {
			res := ts.do("GET", p, "", nil)
			if res.Status != 404 || res.errorCode(t) != "RESOURCE_NOT_FOUND" {
				t.Errorf("%s: %d %s", p, res.Status, res.Body)
			}
			v.check("GET", "/api/schedule/events/{file}", res)
		}
	})
}

func TestBookingHelperLimitAndUnconfigured(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ts := newTestServer(t, db, func(s *Server) { s.Bookings = newBookingService(t, db, &bookingtest.Calendar{}) })
	for i := range 5 {
		if res := ts.do("POST", "/api/schedule/book", "", map[string]any{}); res.Status != 400 {
			t.Fatalf("request %d: %d", i+1, res.Status)
		}
	}
	if res := ts.do("POST", "/api/schedule/book", "", map[string]any{}); res.Status != 429 || res.errorCode(t) != "RATE_LIMIT_EXCEEDED" {
		t.Errorf("6th booking request from one IP: %d %s", res.Status, res.Body)
	}
	// The other booking routes take only the tier limit.
	if res := ts.do("GET", "/api/schedule/available?date=2026-03-04", "", nil); res.Status != 200 {
		t.Errorf("available after the helper limit: %d", res.Status)
	}

	bare := newTestServer(t, foliotest.MustOpenSQLite(t))
	if res := bare.do("GET", "/api/schedule/available?date=2026-03-04", "", nil); res.Status != 503 || res.errorCode(t) != "SERVICE_UNAVAILABLE" {
		t.Errorf("without a booking service: %d %s", res.Status, res.Body)
	}
}
