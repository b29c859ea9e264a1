package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	arran "github.com/arran4/golang-ical"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/booking/bookingtest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// bookForToken books start through HTTP and returns the manage token of its manageUrl.
func bookForToken(t *testing.T, ts *testServer, body map[string]any) string {
	t.Helper()
	res := ts.do("POST", "/api/schedule/book", "", body)
	if res.Status != 200 {
		t.Fatalf("book: %d %s", res.Status, res.Body)
	}
	u, _ := res.json(t)["manageUrl"].(string)
	token, ok := strings.CutPrefix(u, "https://site.example/book/manage/")
	if !ok || !booking.ValidToken(token) {
		t.Fatalf("manageUrl %q", u)
	}
	return token
}

// visitorICS fetches the .ics of a manage token and checks it is the visitor's invitation of the
// booking id: it parses, carries the invitation's UID, and none of the requester's free text.
func visitorICS(t *testing.T, ts *testServer, v *openAPIValidator, token, id string) string {
	t.Helper()
	res := ts.do("GET", "/api/schedule/bookings/"+token+"/invite.ics", "", nil)
	v.check("GET", "/api/schedule/bookings/{token}/invite.ics", res)
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/calendar") || res.Header.Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("invite.ics: %d %v %s", res.Status, res.Header, res.Body)
	}
	cal, err := arran.ParseCalendar(bytes.NewReader(res.Body))
	if err != nil || len(cal.Events()) != 1 || cal.Events()[0].Id() != id+"@folio" {
		t.Fatalf("invite.ics does not parse as the booking's event %s: %v\n%s", id, err, res.Body)
	}
	text := strings.NewReplacer("\r\n ", "", "\r\n\t", "").Replace(string(res.Body))
	if !strings.Contains(text, "SUMMARY:Meeting with Olivia Owner") || strings.Contains(text, "About the project") {
		t.Errorf("invite.ics is not the visitor's view (the requester's text left out):\n%s", text)
	}
	return text
}

func lifecycleServer(t *testing.T, db *sqldb.DB, cal *bookingtest.Calendar) *testServer {
	svc := newBookingService(t, db, cal)
	st := svc.Settings()
	st.SiteURL = "https://site.example"
	if err := svc.Apply(st); err != nil {
		t.Fatal(err)
	}
	return newBookingServer(t, db, svc)
}

