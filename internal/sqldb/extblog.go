package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/slug"
)

// This file holds the external blog platform's state on the posts table and its own tables
// (migration 0007): the unpublished mark, webhook delivery dedupe, tombstones of deleted
// platform posts and the per-article publication lease.

// ExtblogState returns the article's platform link, or ENOTFOUND.
func (s *ExtblogStore) ExtblogState(ctx context.Context, postID string) (folio.ExtblogState, error) {
	var st folio.ExtblogState
	var at Time
	err := s.W.QueryRowContext(ctx, `SELECT extblog_id, extblog_unpublished_at FROM posts WHERE id = $1`, postID).Scan(&st.ExtblogID, &at)
	if err == sql.ErrNoRows {
		return st, notFound("Post", postID)
	}
	if err != nil {
		return st, wrap("ExtblogState", err)
	}
	st.UnpublishedAt = at.Ptr()
	return st, nil
}

// SetExtblogPublished links the article to the live platform post extblogID: it stores the id,
// clears the unpublished mark and forgets any tombstone of that post (folio published it again).
func (s *ExtblogStore) SetExtblogPublished(ctx context.Context, postID, extblogID string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE posts SET extblog_id = $1, extblog_unpublished_at = NULL WHERE id = $2`, extblogID, postID)
		if err != nil {
			if isUniqueViolation(err) {
				return folio.Errorf(folio.ECONFLICT, "Another article is already linked to platform post %q.", extblogID)
			}
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("Post", postID)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM extblog_tombstones WHERE post_id = $1`, extblogID)
		return err
	})
	if err != nil {
		return wrapErr("sqldb.SetExtblogPublished", err)
	}
	s.changed(folio.ScopePosts)
	return nil
}

// SetExtblogUnpublished marks the article's platform post extblogID unpublished at at (nil clears
// the mark). It changes nothing when the article is no longer linked to extblogID.
func (s *ExtblogStore) SetExtblogUnpublished(ctx context.Context, postID, extblogID string, at *time.Time) error {
	_, err := s.W.ExecContext(ctx, `UPDATE posts SET extblog_unpublished_at = $1 WHERE id = $2 AND extblog_id = $3`, s.nts(at), postID, extblogID)
	if err != nil {
		return wrap("SetExtblogUnpublished", err)
	}
	s.changed(folio.ScopePosts)
	return nil
}

// ClearExtblogID unlinks the article from platform post extblogID (after a delete).
func (s *ExtblogStore) ClearExtblogID(ctx context.Context, postID, extblogID string) error {
	_, err := s.W.ExecContext(ctx, `UPDATE posts SET extblog_id = '', extblog_unpublished_at = NULL WHERE id = $1 AND extblog_id = $2`, postID, extblogID)
	if err != nil {
		return wrap("ClearExtblogID", err)
	}
	s.changed(folio.ScopePosts)
	return nil
}

// AcquireExtblogLease takes the article's publication lease for d when it is free or expired,
// and reports whether it did. token identifies the holder for ReleaseExtblogLease.
func (s *ExtblogStore) AcquireExtblogLease(ctx context.Context, postID, token string, now time.Time, d time.Duration) (bool, error) {
	res, err := s.W.ExecContext(ctx, `INSERT INTO extblog_leases (post_id, token, lease_until) VALUES ($1, $2, $3)
		ON CONFLICT (post_id) DO UPDATE SET token = excluded.token, lease_until = excluded.lease_until
		WHERE extblog_leases.lease_until < $4`, postID, token, s.ts(now.Add(d)), s.ts(now))
	if err != nil {
		return false, wrap("AcquireExtblogLease", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// ReleaseExtblogLease gives the lease back when token still holds it.
func (s *ExtblogStore) ReleaseExtblogLease(ctx context.Context, postID, token string) error {
	if _, err := s.W.ExecContext(ctx, `DELETE FROM extblog_leases WHERE post_id = $1 AND token = $2`, postID, token); err != nil {
		return wrap("ReleaseExtblogLease", err)
	}
	return nil
}

// extblogDeliveryRetention is how long applied delivery ids are remembered; the platform stops
// retrying a delivery long before.
const extblogDeliveryRetention = 30 * 24 * time.Hour

// ClaimExtblogDelivery records a webhook delivery id and reports whether it is new (false: it
// was applied, or is being applied, already). Ids older than 30 days are forgotten on the way.
func (s *ExtblogStore) ClaimExtblogDelivery(ctx context.Context, deliveryID, event, postID string, at time.Time) (bool, error) {
	var fresh bool
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM extblog_deliveries WHERE received_at < $1`, s.ts(at.Add(-extblogDeliveryRetention))); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO extblog_deliveries (delivery_id, event, post_id, received_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (delivery_id) DO NOTHING`, deliveryID, event, postID, s.ts(at))
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		fresh = n > 0
		return nil
	})
	if err != nil {
		return false, wrap("ClaimExtblogDelivery", err)
	}
	return fresh, nil
}

