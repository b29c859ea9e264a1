package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/foliohq/folio"
)

// actorKeyID is the one row of fediverse_keys.
const actorKeyID = "actor"

// ActorKey returns the site actor's stored key pair, ENOTFOUND when none was made yet.
func (s *FediverseStore) ActorKey(ctx context.Context) (folio.ActorKey, error) {
	var k folio.ActorKey
	var created Time
	err := s.R.QueryRowContext(ctx, `SELECT private_pem, public_pem, created_at FROM fediverse_keys WHERE id = $1`, actorKeyID).
		Scan(&k.SealedPrivate, &k.PublicPEM, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return k, notFound("Actor key", actorKeyID)
	}
	if err != nil {
		return k, wrap("ActorKey", err)
	}
	k.CreatedAt = created.Time
	return k, nil
}

// CreateActorKey stores k unless a key exists, and returns the stored one: of instances
// creating it at once, the first insert wins and every instance uses it.
func (s *FediverseStore) CreateActorKey(ctx context.Context, k folio.ActorKey) (folio.ActorKey, error) {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO fediverse_keys (id, private_pem, public_pem, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (id) DO NOTHING`, actorKeyID, k.SealedPrivate, k.PublicPEM, s.ts(k.CreatedAt))
		return err
	})
	if err != nil {
		return k, wrap("CreateActorKey", err)
	}
	return s.ActorKey(ctx)
}

// AddFollower stores a follower, replacing the inboxes of one that follows already.
func (s *FediverseStore) AddFollower(ctx context.Context, f folio.Follower) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO fediverse_followers (actor_id, inbox, shared_inbox, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (actor_id) DO UPDATE SET inbox = excluded.inbox, shared_inbox = excluded.shared_inbox`,
			f.ActorID, f.Inbox, f.SharedInbox, s.ts(f.CreatedAt))
		return err
	})
	return wrapIf("AddFollower", err)
}

// RemoveFollower removes an actor's follow and reports whether there was one.
func (s *FediverseStore) RemoveFollower(ctx context.Context, actorID string) (bool, error) {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM fediverse_followers WHERE actor_id = $1`, actorID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, wrapIf("RemoveFollower", err)
}

// FollowerCount counts the followers.
func (s *FediverseStore) FollowerCount(ctx context.Context) (int, error) {
	var n int
	err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM fediverse_followers`).Scan(&n)
	return n, wrapIf("FollowerCount", err)
}

// Followers lists one page of followers, oldest first, and the total.
func (s *FediverseStore) Followers(ctx context.Context, page, limit int) ([]folio.Follower, int, error) {
	total, err := s.FollowerCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.R.QueryContext(ctx, `SELECT actor_id, inbox, shared_inbox, created_at FROM fediverse_followers
		ORDER BY created_at, actor_id LIMIT $1 OFFSET $2`, limit, (page-1)*limit)
	if err != nil {
		return nil, 0, wrap("Followers", err)
	}
	defer rows.Close()
	out := []folio.Follower{}
	for rows.Next() {
		var f folio.Follower
		var created Time
		if err := rows.Scan(&f.ActorID, &f.Inbox, &f.SharedInbox, &created); err != nil {
			return nil, 0, wrap("Followers", err)
		}
		f.CreatedAt = created.Time
		out = append(out, f)
	}
	return out, total, wrapIf("Followers", rows.Err())
}

// DeliveryInboxes lists each inbox a delivery to every follower goes to, once.
func (s *FediverseStore) DeliveryInboxes(ctx context.Context) ([]string, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT DISTINCT CASE WHEN shared_inbox <> '' THEN shared_inbox ELSE inbox END AS target
		FROM fediverse_followers ORDER BY target`)
	if err != nil {
		return nil, wrap("DeliveryInboxes", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var in string
		if err := rows.Scan(&in); err != nil {
			return nil, wrap("DeliveryInboxes", err)
		}
		out = append(out, in)
	}
	return out, wrapIf("DeliveryInboxes", rows.Err())
}

// queuePostFanOut queues, for a post event, its fan-out to the fediverse followers and, for a
// publication, the Webmentions of its links (internal/fediverse, internal/webmention), in the
// transaction of the write that caused it; the keys name the event, so each runs once.
func (db *DB) queuePostFanOut(ctx context.Context, tx *sql.Tx, ev folio.Event) error {
	d, ok := ev.Data.(folio.PostEventData)
	if !ok || (ev.Type != folio.EventPostPublished && ev.Type != folio.EventPostUnpublished) {
		return nil
	}
	at := db.Now()
	pl, err := json.Marshal(folio.FediversePostPayload{Event: ev.Type, PostID: d.ID, Slug: d.Slug, At: at})
	if err != nil {
		return err
	}
	kinds := []string{folio.JobFediversePost}
	if ev.Type == folio.EventPostPublished {
		kinds = append(kinds, folio.JobWebmentionSend)
	}
	for _, kind := range kinds {
		key := fmt.Sprintf("%s:%s:%s:%d", kind, d.ID, ev.Type, at.UnixNano())
		if err := db.enqueueJob(ctx, tx, kind, key, string(pl), at); err != nil {
			return err
		}
	}
	return nil
}

// EnqueueJob queues a fediverse job (the job queue's EnqueueJob).
func (s *FediverseStore) EnqueueJob(ctx context.Context, kind, key, payload string, runAt time.Time) error {
	return s.Jobs.EnqueueJob(ctx, kind, key, payload, runAt)
}
