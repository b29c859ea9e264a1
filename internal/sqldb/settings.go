package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/settings"
)

var _ settings.Store = (*SettingsStore)(nil)

// SettingsDocument returns the stored settings document and its version.
func (s *SettingsStore) SettingsDocument(ctx context.Context) (folio.SettingsDoc, int64, error) {
	var raw string
	var n int64
	err := s.R.QueryRowContext(ctx, `SELECT document, version FROM settings WHERE id = 1`).Scan(&raw, &n)
	if err == sql.ErrNoRows {
		return folio.SettingsDoc{}, 0, nil
	}
	if err != nil {
		return nil, 0, wrap("SettingsDocument", err)
	}
	doc := folio.SettingsDoc{}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		return nil, 0, wrap("SettingsDocument", err)
	}
	return doc, n, nil
}

// SaveSettingsDocument replaces the document if it is still at version (settings.ErrStale
// otherwise) and tells every instance (folio.ScopeSettings).
func (s *SettingsStore) SaveSettingsDocument(ctx context.Context, doc folio.SettingsDoc, version int64) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return wrap("SaveSettingsDocument", err)
	}
	res, err := s.W.ExecContext(ctx, `UPDATE settings SET document = $1, version = version + 1, updated_at = $2
		WHERE id = 1 AND version = $3`, string(b), s.ts(s.Now()), version)
	if err != nil {
		return wrap("SaveSettingsDocument", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return settings.ErrStale
	}
	s.changed(folio.ScopeSettings)
	return nil
}

// FirstOwner returns the oldest owner account, or ENOTFOUND.
func (s *SettingsStore) FirstOwner(ctx context.Context) (*folio.User, error) {
	u, err := scanUser(s.R.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE role = $1 ORDER BY created_at, id LIMIT 1`,
		string(folio.RoleOwner)))
	if err == sql.ErrNoRows {
		return nil, folio.Errorf(folio.ENOTFOUND, "No owner account exists yet.")
	}
	if err != nil {
		return nil, wrap("FirstOwner", err)
	}
	return u, nil
}
