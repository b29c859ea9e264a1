package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/foliohq/folio"
)

// MediaRecord is a stored media object as the media library lists it.
type MediaRecord struct {
	folio.MediaObject
	Source    string    `json:"source"` // upload or ai
	Prompt    string    `json:"prompt,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// RecordMedia remembers a stored object. The same bytes uploaded again keep their first record
// (the key is content-addressed).
func (db *DB) RecordMedia(ctx context.Context, obj folio.MediaObject, source, prompt, createdBy string) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO media (key, url, filename, size, content_type, width, height, source, prompt, created_by, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (key) DO NOTHING`,
			obj.Key, obj.URL, obj.Filename, obj.Size, obj.ContentType, obj.Width, obj.Height, source, prompt, createdBy, db.ts(db.Now()))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // the same bytes again: nothing new was uploaded
		}
		return db.EmitTx(ctx, tx, folio.Event{Type: folio.EventMediaUploaded, Data: obj})
	})
	if err != nil {
		return fmt.Errorf("sqldb.RecordMedia: %w", err)
	}
	return nil
}

// Media lists stored objects, newest first, with the total count.
func (db *DB) Media(ctx context.Context, page, limit int) ([]MediaRecord, int, error) {
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM media`).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("sqldb.Media: %w", err)
	}
	rows, err := db.R.QueryContext(ctx, `SELECT key, url, filename, size, content_type, width, height, source, prompt, created_at
		FROM media ORDER BY created_at DESC, key LIMIT $1 OFFSET $2`, limit, (page-1)*limit)
	if err != nil {
		return nil, 0, fmt.Errorf("sqldb.Media: %w", err)
	}
	defer rows.Close()
	out := []MediaRecord{}
	for rows.Next() {
		var m MediaRecord
		var created Time
		if err := rows.Scan(&m.Key, &m.URL, &m.Filename, &m.Size, &m.ContentType, &m.Width, &m.Height, &m.Source, &m.Prompt, &created); err != nil {
			return nil, 0, fmt.Errorf("sqldb.Media: %w", err)
		}
		m.CreatedAt = created.Time
		out = append(out, m)
	}
	return out, total, rows.Err()
}
