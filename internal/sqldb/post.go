package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

const postColumns = `id, slug, title, content, excerpt, category, tags, status, published_at, created_at, updated_at,
	author_id, author_name, author_email, extblog_id, series, seo, settings, scheduled_at, cross_platform, archived_at`

// postListColumns leaves the content out: lists never show it and it is the bulk of a row.
var postListColumns = strings.Replace(postColumns, "content", "'' AS content", 1)

func scanPost(row interface{ Scan(...any) error }) (*folio.Post, error) {
	var p folio.Post
	var tags, seo, settings, cross string
	var published, created, updated, scheduled, archived Time
	if err := row.Scan(&p.ID, &p.Slug, &p.Title, &p.Content, &p.Excerpt, &p.Category, &tags, &p.Status, &published,
		&created, &updated, &p.Author.ID, &p.Author.Name, &p.Author.Email, &p.ExtblogID, &p.Series, &seo, &settings,
		&scheduled, &cross, &archived); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(tags), &p.Tags); err != nil {
		return nil, fmt.Errorf("post %s tags: %w", p.ID, err)
	}
	if err := unmarshalOpt(seo, &p.SEO); err != nil {
		return nil, fmt.Errorf("post %s seo: %w", p.ID, err)
	}
	if err := unmarshalOpt(settings, &p.Settings); err != nil {
		return nil, fmt.Errorf("post %s settings: %w", p.ID, err)
	}
	if err := unmarshalOpt(cross, &p.CrossPlatformPublishing); err != nil {
		return nil, fmt.Errorf("post %s cross_platform: %w", p.ID, err)
	}
	p.PublishedAt, p.ScheduledAt, p.ArchivedAt = published.Ptr(), scheduled.Ptr(), archived.Ptr()
	p.CreatedAt, p.UpdatedAt = created.Time, updated.Time
	return &p, nil
}

func unmarshalOpt[T any](s string, into **T) error {
	if s == "" {
		*into = nil
		return nil
	}
	v := new(T)
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return err
	}
	*into = v
	return nil
}

func marshalOpt[T any](v *T) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Post returns the post with the given id, or ENOTFOUND.
func (s *PostStore) Post(ctx context.Context, id string) (*folio.Post, error) {
	p, err := scanPost(s.R.QueryRowContext(ctx, `SELECT `+postColumns+` FROM posts WHERE id = $1`, id))
	if err == sql.ErrNoRows {
		return nil, notFound("Post", id)
	}
	if err != nil {
		return nil, wrap("Post", err)
	}
	return p, nil
}

// PostBySlug returns the post with the given slug. When slug is a former slug of a post, it
// returns that post, whose Slug then differs from slug (the caller redirects). An unknown slug
// is ENOTFOUND.
func (s *PostStore) PostBySlug(ctx context.Context, slug string) (*folio.Post, error) {
	p, err := scanPost(s.R.QueryRowContext(ctx, `SELECT `+postColumns+` FROM posts WHERE slug = $1`, slug))
	if err == sql.ErrNoRows {
		p, err = scanPost(s.R.QueryRowContext(ctx, `SELECT `+postColumns+` FROM posts
			WHERE id = (SELECT post_id FROM slug_redirects WHERE old_slug = $1)`, slug))
	}
	if err == sql.ErrNoRows {
		return nil, notFound("Post", slug)
	}
	if err != nil {
		return nil, wrap("PostBySlug", err)
	}
	return p, nil
}

