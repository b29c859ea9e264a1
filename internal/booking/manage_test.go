package booking_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	arran "github.com/arran4/golang-ical"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/booking/bookingtest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/sqldb"
)

// book books start and returns the manage token from the answer's manageUrl.
func book(t *testing.T, svc *booking.Service, req folio.BookingRequest) (booking.BookResponse, string) {
	t.Helper()
	a, err := svc.Book(context.Background(), req, "")
	if err != nil {
		t.Fatalf("book %s: %v", req.StartISO, err)
	}
	var resp booking.BookResponse
	if err := json.Unmarshal(a.Body, &resp); err != nil {
		t.Fatal(err)
	}
	token, ok := strings.CutPrefix(resp.ManageURL, "https://site.example"+booking.ManagePath)
	if !ok || !booking.ValidToken(token) || len(token) < 22 { // ≥ 128 bits in base64url
		t.Fatalf("manageUrl %q", resp.ManageURL)
	}
	return resp, token
}

func lifecycleService(t *testing.T, db *sqldb.DB, cal folio.Calendar) *booking.Service {
	svc := newService(t, db, cal, "fake")
	st := svc.Settings()
	st.SiteURL, st.Reminders = "https://site.example", booking.DefaultReminders
	if err := svc.Apply(st); err != nil {
		t.Fatal(err)
	}
	return svc
}

