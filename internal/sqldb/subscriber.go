package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/newsletter"
)

var _ newsletter.Store = (*SubscriberStore)(nil)

const subscriberColumns = `id, email, name, status, source, created_at, confirmed_at, unsubscribe_token, preference`

func scanSubscriber(row interface{ Scan(...any) error }) (*folio.Subscriber, error) {
	var s folio.Subscriber
	var created, confirmed Time
	if err := row.Scan(&s.ID, &s.Email, &s.Name, &s.Status, &s.Source, &created, &confirmed, &s.UnsubscribeToken, &s.Preference); err != nil {
		return nil, err
	}
	s.CreatedAt, s.ConfirmedAt = created.Time, confirmed.Ptr()
	return &s, nil
}

// Subscribe implements newsletter.Store. The insert and the token refresh are each one
// conditional statement, so concurrent requests for one address (on any instance) mail once.
func (s *SubscriberStore) Subscribe(ctx context.Context, sub folio.Subscriber, c newsletter.Confirmation, also func(tx *sql.Tx) error) (bool, error) {
	mailed := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		mailed = false
		res, err := tx.ExecContext(ctx, `INSERT INTO subscribers (id, email, name, source, status, confirm_token_hash,
				confirm_expires_at, confirm_mailed_at, unsubscribe_token, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) ON CONFLICT (email) DO NOTHING`,
			sub.ID, sub.Email, sub.Name, sub.Source, folio.SubscriberPending, c.TokenHash, s.ts(c.ExpiresAt), s.ts(c.MailedAt),
			sub.UnsubscribeToken, s.ts(sub.CreatedAt))
		if err != nil {
			return err
		}
		created := affected(res) == 1
		if !created {
			res, err = tx.ExecContext(ctx, `UPDATE subscribers SET confirm_token_hash = $2, confirm_expires_at = $3,
					confirm_mailed_at = $4, updated_at = $4
				WHERE email = $1 AND status IN ('pending', 'unsubscribed')
					AND (confirm_mailed_at IS NULL OR confirm_mailed_at < $5)`,
				sub.Email, c.TokenHash, s.ts(c.ExpiresAt), s.ts(c.MailedAt), s.ts(c.ResendAfter))
			if err != nil {
				return err
			}
			if affected(res) != 1 {
				return nil
			}
		}
		if err := also(tx); err != nil {
			return err
		}
		mailed = true
		if !created {
			return nil
		}
		return s.Webhooks.EmitTx(ctx, tx, folio.Event{Type: folio.EventSubscriberCreated,
			Data: folio.SubscriberEventData{ID: sub.ID, Email: sub.Email, Name: sub.Name, Status: folio.SubscriberPending}})
	})
	if err != nil {
		return false, wrap("Subscribe", err)
	}
	return mailed, nil
}

// affected is a result's row count (both drivers report it; an error counts as none).
func affected(res sql.Result) int64 {
	n, err := res.RowsAffected()
	if err != nil {
		return 0
	}
	return n
}

// ConfirmSubscriber implements newsletter.Store.
func (s *SubscriberStore) ConfirmSubscriber(ctx context.Context, tokenHash string, now time.Time, also func(tx *sql.Tx, s *folio.Subscriber) error) (*folio.Subscriber, error) {
	var sub *folio.Subscriber
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sub, err = scanSubscriber(tx.QueryRowContext(ctx, `UPDATE subscribers SET status = 'active', confirmed_at = $2,
				confirm_token_hash = NULL, confirm_expires_at = NULL, updated_at = $2
			WHERE confirm_token_hash = $1 AND confirm_expires_at > $2
			RETURNING `+subscriberColumns, tokenHash, s.ts(now)))
		if errors.Is(err, sql.ErrNoRows) {
			return folio.Errorf(folio.ENOTFOUND, "No such confirmation token.")
		}
		if err != nil {
			return err
		}
		if err := also(tx, sub); err != nil {
			return err
		}
		return s.Webhooks.EmitTx(ctx, tx, folio.Event{Type: folio.EventSubscriberConfirmed,
			Data: folio.SubscriberEventData{ID: sub.ID, Email: sub.Email, Name: sub.Name, Status: sub.Status}})
	})
	if folio.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		return nil, wrap("ConfirmSubscriber", err)
	}
	return sub, nil
}

