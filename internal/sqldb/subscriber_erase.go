package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// Erasure, preferences and the provider's bounce and complaint events of subscribers.

// EraseSubscriber implements newsletter.Store.
func (s *SubscriberStore) EraseSubscriber(ctx context.Context, id string, hash func(email string) string, now time.Time) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var email string
		err := tx.QueryRowContext(ctx, `DELETE FROM subscribers WHERE id = $1 RETURNING email`, id).Scan(&email)
		if errors.Is(err, sql.ErrNoRows) {
			return folio.Errorf(folio.ENOTFOUND, "No such subscriber.")
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO erased_subscribers (email_hash, erased_at) VALUES ($1, $2)
			ON CONFLICT (email_hash) DO UPDATE SET erased_at = excluded.erased_at`, hash(email), s.ts(now))
		return err
	})
	if folio.IsNotFound(err) {
		return err
	}
	return wrapIf("EraseSubscriber", err)
}

// ErasedAmong implements newsletter.Store.
func (s *SubscriberStore) ErasedAmong(ctx context.Context, hashes []string) (map[string]bool, error) {
	out := map[string]bool{}
	const chunk = 500
	for start := 0; start < len(hashes); start += chunk {
		part := hashes[start:min(start+chunk, len(hashes))]
		var args Args
		marks := make([]string, len(part))
		for i, h := range part {
			marks[i] = args.Add(h)
		}
		rows, err := s.R.QueryContext(ctx, `SELECT email_hash FROM erased_subscribers WHERE email_hash IN (`+strings.Join(marks, ", ")+`)`, args...)
		if err != nil {
			return nil, wrap("ErasedAmong", err)
		}
		for rows.Next() {
			var h string
			if err := rows.Scan(&h); err != nil {
				rows.Close()
				return nil, wrap("ErasedAmong", err)
			}
			out[h] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, wrap("ErasedAmong", err)
		}
	}
	return out, nil
}

// ForgetErased implements newsletter.Store.
func (s *SubscriberStore) ForgetErased(ctx context.Context, tx *sql.Tx, hash string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM erased_subscribers WHERE email_hash = $1`, hash)
	return err
}

// MarkSubscriber implements newsletter.Store.
func (s *SubscriberStore) MarkSubscriber(ctx context.Context, email, status string, now time.Time) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE subscribers SET status = $2, updated_at = $3 WHERE email = $1 AND status <> $2`,
			strings.ToLower(email), status, s.ts(now))
		return err
	})
	return wrapIf("MarkSubscriber", err)
}

// SubscriberByToken implements newsletter.Store.
func (s *SubscriberStore) SubscriberByToken(ctx context.Context, token string) (*folio.Subscriber, error) {
	sub, err := scanSubscriber(s.R.QueryRowContext(ctx, `SELECT `+subscriberColumns+` FROM subscribers WHERE unsubscribe_token = $1`, token))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, folio.Errorf(folio.ENOTFOUND, "No such unsubscribe token.")
	}
	if err != nil {
		return nil, wrap("SubscriberByToken", err)
	}
	return sub, nil
}

// SetPreference implements newsletter.Store.
func (s *SubscriberStore) SetPreference(ctx context.Context, token, preference string, reactivate bool, now time.Time) (*folio.Subscriber, error) {
	var sub *folio.Subscriber
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sub, err = scanSubscriber(tx.QueryRowContext(ctx, `UPDATE subscribers SET preference = $2, updated_at = $3,
				status = CASE WHEN $4 = 1 AND status = 'unsubscribed' AND confirmed_at IS NOT NULL THEN 'active' ELSE status END
			WHERE unsubscribe_token = $1 RETURNING `+subscriberColumns, token, preference, s.ts(now), boolInt(reactivate)))
		if errors.Is(err, sql.ErrNoRows) {
			return folio.Errorf(folio.ENOTFOUND, "No such unsubscribe token.")
		}
		return err
	})
	if folio.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		return nil, wrap("SetPreference", err)
	}
	return sub, nil
}
