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
// publication or an edit, the Webmentions of its links (internal/fediverse, internal/webmention), in the
// transaction of the write that caused it; the keys name the event, so each runs once.
//
// Edits of a published post are coalesced: the Update of every edit within one revisionWindow
// is one job, run at the window's end (its fan-out reads the post then, so it carries the last
// edit); an editor's autosaves do not each reach every follower.
func (db *DB) queuePostFanOut(ctx context.Context, tx *sql.Tx, ev folio.Event) error {
	d, ok := ev.Data.(folio.PostEventData)
	if !ok {
		return nil
	}
	at := db.Now()
	runAt, stamp := at, at.UnixNano()
	kinds := []string{folio.JobFediversePost}
	switch ev.Type {
	case folio.EventPostPublished:
		kinds = append(kinds, folio.JobWebmentionSend)
	case folio.EventPostUnpublished, folio.EventPostDeleted:
	case folio.EventPostRevised:
		// Webmention senders re-send after an update (W3C Webmention §3.1.3).
		kinds = append(kinds, folio.JobWebmentionSend)
		window := at.Truncate(revisionWindow)
		runAt, stamp = window.Add(revisionWindow), window.UnixNano()
	default:
		return nil
	}
	pl, err := json.Marshal(folio.FediversePostPayload{Event: ev.Type, PostID: d.ID, Slug: d.Slug, At: at})
	if err != nil {
		return err
	}
	for _, kind := range kinds {
		key := fmt.Sprintf("%s:%s:%s:%d", kind, d.ID, ev.Type, stamp)
		if err := db.enqueueJob(ctx, tx, kind, key, string(pl), runAt); err != nil {
			return err
		}
	}
	return nil
}

// revisionWindow is how long edits of a published post are gathered into one Update.
const revisionWindow = time.Minute

// EnqueueJob queues a fediverse job (the job queue's EnqueueJob).
func (s *FediverseStore) EnqueueJob(ctx context.Context, kind, key, payload string, runAt time.Time) error {
	return s.Jobs.EnqueueJob(ctx, kind, key, payload, runAt)
}

// Block blocks an actor or a domain (again: a no-op) and removes the follows it covers.
func (s *FediverseStore) Block(ctx context.Context, b folio.Block) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO fediverse_blocks (target, created_at) VALUES ($1, $2) ON CONFLICT (target) DO NOTHING`,
			b.Target, s.ts(b.CreatedAt)); err != nil {
			return err
		}
		// A domain covers its actors on any scheme and port.
		var a Args
		q := `DELETE FROM fediverse_followers WHERE actor_id = ` + a.Add(b.Target)
		for _, scheme := range []string{"https://", "http://"} {
			for _, sep := range []string{"/", ":"} {
				q += ` OR actor_id LIKE ` + a.Add(scheme+escapeLike(b.Target)+sep+"%") + ` ESCAPE '\'`
			}
		}
		_, err := tx.ExecContext(ctx, q, a...)
		return err
	})
	return wrapIf("Block", err)
}

// Unblock lifts a block and reports whether there was one.
func (s *FediverseStore) Unblock(ctx context.Context, target string) (bool, error) {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM fediverse_blocks WHERE target = $1`, target)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, wrapIf("Unblock", err)
}

// Blocks lists the blocks, newest first.
func (s *FediverseStore) Blocks(ctx context.Context) ([]folio.Block, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT target, created_at FROM fediverse_blocks ORDER BY created_at DESC, target`)
	if err != nil {
		return nil, wrap("Blocks", err)
	}
	defer rows.Close()
	out := []folio.Block{}
	for rows.Next() {
		var b folio.Block
		var created Time
		if err := rows.Scan(&b.Target, &created); err != nil {
			return nil, wrap("Blocks", err)
		}
		b.CreatedAt = created.Time
		out = append(out, b)
	}
	return out, wrapIf("Blocks", rows.Err())
}

// Blocked reports whether any of targets (an actor id, its host) is blocked.
func (s *FediverseStore) Blocked(ctx context.Context, targets ...string) (bool, error) {
	var a Args
	var n int
	err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM fediverse_blocks WHERE target IN (`+a.AddList(targets)+`)`, a...).Scan(&n)
	return n > 0, wrapIf("Blocked", err)
}