func TestBookingLifecycleRoutes(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		cal := &bookingtest.Calendar{}
		ts := lifecycleServer(t, db, cal)
		v := newOpenAPIValidator(t, ts)
		token := bookForToken(t, ts, bookBody("2026-03-04T15:00:00Z"))
		v.check("POST", "/api/schedule/book", ts.do("POST", "/api/schedule/book", "", bookBody("2026-03-04T16:00:00Z")))

		res := ts.do("GET", "/api/schedule/bookings/"+token, "", nil)
		v.check("GET", "/api/schedule/bookings/{token}", res)
		m := res.json(t)
		if res.Status != 200 || m["status"] != "confirmed" || m["startTime"] != "2026-03-04T15:00:00Z" || m["timezone"] != "Europe/London" ||
			m["type"] != "30min" || m["name"] != "Vera Visitor" || m["canCancel"] != true || m["canReschedule"] != true || m["providerMeetLink"] == "" {
			t.Fatalf("manage view %d %s", res.Status, res.Body)
		}
		// "Add to calendar" on /book: the visitor's view of the invitation, by the manage token.
		invite := visitorICS(t, ts, v, token, m["id"].(string))
		if strings.Contains(invite, "STATUS:CANCELLED") {
			t.Errorf("the .ics of a confirmed booking is cancelled:\n%s", invite)
		}
		for _, tc := range []struct {
			method, path string
			body         any
			status       int
			code         string
		}{
			{"GET", "/api/schedule/bookings/" + strings.Repeat("x", 43), nil, 404, "RESOURCE_NOT_FOUND"},
			{"GET", "/api/schedule/bookings/" + strings.Repeat("x", 43) + "/invite.ics", nil, 404, "RESOURCE_NOT_FOUND"},
			{"GET", "/api/schedule/bookings/short", nil, 404, "RESOURCE_NOT_FOUND"},
			{"POST", "/api/schedule/bookings/" + strings.Repeat("x", 43) + "/cancel", map[string]any{}, 404, "RESOURCE_NOT_FOUND"},
			{"POST", "/api/schedule/bookings/" + token + "/reschedule", map[string]any{}, 400, "VALIDATION_ERROR"},
			{"POST", "/api/schedule/bookings/" + token + "/reschedule", map[string]any{"startTime": "2026-03-05T15:10:00Z", "timezone": "UTC"}, 422, "VALIDATION_ERROR"},
			{"POST", "/api/schedule/bookings/" + token + "/reschedule", map[string]any{"startTime": "2026-03-04T16:00:00Z", "timezone": "UTC"}, 409, "CONFLICT"},
			{"POST", "/api/schedule/bookings/" + token + "/cancel", map[string]any{"reason": strings.Repeat("x", 1001)}, 422, "VALIDATION_ERROR"},
		} {
			res := ts.do(tc.method, tc.path, "", tc.body)
			if res.Status != tc.status || res.errorCode(t) != tc.code {
				t.Errorf("%s %s: %d %s, want %d %s", tc.method, tc.path, res.Status, res.Body, tc.status, tc.code)
			}
			pattern := "/api/schedule/bookings/{token}"
			for _, suffix := range []string{"/cancel", "/reschedule", "/invite.ics"} {
				if strings.HasSuffix(tc.path, suffix) {
					pattern += suffix
				}
			}
			v.check(tc.method, pattern, res)
		}

		res = ts.do("POST", "/api/schedule/bookings/"+token+"/reschedule", "", map[string]any{"startTime": "2026-03-05T10:30:00-05:00", "timezone": "America/New_York"})
		v.check("POST", "/api/schedule/bookings/{token}/reschedule", res)
		if m := res.json(t); res.Status != 200 || m["startTime"] != "2026-03-05T10:30:00-05:00" || m["endTime"] != "2026-03-05T11:00:00-05:00" || m["timezone"] != "America/New_York" {
			t.Fatalf("reschedule: %d %s", res.Status, res.Body)
		}
		if got := slotStarts(t, ts.do("GET", "/api/schedule/available?date=2026-03-04&timezone=UTC", "", nil)); !contains(got, "2026-03-04T15:00:00Z") {
			t.Error("old time not free after the reschedule")
		}
		for i := 0; i < 2; i++ {
			res = ts.do("POST", "/api/schedule/bookings/"+token+"/cancel", "", map[string]any{"reason": "Ill"})
			v.check("POST", "/api/schedule/bookings/{token}/cancel", res)
			if res.Status != 200 || strings.TrimSpace(string(res.Body)) != `{"status":"cancelled"}` {
				t.Fatalf("cancel %d: %d %s", i, res.Status, res.Body)
			}
		}
		// A cancel without a body works too (the reason is optional).
		if res := ts.do("POST", "/api/schedule/bookings/"+token+"/cancel", "", nil); res.Status != 200 {
			t.Errorf("bodiless cancel: %d %s", res.Status, res.Body)
		}
		res = ts.do("POST", "/api/schedule/bookings/"+token+"/reschedule", "", map[string]any{"startTime": "2026-03-06T15:00:00Z", "timezone": "UTC"})
		if res.Status != 409 {
			t.Errorf("reschedule after cancel: %d %s", res.Status, res.Body)
		}
		if m := ts.do("GET", "/api/schedule/bookings/"+token, "", nil).json(t); m["status"] != "cancelled" || m["canCancel"] != false {
			t.Errorf("after cancel: %v", m)
		}
		if invite := visitorICS(t, ts, v, token, m["id"].(string)); !strings.Contains(invite, "STATUS:CANCELLED") {
			t.Errorf("the .ics of a cancelled booking is not cancelled:\n%s", invite)
		}

		// Admin: list with filters, cancel by id, permissions.
		if res := ts.do("GET", "/api/schedule/bookings", "", nil); res.Status != 401 {
			t.Errorf("public list: %d", res.Status)
		}
		res = ts.do("GET", "/api/schedule/bookings?status=cancelled", "admin", nil)
		v.check("GET", "/api/schedule/bookings", res)
		var list struct {
			Bookings []struct{ ID, Status, CancelReason, CancelledBy string }
		}
		json.Unmarshal(res.Body, &list)
		if res.Status != 200 || len(list.Bookings) != 1 || list.Bookings[0].CancelReason != "Ill" || list.Bookings[0].CancelledBy != "visitor" {
			t.Errorf("cancelled list: %d %s", res.Status, res.Body)
		}
		if res := ts.do("GET", "/api/schedule/bookings?status=maybe", "admin", nil); res.Status != 400 {
			t.Errorf("bad status filter: %d", res.Status)
		}
		res = ts.do("GET", "/api/schedule/bookings?status=confirmed&from=2026-03-04T00:00:00Z&to=2026-03-05T00:00:00Z", "admin", nil)
		json.Unmarshal(res.Body, &list)
		if len(list.Bookings) != 1 {
			t.Fatalf("confirmed on 4 March: %s", res.Body)
		}
		id := list.Bookings[0].ID
		if res := ts.do("POST", "/api/schedule/bookings/id/"+id+"/cancel", "write", map[string]any{}); res.Status != 403 {
			t.Errorf("admin cancel with a write key: %d", res.Status)
		}
		res = ts.do("POST", "/api/schedule/bookings/id/"+id+"/cancel", "admin", map[string]any{"reason": "Double-booked"})
		v.check("POST", "/api/schedule/bookings/id/{id}/cancel", res)
		if res.Status != 200 || !strings.Contains(string(res.Body), `"cancelled"`) {
			t.Errorf("admin cancel: %d %s", res.Status, res.Body)
		}
		if res := ts.do("POST", "/api/schedule/bookings/id/nope/cancel", "admin", nil); res.Status != 404 {
			t.Errorf("admin cancel of an unknown id: %d", res.Status)
		}
	})
}

