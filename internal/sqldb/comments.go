package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/foliohq/folio"
)

// SaveComment stores a comment; one from the same source and source id (a reply delivered
// again, edited) replaces the text and author of the stored one and keeps its moderation status.
// A pending comment whose author (AuthorID) has a comment marked spam is stored as spam.
func (s *FediverseStore) SaveComment(ctx context.Context, c folio.Comment) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if c.AuthorID != "" && c.Status == folio.CommentPending {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM comments WHERE author_id = $1 AND status = $2`,
				c.AuthorID, folio.CommentSpam).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				c.Status = folio.CommentSpam
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO comments (id, post_id, source, source_id, author_name, author_url, content, url,
				status, published_at, created_at, author_id, in_reply_to)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
			ON CONFLICT (source, source_id) DO UPDATE SET author_name = excluded.author_name, author_url = excluded.author_url,
				content = excluded.content, url = excluded.url, author_id = excluded.author_id`,
			c.ID, c.PostID, c.Source, c.SourceID, c.AuthorName, c.AuthorURL, c.Content, c.URL, c.Status,
			s.ts(c.PublishedAt), s.ts(c.CreatedAt), c.AuthorID, c.InReplyTo)
		return err
	})
	if err == nil && c.Status == folio.CommentApproved {
		s.changed(folio.ScopePosts) // the cached posts' comment counts
	}
	return wrapIf("SaveComment", err)
}

// Comments lists comments, newest first, and the total: of one post and/or one status.
func (s *FediverseStore) Comments(ctx context.Context, f folio.CommentFilter) ([]folio.Comment, int, error) {
	var a Args
	where := "1 = 1"
	if f.PostID != "" {
		where += " AND post_id = " + a.Add(f.PostID)
	}
	if f.Status != "" {
		where += " AND status = " + a.Add(f.Status)
	}
	var total int
	if err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM comments WHERE `+where, a...).Scan(&total); err != nil {
		return nil, 0, wrap("Comments", err)
	}
	q := `SELECT ` + commentColumns + ` FROM comments WHERE ` + where + ` ORDER BY published_at DESC, id DESC LIMIT ` + a.Add(f.Limit) + ` OFFSET ` + a.Add((f.Page-1)*f.Limit)
	rows, err := s.R.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, 0, wrap("Comments", err)
	}
	defer rows.Close()
	out := []folio.Comment{}
	for rows.Next() {
		var c folio.Comment
		var pub, created Time
		if err := rows.Scan(&c.ID, &c.PostID, &c.Source, &c.SourceID, &c.AuthorName, &c.AuthorURL, &c.Content, &c.URL, &c.Status,
			&pub, &created, &c.AuthorID, &c.InReplyTo); err != nil {
			return nil, 0, wrap("Comments", err)
		}
		c.PublishedAt, c.CreatedAt = pub.Time, created.Time
		out = append(out, c)
	}
	return out, total, wrapIf("Comments", rows.Err())
}

// Comment returns one comment, ENOTFOUND when there is none with id.
func (s *FediverseStore) Comment(ctx context.Context, id string) (folio.Comment, error) {
	var c folio.Comment
	var pub, created Time
	err := s.R.QueryRowContext(ctx, `SELECT `+commentColumns+` FROM comments WHERE id = $1`, id).Scan(&c.ID, &c.PostID, &c.Source,
		&c.SourceID, &c.AuthorName, &c.AuthorURL, &c.Content, &c.URL, &c.Status, &pub, &created, &c.AuthorID, &c.InReplyTo)
	if errors.Is(err, sql.ErrNoRows) {
		return c, notFound("Comment", id)
	}
	c.PublishedAt, c.CreatedAt = pub.Time, created.Time
	return c, wrapIf("Comment", err)
}

const commentColumns = `id, post_id, source, source_id, author_name, author_url, content, url, status, published_at, created_at,
	author_id, in_reply_to`

// DeleteComment removes the comment of source and sourceID written by authorID (or stored
// without an author) and reports whether there was one.
func (s *FediverseStore) DeleteComment(ctx context.Context, source, sourceID, authorID string) (bool, error) {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM comments WHERE source = $1 AND source_id = $2 AND author_id IN ($3, '')`,
			source, sourceID, authorID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, wrap("DeleteComment", err)
	}
	if n > 0 {
		s.changed(folio.ScopePosts) // the cached posts' comment counts
	}
	return n > 0, nil
}

// SetCommentStatus moderates a comment; ENOTFOUND when there is none with id.
func (s *FediverseStore) SetCommentStatus(ctx context.Context, id, status string) error {
	var n int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE comments SET status = $1 WHERE id = $2`, status, id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return wrap("SetCommentStatus", err)
	}
	if n == 0 {
		return notFound("Comment", id)
	}
	s.changed(folio.ScopePosts) // the cached posts' comment counts
	return nil
}

// AddReaction records an actor's Like or Announce of a post (once).
func (s *FediverseStore) AddReaction(ctx context.Context, postID, kind, actorID string, at time.Time) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO post_reactions (post_id, kind, actor_id, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (post_id, kind, actor_id) DO NOTHING`, postID, kind, actorID, s.ts(at))
		return err
	})
	return wrapIf("AddReaction", err)
}

// RemoveReaction withdraws an actor's reactions of a kind (Undo{Like}, Undo{Announce}).
func (s *FediverseStore) RemoveReaction(ctx context.Context, kind, actorID string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM post_reactions WHERE kind = $1 AND actor_id = $2`, kind, actorID)
		return err
	})
	return wrapIf("RemoveReaction", err)
}

// Reactions counts a post's Likes and Announces.
func (s *FediverseStore) Reactions(ctx context.Context, postID string) (folio.Reactions, error) {
	var r folio.Reactions
	err := s.R.QueryRowContext(ctx, `SELECT
			COALESCE(SUM(CASE WHEN kind = 'like' THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN kind = 'announce' THEN 1 ELSE 0 END), 0)
		FROM post_reactions WHERE post_id = $1`, postID).Scan(&r.Likes, &r.Announces)
	return r, wrapIf("Reactions", err)
}
