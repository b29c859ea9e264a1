package analyticsdb

import (
	"context"
	"database/sql"
	"strings"
)

// AnalyticsSalt returns the visitor-hash salt of the rotation window windowKey ("day:2026-01-05").
// When the window has none yet, candidate becomes its salt — unless another instance stored one
// first, whose salt is returned instead, so all instances agree. Salts of earlier windows (and of
// other rotation kinds) are deleted in the same transaction, so old hashes cannot be recomputed.
func (s *Store) AnalyticsSalt(ctx context.Context, windowKey, candidate string) (string, error) {
	kind, _, _ := strings.Cut(windowKey, ":")
	var salt string
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO analytics_salts (window_key, salt, created_at) VALUES ($1, $2, $3) ON CONFLICT (window_key) DO NOTHING`,
			windowKey, candidate, s.db.TS(s.db.Now())); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT salt FROM analytics_salts WHERE window_key = $1`, windowKey).Scan(&salt); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM analytics_salts WHERE window_key < $1 OR window_key NOT LIKE $2`, windowKey, kind+":%")
		return err
	})
	if err != nil {
		return "", wrap("AnalyticsSalt", err)
	}
	return salt, nil
}

// AnalyticsSaltWindows lists the windows that have a stored salt (for tests and operators).
func (s *Store) AnalyticsSaltWindows(ctx context.Context) ([]string, error) {
	return s.texts(ctx, "AnalyticsSaltWindows", `SELECT window_key FROM analytics_salts ORDER BY window_key`)
}
