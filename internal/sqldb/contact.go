package sqldb

import (
	"context"
	"database/sql"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/mail"
)

// InsertContactMessage stores a contact message and its outbox item in one transaction, so
// neither exists without the other.
func (s *ContactStore) InsertContactMessage(ctx context.Context, m folio.ContactMessage, item mail.OutboxItem) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.outboxInsert(ctx, tx, item); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO contact_messages (id, name, email, subject, message, outbox_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, m.ID, m.Name, m.Email, m.Subject, m.Message, item.ID, s.ts(m.CreatedAt))
		if err != nil {
			return err
		}
		return s.Webhooks.EmitTx(ctx, tx, folio.Event{Type: folio.EventContactReceived, Data: folio.ContactEventData{ID: m.ID, Name: m.Name,
			Email: m.Email, Subject: m.Subject, Message: m.Message, CreatedAt: m.CreatedAt.UTC()}})
	})
	if err != nil {
		return wrap("InsertContactMessage", err)
	}
	return nil
}

// ContactMessages lists stored messages, newest first, with their delivery status.
func (s *ContactStore) ContactMessages(ctx context.Context, page, limit int) ([]folio.ContactMessage, int, error) {
	var total int
	if err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM contact_messages`).Scan(&total); err != nil {
		return nil, 0, wrap("ContactMessages", err)
	}
	rows, err := s.R.QueryContext(ctx, `SELECT c.id, c.name, c.email, c.subject, c.message, c.created_at,
			o.id, o.payload, o.recipients, o.subject, o.status, o.attempts, o.next_attempt_at, o.lease_owner, o.lease_until,
			o.last_error, o.created_at, o.sent_at
		FROM contact_messages c JOIN outbox o ON o.id = c.outbox_id
		ORDER BY c.created_at DESC, c.id DESC LIMIT $1 OFFSET $2`, limit, (page-1)*limit)
	if err != nil {
		return nil, 0, wrap("ContactMessages", err)
	}
	defer rows.Close()
	out := []folio.ContactMessage{}
	for rows.Next() {
		var m folio.ContactMessage
		var created Time
		var it mail.OutboxItem
		var owner sql.NullString
		var next, until, ocreated, sent Time
		if err := rows.Scan(&m.ID, &m.Name, &m.Email, &m.Subject, &m.Message, &created,
			&it.ID, &it.Payload, &it.Recipients, &it.Subject, &it.Status, &it.Attempts, &next, &owner, &until,
			&it.LastError, &ocreated, &sent); err != nil {
			return nil, 0, wrap("ContactMessages", err)
		}
		it.NextAttemptAt, it.CreatedAt, it.SentAt = next.Time, ocreated.Time, sent.Time
		m.CreatedAt = created.Time
		m.Delivery = outboxEntry(it)
		out = append(out, m)
	}
	return out, total, rows.Err()
}