// parseInvite parses an invite with the second iCalendar library and returns METHOD, UID,
// SEQUENCE, DTSTART and DESCRIPTION.
func parseInvite(t *testing.T, data []byte) (method, uid, seq string, start time.Time, desc string) {
	t.Helper()
	cal, err := arran.ParseCalendar(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cal.CalendarProperties {
		if p.IANAToken == string(arran.PropertyMethod) {
			method = p.Value
		}
	}
	e := cal.Events()[0]
	if p := e.GetProperty(arran.ComponentPropertySequence); p != nil {
		seq = p.Value
	}
	if p := e.GetProperty(arran.ComponentPropertyDescription); p != nil {
		desc = p.Value
	}
	start, _ = e.GetStartAt()
	return method, e.Id(), seq, start, desc
}

func TestManageRescheduleCancel(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		cal := &bookingtest.Calendar{}
		svc := lifecycleService(t, db, cal)
		resp, token := book(t, svc, request("2026-03-04T16:00:00+01:00"))

		// Mails: both carry the manage link; the visitor's carries no requester free text.
		msgs := outboxMessages(t, db)
		if len(msgs) != 2 {
			t.Fatalf("%d mails", len(msgs))
		}
		for _, m := range msgs {
			owner := m.To[0].Email == "owner@example.com"
			_, _, seq, _, desc := parseInvite(t, m.Attachments[0].Data)
			if !strings.Contains(strings.ReplaceAll(desc, "\\n", "\n"), resp.ManageURL) || seq != "0" {
				t.Errorf("invite to %v: SEQUENCE %s, DESCRIPTION %q lacks the manage link", m.To, seq, desc)
			}
			if strings.Contains(m.Text, "Talk about the project") != owner || strings.Contains(string(m.Attachments[0].Data), "Talk about the project") != owner {
				t.Errorf("description in the mail to %v: %v (owner only)", m.To, !owner)
			}
			if !owner && !strings.Contains(m.Text, resp.ManageURL) {
				t.Errorf("visitor mail lacks the manage link:\n%s", m.Text)
			}
		}
		st, err := svc.Get(ctx, token)
		if err != nil || st.Status != "confirmed" || !st.CanCancel || !st.CanReschedule || st.Name != "Vera Visitor" ||
			st.StartTime != "2026-03-04T16:00:00+01:00" || st.TimeZone != "Europe/Berlin" || st.Type != "30min" {
			t.Fatalf("status %+v (%v)", st, err)
		}
		if _, err := svc.Get(ctx, strings.Repeat("A", 43)); errorCode(err) != folio.ENOTFOUND {
			t.Errorf("unknown token: %v", err)
		}
		reminders, _ := db.Jobs.JobsOfKind(ctx, booking.JobReminder)
		if len(reminders) != 2 {
			t.Fatalf("%d reminder jobs, want 2", len(reminders))
		}

		// Not an offered slot → 422; a cancelled later → 409.
		if _, err := svc.Reschedule(ctx, token, folio.RescheduleInput{StartTime: "2026-03-04T16:10:00+01:00", TimeZone: "Europe/Berlin"}); status(err) != 422 {
			t.Errorf("off-grid reschedule: %v", err)
		}
		if _, err := svc.Reschedule(ctx, token, folio.RescheduleInput{StartTime: "soon"}); status(err) != 400 {
			t.Errorf("bad input: %v", err)
		}
		// Move to Thursday 10:00 New York, then to 10:30 (overlapping its own old time).
		for i, to := range []string{"2026-03-05T16:00:00+01:00", "2026-03-05T16:30:00+01:00"} {
			st, err = svc.Reschedule(ctx, token, folio.RescheduleInput{StartTime: to, TimeZone: "Europe/Berlin"})
			if err != nil || st.StartTime != to || st.Status != "confirmed" {
				t.Fatalf("reschedule %d: %+v (%v)", i, st, err)
			}
			// The same request again changes nothing.
			again, err := svc.Reschedule(ctx, token, folio.RescheduleInput{StartTime: to, TimeZone: "Europe/Berlin"})
			if err != nil || again != st {
				t.Fatalf("repeated reschedule: %+v (%v)", again, err)
			}
		}
		ev, _ := cal.Event(st.ID)
		if len(cal.Events()) != 1 || !ev.Start.Equal(time.Date(2026, 3, 5, 15, 30, 0, 0, time.UTC)) || ev.Sequence != 2 {
			t.Errorf("provider event %+v (the same event must move)", ev)
		}
		b, _ := db.Bookings.Booking(ctx, st.ID)
		if b.Sequence != 2 || !b.Start.Equal(ev.Start) {
			t.Errorf("booking %+v", b)
		}
		// The old times are free again; the new one is taken.
		slots, err := svc.Available(ctx, "2026-03-04", 30, "America/New_York")
		if err != nil || len(slots) != 18 {
			t.Errorf("old day has %d slots (%v), want all 18", len(slots), err)
		}
		// Reminders follow the move: the pending ones are those of the new start.
		reminders, _ = db.Jobs.JobsOfKind(ctx, booking.JobReminder)
		for _, j := range reminders {
			if !strings.Contains(j.Key, ":"+itoa(ev.Start.Unix())+":") {
				t.Errorf("reminder %s planned for an old start", j.Key)
			}
		}
		if len(reminders) != 2 {
			t.Errorf("%d reminder jobs after the moves, want 2", len(reminders))
		}
		// The reschedule mails: METHOD:REQUEST, same UID, SEQUENCE 2.
		var seen int
		for _, m := range outboxMessages(t, db) {
			if !strings.HasPrefix(m.Subject, "Rescheduled:") {
				continue
			}
			method, uid, seq, start, _ := parseInvite(t, m.Attachments[0].Data)
			if seq == "1" {
				continue // the first move's
			}
			if method != "REQUEST" || uid != st.ID+"@folio" || seq != "2" || !start.Equal(ev.Start) {
				t.Errorf("reschedule invite %s %s %s %v", method, uid, seq, start)
			}
			seen++
		}
		if seen != 2 {
			t.Errorf("%d reschedule mails for the second move, want 2", seen)
		}

		// Cancel: 200, again the same; the event is gone, the time free, the reminders dropped.
		for i := 0; i < 2; i++ {
			c, err := svc.CancelByToken(ctx, token, folio.CancelInput{Reason: "Something came up"})
			if err != nil || c.Status != "cancelled" || c.CanCancel || c.CanReschedule {
				t.Fatalf("cancel %d: %+v (%v)", i, c, err)
			}
		}
		if ev, _ := cal.Event(st.ID); !ev.Cancelled {
			t.Error("provider event not deleted")
		}
		if _, del := cal.Changes(); del != 1 {
			t.Errorf("%d provider deletes, want 1 (the second cancel is a replay)", del)
		}
		reminders, _ = db.Jobs.JobsOfKind(ctx, booking.JobReminder)
		if len(reminders) != 0 {
			t.Errorf("%d reminder jobs left after the cancel", len(reminders))
		}
		var cancels int
		for _, m := range outboxMessages(t, db) {
			if !strings.HasPrefix(m.Subject, "Cancelled:") {
				continue
			}
			cancels++
			method, uid, seq, _, _ := parseInvite(t, m.Attachments[0].Data)
			if method != "CANCEL" || uid != st.ID+"@folio" || seq != "3" {
				t.Errorf("cancel invite %s %s %s", method, uid, seq)
			}
			owner := m.To[0].Email == "owner@example.com"
			if strings.Contains(m.Text, "Something came up") != owner {
				t.Errorf("reason shown to %v: %v", m.To, !owner)
			}
		}
		if cancels != 2 {
			t.Errorf("%d cancel mails, want 2", cancels)
		}
		if _, err := svc.Reschedule(ctx, token, folio.RescheduleInput{StartTime: "2026-03-06T16:00:00+01:00", TimeZone: "Europe/Berlin"}); errorCode(err) != folio.ECONFLICT {
			t.Errorf("reschedule of a cancelled booking: %v", err)
		}
		if slots, _ := svc.Available(ctx, "2026-03-05", 30, "America/New_York"); len(slots) != 18 {
			t.Errorf("cancelled time not free: %d slots", len(slots))
		}
	})
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestCancelAfterStartAndAdminCancel(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(testNow)
		svc := lifecycleService(t, db, &bookingtest.Calendar{})
		svc.Now = clock.Now
		_, token := book(t, svc, request("2026-03-04T16:00:00+01:00"))
		_, token2 := book(t, svc, request("2026-03-04T17:00:00+01:00"))
		st2, _ := svc.Get(ctx, token2)
		if c, err := svc.CancelByID(ctx, st2.ID, folio.CancelInput{}); err != nil || c.Status != "cancelled" {
			t.Fatalf("admin cancel: %+v %v", c, err)
		}
		if _, err := svc.CancelByID(ctx, "nope", folio.CancelInput{}); errorCode(err) != folio.ENOTFOUND {
			t.Errorf("unknown id: %v", err)
		}
		items, total, err := svc.List(ctx, "cancelled", "", "", 1, 10)
		if err != nil || total != 1 || items[0].CancelledBy != "owner" {
			t.Errorf("cancelled list %+v %d %v", items, total, err)
		}
		clock.Advance(3 * 24 * time.Hour) // past the start
		if _, err := svc.CancelByToken(ctx, token, folio.CancelInput{}); errorCode(err) != folio.ECONFLICT {
			t.Errorf("cancel after the start: %v", err)
		}
		if st, _ := svc.Get(ctx, token); st.CanCancel || st.CanReschedule {
			t.Errorf("past booking %+v", st)
		}
	})
}

