package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/settings"
)

// The export and import of a site's content (internal/archive): every row as stored, ids,
// slugs and times kept. Imports are upserts by id, so importing one archive twice leaves the
// same rows; they emit no webhook events (a restore is not news).

// AllPosts returns every post with its content, by id.
func (s *ArchiveStore) AllPosts(ctx context.Context) ([]*folio.Post, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT `+postColumns+` FROM posts ORDER BY id`)
	if err != nil {
		return nil, wrap("AllPosts", err)
	}
	defer rows.Close()
	var out []*folio.Post
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, wrap("AllPosts", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// AllProjects returns every project, by id.
func (s *ArchiveStore) AllProjects(ctx context.Context) ([]*folio.Project, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects ORDER BY id`)
	if err != nil {
		return nil, wrap("AllProjects", err)
	}
	defer rows.Close()
	out := []*folio.Project{}
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, wrap("AllProjects", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// OwnerProfile returns the first owner (the site's profile), or ENOTFOUND when there is none.
func (s *ArchiveStore) OwnerProfile(ctx context.Context) (*folio.User, error) {
	u, err := scanUser(s.R.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE role = 'owner' ORDER BY created_at, id LIMIT 1`))
	if err == sql.ErrNoRows {
		return nil, notFound("Owner", "")
	}
	if err != nil {
		return nil, wrap("OwnerProfile", err)
	}
	return u, nil
}

// AllMedia returns every media row, by key.
func (s *ArchiveStore) AllMedia(ctx context.Context) ([]folio.MediaEntry, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT key, url, filename, size, content_type, width, height, source, prompt, created_by, created_at,
		variants, blurhash FROM media ORDER BY key`)
	if err != nil {
		return nil, wrap("AllMedia", err)
	}
	defer rows.Close()
	out := []folio.MediaEntry{}
	for rows.Next() {
		var m folio.MediaEntry
		var created Time
		var vj string
		if err := rows.Scan(&m.Key, &m.URL, &m.Filename, &m.Size, &m.ContentType, &m.Width, &m.Height, &m.Source, &m.Prompt,
			&m.CreatedBy, &created, &vj, &m.Blurhash); err != nil {
			return nil, wrap("AllMedia", err)
		}
		var sv []storedVariant
		if err := json.Unmarshal([]byte(vj), &sv); err != nil {
			return nil, fmt.Errorf("sqldb.AllMedia %s variants: %w", m.Key, err)
		}
		for _, v := range sv {
			m.Variants = append(m.Variants, folio.MediaVariantEntry(v))
		}
		m.CreatedAt = created.Time
		out = append(out, m)
	}
	return out, rows.Err()
}

// ImportPost stores p exactly (id, slug, times, author), replacing the post with its id. A slug
// that another post holds is ECONFLICT.
func (s *ArchiveStore) ImportPost(ctx context.Context, p *folio.Post) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var owner string
		err := tx.QueryRowContext(ctx, `SELECT id FROM posts WHERE slug = $1`, p.Slug).Scan(&owner)
		if err == nil && owner != p.ID {
			return folio.Errorf(folio.ECONFLICT, "The slug %q is used by another post (%s).", p.Slug, owner)
		}
		if err != nil && err != sql.ErrNoRows {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO posts (`+postColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,
			$10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21) ON CONFLICT (id) DO NOTHING`, s.postValues(p)...); err != nil {
			return err
		}
		v := s.postValues(p)
		if _, err := tx.ExecContext(ctx, `UPDATE posts SET slug = $1, title = $2, content = $3, excerpt = $4, category = $5, tags = $6,
			status = $7, published_at = $8, created_at = $9, updated_at = $10, author_id = $11, author_name = $12, author_email = $13,
			extblog_id = $14, series = $15, seo = $16, settings = $17, scheduled_at = $18, cross_platform = $19, archived_at = $20
			WHERE id = $21`, append(v[1:], p.ID)...); err != nil {
			return err
		}
		// A draft scheduled for later gets its publish job, as content's SavePublishingOptions gives it.
		if p.Status == folio.PostDraft && p.ScheduledAt != nil && p.ScheduledAt.After(s.Now()) {
			j := p.PublishJob(*p.ScheduledAt)
			if err := s.enqueueJob(ctx, tx, j.Kind, j.Key, j.Payload, j.RunAt); err != nil {
				return err
			}
		}
		if err := setPostTags(ctx, tx, p); err != nil {
			return err
		}
		return s.indexPost(ctx, tx, p.ID)
	})
	if err != nil && folio.ErrorCode(err) == folio.EINTERNAL {
		return wrap("ImportPost", err)
	}
	if err == nil {
		s.changed(folio.ScopePosts)
	}
	return err
}

