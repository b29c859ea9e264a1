package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/newsletter"
)

// The newsletter's sending (internal/newsletter/send.go): a post's newsletter option, its
// issue queued by the transaction that publishes it, and the send rows, one per subscriber per
// issue, leased by the instance that mails them.

var _ newsletter.SendStore = (*SubscriberStore)(nil)

// setNewsletterSend stores a post's newsletter.send inside the transaction of its write. Turned
// on for a post that is already public, it queues the post's mailing at once (once, as a
// publication does): the owner ticked the box after publishing.
func (db *DB) setNewsletterSend(ctx context.Context, tx *sql.Tx, p *folio.Post, send bool) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO post_newsletters (post_id, send, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (post_id) DO UPDATE SET send = excluded.send, updated_at = excluded.updated_at`, p.ID, boolInt(send), db.ts(db.Now())); err != nil {
		return err
	}
	if !send || !p.Public() {
		return nil
	}
	return db.queuePostIssue(ctx, tx, p.ID)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// queueNewsletterIssue queues, in the transaction that publishes a post whose newsletter.send
// is on, its issue and the job that mails it.
func (db *DB) queueNewsletterIssue(ctx context.Context, tx *sql.Tx, ev folio.Event) error {
	d, ok := ev.Data.(folio.PostEventData)
	if !ok || ev.Type != folio.EventPostPublished {
		return nil
	}
	return db.queuePostIssue(ctx, tx, d.ID)
}

// queuePostIssue queues the mailing of a post whose send is on — once per post: queued_at is set
// the first time, so publishing again (after an unpublish) mails nothing more.
func (db *DB) queuePostIssue(ctx context.Context, tx *sql.Tx, postID string) error {
	now := db.Now()
	res, err := tx.ExecContext(ctx, `UPDATE post_newsletters SET queued_at = $2 WHERE post_id = $1 AND send = 1 AND queued_at IS NULL`,
		postID, db.ts(now))
	if err != nil || affected(res) != 1 {
		return err
	}
	issue := newsletter.PostIssueID(postID)
	if _, err := tx.ExecContext(ctx, `INSERT INTO newsletter_issues (id, kind, post_id, created_at) VALUES ($1, 'post', $2, $3)
		ON CONFLICT (id) DO NOTHING`, issue, postID, db.ts(now)); err != nil {
		return err
	}
	return db.enqueueIssueJob(ctx, tx, issue, now)
}

func (db *DB) enqueueIssueJob(ctx context.Context, tx *sql.Tx, issue string, at time.Time) error {
	pl, err := json.Marshal(folio.NewsletterIssueJobPayload{Issue: issue})
	if err != nil {
		return err
	}
	return db.enqueueJob(ctx, tx, folio.JobNewsletterIssue, folio.JobNewsletterIssue+":"+issue, string(pl), at)
}

const issueColumns = `id, kind, post_id, period_start, period_end, total, fanned_out_at`

func scanIssue(row interface{ Scan(...any) error }) (*newsletter.Issue, error) {
	var is newsletter.Issue
	var start, end, fanned Time
	if err := row.Scan(&is.ID, &is.Kind, &is.PostID, &start, &end, &is.Total, &fanned); err != nil {
		return nil, err
	}
	is.PeriodStart, is.PeriodEnd, is.FannedOut = start.Time, end.Time, !fanned.IsZero()
	return &is, nil
}

// Issue implements newsletter.SendStore.
func (s *SubscriberStore) Issue(ctx context.Context, id string) (*newsletter.Issue, error) {
	is, err := scanIssue(s.R.QueryRowContext(ctx, `SELECT `+issueColumns+` FROM newsletter_issues WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, folio.Errorf(folio.ENOTFOUND, "No such newsletter issue.")
	}
	if err != nil {
		return nil, wrap("Issue", err)
	}
	return is, nil
}

// FanOut implements newsletter.SendStore: one INSERT … SELECT writes every row, in the
// transaction that marks the issue fanned out, so a second run (a retried job, another
// instance) writes none.
func (s *SubscriberStore) FanOut(ctx context.Context, id, preference string, now time.Time) (*newsletter.Issue, error) {
	var is *newsletter.Issue
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		is, err = scanIssue(tx.QueryRowContext(ctx, `SELECT `+issueColumns+` FROM newsletter_issues WHERE id = $1`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return folio.Errorf(folio.ENOTFOUND, "No such newsletter issue.")
		}
		if err != nil || is.FannedOut {
			return err
		}
		// The conditional update claims the fan-out: a racing transaction waits on the row (on
		// PostgreSQL) and then finds it done.
		res, err := tx.ExecContext(ctx, `UPDATE newsletter_issues SET fanned_out_at = $2 WHERE id = $1 AND fanned_out_at IS NULL`, id, s.ts(now))
		if err != nil {
			return err
		}
		if affected(res) != 1 {
			is, err = scanIssue(tx.QueryRowContext(ctx, `SELECT `+issueColumns+` FROM newsletter_issues WHERE id = $1`, id))
			return err
		}
		res, err = tx.ExecContext(ctx, `INSERT INTO newsletter_sends (issue, subscriber_id, status, next_attempt_at, created_at)
			SELECT $1, id, 'pending', $2, $2 FROM subscribers WHERE status = 'active' AND preference = $3
			ON CONFLICT (issue, subscriber_id) DO NOTHING`, id, s.ts(now), preference)
		if err != nil {
			return err
		}
		is.Total, is.FannedOut = int(affected(res)), true
		_, err = tx.ExecContext(ctx, `UPDATE newsletter_issues SET total = $2 WHERE id = $1`, id, is.Total)
		return err
	})
	if folio.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		return nil, wrap("FanOut", err)
	}
	return is, nil
}

