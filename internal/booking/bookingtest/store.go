package bookingtest

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/calendar/local"
)

// TestStore is the conformance suite of booking.Store: every implementation (the SQL stores on
// both engines) must pass it. open returns an empty store for one subtest.
func TestStore(t *testing.T, open func(t *testing.T) booking.Store) {
	ctx := context.Background()
	now := time.Date(2030, 3, 4, 9, 0, 0, 0, time.UTC)
	at := func(h, m int) time.Time { return time.Date(2030, 3, 5, h, m, 0, 0, time.UTC) }
	fresh := func(id string, start time.Time, minutes int) *folio.Booking {
		return &folio.Booking{ID: id, Start: start, End: start.Add(time.Duration(minutes) * time.Minute), DurationMinutes: minutes,
			TimeZone: "Europe/Berlin", Summary: "Meeting", AttendeeName: "Ada", AttendeeEmail: "ada@example.com", Provider: "local",
			CreatedAt: now, ManageToken: "token-" + id + "-0123456789", TypeSlug: "30min"}
	}
	lim := folio.ReserveLimits{StaleBefore: now.Add(-10 * time.Minute)}
	confirm := func(t *testing.T, st booking.Store, id string) {
		t.Helper()
		if err := st.ConfirmBooking(ctx, id, folio.BookingConfirmation{ProviderEventID: "ev-" + id, MeetLink: "https://meet.example/" + id,
			ResponseStatus: 200, ResponseBody: []byte(`{"ok":true}`), ConfirmedAt: now}, nil); err != nil {
			t.Fatalf("ConfirmBooking %s: %v", id, err)
		}
	}
	reserve := func(t *testing.T, st booking.Store, b *folio.Booking, lim folio.ReserveLimits) {
		t.Helper()
		if err := st.ReserveBooking(ctx, b, lim); err != nil {
			t.Fatalf("ReserveBooking %s: %v", b.ID, err)
		}
	}

	t.Run("ReserveConfirmRead", func(t *testing.T) {
		st := open(t)
		b := fresh("b1", at(10, 0), 30)
		b.IdempotencyKey, b.RequestHash = "key-1", "hash-1"
		reserve(t, st, b, lim)
		if b.Status != folio.BookingPending {
			t.Fatalf("status after reserve = %q, want pending", b.Status)
		}
		busy, err := st.BookingBusy(ctx, at(0, 0), at(23, 0), lim.StaleBefore)
		if err != nil || len(busy) != 1 || !busy[0].Start.Equal(b.Start) || !busy[0].End.Equal(b.End) {
			t.Fatalf("BookingBusy = %v, %v; want the reservation", busy, err)
		}
		var ran bool
		err = st.ConfirmBooking(ctx, "b1", folio.BookingConfirmation{ProviderEventID: "ev-1", MeetLink: "https://meet.example/1",
			ResponseStatus: 200, ResponseBody: []byte(`{"ok":true}`), ConfirmedAt: now}, func(tx *sql.Tx) error { ran = tx != nil; return nil })
		if err != nil || !ran {
			t.Fatalf("ConfirmBooking: %v (also ran: %v)", err, ran)
		}
		got, err := st.Booking(ctx, "b1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != folio.BookingConfirmed || got.ProviderEventID != "ev-1" || got.MeetLink != "https://meet.example/1" ||
			got.ResponseStatus != 200 || string(got.ResponseBody) != `{"ok":true}` || !got.Start.Equal(b.Start) ||
			got.AttendeeEmail != "ada@example.com" || got.TypeSlug != "30min" || got.TimeZone != "Europe/Berlin" {
			t.Fatalf("Booking = %+v", got)
		}
		if k, err := st.BookingByIdempotencyKey(ctx, "key-1"); err != nil || k.ID != "b1" || k.RequestHash != "hash-1" {
			t.Fatalf("BookingByIdempotencyKey = %+v, %v", k, err)
		}
		if m, err := st.BookingByManageToken(ctx, b.ManageToken); err != nil || m.ID != "b1" {
			t.Fatalf("BookingByManageToken = %+v, %v", m, err)
		}
		for name, err := range map[string]error{
			"Booking":           func() error { _, err := st.Booking(ctx, "nope"); return err }(),
			"ByManageToken":     func() error { _, err := st.BookingByManageToken(ctx, "no-such-token-0123456789"); return err }(),
			"ByICSToken":        func() error { _, err := st.BookingByICSToken(ctx, "no-such-token"); return err }(),
			"ByIdempotencyKey":  func() error { _, err := st.BookingByIdempotencyKey(ctx, "no-key"); return err }(),
			"ConfirmBooking":    st.ConfirmBooking(ctx, "b1", folio.BookingConfirmation{ConfirmedAt: now}, nil), // not pending any more
			"DeleteMeetingType": st.DeleteMeetingType(ctx, "none"),
			"DeleteOverride":    st.DeleteOverride(ctx, "2030-01-01"),
		} {
			if !folio.IsNotFound(err) {
				t.Errorf("%s of a missing row: %v, want ENOTFOUND", name, err)
			}
		}
	})

	t.Run("ConfirmRollsBackWithAlso", func(t *testing.T) {
		st := open(t)
		reserve(t, st, fresh("b1", at(10, 0), 30), lim)
		boom := errors.New("boom")
		if err := st.ConfirmBooking(ctx, "b1", folio.BookingConfirmation{ConfirmedAt: now}, func(*sql.Tx) error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("ConfirmBooking with a failing also: %v, want boom", err)
		}
		if got, err := st.Booking(ctx, "b1"); err != nil || got.Status != folio.BookingPending {
			t.Fatalf("after a failed confirm: %+v, %v; want still pending", got, err)
		}
		if err := st.DeleteBooking(ctx, "b1"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Booking(ctx, "b1"); !folio.IsNotFound(err) {
			t.Fatalf("pending booking not deleted: %v", err)
		}
	})

	t.Run("ReserveOutcomes", func(t *testing.T) {
		st := open(t)
		reserve(t, st, fresh("b1", at(10, 0), 30), lim)
		confirm(t, st, "b1")
		if err := st.DeleteBooking(ctx, "b1"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Booking(ctx, "b1"); err != nil {
			t.Fatalf("DeleteBooking removed a confirmed booking: %v", err)
		}
		if err := st.ReserveBooking(ctx, fresh("b2", at(10, 15), 30), lim); !errors.Is(err, folio.ErrSlotTaken) {
			t.Fatalf("overlapping reservation: %v, want ErrSlotTaken", err)
		}
		buffered := lim
		buffered.Buffer = 15 * time.Minute
		if err := st.ReserveBooking(ctx, fresh("b3", at(10, 30), 30), buffered); !errors.Is(err, folio.ErrSlotTaken) {
			t.Fatalf("reservation inside the buffer: %v, want ErrSlotTaken", err)
		}
		reserve(t, st, fresh("b4", at(10, 30), 30), lim) // touching, no buffer
		dup := fresh("b5", at(14, 0), 30)
		dup.IdempotencyKey = "k"
		reserve(t, st, dup, lim)
		again := fresh("b6", at(15, 0), 30)
		again.IdempotencyKey = "k"
		if err := st.ReserveBooking(ctx, again, lim); !errors.Is(err, folio.ErrIdempotencyKeyUsed) {
			t.Fatalf("reused key: %v, want ErrIdempotencyKeyUsed", err)
		}
		day := lim
		day.MaxPerDay, day.DayStart, day.DayEnd = 3, at(0, 0), at(0, 0).Add(24*time.Hour)
		if err := st.ReserveBooking(ctx, fresh("b7", at(16, 0), 30), day); !errors.Is(err, folio.ErrDayFull) {
			t.Fatalf("fourth booking of the type on the day with MaxPerDay 3: %v, want ErrDayFull", err)
		}
		if n, err := st.CountTypeBookings(ctx, "30min", day.DayStart, day.DayEnd, lim.StaleBefore); err != nil || n != 3 {
			t.Fatalf("CountTypeBookings = %d, %v; want 3", n, err)
		}
		mail := lim
		mail.MaxPerEmail, mail.EmailSince = 3, now.Add(-24*time.Hour)
		other := fresh("b8", at(17, 0), 30)
		other.AttendeeEmail = "ADA@example.com"
		if err := st.ReserveBooking(ctx, other, mail); !errors.Is(err, folio.ErrEmailLimit) {
			t.Fatalf("fourth booking of the address (other case) with MaxPerEmail 3: %v, want ErrEmailLimit", err)
		}
		if oldest, err := st.OldestBookingOfEmail(ctx, "ada@EXAMPLE.com", mail.EmailSince, lim.StaleBefore); err != nil || !oldest.Equal(now) {
			t.Fatalf("OldestBookingOfEmail = %v, %v; want %v", oldest, err, now)
		}
	})

	t.Run("StalePendingFreesItsTime", func(t *testing.T) {
		st := open(t)
		old := fresh("old", at(10, 0), 30)
		old.CreatedAt = now.Add(-time.Hour)
		reserve(t, st, old, folio.ReserveLimits{StaleBefore: now.Add(-2 * time.Hour)})
		if busy, err := st.BookingBusy(ctx, at(0, 0), at(23, 0), lim.StaleBefore); err != nil || len(busy) != 0 {
			t.Fatalf("BookingBusy with a stale pending row = %v, %v; want none", busy, err)
		}
		reserve(t, st, fresh("new", at(10, 0), 30), lim)
		if _, err := st.Booking(ctx, "old"); !folio.IsNotFound(err) {
			t.Fatalf("stale reservation not deleted: %v", err)
		}
	})

	t.Run("ConcurrentReservationsOfOneSlot", func(t *testing.T) {
		st := open(t)
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = st.ReserveBooking(ctx, fresh(string(rune('a'+i)), at(11, 0), 30), lim)
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, folio.ErrSlotTaken):
				t.Errorf("concurrent reservation: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d of %d concurrent reservations of one slot won, want 1", won, n)
		}
	})

	t.Run("CancelAndReschedule", func(t *testing.T) {
		st := open(t)
		reserve(t, st, fresh("b1", at(10, 0), 30), lim)
		confirm(t, st, "b1")
		reserve(t, st, fresh("b2", at(12, 0), 30), lim)
		confirm(t, st, "b2")
		ok := func(*folio.Booking) error { return nil }

		// A reschedule onto b2's time is refused and leaves no change running.
		hold := &folio.Booking{ID: "h1", Start: at(12, 0), End: at(12, 30), DurationMinutes: 30, TimeZone: "UTC"}
		if _, err := st.BeginBookingChange(ctx, "b1", now, lim, hold, ok); !errors.Is(err, folio.ErrSlotTaken) {
			t.Fatalf("reschedule onto a taken time: %v, want ErrSlotTaken", err)
		}
		hold = &folio.Booking{ID: "h2", Start: at(14, 0), End: at(14, 30), DurationMinutes: 30, TimeZone: "America/New_York"}
		b, err := st.BeginBookingChange(ctx, "b1", now, lim, hold, ok)
		if err != nil || b.ID != "b1" || b.Status != folio.BookingConfirmed {
			t.Fatalf("BeginBookingChange = %+v, %v", b, err)
		}
		if _, err := st.BeginBookingChange(ctx, "b1", now, lim, nil, ok); !errors.Is(err, folio.ErrChangeInProgress) {
			t.Fatalf("second change while one runs: %v, want ErrChangeInProgress", err)
		}
		if err := st.ReserveBooking(ctx, fresh("b3", at(14, 0), 30), lim); !errors.Is(err, folio.ErrSlotTaken) {
			t.Fatalf("reservation onto a reschedule's hold: %v, want ErrSlotTaken", err)
		}
		err = st.FinishReschedule(ctx, "b1", folio.Reschedule{Start: at(14, 0), End: at(14, 30), TimeZone: "America/New_York", Sequence: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Booking(ctx, "b1")
		if err != nil || !got.Start.Equal(at(14, 0)) || got.Sequence != 1 || got.TimeZone != "America/New_York" || got.MeetLink != "https://meet.example/b1" {
			t.Fatalf("after FinishReschedule: %+v, %v", got, err)
		}
		busy, err := st.BookingBusy(ctx, at(0, 0), at(23, 0), lim.StaleBefore)
		if err != nil || len(busy) != 2 {
			t.Fatalf("BookingBusy after the move = %v, %v; want b1 and b2 only (the hold is gone)", busy, err)
		}

		// An aborted change leaves the booking as it was and can be retried.
		if _, err := st.BeginBookingChange(ctx, "b2", now, lim, nil, ok); err != nil {
			t.Fatal(err)
		}
		if err := st.AbortBookingChange(ctx, "b2"); err != nil {
			t.Fatal(err)
		}
		refused := errors.New("refused")
		if _, err := st.BeginBookingChange(ctx, "b2", now, lim, nil, func(*folio.Booking) error { return refused }); !errors.Is(err, refused) {
			t.Fatalf("check's error: %v, want it returned", err)
		}
		if _, err := st.BeginBookingChange(ctx, "b2", now, lim, nil, ok); err != nil {
			t.Fatalf("change after an abort: %v", err)
		}
		if err := st.FinishCancel(ctx, "b2", "ill", "visitor", now, 1, nil); err != nil {
			t.Fatal(err)
		}
		got, err = st.Booking(ctx, "b2")
		if err != nil || got.Status != folio.BookingCancelled || got.CancelReason != "ill" || got.CancelledBy != "visitor" || got.Sequence != 1 {
			t.Fatalf("after FinishCancel: %+v, %v", got, err)
		}
		if m, err := st.BookingByManageToken(ctx, got.ManageToken); err != nil || m.Status != folio.BookingCancelled {
			t.Fatalf("a cancelled booking's manage link: %+v, %v", m, err)
		}
		if err := st.FinishCancel(ctx, "b2", "", "owner", now, 2, nil); !folio.IsNotFound(err) {
			t.Fatalf("cancel of a cancelled booking: %v, want ENOTFOUND", err)
		}
		reserve(t, st, fresh("b4", at(12, 0), 30), lim) // the cancelled time is free

		items, total, err := st.ListBookings(ctx, folio.BookingFilter{Status: folio.BookingConfirmed}, 1, 10)
		if err != nil || total != 1 || len(items) != 1 || items[0].ID != "b1" {
			t.Fatalf("ListBookings(confirmed) = %+v, %d, %v; want b1 (b4 is pending)", items, total, err)
		}
		items, total, err = st.ListBookings(ctx, folio.BookingFilter{}, 1, 1)
		if err != nil || total != 2 || len(items) != 1 || items[0].ID != "b2" || items[0].CancelledAt == nil {
			t.Fatalf("ListBookings page 1 of 1 = %+v, %d, %v; want b2 first (soonest), cancelled", items, total, err)
		}
		items, _, err = st.ListBookings(ctx, folio.BookingFilter{From: at(13, 0)}, 1, 10)
		if err != nil || len(items) != 1 || items[0].ID != "b1" {
			t.Fatalf("ListBookings from 13:00 = %+v, %v; want b1", items, err)
		}
	})

	t.Run("RecordReminderOnce", func(t *testing.T) {
		st := open(t)
		calls := 0
		also := func(*sql.Tx) error { calls++; return nil }
		for i, want := range []bool{true, false} {
			sent, err := st.RecordReminder(ctx, "booking-reminder:b1:1:1h", now, also)
			if err != nil || sent != want {
				t.Fatalf("RecordReminder #%d = %v, %v; want %v", i+1, sent, err, want)
			}
		}
		if calls != 1 {
			t.Fatalf("also ran %d times, want 1", calls)
		}
	})

	t.Run("MeetingTypes", func(t *testing.T) {
		st := open(t)
		if ts, err := st.MeetingTypes(ctx); err != nil || len(ts) != 0 {
			t.Fatalf("MeetingTypes of an empty store = %v, %v", ts, err)
		}
		a := folio.MeetingType{Slug: "intro", Title: "Intro", DurationMinutes: 15, BufferMinutes: 5, MaxPerDay: 2,
			Locations: []folio.MeetingLocation{}, Questions: []folio.Question{}, Limits: folio.TypeLimits{Day: 2}}
		b := folio.MeetingType{Slug: "deep", Title: "Deep dive", Description: "An *hour*", DurationMinutes: 60,
			Locations: []folio.MeetingLocation{{Kind: folio.PlaceJitsi}, {Kind: folio.PlaceInPerson, Value: "1 Main St, Springfield"}},
			Questions: []folio.Question{{ID: "topic", Label: "Topic", Kind: folio.QuestionChoice, Required: true, Options: []string{"A", "B"}},
				{ID: "phone", Label: "Phone", Kind: folio.QuestionPhone}},
			Limits: folio.TypeLimits{Week: 3, Month: 7}, MinNoticeMinutes: 120}
		for _, mt := range []folio.MeetingType{a, b} {
			if err := st.CreateMeetingType(ctx, mt, now); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.CreateMeetingType(ctx, a, now); folio.ErrorCode(err) != folio.ECONFLICT {
			t.Fatalf("duplicate slug: %v, want ECONFLICT", err)
		}
		a.Title, a.MaxPerDay, a.Limits.Day = "Introduction", 0, 0
		if err := st.UpdateMeetingType(ctx, "intro", a, now); err != nil {
			t.Fatal(err)
		}
		if err := st.UpdateMeetingType(ctx, "none", a, now); !folio.IsNotFound(err) {
			t.Fatalf("update of a missing type: %v, want ENOTFOUND", err)
		}
		ts, err := st.MeetingTypes(ctx)
		if err != nil || len(ts) != 2 || !reflect.DeepEqual(ts[0], a) || !reflect.DeepEqual(ts[1], b) {
			t.Fatalf("MeetingTypes = %+v, %v; want %+v, %+v in creation order", ts, err, a, b)
		}
		if err := st.DeleteMeetingType(ctx, "intro"); err != nil {
			t.Fatal(err)
		}
		if ts, err := st.MeetingTypes(ctx); err != nil || len(ts) != 1 || ts[0].Slug != "deep" {
			t.Fatalf("MeetingTypes after delete = %+v, %v", ts, err)
		}
	})

	t.Run("Overrides", func(t *testing.T) {
		st := open(t)
		closed := folio.AvailabilityOverride{Date: "2030-03-05", Closed: true, Hours: []folio.HoursRange{}}
		open1 := folio.AvailabilityOverride{Date: "2030-03-07", Hours: []folio.HoursRange{{Start: "08:00", End: "10:00"}, {Start: "20:00", End: "24:00"}}}
		for _, o := range []folio.AvailabilityOverride{open1, closed} {
			if err := st.PutOverride(ctx, o, now); err != nil {
				t.Fatal(err)
			}
		}
		os, err := st.Overrides(ctx, "2030-03-01", "2030-03-31")
		if err != nil || len(os) != 2 || os[0].Date != closed.Date || !os[0].Closed || len(os[0].Hours) != 0 ||
			os[1].Date != open1.Date || os[1].Closed || len(os[1].Hours) != 2 || os[1].Hours[1] != open1.Hours[1] {
			t.Fatalf("Overrides = %+v, %v", os, err)
		}
		open1.Hours = nil
		open1.Closed = true
		if err := st.PutOverride(ctx, open1, now); err != nil { // replaces
			t.Fatal(err)
		}
		if os, err := st.Overrides(ctx, "2030-03-06", "2030-03-07"); err != nil || len(os) != 1 || !os[0].Closed || os[0].Hours == nil {
			t.Fatalf("Overrides after replace = %+v, %v", os, err)
		}
		if err := st.DeleteOverride(ctx, "2030-03-05"); err != nil {
			t.Fatal(err)
		}
		if os, err := st.Overrides(ctx, "2030-03-01", "2030-03-31"); err != nil || len(os) != 1 {
			t.Fatalf("Overrides after delete = %+v, %v", os, err)
		}
	})

	testPlaces(t, open)
}

// CalendarStore is what the local calendar provider keeps (local.Store) beside the bookings it
// reads them from.
type CalendarStore interface {
	booking.Store
	local.Store
}

// TestCalendarStore is the conformance suite of local.Store: busy time is the confirmed
// bookings only, and a booking's ICS token is given once.
func TestCalendarStore(t *testing.T, open func(t *testing.T) CalendarStore) {
	ctx := context.Background()
	now := time.Date(2030, 3, 4, 9, 0, 0, 0, time.UTC)
	day := time.Date(2030, 3, 5, 0, 0, 0, 0, time.UTC)
	st := open(t)
	lim := folio.ReserveLimits{StaleBefore: now.Add(-10 * time.Minute)}
	for i, id := range []string{"confirmed", "pending", "cancelled"} {
		start := day.Add(time.Duration(10+i) * time.Hour)
		b := &folio.Booking{ID: id, Start: start, End: start.Add(30 * time.Minute), DurationMinutes: 30, TimeZone: "UTC",
			AttendeeName: "Ada", AttendeeEmail: "ada@example.com", Provider: "local", CreatedAt: now, ManageToken: "manage-token-" + id}
		if err := st.ReserveBooking(ctx, b, lim); err != nil {
			t.Fatal(err)
		}
		if id == "pending" {
			continue
		}
		if err := st.ConfirmBooking(ctx, id, folio.BookingConfirmation{ConfirmedAt: now}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.BeginBookingChange(ctx, "cancelled", now, lim, nil, func(*folio.Booking) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishCancel(ctx, "cancelled", "", "owner", now, 1, nil); err != nil {
		t.Fatal(err)
	}
	busy, err := st.ConfirmedBookingBusy(ctx, day, day.Add(24*time.Hour))
	if err != nil || len(busy) != 1 || !busy[0].Start.Equal(day.Add(10*time.Hour)) {
		t.Fatalf("ConfirmedBookingBusy = %v, %v; want the confirmed booking only", busy, err)
	}
	tok, err := st.SetBookingICSToken(ctx, "confirmed", "first-token")
	if err != nil || tok != "first-token" {
		t.Fatalf("SetBookingICSToken = %q, %v", tok, err)
	}
	if tok, err := st.SetBookingICSToken(ctx, "confirmed", "second-token"); err != nil || tok != "first-token" {
		t.Fatalf("second SetBookingICSToken = %q, %v; want the first token kept", tok, err)
	}
	if b, err := st.BookingByICSToken(ctx, "first-token"); err != nil || b.ID != "confirmed" {
		t.Fatalf("BookingByICSToken = %+v, %v", b, err)
	}
	if _, err := st.SetBookingICSToken(ctx, "nope", "t"); !folio.IsNotFound(err) {
		t.Fatalf("SetBookingICSToken of a missing booking: %v, want ENOTFOUND", err)
	}
}
