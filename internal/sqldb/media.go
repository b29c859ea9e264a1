package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/foliohq/folio"
)

// RecordMedia remembers a stored object. The same bytes uploaded again keep their first record
// (the key is content-addressed).
func (s *MediaStore) RecordMedia(ctx context.Context, obj folio.MediaObject, source, prompt, createdBy string) error {
	variants := obj.Variants
	if variants == nil {
		variants = []folio.MediaVariant{}
	}
	vj, _ := json.Marshal(storedVariants(variants))
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO media (key, url, filename, size, content_type, width, height, source, prompt, created_by, created_at, variants, blurhash)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (key) DO NOTHING`,
			obj.Key, obj.URL, obj.Filename, obj.Size, obj.ContentType, obj.Width, obj.Height, source, prompt, createdBy, s.ts(s.Now()), string(vj), obj.Blurhash)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// The same bytes again: nothing new was uploaded, but a record from before variants
			// existed gains them.
			_, err := tx.ExecContext(ctx, `UPDATE media SET variants = $1, blurhash = $2 WHERE key = $3 AND variants = '[]' AND $1 <> '[]'`,
				string(vj), obj.Blurhash, obj.Key)
			return err
		}
		return s.Webhooks.EmitTx(ctx, tx, folio.Event{Type: folio.EventMediaUploaded, Data: obj})
	})
	if err != nil {
		return wrap("RecordMedia", err)
	}
	return nil
}

// mediaColumns are the columns scanMedia reads.
const mediaColumns = `key, url, filename, size, content_type, width, height, source, prompt, created_at, variants, blurhash`

// Media lists stored objects, newest first, with the total count; f.Query keeps those whose
// file name or prompt contains it, in any case.
func (s *MediaStore) Media(ctx context.Context, f folio.MediaFilter) ([]folio.MediaRecord, int, error) {
	var args Args
	where := ""
	if q := strings.TrimSpace(f.Query); q != "" {
		p := args.Add("%" + escapeLike(strings.ToLower(q)) + "%")
		where = ` WHERE LOWER(filename) LIKE ` + p + ` ESCAPE '\' OR LOWER(prompt) LIKE ` + p + ` ESCAPE '\'`
	}
	var total int
	if err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM media`+where, args...).Scan(&total); err != nil {
		return nil, 0, wrap("Media", err)
	}
	out, err := s.queryMedia(ctx, "Media", `SELECT `+mediaColumns+` FROM media`+where+` ORDER BY created_at DESC, key LIMIT `+
		args.Add(f.Limit)+` OFFSET `+args.Add((f.Page-1)*f.Limit), args...)
	return out, total, err
}

// MediaByURL returns the stored objects whose URL is one of urls (the images a post shows), in
// no particular order; unknown URLs are left out.
func (s *MediaStore) MediaByURL(ctx context.Context, urls []string) ([]folio.MediaRecord, error) {
	if len(urls) == 0 {
		return []folio.MediaRecord{}, nil
	}
	var args Args
	return s.queryMedia(ctx, "MediaByURL", `SELECT `+mediaColumns+` FROM media WHERE url IN (`+args.AddList(urls)+`)`, args...)
}

// queryMedia runs a query of mediaColumns and scans every row.
func (s *MediaStore) queryMedia(ctx context.Context, op, q string, args ...any) ([]folio.MediaRecord, error) {
	rows, err := s.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, wrap(op, err)
	}
	defer rows.Close()
	out := []folio.MediaRecord{}
	for rows.Next() {
		m, err := scanMedia(rows)
		if err != nil {
			return nil, wrap(op, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// MediaByKey returns the record of the object stored under key, or ENOTFOUND.
func (s *MediaStore) MediaByKey(ctx context.Context, key string) (folio.MediaRecord, error) {
	m, err := scanMedia(s.R.QueryRowContext(ctx, `SELECT `+mediaColumns+` FROM media WHERE key = $1`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return m, notFound("Media object", key)
	}
	if err != nil {
		return m, wrap("MediaByKey", err)
	}
	return m, nil
}

// MediaUses lists the posts (content, SEO image) and projects (images, long description) whose
// text contains any of terms, posts first, each by title. A scan of both tables: deletions are
// rare and a portfolio's posts few. NB: LIKE ignores ASCII case on SQLite and not on
// PostgreSQL; keys and URLs are written as they were given, so both find them.
func (s *MediaStore) MediaUses(ctx context.Context, terms []string) ([]folio.MediaUse, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	var args Args
	var post, project []string
	for _, t := range terms {
		p := args.Add("%" + escapeLike(t) + "%")
		post = append(post, `content LIKE `+p+` ESCAPE '\' OR seo LIKE `+p+` ESCAPE '\'`)
		project = append(project, `images LIKE `+p+` ESCAPE '\' OR long_description LIKE `+p+` ESCAPE '\'`)
	}
	rows, err := s.R.QueryContext(ctx, `SELECT 'post', id, title FROM posts WHERE `+strings.Join(post, " OR ")+`
		UNION ALL SELECT 'project', id, title FROM projects WHERE `+strings.Join(project, " OR ")+`
		ORDER BY 1, 3, 2`, args...)
	if err != nil {
		return nil, wrap("MediaUses", err)
	}
	defer rows.Close()
	var out []folio.MediaUse
	for rows.Next() {
		var u folio.MediaUse
		if err := rows.Scan(&u.Type, &u.ID, &u.Title); err != nil {
			return nil, wrap("MediaUses", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// DeleteMedia removes the record of key, and announces the scopes of the posts and projects in
// uses: their cached responses show the object.
func (s *MediaStore) DeleteMedia(ctx context.Context, key string, uses []folio.MediaUse) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM media WHERE key = $1`, key)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("Media object", key)
		}
		return nil
	})
	if folio.IsNotFound(err) {
		return err
	}
	if err != nil {
		return wrap("DeleteMedia", err)
	}
	for _, sc := range []struct{ typ, scope string }{{"post", folio.ScopePosts}, {"project", folio.ScopeProjects}} {
		if slices.ContainsFunc(uses, func(u folio.MediaUse) bool { return u.Type == sc.typ }) {
			s.changed(sc.scope)
		}
	}
	return nil
}

// scanMedia reads a row of mediaColumns.
func scanMedia(row interface{ Scan(...any) error }) (folio.MediaRecord, error) {
	var m folio.MediaRecord
	var created Time
	var vj string
	if err := row.Scan(&m.Key, &m.URL, &m.Filename, &m.Size, &m.ContentType, &m.Width, &m.Height, &m.Source, &m.Prompt, &created, &vj, &m.Blurhash); err != nil {
		return m, err
	}
	var sv []storedVariant
	if err := json.Unmarshal([]byte(vj), &sv); err != nil {
		return m, fmt.Errorf("media %s variants: %w", m.Key, err)
	}
	m.Variants = make([]folio.MediaVariant, len(sv))
	for i, v := range sv {
		m.Variants[i] = folio.MediaVariant{Width: v.Width, Height: v.Height, URL: v.URL, Key: v.Key}
	}
	m.CreatedAt = created.Time
	return m, nil
}

// storedVariant is a variant as the media row keeps it: with its storage key (which the API
// response leaves out).
type storedVariant struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	URL    string `json:"url"`
	Key    string `json:"key"`
}

func storedVariants(vs []folio.MediaVariant) []storedVariant {
	out := make([]storedVariant, len(vs))
	for i, v := range vs {
		out[i] = storedVariant{Width: v.Width, Height: v.Height, URL: v.URL, Key: v.Key}
	}
	return out
}
