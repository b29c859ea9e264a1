package analyticsdb

import (
	"context"
	"database/sql"
	"errors"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

// CreateAnalyticsShare stores a share.
func (s *Store) CreateAnalyticsShare(ctx context.Context, sh folio.AnalyticsShare) error {
	_, err := s.db.W.ExecContext(ctx, `INSERT INTO analytics_shares (id, token_hash, password_hash, created_at) VALUES ($1, $2, $3, $4)`,
		sh.ID, sh.TokenHash, sh.PasswordHash, s.db.TS(sh.CreatedAt))
	return wrapIf("CreateAnalyticsShare", err)
}

// AnalyticsShareByToken returns the share whose token hashes to tokenHash, or RESOURCE_NOT_FOUND.
func (s *Store) AnalyticsShareByToken(ctx context.Context, tokenHash string) (*folio.AnalyticsShare, error) {
	var sh folio.AnalyticsShare
	var at sqldb.Time
	err := s.db.R.QueryRowContext(ctx, `SELECT id, token_hash, password_hash, created_at FROM analytics_shares WHERE token_hash = $1`, tokenHash).
		Scan(&sh.ID, &sh.TokenHash, &sh.PasswordHash, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, folio.Errorf(folio.ENOTFOUND, "This link does not exist or was revoked.")
	}
	if err != nil {
		return nil, wrap("AnalyticsShareByToken", err)
	}
	sh.CreatedAt = at.Time
	return &sh, nil
}

// AnalyticsShares lists the shares, newest first.
func (s *Store) AnalyticsShares(ctx context.Context) ([]folio.AnalyticsShare, error) {
	rows, err := s.db.R.QueryContext(ctx, `SELECT id, token_hash, password_hash, created_at FROM analytics_shares ORDER BY created_at DESC, id`)
	if err != nil {
		return nil, wrap("AnalyticsShares", err)
	}
	defer rows.Close()
	out := []folio.AnalyticsShare{}
	for rows.Next() {
		var sh folio.AnalyticsShare
		var at sqldb.Time
		if err := rows.Scan(&sh.ID, &sh.TokenHash, &sh.PasswordHash, &at); err != nil {
			return nil, wrap("AnalyticsShares", err)
		}
		sh.CreatedAt = at.Time
		out = append(out, sh)
	}
	return out, wrapIf("AnalyticsShares", rows.Err())
}

// DeleteAnalyticsShare deletes a share, or answers RESOURCE_NOT_FOUND.
func (s *Store) DeleteAnalyticsShare(ctx context.Context, id string) error {
	res, err := s.db.W.ExecContext(ctx, `DELETE FROM analytics_shares WHERE id = $1`, id)
	if err != nil {
		return wrap("DeleteAnalyticsShare", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return cmpErr(err, folio.Errorf(folio.ENOTFOUND, "No share with id %s.", id))
	}
	return nil
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}