// TestRescheduleProviderFailure: a provider failure during a reschedule leaves the booking at
// its old time, nothing half-moved, the new time free and a retry possible.
func TestRescheduleProviderFailure(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		cal := &bookingtest.Calendar{}
		svc := lifecycleService(t, db, cal)
		_, token := book(t, svc, request("2026-03-04T16:00:00+01:00"))
		before, _ := svc.Get(ctx, token)
		mails := len(outboxMessages(t, db))
		cal.FailMove(1)
		in := folio.RescheduleInput{StartTime: "2026-03-05T16:00:00+01:00", TimeZone: "Europe/Berlin"}
		if _, err := svc.Reschedule(ctx, token, in); errorCode(err) != folio.EUPSTREAM {
			t.Fatalf("reschedule with a failing provider: %v", err)
		}
		after, _ := svc.Get(ctx, token)
		ev, _ := cal.Event(before.ID)
		if after != before || !ev.Start.Equal(time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)) || ev.Sequence != 0 {
			t.Errorf("after a failed move: booking %+v, event %+v", after, ev)
		}
		if n := countBookings(t, db); n != 1 {
			t.Errorf("%d booking rows (a hold was left behind)", n)
		}
		if got := len(outboxMessages(t, db)); got != mails {
			t.Errorf("%d mails queued by a failed move", got-mails)
		}
		cal.FailDelete(1)
		if _, err := svc.CancelByToken(ctx, token, folio.CancelInput{}); errorCode(err) != folio.EUPSTREAM {
			t.Fatalf("cancel with a failing provider: %v", err)
		}
		if st, _ := svc.Get(ctx, token); st.Status != "confirmed" {
			t.Errorf("failed cancel changed the booking: %+v", st)
		}
		if st, err := svc.Reschedule(ctx, token, in); err != nil || st.StartTime != in.StartTime {
			t.Fatalf("retry: %+v %v", st, err)
		}
	})
}

