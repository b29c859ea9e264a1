package sqldb

import (
	"context"
	"database/sql"
	"encoding/base64"
	"time"

	"github.com/foliohq/folio"
)

// The passkeys, sign-in ceremonies and linked provider accounts of IdentityStore (docs/api.md,
// "Passkeys, identity providers, sign-in links").

const passkeyColumns = `id, user_id, credential_id, name, credential, sign_count, backup_eligible, backup_state, created_at, last_used_at`

func scanPasskey(row interface{ Scan(...any) error }) (*folio.Passkey, error) {
	var p folio.Passkey
	var credID, cred string
	var signCount int64
	var eligible, state int
	var created, used Time
	if err := row.Scan(&p.ID, &p.UserID, &credID, &p.Name, &cred, &signCount, &eligible, &state, &created, &used); err != nil {
		return nil, err
	}
	id, err := base64.RawURLEncoding.DecodeString(credID)
	if err != nil {
		return nil, err
	}
	p.CredentialID, p.Credential, p.SignCount = id, []byte(cred), uint32(signCount)
	p.BackupEligible, p.BackupState, p.CreatedAt, p.LastUsedAt = eligible != 0, state != 0, created.Time, used.Ptr()
	return &p, nil
}

// CreatePasskey stores p (setting its ID and CreatedAt) and ends every session of its user but
// the one whose token id is keepJTI, as a password change does; it returns the new revocation
// time. A credential registered already (to anyone) is ECONFLICT; an unknown user ENOTFOUND.
func (s *IdentityStore) CreatePasskey(ctx context.Context, p *folio.Passkey, keepJTI string) (int64, error) {
	p.ID = folio.NewID()
	p.CreatedAt = s.Now().UTC().Truncate(time.Microsecond)
	_, err := s.W.ExecContext(ctx, `INSERT INTO passkeys (`+passkeyColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL)`,
		p.ID, p.UserID, base64.RawURLEncoding.EncodeToString(p.CredentialID), p.Name, string(p.Credential), int64(p.SignCount),
		boolInt(p.BackupEligible), boolInt(p.BackupState), s.ts(p.CreatedAt))
	if isUniqueViolation(err) {
		return 0, folio.Errorf(folio.ECONFLICT, "This passkey is registered already.")
	}
	if err != nil {
		if _, uerr := s.User(ctx, p.UserID); folio.IsNotFound(uerr) {
			return 0, uerr
		}
		return 0, wrap("CreatePasskey", err)
	}
	return s.revoke(ctx, "CreatePasskey", `sessions_kept_jti = $2`, keepJTI, p.UserID)
}

// Passkeys returns the user's passkeys, oldest first.
func (s *IdentityStore) Passkeys(ctx context.Context, userID string) ([]*folio.Passkey, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, wrap("Passkeys", err)
	}
	defer rows.Close()
	out := []*folio.Passkey{}
	for rows.Next() {
		p, err := scanPasskey(rows)
		if err != nil {
			return nil, wrap("Passkeys", err)
		}
		out = append(out, p)
	}
	return out, wrapIf("Passkeys", rows.Err())
}

// PasskeyByCredentialID returns the passkey with the given raw credential id, or ENOTFOUND.
func (s *IdentityStore) PasskeyByCredentialID(ctx context.Context, credID []byte) (*folio.Passkey, error) {
	p, err := scanPasskey(s.R.QueryRowContext(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE credential_id = $1`,
		base64.RawURLEncoding.EncodeToString(credID)))
	if err == sql.ErrNoRows {
		return nil, folio.Errorf(folio.ENOTFOUND, "No such passkey.")
	}
	if err != nil {
		return nil, wrap("PasskeyByCredentialID", err)
	}
	return p, nil
}

// UsePasskey records a sign-in with the passkey: its updated credential record, counter and
// backup state, and the time. It refuses (false) when the stored counter is no longer below
// signCount (another sign-in with the same count came first), unless the authenticator keeps no
// counter (0).
func (s *IdentityStore) UsePasskey(ctx context.Context, id string, credential []byte, signCount uint32, backupState bool) (bool, error) {
	res, err := s.W.ExecContext(ctx, `UPDATE passkeys SET credential = $1, sign_count = $2, backup_state = $3, last_used_at = $4
		WHERE id = $5 AND (sign_count < $2 OR $2 = 0)`, string(credential), int64(signCount), boolInt(backupState), s.ts(s.Now()), id)
	if err != nil {
		return false, wrap("UsePasskey", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// RenamePasskey renames one of the user's passkeys and ends every other session of the user
// (keepJTI as CreatePasskey); ENOTFOUND when the user has no such passkey.
func (s *IdentityStore) RenamePasskey(ctx context.Context, userID, id, name, keepJTI string) (*folio.Passkey, int64, error) {
	res, err := s.W.ExecContext(ctx, `UPDATE passkeys SET name = $1 WHERE id = $2 AND user_id = $3`, name, id, userID)
	if err != nil {
		return nil, 0, wrap("RenamePasskey", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, 0, notFound("Passkey", id)
	}
	p, err := scanPasskey(s.W.QueryRowContext(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE id = $1`, id))
	if err != nil {
		return nil, 0, wrap("RenamePasskey", err)
	}
	at, err := s.revoke(ctx, "RenamePasskey", `sessions_kept_jti = $2`, keepJTI, userID)
	return p, at, err
}

// DeletePasskey removes one of the user's passkeys and ends every other session of the user
// (keepJTI as CreatePasskey); ENOTFOUND when the user has no such passkey.
func (s *IdentityStore) DeletePasskey(ctx context.Context, userID, id, keepJTI string) (int64, error) {
	res, err := s.W.ExecContext(ctx, `DELETE FROM passkeys WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return 0, wrap("DeletePasskey", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, notFound("Passkey", id)
	}
	return s.revoke(ctx, "DeletePasskey", `sessions_kept_jti = $2`, keepJTI, userID)
}

// CreateAuthChallenge stores a ceremony's secret under its hash and forgets the expired ones.
func (s *IdentityStore) CreateAuthChallenge(ctx context.Context, hash string, c *folio.AuthChallenge) error {
	err := s.txRetryable(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM auth_challenges WHERE expires_at <= $1`, s.Now().Unix()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO auth_challenges (id, kind, user_id, data, expires_at) VALUES ($1, $2, $3, $4, $5)`,
			hash, c.Kind, c.UserID, c.Data, c.ExpiresAt)
		return err
	})
	return wrapIf("CreateAuthChallenge", err)
}

// TakeAuthChallenge removes and returns the challenge of the given kind stored under hash, or
// ENOTFOUND (never stored, of another kind, or taken already): of two callers only one gets it.
// An expired one is returned too; the caller checks ExpiresAt.
func (s *IdentityStore) TakeAuthChallenge(ctx context.Context, hash, kind string) (*folio.AuthChallenge, error) {
	c := folio.AuthChallenge{Kind: kind}
	err := s.W.QueryRowContext(ctx, `DELETE FROM auth_challenges WHERE id = $1 AND kind = $2 RETURNING user_id, data, expires_at`,
		hash, kind).Scan(&c.UserID, &c.Data, &c.ExpiresAt)
	if err == sql.ErrNoRows {
		return nil, folio.Errorf(folio.ENOTFOUND, "The sign-in challenge was not found.")
	}
	if err != nil {
		return nil, wrap("TakeAuthChallenge", err)
	}
	return &c, nil
}
