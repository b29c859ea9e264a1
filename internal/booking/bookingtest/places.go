package bookingtest

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking"
)

// testPlaces checks that a booking keeps its place and answers, and that the week and month
// caps of a type hold under concurrent reservations.
func testPlaces(t *testing.T, open func(t *testing.T) booking.Store) {
	ctx := context.Background()
	now := time.Date(2030, 3, 4, 9, 0, 0, 0, time.UTC)
	mk := func(id string, start time.Time) *folio.Booking {
		return &folio.Booking{ID: id, Start: start, End: start.Add(30 * time.Minute), DurationMinutes: 30, TimeZone: "UTC",
			Summary: "Meeting", AttendeeName: "Ada", AttendeeEmail: id + "@example.com", Provider: "local", CreatedAt: now,
			ManageToken: "token-" + id + "-0123456789", TypeSlug: "capped"}
	}
	stale := now.Add(-10 * time.Minute)

	t.Run("PlaceAndAnswersKept", func(t *testing.T) {
		st := open(t)
		b := mk("p1", now.Add(48*time.Hour))
		b.Place = &folio.Place{Kind: folio.PlacePhone, Value: "+44 20 7946 0958", VisitorPhone: true}
		b.Answers = []folio.BookingAnswer{{ID: "topic", Label: "Topic", Kind: folio.QuestionText, Value: "Tax, \"quoted\""},
			{ID: "ok", Label: "Agree", Kind: folio.QuestionCheckbox, Value: true}}
		if err := st.ReserveBooking(ctx, b, folio.ReserveLimits{StaleBefore: stale}); err != nil {
			t.Fatal(err)
		}
		if err := st.ConfirmBooking(ctx, b.ID, folio.BookingConfirmation{ProviderEventID: "e", ConfirmedAt: now, ResponseStatus: 200}, nil); err != nil {
			t.Fatal(err)
		}
		got, err := st.Booking(ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Place, b.Place) || !reflect.DeepEqual(got.Answers, b.Answers) {
			t.Fatalf("kept place %+v answers %+v; want %+v %+v", got.Place, got.Answers, b.Place, b.Answers)
		}
		items, _, err := st.ListBookings(ctx, folio.BookingFilter{}, 1, 10)
		if err != nil || len(items) != 1 || len(items[0].Answers) != 2 || items[0].Location == nil || items[0].Location.Kind != folio.PlacePhone {
			t.Fatalf("ListBookings = %+v, %v", items, err)
		}
		plain := mk("p2", now.Add(72*time.Hour))
		if err := st.ReserveBooking(ctx, plain, folio.ReserveLimits{StaleBefore: stale}); err != nil {
			t.Fatal(err)
		}
		if got, err := st.Booking(ctx, "p2"); err != nil || got.Place != nil || got.Answers != nil {
			t.Fatalf("booking without place: %+v, %v", got, err)
		}
	})

	t.Run("WeekCapConcurrent", func(t *testing.T) {
		st := open(t)
		weekStart := time.Date(2030, 3, 4, 0, 0, 0, 0, time.UTC) // a Monday
		lim := folio.ReserveLimits{StaleBefore: stale, Caps: []folio.PeriodCap{{Max: 3, Start: weekStart, End: weekStart.AddDate(0, 0, 7)}}}
		const n = 8
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, full := 0, 0
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b := mk("w"+string(rune('a'+i)), weekStart.Add(time.Duration(24+i*3)*time.Hour))
				err := st.ReserveBooking(ctx, b, lim)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, folio.ErrDayFull):
					full++
				default:
					t.Errorf("reserve %s: %v", b.ID, err)
				}
			}()
		}
		wg.Wait()
		if ok != 3 || full != n-3 {
			t.Fatalf("%d reserved, %d refused; want 3 and %d", ok, full, n-3)
		}
		// The next week is not capped by this one.
		next := mk("next", weekStart.AddDate(0, 0, 8))
		lim.Caps[0].Start, lim.Caps[0].End = weekStart.AddDate(0, 0, 7), weekStart.AddDate(0, 0, 14)
		if err := st.ReserveBooking(ctx, next, lim); err != nil {
			t.Fatalf("next week: %v", err)
		}
	})
}
