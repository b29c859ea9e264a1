package sqldb

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"sort"
	"time"

	"github.com/foliohq/folio"
)

const apiKeyColumns = `k.id, k.user_id, u.email, k.name, k.level, k.prefix, k.created_at, k.expires_at, k.last_used_at, k.revoked_at`

func scanAPIKey(row interface{ Scan(...any) error }, extra ...any) (*folio.APIKey, error) {
	var k folio.APIKey
	var level string
	var created, expires, lastUsed, revoked Time
	dest := append([]any{&k.ID, &k.UserID, &k.UserEmail, &k.Name, &level, &k.Prefix, &created, &expires, &lastUsed, &revoked}, extra...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	lv, ok := folio.ParseLevel(level)
	if !ok {
		return nil, fmt.Errorf("api key %s has unknown level %q", k.ID, level)
	}
	k.Level = lv
	k.CreatedAt, k.ExpiresAt, k.LastUsedAt, k.RevokedAt = created.Time, expires.Ptr(), lastUsed.Ptr(), revoked.Ptr()
	return &k, nil
}

// CreateAPIKey stores a new key for k.UserID (k.ID and k.CreatedAt are set here) with the hash
// of its secret. An unknown user is ENOTFOUND.
func (s *IdentityStore) CreateAPIKey(ctx context.Context, k *folio.APIKey, hash []byte) error {
	k.ID = folio.NewID()
	k.CreatedAt = s.Now().UTC().Truncate(1000)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT email FROM users WHERE id = $1`, k.UserID).Scan(&k.UserEmail); err == sql.ErrNoRows {
			return notFound("User", k.UserID)
		} else if err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, user_id, name, level, prefix, key_hash, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, k.ID, k.UserID, k.Name, k.Level.String(), k.Prefix,
			hex.EncodeToString(hash), s.ts(k.CreatedAt), s.nts(k.ExpiresAt))
		return err
	})
	if folio.IsNotFound(err) {
		return err
	}
	if err != nil {
		return wrap("CreateAPIKey", err)
	}
	if k.ExpiresAt != nil {
		e := k.ExpiresAt.UTC().Truncate(1000)
		k.ExpiresAt = &e
	}
	return nil
}

// APIKeyByHash returns the key whose secret hashes to hash, with its owner, or ENOTFOUND. It
// returns revoked and expired keys too: the caller decides (folio.APIKey.Usable).
func (s *IdentityStore) APIKeyByHash(ctx context.Context, hash []byte) (*folio.APIKey, *folio.User, error) {
	var owner folio.User
	var created, updated Time
	k, err := scanAPIKey(s.queryRow(ctx, s.R, `SELECT `+apiKeyColumns+`, u.name, u.role, u.bio, u.location, u.website,
		u.created_at, u.updated_at FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1`, hex.EncodeToString(hash)),
		&owner.Name, &owner.Role, &owner.Bio, &owner.Location, &owner.Website, &created, &updated)
	if err == sql.ErrNoRows {
		return nil, nil, folio.Errorf(folio.ENOTFOUND, "No such API key.")
	}
	if err != nil {
		return nil, nil, wrap("APIKeyByHash", err)
	}
	owner.ID, owner.Email, owner.CreatedAt, owner.UpdatedAt = k.UserID, k.UserEmail, created.Time, updated.Time
	return k, &owner, nil
}

// APIKey returns the key with the given id (revoked or not), or ENOTFOUND.
func (s *IdentityStore) APIKey(ctx context.Context, id string) (*folio.APIKey, error) {
	k, err := scanAPIKey(s.R.QueryRowContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys k JOIN users u ON u.id = k.user_id
		WHERE k.id = $1`, id))
	if err == sql.ErrNoRows {
		return nil, notFound("API key", id)
	}
	if err != nil {
		return nil, wrap("APIKey", err)
	}
	return k, nil
}

// APIKeys lists keys, newest first: those not revoked, or every key when includeRevoked.
func (s *IdentityStore) APIKeys(ctx context.Context, includeRevoked bool) ([]*folio.APIKey, error) {
	cond := ` WHERE k.revoked_at IS NULL`
	if includeRevoked {
		cond = ``
	}
	rows, err := s.R.QueryContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys k JOIN users u ON u.id = k.user_id`+cond+
		` ORDER BY k.created_at DESC, k.id DESC`)
	if err != nil {
		return nil, wrap("APIKeys", err)
	}
	defer rows.Close()
	out := []*folio.APIKey{}
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, wrap("APIKeys", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeAPIKey marks a key revoked as of now, so it stops authenticating at once. A key that does
// not exist or is already revoked is ENOTFOUND (a revoked key is gone as far as callers can tell).
// It announces the owner's change scope (ScopeUser), so every instance drops its cached copy of
// the owner's keys.
func (s *IdentityStore) RevokeAPIKey(ctx context.Context, id string) error {
	var userID string
	err := s.W.QueryRowContext(ctx, `UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING user_id`,
		s.ts(s.Now()), id).Scan(&userID)
	if err == sql.ErrNoRows {
		return notFound("API key", id)
	}
	if err != nil {
		return wrap("RevokeAPIKey", err)
	}
	s.changed(ScopeUser(userID))
	return nil
}

// TouchAPIKeys records when keys were last used, in one transaction: uses maps key id to its
// latest use. A stored time that is already later is kept, so instances flushing in any order
// converge on the latest use; ids of deleted keys are ignored.
func (s *IdentityStore) TouchAPIKeys(ctx context.Context, uses map[string]time.Time) error {
	if len(uses) == 0 {
		return nil
	}
	ids := make([]string, 0, len(uses))
	for id := range uses {
		ids = append(ids, id)
	}
	sort.Strings(ids) // a fixed order keeps concurrent flushes on PostgreSQL from deadlocking
	err := s.tx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			at := s.ts(uses[id])
			if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET last_used_at = $1
				WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)`, at, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return wrap("TouchAPIKeys", err)
	}
	return nil
}
