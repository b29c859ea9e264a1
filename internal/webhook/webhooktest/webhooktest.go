// Package webhooktest holds the conformance suite every store of webhook deliveries (the SQL
// ones included) must pass.
package webhooktest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/webhook"
)

// Store is what the delivery worker and pruner use, plus what queues deliveries and reads the
// delivery log, so the suite can make deliveries and see what was stored.
type Store interface {
	webhook.DeliveryStore
	webhook.DeliveryPruner
	folio.EventEmitter
	CreateWebhook(ctx context.Context, h folio.Webhook, secret string) error
	DeleteWebhook(ctx context.Context, id string) error
	// QueueTestDelivery queues a webhook.test delivery to one webhook and returns its id;
	// ENOTFOUND when there is no such webhook.
	QueueTestDelivery(ctx context.Context, hookID string, data any) (string, error)
	// WebhookDeliveries lists the delivery log of one webhook, newest first, with the total.
	WebhookDeliveries(ctx context.Context, hookID string, page, limit int) ([]folio.WebhookDelivery, int, error)
}

// TestStore runs the conformance suite; open returns the store for each subtest. Every subtest
// makes webhooks of its own, so open may return the same store each time.
func TestStore(t *testing.T, open func(t *testing.T) Store) {
	ctx := context.Background()
	newHook := func(t *testing.T, s Store, events ...string) (folio.Webhook, string) {
		t.Helper()
		h := folio.Webhook{ID: folio.NewID(), URL: "https://hooks.example/" + folio.NewID(), Events: events,
			CreatedAt: time.Now().UTC().Truncate(time.Second)}
		secret := webhook.NewSecret()
		if err := s.CreateWebhook(ctx, h, secret); err != nil {
			t.Fatalf("CreateWebhook: %v", err)
		}
		return h, secret
	}
	log := func(t *testing.T, s Store, hookID string) []folio.WebhookDelivery {
		t.Helper()
		ds, n, err := s.WebhookDeliveries(ctx, hookID, 1, 100)
		if err != nil {
			t.Fatalf("WebhookDeliveries: %v", err)
		}
		if n != len(ds) {
			t.Fatalf("WebhookDeliveries total %d, listed %d", n, len(ds))
		}
		return ds
	}

	t.Run("a queued delivery carries the webhook's URL, secret and a Standard Webhooks body", func(t *testing.T) {
		s := open(t)
		if _, err := s.QueueTestDelivery(ctx, folio.NewID(), map[string]string{"x": "y"}); !folio.IsNotFound(err) {
			t.Fatalf("QueueTestDelivery(unknown webhook) err = %v, want ENOTFOUND", err)
		}
		h, secret := newHook(t, s, folio.EventProjectCreated)
		id, err := s.QueueTestDelivery(ctx, h.ID, map[string]string{"x": "y"})
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.OutgoingDelivery(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if d.ID != id || d.WebhookID != h.ID || d.EventType != folio.EventTest || d.Status != folio.DeliveryPending ||
			d.Attempts != 0 || d.URL != h.URL || d.Secret != secret {
			t.Errorf("OutgoingDelivery = %+v", d)
		}
		var body folio.WebhookBody
		if err := json.Unmarshal(d.Body, &body); err != nil || body.Type != folio.EventTest || body.Timestamp.IsZero() ||
			string(body.Data) != `{"x":"y"}` {
			t.Errorf("body %s (%v)", d.Body, err)
		}
		if _, err := s.OutgoingDelivery(ctx, "msg_missing"); !folio.IsNotFound(err) {
			t.Errorf("OutgoingDelivery(missing) err = %v, want ENOTFOUND", err)
		}
	})

	t.Run("emit queues one delivery per subscribed webhook", func(t *testing.T) {
		s := open(t)
		sub, _ := newHook(t, s, folio.EventProjectCreated, folio.EventProjectDeleted)
		other, _ := newHook(t, s, folio.EventMediaUploaded)
		if err := s.Emit(ctx, folio.Event{Type: folio.EventProjectCreated, Data: map[string]string{"id": "p1"}}); err != nil {
			t.Fatal(err)
		}
		ds := log(t, s, sub.ID)
		if len(ds) != 1 || ds[0].EventType != folio.EventProjectCreated || ds[0].Status != folio.DeliveryPending {
			t.Errorf("subscribed webhook's log = %+v", ds)
		}
		if ds := log(t, s, other.ID); len(ds) != 0 {
			t.Errorf("unsubscribed webhook's log = %+v", ds)
		}
	})

	t.Run("attempts are recorded in the delivery log", func(t *testing.T) {
		s := open(t)
		h, _ := newHook(t, s, folio.EventProjectCreated)
		id, err := s.QueueTestDelivery(ctx, h.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		at := time.Now().UTC().Truncate(time.Second)
		if err := s.RecordWebhookAttempt(ctx, id, 1, at, folio.DeliveryPending, 503, "the receiver answered 503", at.Add(5*time.Second)); err != nil {
			t.Fatal(err)
		}
		d := log(t, s, h.ID)[0]
		if d.Attempts != 1 || d.ResponseStatus != 503 || d.LastError != "the receiver answered 503" || d.Status != folio.DeliveryPending ||
			d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(at.Add(5*time.Second)) || d.LastAttemptAt == nil ||
			!d.LastAttemptAt.Equal(at) || d.DeliveredAt != nil {
			t.Errorf("after a failed attempt: %+v", d)
		}
		if err := s.RecordWebhookAttempt(ctx, id, 2, at.Add(5*time.Second), folio.DeliverySucceeded, 204, "", time.Time{}); err != nil {
			t.Fatal(err)
		}
		d = log(t, s, h.ID)[0]
		if d.Attempts != 2 || d.ResponseStatus != 204 || d.LastError != "" || d.Status != folio.DeliverySucceeded ||
			d.NextAttemptAt != nil || d.DeliveredAt == nil || !d.DeliveredAt.Equal(at.Add(5*time.Second)) {
			t.Errorf("after a delivered attempt: %+v", d)
		}
		if o, err := s.OutgoingDelivery(ctx, id); err != nil || o.Status != folio.DeliverySucceeded || o.Attempts != 2 {
			t.Errorf("OutgoingDelivery after delivery = %+v, %v", o, err)
		}
	})

	t.Run("deleting a webhook removes its deliveries", func(t *testing.T) {
		s := open(t)
		h, _ := newHook(t, s, folio.EventProjectCreated)
		id, err := s.QueueTestDelivery(ctx, h.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteWebhook(ctx, h.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.OutgoingDelivery(ctx, id); !folio.IsNotFound(err) {
			t.Errorf("OutgoingDelivery after the webhook was deleted: err = %v, want ENOTFOUND", err)
		}
		if err := s.DeleteWebhook(ctx, h.ID); !folio.IsNotFound(err) {
			t.Errorf("DeleteWebhook twice: err = %v, want ENOTFOUND", err)
		}
	})

	t.Run("pruning deletes settled deliveries created before the cutoff", func(t *testing.T) {
		s := open(t)
		h, _ := newHook(t, s, folio.EventProjectCreated)
		var ids []string
		for range 3 {
			id, err := s.QueueTestDelivery(ctx, h.ID, nil)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		at := time.Now().UTC().Truncate(time.Second)
		if err := s.RecordWebhookAttempt(ctx, ids[0], 1, at, folio.DeliverySucceeded, 200, "", time.Time{}); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordWebhookAttempt(ctx, ids[1], 8, at, folio.DeliveryFailed, 500, "given up", time.Time{}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.PruneWebhookDeliveries(ctx, at.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if ds := log(t, s, h.ID); len(ds) != 3 {
			t.Fatalf("a cutoff before the deliveries pruned some: %d left", len(ds))
		}
		n, err := s.PruneWebhookDeliveries(ctx, at.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if n < 2 {
			t.Errorf("PruneWebhookDeliveries = %d, want at least the 2 settled ones", n)
		}
		if ds := log(t, s, h.ID); len(ds) != 1 || ds[0].ID != ids[2] {
			t.Errorf("after pruning the log is %+v, want only the pending delivery", ds)
		}
	})
}
