package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/foliohq/folio"
)

// The DB is the folio.EventEmitter of the service: deliveries are rows beside the data.
var _ folio.EventEmitter = (*WebhookStore)(nil)

// ScopeWebhooks is the change scope of the webhook list: every instance forgets which event
// types have subscribers when it hears it (see webhookTypes).
const ScopeWebhooks = "webhooks"

// webhookTypes is this instance's copy of the set of event types some webhook subscribes to, so
// a write whose event nobody subscribes to skips the webhook query inside its transaction. It
// is filled from the query EmitTx runs when the set is unknown, and forgotten when a webhook is
// created or deleted here (before and after the commit) or on another instance (ScopeWebhooks,
// or "*" after the change listener reconnected). gen makes a fill that raced a change void.
type webhookTypes struct {
	mu    sync.Mutex
	known bool
	types map[string]bool
	gen   uint64
}

// forget makes the set unknown, so the next EmitTx queries the webhooks again.
func (w *webhookTypes) forget() {
	w.mu.Lock()
	w.known, w.types = false, nil
	w.gen++
	w.mu.Unlock()
}

// subscribed reports whether some webhook may subscribe to typ (true when the set is unknown),
// and the generation a fill started now must carry.
func (w *webhookTypes) subscribed(typ string) (maybe bool, gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.known || w.types[typ], w.gen
}

// fill stores the set read by a query that started at generation gen, unless it changed since.
func (w *webhookTypes) fill(types map[string]bool, gen uint64) {
	w.mu.Lock()
	if w.gen == gen {
		w.known, w.types = true, types
	}
	w.mu.Unlock()
}

// heard applies a change notification from another instance to this instance's own caches.
func (db *DB) heard(scope string) {
	if scope == "*" || scope == ScopeWebhooks {
		db.hooks.forget()
	}
}

