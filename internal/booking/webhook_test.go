package booking_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking/bookingtest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// TestLifecycleWebhookEvents: book, reschedule and cancel each queue their webhook event
// (booking.created, booking.rescheduled, booking.cancelled) once, in the change's transaction;
// a failed reschedule and a repeated cancel queue nothing.
func TestLifecycleWebhookEvents(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		hook := folio.Webhook{ID: "hook-booking", URL: "https://r.example/b", Events: []string{folio.EventBookingCreated,
			folio.EventBookingRescheduled, folio.EventBookingCancelled}, CreatedAt: time.Now()}
		if err := db.Webhooks.CreateWebhook(ctx, hook, "whsec_AAAA"); err != nil {
			t.Fatal(err)
		}
		events := func() []string {
			ds, _, err := db.Webhooks.WebhookDeliveries(ctx, hook.ID, 1, 100)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, d := range ds {
				out = append(out, d.EventType)
			}
			slices.Sort(out)
			return out
		}
		cal := &bookingtest.Calendar{}
		svc := lifecycleService(t, db, cal)
		_, token := book(t, svc, request("2026-03-04T16:00:00+01:00"))
		cal.FailMove(1)
		in := folio.RescheduleInput{StartTime: "2026-03-05T16:00:00+01:00", TimeZone: "Europe/Berlin"}
		if _, err := svc.Reschedule(ctx, token, in); err == nil {
			t.Fatal("reschedule with a failing provider succeeded")
		}
		if _, err := svc.Reschedule(ctx, token, in); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			if _, err := svc.CancelByToken(ctx, token, folio.CancelInput{}); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{folio.EventBookingCancelled, folio.EventBookingCreated, folio.EventBookingRescheduled}
		if got := events(); !slices.Equal(got, want) {
			t.Errorf("webhook events %v, want %v", got, want)
		}
	})
}