// Subscribers implements newsletter.Store.
func (s *SubscriberStore) Subscribers(ctx context.Context, f folio.SubscriberFilter, page, limit int) ([]folio.Subscriber, int, error) {
	var args Args
	var where []string
	if f.Status != "" {
		where = append(where, `status = `+args.Add(f.Status))
	}
	if f.Q != "" {
		q := args.Add("%" + escapeLike(strings.ToLower(f.Q)) + "%")
		where = append(where, `(email LIKE `+q+` ESCAPE '\' OR LOWER(name) LIKE `+q+` ESCAPE '\')`)
	}
	cond := ""
	if len(where) > 0 {
		cond = ` WHERE ` + strings.Join(where, ` AND `)
	}
	var total int
	if err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM subscribers`+cond, args...).Scan(&total); err != nil {
		return nil, 0, wrap("Subscribers", err)
	}
	rows, err := s.R.QueryContext(ctx, `SELECT `+subscriberColumns+` FROM subscribers`+cond+
		` ORDER BY created_at DESC, id DESC LIMIT `+args.Add(limit)+` OFFSET `+args.Add((page-1)*limit), args...)
	if err != nil {
		return nil, 0, wrap("Subscribers", err)
	}
	defer rows.Close()
	out := []folio.Subscriber{}
	for rows.Next() {
		sub, err := scanSubscriber(rows)
		if err != nil {
			return nil, 0, wrap("Subscribers", err)
		}
		out = append(out, *sub)
	}
	return out, total, rows.Err()
}

// DeleteSubscriber implements newsletter.Store.
func (s *SubscriberStore) DeleteSubscriber(ctx context.Context, id string) error {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM subscribers WHERE id = $1`, id)
		if err != nil {
			return err
		}
		n = affected(res)
		return nil
	})
	if err != nil {
		return wrap("DeleteSubscriber", err)
	}
	if n == 0 {
		return folio.Errorf(folio.ENOTFOUND, "No such subscriber.")
	}
	return nil
}

// Unsubscribe implements newsletter.Store.
func (s *SubscriberStore) Unsubscribe(ctx context.Context, token string, now time.Time) (*folio.Subscriber, error) {
	var sub *folio.Subscriber
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		sub, err = scanSubscriber(tx.QueryRowContext(ctx, `UPDATE subscribers SET status = 'unsubscribed', updated_at = $2
			WHERE unsubscribe_token = $1 AND status IN ('pending', 'active') RETURNING `+subscriberColumns, token, s.ts(now)))
		if errors.Is(err, sql.ErrNoRows) {
			sub, err = scanSubscriber(tx.QueryRowContext(ctx, `SELECT `+subscriberColumns+` FROM subscribers WHERE unsubscribe_token = $1`, token))
		}
		if errors.Is(err, sql.ErrNoRows) {
			return folio.Errorf(folio.ENOTFOUND, "No such unsubscribe token.")
		}
		return err
	})
	if folio.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		return nil, wrap("Unsubscribe", err)
	}
	return sub, nil
}

// ImportSubscribers implements newsletter.Store.
func (s *SubscriberStore) ImportSubscribers(ctx context.Context, subs []folio.Subscriber) (int, error) {
	n := 0
	err := s.tx(ctx, func(tx *sql.Tx) error {
		n = 0
		for _, sub := range subs {
			res, err := tx.ExecContext(ctx, `INSERT INTO subscribers (id, email, name, source, status, unsubscribe_token,
					created_at, confirmed_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $7) ON CONFLICT (email) DO NOTHING`,
				sub.ID, sub.Email, sub.Name, sub.Source, sub.Status, sub.UnsubscribeToken, s.ts(sub.CreatedAt), s.nts(sub.ConfirmedAt))
			if err != nil {
				return err
			}
			n += int(affected(res))
		}
		return nil
	})
	if err != nil {
		return 0, wrap("ImportSubscribers", err)
	}
	return n, nil
}