// Posts returns one page of the posts f selects, newest first (by publication, else creation),
// and the total count.
func (s *PostStore) Posts(ctx context.Context, f folio.PostFilter) ([]*folio.Post, int, error) {
	var where []string
	var args Args
	if len(f.Statuses) > 0 {
		var or []string
		for _, s := range f.Statuses {
			if s == folio.PostStatusArchived {
				or = append(or, "archived_at IS NOT NULL")
			} else {
				or = append(or, "(status = "+args.Add(s)+" AND archived_at IS NULL)")
			}
		}
		where = append(where, "("+strings.Join(or, " OR ")+")")
	}
	if c := strings.TrimSpace(f.Category); c != "" {
		where = append(where, "LOWER(category) = "+args.Add(strings.ToLower(c)))
	}
	if t := strings.TrimSpace(f.Tag); t != "" {
		where = append(where, "id IN (SELECT post_id FROM post_tags WHERE tag = "+args.Add(strings.ToLower(t))+")")
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := s.queryRow(ctx, s.R, `SELECT COUNT(*) FROM posts`+cond, args...).Scan(&total); err != nil {
		return nil, 0, wrap("Posts", err)
	}
	cols := postListColumns
	if f.WithContent {
		cols = postColumns
	}
	limit, offset := f.Limit, (f.Page-1)*f.Limit
	// LIMIT is written into the statement, not bound: see Projects.
	q := `SELECT ` + cols + ` FROM posts` + cond +
		` ORDER BY COALESCE(published_at, created_at) DESC, id DESC LIMIT ` + strconv.Itoa(limit) + ` OFFSET ` + args.Add(offset)
	rows, err := s.query(ctx, s.R, q, args...)
	if err != nil {
		return nil, 0, wrap("Posts", err)
	}
	defer rows.Close()
	out := []*folio.Post{}
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, 0, wrap("Posts", err)
		}
		out = append(out, p)
	}
	return out, total, rows.Err()
}

// CreatePost stores the post write decide makes, in one transaction with decide's slug lookups:
// the row, its tags, its search entry, the former slug it takes over and its events. A slug
// another post took meanwhile (the unique index) is ECONFLICT.
func (s *PostStore) CreatePost(ctx context.Context, decide func(slugs folio.SlugUse) (*folio.PostWrite, error)) error {
	var w *folio.PostWrite
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if w, err = decide(s.slugUse(ctx, tx, "")); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO posts (`+postColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,
			$10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`, s.postValues(w.Post)...); err != nil {
			return err
		}
		return s.storePostWrite(ctx, tx, w)
	})
	switch {
	case isUniqueViolation(err):
		return folio.Errorf(folio.ECONFLICT, "The slug %q is already used by another post.", w.Post.Slug)
	case folio.ErrorCode(err) != folio.EINTERNAL:
		return err
	case err != nil:
		return wrap("CreatePost", err)
	}
	s.changed(folio.ScopePosts)
	return nil
}

// UpdatePost reads the post with the given id (ENOTFOUND when missing) and stores the write
// decide makes of it, in one transaction.
func (s *PostStore) UpdatePost(ctx context.Context, id string, decide func(p *folio.Post, slugs folio.SlugUse) (*folio.PostWrite, error)) error {
	var w *folio.PostWrite
	err := s.tx(ctx, func(tx *sql.Tx) error {
		p, err := scanPost(tx.QueryRowContext(ctx, `SELECT `+postColumns+` FROM posts WHERE id = $1`, id))
		if err == sql.ErrNoRows {
			return notFound("Post", id)
		}
		if err != nil {
			return err
		}
		if w, err = decide(p, s.slugUse(ctx, tx, p.ID)); err != nil {
			return err
		}
		if err := s.writePost(ctx, tx, w.Post); err != nil {
			return err
		}
		return s.storePostWrite(ctx, tx, w)
	})
	switch {
	case isUniqueViolation(err):
		return folio.Errorf(folio.ECONFLICT, "The slug %q is already used by another post.", w.Post.Slug)
	case folio.ErrorCode(err) != folio.EINTERNAL:
		return err
	case err != nil:
		return wrap("UpdatePost", err)
	}
	s.changed(folio.ScopePosts)
	return nil
}