// TestConcurrentReschedulesOneSlot: N reschedules of two bookings onto one free slot → exactly
// one wins; the loser keeps its time.
func TestConcurrentReschedulesOneSlot(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		cal := &bookingtest.Calendar{}
		svc := lifecycleService(t, db, cal)
		r2 := request("2026-03-04T17:00:00+01:00")
		r2.AttendeeEmail = "other@example.org"
		_, t1 := book(t, svc, request("2026-03-04T16:00:00+01:00"))
		_, t2 := book(t, svc, r2)
		in := folio.RescheduleInput{StartTime: "2026-03-06T16:00:00+01:00", TimeZone: "Europe/Berlin"}
		const n = 8
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := map[string]int{}
		codes := map[string]int{}
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(tok string) {
				defer wg.Done()
				_, err := svc.Reschedule(ctx, tok, in)
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					wins[tok]++
				}
				codes[errorCode(err)]++
			}([]string{t1, t2}[i%2])
		}
		wg.Wait()
		s1, _ := svc.Get(ctx, t1)
		s2, _ := svc.Get(ctx, t2)
		at := 0
		for _, s := range []folio.BookingStatus{s1, s2} {
			if s.StartTime == in.StartTime {
				at++
			}
		}
		// Repeats by the winner's own token succeed as no-ops; the other token never wins.
		if at != 1 || (wins[t1] > 0) == (wins[t2] > 0) || codes[""]+codes[folio.ECONFLICT] != n {
			t.Fatalf("bookings at the slot: %d; wins %v; codes %v", at, wins, codes)
		}
		loser := s2
		if s2.StartTime == in.StartTime {
			loser = s1
		}
		if loser.StartTime != "2026-03-04T16:00:00+01:00" && loser.StartTime != "2026-03-04T17:00:00+01:00" {
			t.Errorf("loser moved: %+v", loser)
		}
		if n := countBookings(t, db); n != 2 {
			t.Errorf("%d rows (holds left behind)", n)
		}
	})
}

// TestCancelRacingReschedule: whatever the order, the end state is consistent: cancelled with
// the provider event deleted, or confirmed with the provider event at the booking's time.
func TestCancelRacingReschedule(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		for round := 0; round < 4; round++ {
			cal := &bookingtest.Calendar{}
			svc := lifecycleService(t, db, cal)
			req := request("2026-03-04T16:00:00+01:00")
			req.AttendeeEmail = "race" + itoa(int64(round)) + "@example.org"
			req.StartISO = []string{"2026-03-09T16:00:00+01:00", "2026-03-10T16:00:00+01:00", "2026-03-11T16:00:00+01:00", "2026-03-12T16:00:00+01:00"}[round]
			_, token := book(t, svc, req)
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				svc.CancelByToken(ctx, token, folio.CancelInput{})
			}()
			go func() {
				defer wg.Done()
				svc.Reschedule(ctx, token, folio.RescheduleInput{StartTime: strings.Replace(req.StartISO, "T16", "T17", 1), TimeZone: "Europe/Berlin"})
			}()
			wg.Wait()
			st, _ := svc.Get(ctx, token)
			ev, _ := cal.Event(st.ID)
			b, _ := db.Bookings.Booking(ctx, st.ID)
			switch st.Status {
			case "cancelled":
				if !ev.Cancelled {
					t.Errorf("round %d: cancelled booking, live event", round)
				}
			case "confirmed":
				if ev.Cancelled || !ev.Start.Equal(b.Start) {
					t.Errorf("round %d: booking at %v, event %+v", round, b.Start, ev)
				}
			}
		}
	})
}