// ClaimSends implements newsletter.SendStore, as ClaimOutbox does: the due rows are picked in a
// CTE (locked and skipped by other claimers on PostgreSQL; SQLite has one writer), and the UPDATE
// repeats the condition, so a row goes to one claimer.
func (s *SubscriberStore) ClaimSends(ctx context.Context, issue, owner string, now, leaseUntil time.Time, limit int) ([]newsletter.Send, error) {
	lock := ""
	if s.Dialect == Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	const due = `issue = $1 AND ((status = 'pending' AND next_attempt_at <= $3) OR (status = 'sending' AND lease_until < $3))`
	rows, err := s.W.QueryContext(ctx, `WITH due AS (SELECT subscriber_id FROM newsletter_sends WHERE `+due+`
			ORDER BY next_attempt_at, subscriber_id LIMIT $5`+lock+`)
		UPDATE newsletter_sends SET status = 'sending', lease_owner = $2, lease_until = $4, attempts = attempts + 1
		WHERE subscriber_id IN (SELECT subscriber_id FROM due) AND `+due+`
		RETURNING subscriber_id, attempts`, issue, owner, s.ts(now), s.ts(leaseUntil), limit)
	if err != nil {
		return nil, wrap("ClaimSends", err)
	}
	var out []newsletter.Send
	for rows.Next() {
		sd := newsletter.Send{Issue: issue}
		if err := rows.Scan(&sd.SubscriberID, &sd.Attempts); err != nil {
			rows.Close()
			return nil, wrap("ClaimSends", err)
		}
		out = append(out, sd)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap("ClaimSends", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SubscriberID < out[j].SubscriberID })
	// The subscribers as they are now, in one query: one who left (or was erased) is skipped.
	if len(out) == 0 {
		return out, nil
	}
	ids := make([]string, len(out))
	for i := range out {
		ids[i], out[i].Status = out[i].SubscriberID, "erased"
	}
	var args Args
	list := args.AddList(ids)
	subs, err := s.R.QueryContext(ctx, `SELECT id, email, name, status, unsubscribe_token FROM subscribers WHERE id IN (`+list+`)`, args...)
	if err != nil {
		return nil, wrap("ClaimSends", err)
	}
	defer subs.Close()
	for subs.Next() {
		var id string
		var sd newsletter.Send
		if err := subs.Scan(&id, &sd.Email, &sd.Name, &sd.Status, &sd.UnsubscribeToken); err != nil {
			return nil, wrap("ClaimSends", err)
		}
		i := sort.Search(len(out), func(i int) bool { return out[i].SubscriberID >= id })
		if i < len(out) && out[i].SubscriberID == id {
			out[i].Email, out[i].Name, out[i].Status, out[i].UnsubscribeToken = sd.Email, sd.Name, sd.Status, sd.UnsubscribeToken
		}
	}
	if err := subs.Err(); err != nil {
		return nil, wrap("ClaimSends", err)
	}
	return out, nil
}

// FinishSend implements newsletter.SendStore. Most outcomes are one UPDATE, in a transaction
// of its own: the window in which a mail the server has is not yet recorded as sent is as
// short as a commit.
func (s *SubscriberStore) FinishSend(ctx context.Context, issue, subscriberID, owner string, out newsletter.SendOutcome) error {
	finish := func(ctx context.Context, x interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
	}) (bool, error) {
		var sentAt, next any
		if out.Status == newsletter.SendSent {
			sentAt = s.ts(out.At)
		}
		if out.Status == newsletter.SendPending {
			next = s.ts(out.RetryAt)
		}
		res, err := x.ExecContext(ctx, `UPDATE newsletter_sends SET status = $4, sent_at = $5,
				next_attempt_at = COALESCE($6, next_attempt_at), last_error = $7, lease_owner = NULL, lease_until = NULL
			WHERE issue = $1 AND subscriber_id = $2 AND status = 'sending' AND lease_owner = $3`,
			issue, subscriberID, owner, out.Status, sentAt, next, out.Error)
		if err != nil {
			return false, err
		}
		return affected(res) == 1, nil
	}
	held := false
	var err error
	if !out.Bounced {
		held, err = finish(ctx, s.W)
	} else {
		err = s.tx(ctx, func(tx *sql.Tx) error {
			var err error
			if held, err = finish(ctx, tx); err != nil || !held {
				return err
			}
			return s.setStatusTx(ctx, tx, subscriberID, folio.SubscriberBounced, out.At)
		})
	}
	if err != nil {
		return wrap("FinishSend", err)
	}
	if !held {
		return newsletter.ErrSendLeaseLost
	}
	return nil
}