// slugUse answers content's slug lookups inside tx for the post with id self ("" for a new one).
func (s *PostStore) slugUse(ctx context.Context, tx *sql.Tx, self string) folio.SlugUse {
	return func(slug string) (live, former bool, err error) {
		var nLive, nFormer int
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM posts WHERE slug = $1 AND id <> $2),
			(SELECT COUNT(*) FROM slug_redirects WHERE old_slug = $1 AND post_id <> $2)`, slug, self).Scan(&nLive, &nFormer); err != nil {
			return false, false, err
		}
		return nLive > 0, nFormer > 0, nil
	}
}

// storePostWrite stores all of w but the post row itself: the taken and new redirects, the tags,
// the search entry, the publish jobs and the events.
func (s *PostStore) storePostWrite(ctx context.Context, tx *sql.Tx, w *folio.PostWrite) error {
	p := w.Post
	if w.TakeSlug != "" {
		if _, err := tx.ExecContext(ctx, `DELETE FROM slug_redirects WHERE old_slug = $1`, w.TakeSlug); err != nil {
			return err
		}
	}
	if w.Redirect != "" {
		if _, err := tx.ExecContext(ctx, `INSERT INTO slug_redirects (old_slug, post_id, created_at) VALUES ($1, $2, $3)
			ON CONFLICT (old_slug) DO UPDATE SET post_id = excluded.post_id, created_at = excluded.created_at`,
			w.Redirect, p.ID, s.ts(p.UpdatedAt)); err != nil {
			return err
		}
	}
	if err := setPostTags(ctx, tx, p); err != nil {
		return err
	}
	if err := s.putSearchDoc(ctx, tx, w.Search); err != nil {
		return err
	}
	if j := w.Jobs; j != nil {
		if e := j.Enqueue; e != nil {
			if err := s.enqueueJob(ctx, tx, e.Kind, e.Key, e.Payload, e.RunAt); err != nil {
				return err
			}
		}
		if err := cancelPublishJobs(ctx, tx, p.ID, j.Keep); err != nil {
			return err
		}
	}
	if w.NewsletterSend != nil {
		if err := s.setNewsletterSend(ctx, tx, p, *w.NewsletterSend); err != nil {
			return err
		}
	}
	return s.Webhooks.emitAll(ctx, tx, w.Events)
}

// DeletePost removes a post, its former slugs, its search entry and its pending jobs, and emits
// events; or returns ENOTFOUND.
func (s *PostStore) DeletePost(ctx context.Context, id string, events []folio.Event) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM posts WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("Post", id)
		}
		if err := s.unindex(ctx, tx, folio.SearchTypePost, id); err != nil {
			return err
		}
		if err := cancelPublishJobs(ctx, tx, id, ""); err != nil {
			return err
		}
		return s.Webhooks.emitAll(ctx, tx, events)
	})
	if folio.IsNotFound(err) {
		return err
	}
	if err != nil {
		return wrap("DeletePost", err)
	}
	s.changed(folio.ScopePosts)
	return nil
}

// cancelPublishJobs deletes the pending publish jobs of a post except the one with key keep.
func cancelPublishJobs(ctx context.Context, tx *sql.Tx, postID, keep string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE kind = $1 AND key LIKE $2 ESCAPE '\' AND key <> $3 AND status = 'pending'`,
		folio.JobPublishPost, escapeLike(folio.PublishJobKeys(postID))+"%", keep)
	return err
}

// PublishScheduledPost reads the post with the given id (ENOTFOUND when missing) and, in one
// transaction, stores the publication decide makes of it (nil: nothing to do). The row changes
// only while the post is still a draft scheduled for at, so of two racing callers only one
// publishes; it reports whether this call did.
func (s *PostStore) PublishScheduledPost(ctx context.Context, id string, at time.Time, decide func(p *folio.Post) (*folio.PostWrite, error)) (bool, error) {
	published := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		p, err := scanPost(tx.QueryRowContext(ctx, `SELECT `+postColumns+` FROM posts WHERE id = $1`, id))
		if err == sql.ErrNoRows {
			return notFound("Post", id)
		}
		if err != nil {
			return err
		}
		w, err := decide(p)
		if err != nil || w == nil {
			return err
		}
		q := w.Post
		// The status and schedule are part of the condition, so of two racing callers only one
		// changes the row.
		res, err := tx.ExecContext(ctx, `UPDATE posts SET status = $1, published_at = $2, archived_at = $3, updated_at = $4
			WHERE id = $5 AND status = 'draft' AND scheduled_at = $6`, q.Status, s.nts(q.PublishedAt), s.nts(q.ArchivedAt),
			s.ts(q.UpdatedAt), id, s.ts(at))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		published = true
		if err := s.putSearchDoc(ctx, tx, w.Search); err != nil {
			return err
		}
		return s.Webhooks.emitAll(ctx, tx, w.Events)
	})
	if folio.ErrorCode(err) != folio.EINTERNAL {
		return false, err
	}
	if err != nil {
		return false, wrap("PublishScheduledPost", err)
	}
	if published {
		s.changed(folio.ScopePosts)
	}
	return published, nil
}