// TestRemindersOnceAndNeverWhenCancelled runs the reminder jobs with two schedulers (two
// instances) at the due time: each reminder mails once; a cancelled booking gets none.
func TestRemindersOnceAndNeverWhenCancelled(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(testNow)
		svc := lifecycleService(t, db, &bookingtest.Calendar{})
		svc.Now = clock.Now
		_, keep := book(t, svc, request("2026-03-04T16:00:00+01:00"))
		drop := request("2026-03-04T17:00:00+01:00")
		drop.AttendeeEmail = "dropper@example.org"
		_, dropToken := book(t, svc, drop)
		if _, err := svc.CancelByToken(ctx, dropToken, folio.CancelInput{}); err != nil {
			t.Fatal(err)
		}
		// Even a reminder job of the cancelled booking that a worker claimed before the cancel
		// deleted it does nothing: enqueue one by hand.
		dst, _ := svc.Get(ctx, dropToken)
		db.Jobs.EnqueueJob(ctx, booking.JobReminder, "booking-reminder:"+dst.ID+":x", `{"bookingId":"`+dst.ID+`","start":"2026-03-04T16:00:00Z","before":"1h"}`, testNow)
		scheds := make([]*jobs.Scheduler, 2)
		for i := range scheds {
			scheds[i] = jobs.New(db.Jobs, nil)
			scheds[i].Now = clock.Now
			scheds[i].Handle(booking.JobReminder, func(ctx context.Context, j folio.Job) error { return svc.Remind(ctx, j.Key, j.Payload) })
		}
		clock.Advance(50*time.Hour + 30*time.Minute) // 30 minutes before the kept booking: past both reminder times
		var wg sync.WaitGroup
		for _, s := range scheds {
			wg.Add(1)
			go func(s *jobs.Scheduler) {
				defer wg.Done()
				if _, err := s.RunDue(ctx); err != nil {
					t.Error(err)
				}
			}(s)
		}
		wg.Wait()
		var toKeep, toDrop int
		for _, m := range outboxMessages(t, db) {
			if !strings.HasPrefix(m.Subject, "Reminder:") {
				continue
			}
			switch m.To[0].Email {
			case "vera@example.org":
				toKeep++
				if !strings.Contains(m.Text, "/book/manage/"+keep) {
					t.Errorf("reminder lacks the manage link:\n%s", m.Text)
				}
			default:
				toDrop++
			}
		}
		if toKeep != 2 || toDrop != 0 {
			t.Errorf("reminders: %d to the kept booking (want 2), %d to the cancelled one (want 0)", toKeep, toDrop)
		}
	})
}