func TestMeetingTypeAndOverrideRoutes(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := lifecycleServer(t, db, &bookingtest.Calendar{})
		v := newOpenAPIValidator(t, ts)
		res := ts.do("GET", "/api/schedule/types", "", nil)
		v.check("GET", "/api/schedule/types", res)
		if res.Status != 200 || !strings.Contains(string(res.Body), `"slug":"30min"`) || !strings.Contains(string(res.Body), `"slug":"60min"`) ||
			!strings.Contains(string(res.Body), `"host":{"name":"","photoUrl":""}`) {
			t.Fatalf("default types (and no host named): %d %s", res.Status, res.Body)
		}
		intro := map[string]any{"title": "Intro", "slug": "intro", "durationMinutes": 15, "maxPerDay": 2, "description": "A first chat"}
		if res := ts.do("POST", "/api/schedule/types", "", intro); res.Status != 401 {
			t.Errorf("public create: %d", res.Status)
		}
		res = ts.do("POST", "/api/schedule/types", "admin", intro)
		v.check("POST", "/api/schedule/types", res)
		if res.Status != 201 || res.json(t)["slug"] != "intro" {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		if res := ts.do("POST", "/api/schedule/types", "admin", intro); res.Status != 409 {
			t.Errorf("duplicate: %d", res.Status)
		}
		for _, bad := range []map[string]any{{"durationMinutes": 15}, {"title": "x", "durationMinutes": 15, "slug": "Bad Slug"}, {"title": "x", "durationMinutes": 4000}} {
			res := ts.do("POST", "/api/schedule/types", "admin", bad)
			if res.Status != 400 && res.Status != 422 {
				t.Errorf("bad type %v: %d", bad, res.Status)
			}
			v.check("POST", "/api/schedule/types", res)
		}
		res = ts.do("PUT", "/api/schedule/types/intro", "admin", map[string]any{"title": "Intro call", "durationMinutes": 20})
		v.check("PUT", "/api/schedule/types/{slug}", res)
		if res.Status != 200 || res.json(t)["durationMinutes"] != float64(20) {
			t.Errorf("update: %d %s", res.Status, res.Body)
		}
		if res := ts.do("PUT", "/api/schedule/types/none", "admin", map[string]any{"title": "x", "durationMinutes": 20}); res.Status != 404 {
			t.Errorf("update unknown: %d", res.Status)
		}
		slots := slotStarts(t, ts.do("GET", "/api/schedule/available?date=2026-03-04&type=intro&timezone=UTC", "", nil))
		if len(slots) != 18 {
			t.Errorf("intro slots: %d", len(slots))
		}
		if res := ts.do("GET", "/api/schedule/available?date=2026-03-04&type=nope", "", nil); res.Status != 422 {
			t.Errorf("unknown type: %d %s", res.Status, res.Body)
		}
		body := bookBody("2026-03-04T15:00:00Z")
		delete(body, "durationMinutes")
		body["type"] = "intro"
		if res := ts.do("POST", "/api/schedule/book", "", body); res.Status != 200 {
			t.Errorf("book by type: %d %s", res.Status, res.Body)
		}

		// Overrides.
		res = ts.do("PUT", "/api/schedule/overrides/2026-03-05", "admin", map[string]any{"closed": true})
		v.check("PUT", "/api/schedule/overrides/{date}", res)
		if res.Status != 200 {
			t.Fatalf("close: %d %s", res.Status, res.Body)
		}
		res = ts.do("PUT", "/api/schedule/overrides/2026-03-07", "admin", map[string]any{"hours": []map[string]string{{"start": "10:00", "end": "12:00"}}})
		if res.Status != 200 {
			t.Fatalf("special hours: %d %s", res.Status, res.Body)
		}
		for _, bad := range []struct {
			date   string
			body   any
			status int
		}{
			{"2026-13-01", map[string]any{"closed": true}, 400},
			{"2026-03-08", map[string]any{}, 400},
			{"2026-03-08", map[string]any{"hours": []map[string]string{{"start": "25:00", "end": "26:00"}}}, 422},
			{"2026-03-08", map[string]any{"hours": []map[string]string{{"start": "10:00", "end": "12:00"}, {"start": "11:00", "end": "13:00"}}}, 422},
		} {
			res := ts.do("PUT", "/api/schedule/overrides/"+bad.date, "admin", bad.body)
			if res.Status != bad.status {
				t.Errorf("override %s %v: %d %s", bad.date, bad.body, res.Status, res.Body)
			}
			v.check("PUT", "/api/schedule/overrides/{date}", res)
		}
		if s := slotStarts(t, ts.do("GET", "/api/schedule/available?date=2026-03-05&timezone=America/New_York", "", nil)); len(s) != 0 {
			t.Errorf("closed day offers %v", s)
		}
		if s := slotStarts(t, ts.do("GET", "/api/schedule/available?date=2026-03-07&timezone=America/New_York", "", nil)); len(s) != 4 {
			t.Errorf("special Saturday offers %v", s)
		}
		res = ts.do("GET", "/api/schedule/overrides?from=2026-03-01&to=2026-03-31", "admin", nil)
		v.check("GET", "/api/schedule/overrides", res)
		if res.Status != 200 || strings.Count(string(res.Body), `"date"`) != 2 {
			t.Errorf("list overrides: %d %s", res.Status, res.Body)
		}
		res = ts.do("DELETE", "/api/schedule/overrides/2026-03-05", "admin", nil)
		v.check("DELETE", "/api/schedule/overrides/{date}", res)
		if res.Status != 204 || ts.do("DELETE", "/api/schedule/overrides/2026-03-05", "admin", nil).Status != 404 {
			t.Errorf("delete override: %d", res.Status)
		}
		res = ts.do("DELETE", "/api/schedule/types/intro", "admin", nil)
		v.check("DELETE", "/api/schedule/types/{slug}", res)
		if res.Status != 204 || !strings.Contains(string(ts.do("GET", "/api/schedule/types", "", nil).Body), `"30min"`) {
			t.Errorf("delete type: %d (the defaults come back when none is left)", res.Status)
		}
	})
}

