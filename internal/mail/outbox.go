package mail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// Outbox statuses, as stored.
const (
	OutboxPending = "pending" // stored, never attempted
	OutboxFailed  = "failed"  // attempted, will be retried at NextAttemptAt
	OutboxSent    = "sent"    // accepted by the server (or written to the .eml directory)
	OutboxDead    = "dead"    // given up: permanent rejection or too many attempts
)

// ErrOutboxLeaseLost is returned by OutboxStore.MarkSent and MarkFailed when the row is no
// longer leased to the caller (its lease expired and another worker claimed it).
var ErrOutboxLeaseLost = errors.New("mail: outbox lease lost")

// OutboxItem is one stored message.
type OutboxItem struct {
	ID string
	// Payload is the JSON encoding of the folio.MailMessage, Message-ID header included, so
	// every attempt sends the same message.
	Payload []byte
	// Recipients and Subject are copies for admin listings; the worker ignores them.
	Recipients string
	Subject    string
	Status     string
	// Attempts counts the attempts made so far.
	Attempts      int
	NextAttemptAt time.Time
	LeaseOwner    string    // empty when not leased
	LeaseUntil    time.Time // zero when not leased
	LastError     string
	CreatedAt     time.Time
	SentAt        time.Time // zero until sent
}

// OutboxStore persists the outbox. Implementations must make Claim atomic across every process
// sharing the store (PostgreSQL: UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED)
// RETURNING …; SQLite: one UPDATE … RETURNING on the single writer connection).
type OutboxStore interface {
	// InsertOutbox stores a new item exactly as given (status, lease and all).
	InsertOutbox(ctx context.Context, item OutboxItem) error
	// ClaimOutbox leases up to limit items whose status is pending or failed, whose
	// NextAttemptAt is at or before now, and which are not leased (LeaseUntil zero or before
	// now): it sets LeaseOwner = owner and LeaseUntil = leaseUntil and returns them, oldest
	// NextAttemptAt first. No item is returned to two callers while its lease runs.
	ClaimOutbox(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]OutboxItem, error)
	// MarkOutboxSent sets status sent and SentAt = now and clears the lease, only if the item is
	// leased to owner; otherwise it returns ErrOutboxLeaseLost.
	MarkOutboxSent(ctx context.Context, id, owner string, now time.Time) error
	// MarkOutboxFailed records a failed attempt: Attempts = attempts, LastError, status dead when
	// giveUp else failed with NextAttemptAt = nextAttempt, and clears the lease; only if the item
	// is leased to owner, otherwise ErrOutboxLeaseLost.
	MarkOutboxFailed(ctx context.Context, id, owner string, attempts int, nextAttempt time.Time, lastError string, giveUp bool) error
}

// Outbox defaults.
const (
	DefaultOutboxInterval    = 15 * time.Second
	DefaultOutboxLease       = 5 * time.Minute
	DefaultOutboxBatch       = 10
	DefaultOutboxBaseDelay   = time.Minute
	DefaultOutboxMaxDelay    = time.Hour
	DefaultOutboxMaxAttempts = 12 // 1+2+4+8+16+32 min, then hourly: about 7 hours in all
)

// Outbox is a durable folio.Mailer: Send stores the message, and Run delivers stored messages
// through Mailer with exponential backoff until they are sent or given up. Several instances
// may run workers against one store: leases keep an item to one worker at a time. Delivery is
// at least once (a crash after the server accepted a message but before MarkOutboxSent sends it
// again, with the same Message-ID, after the lease expires).
type Outbox struct {
	Store  OutboxStore
	Mailer folio.Mailer
	Log    *slog.Logger // nil: discard
	// From is the configured sender; its domain goes into generated Message-IDs of messages
	// with a zero From. A Mailer that knows its sender (Switch) overrides it.
	From folio.MailAddress
	// Owner names this worker in leases; NewOutbox sets a random one. Must differ between
	// instances and must not change once the outbox is in use.
	Owner string
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Interval between polls in Run; default DefaultOutboxInterval.
	Interval time.Duration
	// Lease is how long a claimed item stays with this worker; it bounds each send attempt, so
	// it must exceed the SMTP timeout. Default DefaultOutboxLease.
	Lease time.Duration
	// Batch is the most items claimed per poll; default DefaultOutboxBatch.
	Batch int
	// BaseDelay is the wait after the first failure, doubling per failure up to MaxDelay.
	BaseDelay, MaxDelay time.Duration
	// MaxAttempts is the number of attempts before giving up; default DefaultOutboxMaxAttempts.
	MaxAttempts int
}