// TestMeetingTypesOverridesAndLimits: default types, a stored type with maxPerDay, a closed
// date and special hours, and BOOKING_MAX_PER_EMAIL_PER_DAY (429).
func TestMeetingTypesOverridesAndLimits(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		svc := lifecycleService(t, db, &bookingtest.Calendar{})
		svc.MaxPerEmailPerDay = 2
		ts, _ := svc.Types(ctx)
		if len(ts) != 2 || ts[0].Slug != "30min" || ts[1].Slug != "60min" || ts[1].DurationMinutes != 60 {
			t.Fatalf("default types %+v", ts)
		}
		if _, err := svc.SaveType(ctx, "", folio.MeetingTypeInput{Title: "Intro call", DurationMinutes: 15, MaxPerDay: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.SaveType(ctx, "", folio.MeetingTypeInput{Title: "Intro call", DurationMinutes: 15}); errorCode(err) != folio.ECONFLICT {
			t.Errorf("duplicate slug: %v", err)
		}
		if _, err := svc.SaveType(ctx, "", folio.MeetingTypeInput{Title: "x", DurationMinutes: 2}); status(err) != 422 {
			t.Errorf("2-minute type: %v", err)
		}
		ts, _ = svc.Types(ctx)
		if len(ts) != 1 || ts[0].Slug != "intro-call" {
			t.Fatalf("types %+v", ts)
		}
		slots, err := svc.AvailableOfType(ctx, "2026-03-04", "intro-call", 0, "America/New_York")
		if err != nil || len(slots) != 18 || slots[0].Duration != 15 {
			t.Fatalf("intro slots %d %v", len(slots), err)
		}
		if _, err := svc.AvailableOfType(ctx, "2026-03-04", "nope", 0, ""); status(err) != 422 {
			t.Errorf("unknown type: %v", err)
		}
		req := request("2026-03-04T16:00:00+01:00")
		req.Type, req.DurationMinutes = "intro-call", 0
		book(t, svc, req)
		if slots, _ := svc.AvailableOfType(ctx, "2026-03-04", "intro-call", 0, "America/New_York"); len(slots) != 0 {
			t.Errorf("maxPerDay 1 reached, still %d slots", len(slots))
		}
		req.StartISO = "2026-03-04T18:00:00+01:00"
		if _, err := svc.Book(ctx, req, ""); status(err) != 422 {
			t.Errorf("second intro on a full day: %v", err)
		}
		// Overrides: Thursday closed, Saturday 10:00-11:00 open.
		if _, err := svc.PutOverride(ctx, "2026-03-05", folio.OverrideInput{Closed: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.PutOverride(ctx, "2026-03-07", folio.OverrideInput{Hours: []folio.HoursRange{{Start: "10:00", End: "11:00"}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.PutOverride(ctx, "2026-03-08", folio.OverrideInput{Hours: []folio.HoursRange{{Start: "11:00", End: "10:00"}}}); status(err) != 422 {
			t.Errorf("reversed hours: %v", err)
		}
		if _, err := svc.PutOverride(ctx, "2026-02-30", folio.OverrideInput{Closed: true}); status(err) != 400 {
			t.Errorf("bad date: %v", err)
		}
		if s, _ := svc.AvailableOfType(ctx, "2026-03-05", "intro-call", 0, "America/New_York"); len(s) != 0 {
			t.Errorf("closed date offers %d slots", len(s))
		}
		if s, _ := svc.AvailableOfType(ctx, "2026-03-07", "intro-call", 0, "America/New_York"); len(s) != 2 {
			t.Errorf("special hours offer %d slots, want 2", len(s))
		}
		ovs, err := svc.Overrides(ctx, "2026-03-01", "2026-03-31")
		if err != nil || len(ovs) != 2 || !ovs[0].Closed || ovs[1].Hours[0].Start != "10:00" {
			t.Errorf("overrides %+v %v", ovs, err)
		}
		// Per-address cap: one booked already; the second passes, the third is 429.
		req.Type, req.DurationMinutes = "", 15
		req.StartISO = "2026-03-06T16:00:00+01:00"
		book(t, svc, req)
		req.StartISO = "2026-03-09T17:00:00+01:00"
		req.AttendeeEmail = "VERA@example.org"
		_, err = svc.Book(ctx, req, "")
		if fe, ok := err.(*folio.Error); !ok || fe.Code != folio.ERATELIMIT || fe.RetryAfter != 24*3600+1 {
			t.Errorf("third booking of one address: %v (retryAfter: when the first leaves the 24 hours)", err)
		}
	})
}