// ReleaseExtblogDelivery forgets a claimed delivery whose application failed, so the platform's
// retry is applied.
func (s *ExtblogStore) ReleaseExtblogDelivery(ctx context.Context, deliveryID string) error {
	if _, err := s.W.ExecContext(ctx, `DELETE FROM extblog_deliveries WHERE delivery_id = $1`, deliveryID); err != nil {
		return wrap("ReleaseExtblogDelivery", err)
	}
	return nil
}

// ExtblogTombstoned reports whether a POST_DELETED event removed platform post extblogID.
func (s *ExtblogStore) ExtblogTombstoned(ctx context.Context, extblogID string) (bool, error) {
	var n int
	if err := s.W.QueryRowContext(ctx, `SELECT COUNT(*) FROM extblog_tombstones WHERE post_id = $1`, extblogID).Scan(&n); err != nil {
		return false, wrap("ExtblogTombstoned", err)
	}
	return n > 0, nil
}

// ApplyExtblogDeleted applies a POST_DELETED event for platform post extblogID: the linked
// article is archived and unlinked, and the post id is tombstoned. An article marked unpublished
// is left alone: the event is the echo of folio's own unpublish. It reports whether an article
// changed.
func (s *ExtblogStore) ApplyExtblogDeleted(ctx context.Context, extblogID string, at time.Time) (bool, error) {
	var changed bool
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var id string
		var unpublished Time
		err := tx.QueryRowContext(ctx, `SELECT id, extblog_unpublished_at FROM posts WHERE extblog_id = $1`, extblogID).Scan(&id, &unpublished)
		switch {
		case err == sql.ErrNoRows:
		case err != nil:
			return err
		case !unpublished.IsZero():
			return nil
		default:
			if _, err := tx.ExecContext(ctx, `UPDATE posts SET archived_at = COALESCE(archived_at, $1), extblog_id = '',
				extblog_unpublished_at = NULL, updated_at = $1 WHERE id = $2`, s.ts(at), id); err != nil {
				return err
			}
			if err := s.indexPost(ctx, tx, id); err != nil {
				return err
			}
			changed = true
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO extblog_tombstones (post_id, deleted_at) VALUES ($1, $2) ON CONFLICT (post_id) DO NOTHING`,
			extblogID, s.ts(at))
		return err
	})
	if err != nil {
		return false, wrap("ApplyExtblogDeleted", err)
	}
	if changed {
		s.changed(folio.ScopePosts)
	}
	return changed, nil
}

// UpsertExtblogPost mirrors a platform post: the article linked to it gets the post's title,
// content and excerpt; else our article the canonical URL names is linked to it; else a new
// published article is created. It reports whether anything changed.
func (s *ExtblogStore) UpsertExtblogPost(ctx context.Context, u folio.ExtblogUpsert) (bool, error) {
	var changed bool
	var err error
	// A concurrent delivery for the same post may insert first; the retry then updates.
	for attempt := 0; attempt < 2; attempt++ {
		changed, err = s.upsertExtblogPost(ctx, u)
		if !isUniqueViolation(err) {
			break
		}
	}
	if err != nil {
		return false, wrapErr("sqldb.UpsertExtblogPost", err)
	}
	if changed {
		s.changed(folio.ScopePosts)
	}
	return changed, nil
}

func (db *DB) upsertExtblogPost(ctx context.Context, u folio.ExtblogUpsert) (bool, error) {
	var changed bool
	excerpt := u.Excerpt
	if excerpt == "" {
		excerpt = folio.Excerpt(u.Content, folio.AutoExcerptLen)
	}
	excerpt = truncateRunes(excerpt, folio.MaxPostExcerptLen)
	title := truncateRunes(strings.TrimSpace(u.Title), folio.MaxPostTitleLen)
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var id string
		err := tx.QueryRowContext(ctx, `SELECT id FROM posts WHERE extblog_id = $1`, u.ExtblogID).Scan(&id)
		if err == nil {
			res, err := tx.ExecContext(ctx, `UPDATE posts SET title = $1, content = $2, excerpt = $3, updated_at = $4,
				published_at = COALESCE(published_at, $5)
				WHERE id = $6 AND (title <> $1 OR content <> $2 OR excerpt <> $3 OR published_at IS NULL)`,
				title, u.Content, excerpt, db.ts(u.Now), db.nts(u.PublishedAt), id)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			changed = n > 0
			if changed {
				return db.indexPost(ctx, tx, id)
			}
			return nil
		}
		if err != sql.ErrNoRows {
			return err
		}
		if u.LinkSlug != "" {
			res, err := tx.ExecContext(ctx, `UPDATE posts SET extblog_id = $1, extblog_unpublished_at = NULL WHERE slug = $2 AND extblog_id = ''`,
				u.ExtblogID, u.LinkSlug)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				changed = true
				return nil
			}
		}
		s, err := freeSlug(ctx, tx, u.Slug, title)
		if err != nil {
			return err
		}
		tags := make([]string, 0, len(u.Tags))
		seen := map[string]bool{}
		for _, t := range u.Tags {
			t = truncateRunes(strings.TrimSpace(t), folio.MaxPostTagLen)
			if t == "" || seen[strings.ToLower(t)] || len(tags) == folio.MaxPostTags {
				continue
			}
			seen[strings.ToLower(t)] = true
			tags = append(tags, t)
		}
		tagsJSON, _ := json.Marshal(tags)
		published := u.PublishedAt
		if published == nil {
			published = &u.Now
		}
		id = folio.NewID()
		if _, err := tx.ExecContext(ctx, `INSERT INTO posts (id, slug, title, content, excerpt, tags, status, published_at,
			created_at, updated_at, extblog_id) VALUES ($1, $2, $3, $4, $5, $6, 'published', $7, $8, $8, $9)`,
			id, s, title, u.Content, excerpt, string(tagsJSON), db.ts(*published), db.ts(u.Now), u.ExtblogID); err != nil {
			return err
		}
		for t := range seen {
			if _, err := tx.ExecContext(ctx, `INSERT INTO post_tags (post_id, tag) VALUES ($1, $2)`, id, t); err != nil {
				return err
			}
		}
		changed = true
		return db.indexPost(ctx, tx, id)
	})
	return changed, err
}

// freeSlug returns a slug for a mirrored post that no article and no redirect uses: the
// platform's slug when it is valid here, else one from the title, made unique with -2, -3, …
func freeSlug(ctx context.Context, tx *sql.Tx, platformSlug, title string) (string, error) {
	base := platformSlug
	if !folio.ValidSlug(base) {
		base = slug.Make(platformSlug, folio.MaxSlugLen)
	}
	if base == "" {
		base = slug.Make(title, folio.MaxSlugLen)
	}
	if base == "" {
		base = "post"
	}
	for n := 1; n < 1000; n++ {
		cand := base
		if n > 1 {
			suffix := fmt.Sprintf("-%d", n)
			cand = slug.Cut(base, folio.MaxSlugLen-len(suffix)) + suffix
		}
		var used int
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM posts WHERE slug = $1) + (SELECT COUNT(*) FROM slug_redirects WHERE old_slug = $1)`,
			cand).Scan(&used); err != nil {
			return "", err
		}
		if used == 0 {
			return cand, nil
		}
	}
	return "", errors.New("no free slug")
}

func truncateRunes(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max])
}

// wrapErr keeps a *folio.Error as it is and wraps anything else with the method name.
func wrapErr(method string, err error) error {
	var fe *folio.Error
	if errors.As(err, &fe) {
		return err
	}
	return fmt.Errorf("%s: %w", method, err)
}
