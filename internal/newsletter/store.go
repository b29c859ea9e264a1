package newsletter

import (
	"context"
	"database/sql"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/mail"
)

// Store keeps subscribers (*sqldb.SubscriberStore does). newslettertest.TestStore checks an
// implementation.
type Store interface {
	// Subscribe records a request to subscribe s (Email in lower case, Status pending,
	// UnsubscribeToken set). A new
	// address is stored pending with c's token and subscriber.created is queued; a pending or
	// unsubscribed one whose last confirmation mail went out before c.ResendAfter gets c's token
	// instead (its name and source kept). In both cases also runs in the same transaction (it
	// queues the confirmation mail) and mailed is true. Any other address (active, bounced,
	// complained, or mailed too recently) is left as it is: mailed is false and also does not run.
	// Concurrent calls for one address mail at most once.
	Subscribe(ctx context.Context, s folio.Subscriber, c Confirmation, also func(tx *sql.Tx) error) (mailed bool, err error)
	// ConfirmSubscriber makes active the subscriber whose unexpired confirmation token hashes to
	// tokenHash, stamps ConfirmedAt = now, drops the token (it confirms once), queues
	// subscriber.confirmed and runs also with the confirmed subscriber, all in one transaction.
	// No such token: ENOTFOUND.
	ConfirmSubscriber(ctx context.Context, tokenHash string, now time.Time, also func(tx *sql.Tx, s *folio.Subscriber) error) (*folio.Subscriber, error)
	// Unsubscribe makes unsubscribed the pending or active subscriber whose UnsubscribeToken is
	// token and returns it; a subscriber in another status is returned as it is. No such token:
	// ENOTFOUND.
	Unsubscribe(ctx context.Context, token string, now time.Time) (*folio.Subscriber, error)
	// Subscribers lists the subscribers f selects, newest first, and how many there are.
	Subscribers(ctx context.Context, f folio.SubscriberFilter, page, limit int) ([]folio.Subscriber, int, error)
	// ImportSubscribers inserts subs (Status pending or active, UnsubscribeToken set) whose
	// addresses are not on the list yet, in one transaction, and returns how many it inserted:
	// an address already there keeps its row (an unsubscribe stays honoured).
	ImportSubscribers(ctx context.Context, subs []folio.Subscriber) (int, error)
	// DeleteSubscriber erases the subscriber id (ENOTFOUND: none).
	DeleteSubscriber(ctx context.Context, id string) error
	// EraseSubscriber deletes the subscriber id and, in the same transaction, keeps hash(email)
	// of its address among the erased ones (ENOTFOUND: none).
	EraseSubscriber(ctx context.Context, id string, hash func(email string) string, now time.Time) error
	// ErasedAmong reports which of hashes are kept of erased addresses.
	ErasedAmong(ctx context.Context, hashes []string) (map[string]bool, error)
	// ForgetErased drops an erased address's hash inside tx (its owner subscribed again).
	ForgetErased(ctx context.Context, tx *sql.Tx, hash string) error
	// MarkSubscriber sets the status (bounced, complained) of the subscriber with address email;
	// an unknown address is no error.
	MarkSubscriber(ctx context.Context, email, status string, now time.Time) error
	// SubscriberByToken returns the subscriber whose UnsubscribeToken is token (ENOTFOUND: none).
	SubscriberByToken(ctx context.Context, token string) (*folio.Subscriber, error)
	// SetPreference stores the preference of the subscriber whose UnsubscribeToken is token; with
	// reactivate, an unsubscribed subscriber who had confirmed is active again (they hold a link
	// of their own mailbox). It returns the subscriber as it now is (ENOTFOUND: none).
	SetPreference(ctx context.Context, token, preference string, reactivate bool, now time.Time) (*folio.Subscriber, error)
}

// Confirmation is the double opt-in token a subscribe request stores.
type Confirmation struct {
	// TokenHash is TokenHash(token): the token itself is only in the mail.
	TokenHash string
	// ExpiresAt is when the token stops confirming.
	ExpiresAt time.Time
	// MailedAt is when its mail is queued; ResendAfter is the earliest earlier mail that still
	// holds a new one back.
	MailedAt, ResendAfter time.Time
}

// MailQueue turns a message into an outbox item without storing it, or stores it
// (*mail.Outbox does).
type MailQueue interface {
	NewItem(m *folio.MailMessage) (mail.OutboxItem, error)
	Enqueue(ctx context.Context, m *folio.MailMessage) (string, error)
}

// OutboxTx stores an outbox item inside a transaction (*sqldb.OutboxStore does).
type OutboxTx interface {
	InsertOutboxTx(ctx context.Context, tx *sql.Tx, item mail.OutboxItem) error
}