// setStatusTx sets a subscriber's status (bounced, complained) unless it is already that.
func (s *SubscriberStore) setStatusTx(ctx context.Context, tx *sql.Tx, id, status string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE subscribers SET status = $2, updated_at = $3 WHERE id = $1 AND status <> $2`, id, status, s.ts(now))
	return err
}

// IssueRemaining implements newsletter.SendStore.
func (s *SubscriberStore) IssueRemaining(ctx context.Context, issue string) (int, time.Time, error) {
	var n int
	var next Time
	err := s.R.QueryRowContext(ctx, `SELECT COUNT(*), MIN(CASE WHEN status = 'sending' THEN lease_until ELSE next_attempt_at END)
		FROM newsletter_sends WHERE issue = $1 AND status IN ('pending', 'sending')`, issue).Scan(&n, &next)
	if err != nil {
		return 0, time.Time{}, wrap("IssueRemaining", err)
	}
	return n, next.Time, nil
}

// NewsletterProgress implements newsletter.SendStore.
func (s *SubscriberStore) NewsletterProgress(ctx context.Context, postID string) (folio.NewsletterProgress, error) {
	p := folio.NewsletterProgress{Status: folio.NewsletterNone}
	var send int
	var queued Time
	err := s.R.QueryRowContext(ctx, `SELECT send, queued_at FROM post_newsletters WHERE post_id = $1`, postID).Scan(&send, &queued)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return p, wrap("NewsletterProgress", err)
	}
	p.Send = send == 1
	if queued.IsZero() {
		return p, nil
	}
	p.Status = folio.NewsletterQueued
	issue := newsletter.PostIssueID(postID)
	var fanned Time
	if err := s.R.QueryRowContext(ctx, `SELECT total, fanned_out_at FROM newsletter_issues WHERE id = $1`, issue).Scan(&p.Total, &fanned); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return p, nil
		}
		return p, wrap("NewsletterProgress", err)
	}
	rows, err := s.R.QueryContext(ctx, `SELECT status, COUNT(*) FROM newsletter_sends WHERE issue = $1 GROUP BY status`, issue)
	if err != nil {
		return p, wrap("NewsletterProgress", err)
	}
	defer rows.Close()
	left := 0
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return p, wrap("NewsletterProgress", err)
		}
		switch st {
		case newsletter.SendSent:
			p.Sent = n
		case newsletter.SendFailed:
			p.Failed = n
		case newsletter.SendSkipped:
			p.Skipped = n
		default:
			left += n
		}
	}
	if err := rows.Err(); err != nil {
		return p, wrap("NewsletterProgress", err)
	}
	switch {
	case fanned.IsZero():
	case left == 0:
		p.Status = folio.NewsletterSent
	case p.Sent+p.Failed+p.Skipped > 0:
		p.Status = folio.NewsletterSending
	}
	return p, nil
}

// CreateDigestIssue implements newsletter.SendStore.
func (s *SubscriberStore) CreateDigestIssue(ctx context.Context, id string, start, end, now time.Time) (bool, error) {
	created := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO newsletter_issues (id, kind, period_start, period_end, created_at)
			VALUES ($1, 'digest', $2, $3, $4) ON CONFLICT (id) DO NOTHING`, id, s.ts(start), s.ts(end), s.ts(now))
		if err != nil || affected(res) != 1 {
			return err
		}
		created = true
		return s.enqueueIssueJob(ctx, tx, id, now)
	})
	if err != nil {
		return false, wrap("CreateDigestIssue", err)
	}
	return created, nil
}

// PublishedPostIDs implements newsletter.SendStore.
func (s *SubscriberStore) PublishedPostIDs(ctx context.Context, start, end time.Time) ([]string, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT id FROM posts WHERE status = 'published' AND archived_at IS NULL
		AND published_at >= $1 AND published_at < $2 ORDER BY published_at, id`, s.ts(start), s.ts(end))
	if err != nil {
		return nil, wrap("PublishedPostIDs", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, wrap("PublishedPostIDs", err)
		}
		out = append(out, id)
	}
	return out, wrapIf("PublishedPostIDs", rows.Err())
}