// TestRescheduleRaceTwoInstances: N concurrent reschedules of two bookings onto one free slot
// through two server instances sharing one PostgreSQL database → exactly one booking ends there.
// TestMeetingTypesNameTheHost: the types answer carries who the meetings are with, for the host
// card of /book.
func TestMeetingTypesNameTheHost(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ts := newTestServer(t, db, func(s *Server) {
		s.Bookings = newBookingService(t, db, &bookingtest.Calendar{})
		s.BookingHost = func(context.Context) folio.BookingHost {
			return folio.BookingHost{Name: "Olivia Owner", PhotoURL: "https://site.example/media/olivia.jpg"}
		}
	})
	res := ts.do("GET", "/api/schedule/types", "", nil)
	newOpenAPIValidator(t, ts).check("GET", "/api/schedule/types", res)
	var body struct {
		Types []folio.MeetingType
		Host  folio.BookingHost
	}
	if err := json.Unmarshal(res.Body, &body); err != nil || res.Status != 200 || len(body.Types) != 2 ||
		body.Host != (folio.BookingHost{Name: "Olivia Owner", PhotoURL: "https://site.example/media/olivia.jpg"}) {
		t.Errorf("types: %d %s (%v)", res.Status, res.Body, err)
	}
}

func TestRescheduleRaceTwoInstances(t *testing.T) {
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
	cal := &bookingtest.Calendar{}
	ts1, ts2 := lifecycleServer(t, db1, cal), lifecycleServer(t, db2, cal)
	tokens := []string{bookForToken(t, ts1, bookBody("2026-03-04T15:00:00Z")), bookForToken(t, ts2, bookBody("2026-03-04T16:00:00Z"))}
	const n = 20
	target := "2026-03-06T15:00:00Z"
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	ready := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts := []*testServer{ts1, ts2}[i%2]
			body, _ := json.Marshal(map[string]any{"startTime": target, "timezone": "UTC"})
			<-ready
			res, err := http.Post(ts.URL+"/api/schedule/bookings/"+tokens[(i/2)%2]+"/reschedule", "application/json", bytes.NewReader(body))
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
	at := 0
	for _, tok := range tokens {
		if ts1.do("GET", "/api/schedule/bookings/"+tok, "", nil).json(t)["startTime"] == target {
			at++
		}
	}
	if at != 1 || statuses[200]+statuses[409] != n || statuses[200] == 0 || countRows(t, db1, "bookings") != 2 {
		t.Fatalf("%d bookings at the slot (want 1); statuses %v; %d rows", at, statuses, countRows(t, db1, "bookings"))
	}
	var live int
	for _, e := range cal.Events() {
		if e.Start.Format("2006-01-02T15:04:05Z07:00") == target {
			live++
		}
	}
	if live != 1 {
		t.Errorf("%d provider events at the slot", live)
	}
}

