package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/mail"
)

// The outbox store implements mail.OutboxStore on both engines.
var _ mail.OutboxStore = (*OutboxStore)(nil)

const outboxColumns = `id, payload, recipients, subject, status, attempts, next_attempt_at, lease_owner, lease_until, last_error, created_at, sent_at`

func scanOutbox(row interface{ Scan(...any) error }) (mail.OutboxItem, error) {
	var it mail.OutboxItem
	var owner sql.NullString
	var next, until, created, sent Time
	err := row.Scan(&it.ID, &it.Payload, &it.Recipients, &it.Subject, &it.Status, &it.Attempts, &next, &owner, &until,
		&it.LastError, &created, &sent)
	it.LeaseOwner = owner.String
	it.NextAttemptAt, it.LeaseUntil, it.CreatedAt, it.SentAt = next.Time, until.Time, created.Time, sent.Time
	return it, err
}

func (db *DB) outboxInsert(ctx context.Context, ex interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, it mail.OutboxItem) error {
	var owner any
	if it.LeaseOwner != "" {
		owner = it.LeaseOwner
	}
	_, err := ex.ExecContext(ctx, `INSERT INTO outbox (`+outboxColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		it.ID, it.Payload, it.Recipients, it.Subject, it.Status, it.Attempts, db.ts(it.NextAttemptAt), owner,
		db.nts(&it.LeaseUntil), it.LastError, db.ts(it.CreatedAt), db.nts(&it.SentAt))
	if isUniqueViolation(err) {
		return folio.Errorf(folio.ECONFLICT, "Outbox item %s exists.", it.ID)
	}
	return err
}

// InsertOutbox implements mail.OutboxStore.
func (s *OutboxStore) InsertOutbox(ctx context.Context, it mail.OutboxItem) error {
	if err := s.outboxInsert(ctx, s.W, it); err != nil {
		return wrap("InsertOutbox", err)
	}
	return nil
}

// InsertOutboxTx stores an outbox item inside the caller's transaction.
func (s *OutboxStore) InsertOutboxTx(ctx context.Context, tx *sql.Tx, it mail.OutboxItem) error {
	if err := s.outboxInsert(ctx, tx, it); err != nil {
		return wrap("InsertOutboxTx", err)
	}
	return nil
}

// ClaimOutbox implements mail.OutboxStore. The lease condition is repeated outside the
// sub-select: on PostgreSQL a claimer that waited for a concurrent claim re-checks it against
// the row as that claim left it, so a row is never leased twice.
func (s *OutboxStore) ClaimOutbox(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]mail.OutboxItem, error) {
	lock := ""
	if s.Dialect == Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	// The due rows are picked once in a CTE: PostgreSQL may evaluate a LIMIT sub-select inside
	// IN more than once, which would lease more rows than asked for.
	rows, err := s.W.QueryContext(ctx, `WITH due AS (SELECT id FROM outbox WHERE status IN ('pending', 'failed')
			AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until < $3) ORDER BY next_attempt_at, id LIMIT $4`+lock+`)
		UPDATE outbox SET lease_owner = $1, lease_until = $2
		WHERE id IN (SELECT id FROM due) AND status IN ('pending', 'failed') AND (lease_until IS NULL OR lease_until < $3)
		RETURNING `+outboxColumns, owner, s.ts(leaseUntil), s.ts(now), limit)
	if err != nil {
		return nil, wrap("ClaimOutbox", err)
	}
	defer rows.Close()
	var out []mail.OutboxItem
	for rows.Next() {
		it, err := scanOutbox(rows)
		if err != nil {
			return nil, wrap("ClaimOutbox", err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("ClaimOutbox", err)
	}
	// RETURNING has no order; deliver oldest first.
	sort.Slice(out, func(i, j int) bool {
		if !out[i].NextAttemptAt.Equal(out[j].NextAttemptAt) {
			return out[i].NextAttemptAt.Before(out[j].NextAttemptAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// MarkOutboxSent implements mail.OutboxStore.
func (s *OutboxStore) MarkOutboxSent(ctx context.Context, id, owner string, now time.Time) error {
	res, err := s.W.ExecContext(ctx, `UPDATE outbox SET status = 'sent', sent_at = $1, lease_owner = NULL, lease_until = NULL
		WHERE id = $2 AND lease_owner = $3`, s.ts(now), id, owner)
	return leaseResult("sqldb.MarkOutboxSent", res, err)
}

// MarkOutboxFailed implements mail.OutboxStore.
func (s *OutboxStore) MarkOutboxFailed(ctx context.Context, id, owner string, attempts int, nextAttempt time.Time, lastError string, giveUp bool) error {
	status := mail.OutboxFailed
	if giveUp {
		status = mail.OutboxDead
	}
	res, err := s.W.ExecContext(ctx, `UPDATE outbox SET status = $1, attempts = $2, next_attempt_at = $3, last_error = $4,
		lease_owner = NULL, lease_until = NULL WHERE id = $5 AND lease_owner = $6`,
		status, attempts, s.ts(nextAttempt), lastError, id, owner)
	return leaseResult("sqldb.MarkOutboxFailed", res, err)
}

func leaseResult(op string, res sql.Result, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return mail.ErrOutboxLeaseLost
	}
	return nil
}

// GetOutbox returns one outbox item, or ENOTFOUND.
func (s *OutboxStore) GetOutbox(ctx context.Context, id string) (mail.OutboxItem, error) {
	it, err := scanOutbox(s.R.QueryRowContext(ctx, `SELECT `+outboxColumns+` FROM outbox WHERE id = $1`, id))
	if err == sql.ErrNoRows {
		return it, notFound("Outbox item", id)
	}
	if err != nil {
		return it, wrap("GetOutbox", err)
	}
	return it, nil
}

// OutboxEntries lists outbox items, newest first; status filters when not empty.
func (s *OutboxStore) OutboxEntries(ctx context.Context, status string, page, limit int) ([]folio.OutboxEntry, int, error) {
	cond, args := "", []any{}
	if status != "" {
		cond, args = " WHERE status = $1", append(args, status)
	}
	var total int
	if err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox`+cond, args...).Scan(&total); err != nil {
		return nil, 0, wrap("OutboxEntries", err)
	}
	n := len(args)
	rows, err := s.R.QueryContext(ctx, `SELECT `+outboxColumns+` FROM outbox`+cond+
		fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, n+1, n+2), append(args, limit, (page-1)*limit)...)
	if err != nil {
		return nil, 0, wrap("OutboxEntries", err)
	}
	defer rows.Close()
	out := []folio.OutboxEntry{}
	for rows.Next() {
		it, err := scanOutbox(rows)
		if err != nil {
			return nil, 0, wrap("OutboxEntries", err)
		}
		out = append(out, outboxEntry(it))
	}
	return out, total, rows.Err()
}

func outboxEntry(it mail.OutboxItem) folio.OutboxEntry {
	e := folio.OutboxEntry{ID: it.ID, Recipients: it.Recipients, Subject: it.Subject, Status: it.Status, Attempts: it.Attempts,
		LastError: it.LastError, CreatedAt: it.CreatedAt}
	if it.Status == mail.OutboxPending || it.Status == mail.OutboxFailed {
		t := it.NextAttemptAt
		e.NextAttemptAt = &t
	}
	if !it.SentAt.IsZero() {
		t := it.SentAt
		e.SentAt = &t
	}
	return e
}