var _ folio.Mailer = (*Outbox)(nil)

// NewOutbox returns an outbox with the defaults and a unique Owner. from is the configured
// sender (see Outbox.From); log may be nil.
func NewOutbox(store OutboxStore, mailer folio.Mailer, from folio.MailAddress, log *slog.Logger) *Outbox {
	return &Outbox{Store: store, Mailer: mailer, From: from, Log: log, Owner: "outbox-" + folio.NewID()}
}

func (o *Outbox) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *Outbox) log() *slog.Logger {
	if o.Log != nil {
		return o.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (o *Outbox) owner() string {
	if o.Owner == "" {
		return "outbox" // a zero Outbox built by hand: one worker only
	}
	return o.Owner
}

func durationOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Backoff returns the wait after the given number of failed attempts (1 → BaseDelay).
func (o *Outbox) Backoff(failures int) time.Duration {
	base := durationOr(o.BaseDelay, DefaultOutboxBaseDelay)
	maxDelay := durationOr(o.MaxDelay, DefaultOutboxMaxDelay)
	d := base
	for i := 1; i < failures; i++ {
		d *= 2
		if d >= maxDelay {
			return maxDelay
		}
	}
	return min(d, maxDelay)
}

// Send implements folio.Mailer by storing m for the worker (Enqueue); it fails only when m is
// invalid (permanent *folio.MailError) or the store fails.
func (o *Outbox) Send(ctx context.Context, m *folio.MailMessage) error {
	_, err := o.Enqueue(ctx, m)
	return err
}

// Enqueue validates m, gives it a Message-ID when it has none, and stores it for the worker to
// deliver. It returns the item ID.
func (o *Outbox) Enqueue(ctx context.Context, m *folio.MailMessage) (string, error) {
	item, err := o.NewItem(m)
	if err != nil {
		return "", err
	}
	if err := o.Store.InsertOutbox(ctx, item); err != nil {
		return "", fmt.Errorf("mail: outbox insert: %w", err)
	}
	return item.ID, nil
}

// SendNow stores m, then tries it once right away and returns that attempt's error (a
// *folio.MailError) with the item ID. The item is stored leased to this worker, so no other
// worker sends it meanwhile; after a temporary failure the worker retries it later, after a
// permanent one it is dead. For callers that must answer with the outcome (the contact form).
func (o *Outbox) SendNow(ctx context.Context, m *folio.MailMessage) (string, error) {
	return o.SendNowStoring(ctx, m, o.Store.InsertOutbox)
}

// SendNowStoring is SendNow with the insert done by store, so the caller can write the item
// together with its own records (the contact form stores the visitor's message with it).
func (o *Outbox) SendNowStoring(ctx context.Context, m *folio.MailMessage, store func(context.Context, OutboxItem) error) (string, error) {
	item, err := o.NewItem(m)
	if err != nil {
		return "", err
	}
	now := o.now()
	item.LeaseOwner = o.owner()
	item.LeaseUntil = now.Add(durationOr(o.Lease, DefaultOutboxLease))
	if err := store(ctx, item); err != nil {
		return "", fmt.Errorf("mail: outbox insert: %w", err)
	}
	return item.ID, o.attempt(ctx, item)
}

// NewItem validates m and turns it into a pending outbox item without storing it, for callers
// that insert it in a transaction of their own (a booking and its confirmations commit
// together, so neither exists without the other).
func (o *Outbox) NewItem(m *folio.MailMessage) (OutboxItem, error) {
	if err := m.Validate(); err != nil {
		return OutboxItem{}, &folio.MailError{Permanent: true, Err: err}
	}
	msg := *m
	if !hasHeader(msg.Headers, "Message-ID") {
		headers := make(map[string]string, len(msg.Headers)+1)
		for k, v := range msg.Headers {
			headers[k] = v
		}
		headers["Message-ID"] = NewMessageID(effectiveFrom(&msg, o.sender()).Email)
		msg.Headers = headers
	}
	payload, err := json.Marshal(&msg)
	if err != nil {
		return OutboxItem{}, fmt.Errorf("mail: outbox encode: %w", err)
	}
	now := o.now()
	return OutboxItem{
		ID: folio.NewID(), Payload: payload, Recipients: recipients(&msg), Subject: msg.Subject,
		Status: OutboxPending, NextAttemptAt: now, CreatedAt: now,
	}, nil
}

// sender is the configured sender: the mailer's own when it knows one (Switch), else From.
func (o *Outbox) sender() folio.MailAddress {
	if s, ok := o.Mailer.(interface{ Sender() folio.MailAddress }); ok {
		return s.Sender()
	}
	return o.From
}

func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// Run polls the store every Interval and delivers due items until ctx ends; it returns nil then.
func (o *Outbox) Run(ctx context.Context) error {
	ticker := time.NewTicker(durationOr(o.Interval, DefaultOutboxInterval))
	defer ticker.Stop()
	for {
		if _, err := o.RunOnce(ctx); err != nil && ctx.Err() == nil {
			o.log().Error("mail outbox poll failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// RunOnce claims the due items and attempts each once. It returns how many were sent; err is
// the claim's failure (attempt failures are recorded on the items and logged).
func (o *Outbox) RunOnce(ctx context.Context) (sent int, err error) {
	now := o.now()
	batch := o.Batch
	if batch <= 0 {
		batch = DefaultOutboxBatch
	}
	items, err := o.Store.ClaimOutbox(ctx, o.owner(), now, now.Add(durationOr(o.Lease, DefaultOutboxLease)), batch)
	if err != nil {
		return 0, fmt.Errorf("mail: outbox claim: %w", err)
	}
	for _, item := range items {
		if ctx.Err() != nil {
			break // unattempted items go back when their lease expires
		}
		if o.attempt(ctx, item) == nil {
			sent++
		}
	}
	return sent, nil
}

// attempt sends one leased item and records the outcome. It returns the send error.
func (o *Outbox) attempt(ctx context.Context, item OutboxItem) error {
	log := o.log().With("outbox_id", item.ID, "to", item.Recipients)
	var m folio.MailMessage
	var sendErr error
	if err := json.Unmarshal(item.Payload, &m); err != nil {
		sendErr = &folio.MailError{Permanent: true, Err: fmt.Errorf("undecodable outbox payload: %w", err)}
	} else {
		leaseLeft := item.LeaseUntil.Sub(o.now())
		if item.LeaseUntil.IsZero() {
			leaseLeft = durationOr(o.Lease, DefaultOutboxLease)
		}
		sendCtx, cancel := context.WithTimeout(ctx, max(leaseLeft, time.Second))
		sendErr = o.Mailer.Send(sendCtx, &m)
		cancel()
	}

	// Record the outcome even when ctx was cancelled mid-send (shutdown).
	markCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	now := o.now()
	if sendErr == nil {
		if err := o.Store.MarkOutboxSent(markCtx, item.ID, o.owner(), now); err != nil {
			log.Error("mail outbox: sent but not recorded", "err", err)
		}
		return nil
	}
	attempts := item.Attempts + 1
	maxAttempts := o.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = DefaultOutboxMaxAttempts
	}
	giveUp := folio.IsPermanentMailError(sendErr) || attempts >= maxAttempts
	next := now.Add(o.Backoff(attempts))
	lastError := sendErr.Error()
	if len(lastError) > 1000 {
		lastError = lastError[:1000]
	}
	if err := o.Store.MarkOutboxFailed(markCtx, item.ID, o.owner(), attempts, next, lastError, giveUp); err != nil {
		log.Error("mail outbox: failure not recorded", "err", err, "send_err", sendErr)
		return sendErr
	}
	if giveUp {
		log.Error("mail outbox: gave up", "attempts", attempts, "err", sendErr)
	} else {
		log.Warn("mail outbox: attempt failed, will retry", "attempts", attempts, "next_attempt_at", next, "err", sendErr)
	}
	return sendErr
}