// TestConflictDoesNotUseHelperBudget: with a helper limit of 2, two lost races (409) leave the
// visitor's budget intact; only successful or invalid requests count (docs/api.md, "Authentication and permissions", rate limits).
func TestConflictDoesNotUseHelperBudget(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	svc := newBookingService(t, db, &bookingtest.Calendar{})
	ts := newTestServer(t, db, func(s *Server) { s.Bookings = svc; s.Now = func() time.Time { return bookingNow }; s.Limits.Helper = 2 })
	other := bookBody("2026-03-04T15:00:00Z")
	other["attendeeEmail"] = "first@example.org"
	if res := ts.do("POST", "/api/schedule/book", "", other); res.Status != 200 { // 1 of 2
		t.Fatalf("first: %d %s", res.Status, res.Body)
	}
	for i := 0; i < 3; i++ {
		if res := ts.do("POST", "/api/schedule/book", "", bookBody("2026-03-04T15:00:00Z")); res.Status != 409 {
			t.Fatalf("lost race %d: %d %s", i, res.Status, res.Body)
		}
	}
	if res := ts.do("POST", "/api/schedule/book", "", bookBody("2026-03-04T16:00:00Z")); res.Status != 200 { // 2 of 2
		t.Fatalf("after the conflicts: %d %s (the 409s used up the budget)", res.Status, res.Body)
	}
	if res := ts.do("POST", "/api/schedule/book", "", bookBody("2026-03-04T17:00:00Z")); res.Status != 429 {
		t.Errorf("over the helper limit: %d", res.Status)
	}
}

func TestScheduleDays(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	cal := &bookingtest.Calendar{}
	ts := lifecycleServer(t, db, cal)
	v := newOpenAPIValidator(t, ts)
	bookForToken(t, ts, bookBody("2026-03-04T15:00:00Z"))
	res := ts.do("GET", "/api/schedule/days?from=2026-03-02&to=2026-03-08&timezone=America/New_York", "", nil)
	v.check("GET", "/api/schedule/days", res)
	var body struct {
		Days []struct {
			Date  string
			Slots int
		}
	}
	json.Unmarshal(res.Body, &body)
	got := map[string]int{}
	for _, d := range body.Days {
		got[d.Date] = d.Slots
	}
	// Monday is inside the 24 h notice; Wednesday has one booking; the weekend is closed.
	want := map[string]int{"2026-03-02": 0, "2026-03-03": 18, "2026-03-04": 17, "2026-03-05": 18, "2026-03-06": 18, "2026-03-07": 0, "2026-03-08": 0}
	if res.Status != 200 || len(body.Days) != 7 {
		t.Fatalf("days: %d %s", res.Status, res.Body)
	}
	for d, n := range want {
		if got[d] != n {
			t.Errorf("%s: %d slots, want %d", d, got[d], n)
		}
	}
	for _, bad := range []string{"from=2026-03-02", "from=2026-03-10&to=2026-03-02", "from=2026-03-01&to=2026-06-01", "from=x&to=2026-03-02"} {
		res := ts.do("GET", "/api/schedule/days?"+bad, "", nil)
		if res.Status != 400 && res.Status != 422 {
			t.Errorf("%s: %d", bad, res.Status)
		}
		v.check("GET", "/api/schedule/days", res)
	}
}