// SetPostExtblogID records the post's id on the external platform ("" clears it). It does not
// change updatedAt: the content did not change.
func (s *PostStore) SetPostExtblogID(ctx context.Context, id, extblogID string) error {
	res, err := s.W.ExecContext(ctx, `UPDATE posts SET extblog_id = $1 WHERE id = $2`, extblogID, id)
	if err != nil {
		return wrap("SetPostExtblogID", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("Post", id)
	}
	s.changed(folio.ScopePosts)
	return nil
}

func (db *DB) postValues(p *folio.Post) []any {
	tags, _ := json.Marshal(p.Tags)
	return []any{p.ID, p.Slug, p.Title, p.Content, p.Excerpt, p.Category, string(tags), p.Status, db.nts(p.PublishedAt),
		db.ts(p.CreatedAt), db.ts(p.UpdatedAt), p.Author.ID, p.Author.Name, p.Author.Email, p.ExtblogID, p.Series,
		marshalOpt(p.SEO), marshalOpt(p.Settings), db.nts(p.ScheduledAt), marshalOpt(p.CrossPlatformPublishing), db.nts(p.ArchivedAt)}
}

// writePost stores every column of p but id, author and creation time.
func (db *DB) writePost(ctx context.Context, tx *sql.Tx, p *folio.Post) error {
	v := db.postValues(p)
	_, err := tx.ExecContext(ctx, `UPDATE posts SET slug = $1, title = $2, content = $3, excerpt = $4, category = $5, tags = $6,
		status = $7, published_at = $8, updated_at = $9, extblog_id = $10, series = $11, seo = $12, settings = $13,
		scheduled_at = $14, cross_platform = $15, archived_at = $16 WHERE id = $17`,
		v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[10], v[14], v[15], v[16], v[17], v[18], v[19], v[20], p.ID)
	return err
}

func setPostTags(ctx context.Context, tx *sql.Tx, p *folio.Post) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM post_tags WHERE post_id = $1`, p.ID); err != nil {
		return err
	}
	for _, t := range p.Tags {
		if _, err := tx.ExecContext(ctx, `INSERT INTO post_tags (post_id, tag) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
			p.ID, strings.ToLower(t)); err != nil {
			return err
		}
	}
	return nil
}

// EachPublishedPost calls fn with the slug and last change of every published, non-archived
// post, oldest publication first (then by id), from one query: a single linear scan however many
// posts there are, with only the two columns a sitemap needs. It stops at fn's first error and
// returns it unwrapped, so a caller may stop early with a sentinel of its own. The rows are read
// while fn runs: fn should not call back into the store.
func (s *PostStore) EachPublishedPost(ctx context.Context, fn func(slug string, updated time.Time) error) error {
	return eachUpdated(ctx, s.DB, "EachPublishedPost", `SELECT slug, updated_at FROM posts WHERE status = 'published' AND archived_at IS NULL
		ORDER BY published_at, id`, fn)
}

// eachUpdated runs query, whose rows are a key and a time of last change, and calls fn with
// each row as it is read: the sitemap's scans. op names the caller in errors; fn's own error
// comes back unwrapped.
func eachUpdated(ctx context.Context, db *DB, op, query string, fn func(key string, updated time.Time) error) error {
	rows, err := db.query(ctx, db.R, query)
	if err != nil {
		return wrap(op, err)
	}
	defer rows.Close()
	var key string
	var updated Time
	for rows.Next() {
		if err := rows.Scan(&key, &updated); err != nil {
			return wrap(op, err)
		}
		if err := fn(key, updated.Time); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return wrap(op, err)
	}
	return nil
}

// Tags lists the tags of published, non-archived posts with their counts, most used first.
// Tags are compared case-insensitively and returned lowercased (post_tags keeps them so).
func (s *PostStore) Tags(ctx context.Context) ([]folio.TagCount, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT t.tag, COUNT(*) FROM post_tags t JOIN posts p ON p.id = t.post_id
		WHERE p.status = 'published' AND p.archived_at IS NULL GROUP BY t.tag ORDER BY COUNT(*) DESC, t.tag`)
	if err != nil {
		return nil, wrap("Tags", err)
	}
	defer rows.Close()
	out := []folio.TagCount{}
	for rows.Next() {
		var tc folio.TagCount
		if err := rows.Scan(&tc.Tag, &tc.Count); err != nil {
			return nil, wrap("Tags", err)
		}
		out = append(out, tc)
	}
	return out, rows.Err()
}