// ImportProject stores p exactly, replacing the project with its id.
func (s *ArchiveStore) ImportProject(ctx context.Context, p *folio.Project) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		techs, _ := json.Marshal(p.Technologies)
		images, _ := json.Marshal(p.Images)
		if _, err := tx.ExecContext(ctx, insertProject+`
			ON CONFLICT (id) DO UPDATE SET title = excluded.title, description = excluded.description,
			long_description = excluded.long_description, technologies = excluded.technologies, status = excluded.status,
			demo_url = excluded.demo_url, source_url = excluded.source_url, images = excluded.images,
			created_at = excluded.created_at, updated_at = excluded.updated_at, technologies_lower = excluded.technologies_lower`,
			p.ID, p.Title, p.Description, p.LongDescription, string(techs), p.Status, p.DemoURL, p.SourceURL, string(images),
			s.ts(p.CreatedAt), s.ts(p.UpdatedAt), technologiesLower(p)); err != nil {
			return err
		}
		return s.indexProject(ctx, tx, p.ID)
	})
	if err != nil {
		return wrap("ImportProject", err)
	}
	s.changed(folio.ScopeProjects)
	return nil
}

// ImportProfile applies an exported profile: to the user with its id, else to the user with its
// email, else as a new owner with that id and no password (set one with folio user passwd).
func (s *ArchiveStore) ImportProfile(ctx context.Context, u *folio.User) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET name = $1, bio = $2, location = $3, website = $4, updated_at = $5
			WHERE id = $6 OR (email_key = $7 AND NOT EXISTS (SELECT 1 FROM users WHERE id = $6))`,
			u.Name, u.Bio, u.Location, u.Website, s.ts(u.UpdatedAt), u.ID, folio.EmailKey(u.Email))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		role := u.Role
		if role == "" {
			role = folio.RoleOwner
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO users (id, email, email_key, name, role, password_hash, bio, location, website, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, '', $6, $7, $8, $9, $10)`, u.ID, u.Email, folio.EmailKey(u.Email), u.Name, string(role),
			u.Bio, u.Location, u.Website, s.ts(u.CreatedAt), s.ts(u.UpdatedAt))
		return err
	})
	if err != nil {
		return wrap("ImportProfile", err)
	}
	return nil
}

// ImportMedia records a media object as exported (its first record wins, as with uploads).
func (s *ArchiveStore) ImportMedia(ctx context.Context, m folio.MediaEntry) error {
	sv := make([]storedVariant, len(m.Variants))
	for i, v := range m.Variants {
		sv[i] = storedVariant(v)
	}
	vj, _ := json.Marshal(sv)
	_, err := s.W.ExecContext(ctx, `INSERT INTO media (key, url, filename, size, content_type, width, height, source, prompt, created_by, created_at,
		variants, blurhash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (key) DO NOTHING`,
		m.Key, m.URL, m.Filename, m.Size, m.ContentType, m.Width, m.Height, m.Source, m.Prompt, m.CreatedBy, s.ts(m.CreatedAt),
		string(vj), m.Blurhash)
	if err != nil {
		return wrap("ImportMedia", err)
	}
	return nil
}

// ImportSettings replaces the settings document by doc, keeping the stored secrets (an archive
// carries none), and tells every instance.
func (s *ArchiveStore) ImportSettings(ctx context.Context, doc folio.SettingsDoc) error {
	for {
		cur, n, err := s.SettingsDocument(ctx)
		if err != nil {
			return err
		}
		next := doc.WithoutSecrets()
		for _, k := range folio.SettingsSecretFields {
			if v, ok := cur[k]; ok {
				next[k] = v
			}
		}
		if err := s.DB.Settings.SaveSettingsDocument(ctx, next, n); !errors.Is(err, settings.ErrStale) {
			return err
		}
	}
}

// SettingsDocument returns the settings document (settings.Store's), for export.
func (s *ArchiveStore) SettingsDocument(ctx context.Context) (folio.SettingsDoc, int64, error) {
	return s.DB.Settings.SettingsDocument(ctx)
}