// CreateWebhook stores a webhook endpoint with its signing secret.
func (s *WebhookStore) CreateWebhook(ctx context.Context, h folio.Webhook, secret string) error {
	events, _ := json.Marshal(h.Events)
	s.hooks.forget()
	_, err := s.W.ExecContext(ctx, `INSERT INTO webhooks (id, url, events, description, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		h.ID, h.URL, string(events), h.Description, secret, s.ts(h.CreatedAt))
	s.hooks.forget()
	if err != nil {
		return wrap("CreateWebhook", err)
	}
	s.changed(ScopeWebhooks)
	return nil
}

const webhookColumns = `id, url, events, description, created_at`

func scanWebhook(row interface{ Scan(...any) error }, secret *string) (folio.Webhook, error) {
	var h folio.Webhook
	var events string
	var created Time
	dest := []any{&h.ID, &h.URL, &events, &h.Description, &created}
	if secret != nil {
		dest = append(dest, secret)
	}
	if err := row.Scan(dest...); err != nil {
		return h, err
	}
	h.CreatedAt = created.Time
	if err := json.Unmarshal([]byte(events), &h.Events); err != nil || h.Events == nil {
		h.Events = []string{}
	}
	return h, nil
}

// Webhooks lists every webhook, oldest first.
func (s *WebhookStore) Webhooks(ctx context.Context) ([]folio.Webhook, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT `+webhookColumns+` FROM webhooks ORDER BY created_at, id`)
	if err != nil {
		return nil, wrap("Webhooks", err)
	}
	defer rows.Close()
	out := []folio.Webhook{}
	for rows.Next() {
		h, err := scanWebhook(rows, nil)
		if err != nil {
			return nil, wrap("Webhooks", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// Webhook returns one webhook and its secret, or ENOTFOUND.
func (s *WebhookStore) Webhook(ctx context.Context, id string) (folio.Webhook, string, error) {
	var secret string
	h, err := scanWebhook(s.R.QueryRowContext(ctx, `SELECT `+webhookColumns+`, secret FROM webhooks WHERE id = $1`, id), &secret)
	if err == sql.ErrNoRows {
		return h, "", notFound("Webhook", id)
	}
	if err != nil {
		return h, "", wrap("Webhook", err)
	}
	return h, secret, nil
}

// DeleteWebhook removes a webhook, its delivery log and its queued deliveries, or returns
// ENOTFOUND.
func (s *WebhookStore) DeleteWebhook(ctx context.Context, id string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE kind = $1 AND status = 'pending' AND key IN
			(SELECT CAST($2 AS TEXT) || id FROM webhook_deliveries WHERE webhook_id = $3)`, folio.JobWebhookDelivery, folio.JobWebhookDelivery+":", id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM webhooks WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("Webhook", id)
		}
		return nil
	})
	s.hooks.forget()
	if err != nil && !folio.IsNotFound(err) {
		return wrap("DeleteWebhook", err)
	}
	if err == nil {
		s.changed(ScopeWebhooks)
	}
	return err
}

// Emit implements folio.EventEmitter for callers without a transaction of their own.
func (s *WebhookStore) Emit(ctx context.Context, ev folio.Event) error {
	if err := s.tx(ctx, func(tx *sql.Tx) error { return s.EmitTx(ctx, tx, ev) }); err != nil {
		return wrap("Emit", err)
	}
	return nil
}

// selectWebhookEvents runs in every write that emits an event (prepared once on SQLite).
const selectWebhookEvents = `SELECT id, events FROM webhooks`

// EmitTx queues one delivery of ev for every webhook subscribed to its type, inside tx: the
// deliveries commit (and so will be sent) exactly when the caller's change does. This is the
// call to use for new events (booking.cancelled and booking.rescheduled, say) from inside a
// write's transaction.
//
// When this instance knows that no webhook subscribes to ev's type, it queries nothing.
func (s *WebhookStore) EmitTx(ctx context.Context, tx *sql.Tx, ev folio.Event) error {
	maybe, gen := s.hooks.subscribed(ev.Type)
	if !maybe {
		return nil
	}
	rows, err := s.txQuery(ctx, tx, selectWebhookEvents)
	if err != nil {
		return err
	}
	var targets []string
	all := map[string]bool{}
	for rows.Next() {
		var id, events string
		if err := rows.Scan(&id, &events); err != nil {
			rows.Close()
			return err
		}
		var types []string
		_ = json.Unmarshal([]byte(events), &types)
		hit := false
		for _, t := range types {
			all[t] = true
			hit = hit || t == ev.Type
		}
		if hit {
			targets = append(targets, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	s.hooks.fill(all, gen)
	if len(targets) == 0 {
		return nil
	}
	body, err := s.webhookBody(ev)
	if err != nil {
		return err
	}
	for _, hook := range targets {
		if _, err := s.queueDelivery(ctx, tx, hook, ev.Type, body); err != nil {
			return err
		}
	}
	return nil
}

// emitAll queues the deliveries of events inside tx: the subscribed webhooks' and, for post
// events, the fan-out to the fediverse followers and the Webmentions of a publication, and the
// newsletter of a publication whose newsletter.send is on (newsletter.go).
func (s *WebhookStore) emitAll(ctx context.Context, tx *sql.Tx, events []folio.Event) error {
	for _, ev := range events {
		if err := s.EmitTx(ctx, tx, ev); err != nil {
			return err
		}
		if err := s.queuePostFanOut(ctx, tx, ev); err != nil {
			return err
		}
		if err := s.queueNewsletterIssue(ctx, tx, ev); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) webhookBody(ev folio.Event) ([]byte, error) {
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return nil, fmt.Errorf("event %s data: %w", ev.Type, err)
	}
	return json.Marshal(folio.WebhookBody{Type: ev.Type, Timestamp: db.Now().UTC().Truncate(time.Millisecond), Data: data})
}

func (db *DB) queueDelivery(ctx context.Context, tx *sql.Tx, hookID, eventType string, body []byte) (string, error) {
	id := "msg_" + folio.NewID()
	now := db.Now()
	if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, webhook_id, event_type, body, status, next_attempt_at, created_at)
		VALUES ($1, $2, $3, $4, 'pending', $5, $6)`, id, hookID, eventType, string(body), db.ts(now), db.ts(now)); err != nil {
		return "", err
	}
	payload, _ := json.Marshal(folio.WebhookJobPayload{DeliveryID: id})
	return id, db.enqueueJob(ctx, tx, folio.JobWebhookDelivery, folio.JobWebhookDelivery+":"+id, string(payload), now)
}

// QueueTestDelivery queues a webhook.test delivery to one webhook, subscribed or not, and
// returns its id; ENOTFOUND when there is no such webhook.
func (s *WebhookStore) QueueTestDelivery(ctx context.Context, hookID string, data any) (string, error) {
	var id string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhooks WHERE id = $1`, hookID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return notFound("Webhook", hookID)
		}
		body, err := s.webhookBody(folio.Event{Type: folio.EventTest, Data: data})
		if err != nil {
			return err
		}
		id, err = s.queueDelivery(ctx, tx, hookID, folio.EventTest, body)
		return err
	})
	if err != nil && !folio.IsNotFound(err) {
		return "", wrap("QueueTestDelivery", err)
	}
	return id, err
}

const deliveryColumns = `d.id, d.webhook_id, d.event_type, d.status, d.attempts, d.response_status, d.last_error,
	d.next_attempt_at, d.created_at, d.last_attempt_at, d.delivered_at`

func scanDelivery(row interface{ Scan(...any) error }, extra ...any) (folio.WebhookDelivery, error) {
	var d folio.WebhookDelivery
	var next, created, last, delivered Time
	err := row.Scan(append([]any{&d.ID, &d.WebhookID, &d.EventType, &d.Status, &d.Attempts, &d.ResponseStatus, &d.LastError,
		&next, &created, &last, &delivered}, extra...)...)
	d.CreatedAt = created.Time
	d.NextAttemptAt, d.LastAttemptAt, d.DeliveredAt = optTime(next), optTime(last), optTime(delivered)
	if d.Status != folio.DeliveryPending {
		d.NextAttemptAt = nil
	}
	return d, err
}

func optTime(t Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	v := t.Time
	return &v
}

// OutgoingDelivery returns a delivery with its webhook's URL and secret, or ENOTFOUND (the
// webhook was deleted).
func (s *WebhookStore) OutgoingDelivery(ctx context.Context, id string) (folio.OutgoingDelivery, error) {
	var o folio.OutgoingDelivery
	var body string
	d, err := scanDelivery(s.R.QueryRowContext(ctx, `SELECT `+deliveryColumns+`, w.url, w.secret, d.body
		FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = $1`, id), &o.URL, &o.Secret, &body)
	if err == sql.ErrNoRows {
		return o, notFound("Webhook delivery", id)
	}
	if err != nil {
		return o, wrap("OutgoingDelivery", err)
	}
	o.WebhookDelivery, o.Body = d, []byte(body)
	return o, nil
}

// RecordWebhookAttempt writes the outcome of one attempt into the delivery log: status
// succeeded, failed (given up) or pending with next as the time of the retry.
func (s *WebhookStore) RecordWebhookAttempt(ctx context.Context, id string, attempts int, at time.Time, status string, responseStatus int,
	lastError string, next time.Time) error {
	var delivered any
	if status == folio.DeliverySucceeded {
		delivered = s.ts(at)
	}
	_, err := s.W.ExecContext(ctx, `UPDATE webhook_deliveries SET status = $1, attempts = $2, response_status = $3, last_error = $4,
		next_attempt_at = $5, last_attempt_at = $6, delivered_at = COALESCE(delivered_at, $7) WHERE id = $8`,
		status, attempts, responseStatus, lastError, s.nts(&next), s.ts(at), delivered, id)
	if err != nil {
		return wrap("RecordWebhookAttempt", err)
	}
	return nil
}

// WebhookDeliveries lists the delivery log of one webhook, newest first, with the total.
func (s *WebhookStore) WebhookDeliveries(ctx context.Context, hookID string, page, limit int) ([]folio.WebhookDelivery, int, error) {
	var total int
	if err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = $1`, hookID).Scan(&total); err != nil {
		return nil, 0, wrap("WebhookDeliveries", err)
	}
	rows, err := s.R.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d WHERE d.webhook_id = $1
		ORDER BY d.created_at DESC, d.id DESC LIMIT $2 OFFSET $3`, hookID, limit, (page-1)*limit)
	if err != nil {
		return nil, 0, wrap("WebhookDeliveries", err)
	}
	defer rows.Close()
	out := []folio.WebhookDelivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, 0, wrap("WebhookDeliveries", err)
		}
		out = append(out, d)
	}
	return out, total, rows.Err()
}

// PruneWebhookDeliveries deletes settled deliveries (succeeded or failed) created before before,
// with their finished jobs, so the log and the jobs table do not grow without end. It returns
// how many deliveries it deleted.
func (s *WebhookStore) PruneWebhookDeliveries(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE kind = $1 AND status IN ('done', 'failed') AND key IN
			(SELECT CAST($2 AS TEXT) || id FROM webhook_deliveries WHERE status <> 'pending' AND created_at < $3)`,
			folio.JobWebhookDelivery, folio.JobWebhookDelivery+":", s.ts(before)); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < $1`, s.ts(before))
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, wrap("PruneWebhookDeliveries", err)
	}
	return int(n), nil
}
