package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/foliohq/folio"
)

// ScopeUser is the change scope of the user with the given id (folio.ScopeUserPrefix), announced
// through Changed here and through Listen elsewhere.
func ScopeUser(id string) string { return folio.ScopeUserPrefix + id }

// revokeSQL sets sessions_revoked_at to the revocation time that ends every session issued up to
// now: tokens carry whole seconds, so a session issued earlier in the current second must be
// refused too, hence the next whole second ($1 = now + 1). When the sessions were already revoked
// at or after that second, one second later still, so sessions issued since that revocation
// (which take its time as their iat, see httpapi's issueSession) end as well.
const revokeSQL = `sessions_revoked_at = CASE WHEN sessions_revoked_at >= $1 THEN sessions_revoked_at + 1 ELSE $1 END`

// revoke runs UPDATE users SET <revokeSQL>, <set> WHERE id = <last arg> RETURNING the new
// revocation time; args continue from $2. set must assign sessions_kept_jti (usually to '').

func (db *DB) revoke(ctx context.Context, op, set string, args ...any) (int64, error) {
	q := `UPDATE users SET ` + revokeSQL
	if set != "" {
		q += `, ` + set
	}
	q += fmt.Sprintf(` WHERE id = $%d RETURNING sessions_revoked_at`, len(args)+1)
	var at int64
	err := db.W.QueryRowContext(ctx, q, append([]any{db.Now().Unix() + 1}, args...)...).Scan(&at)
	if err == sql.ErrNoRows {
		return 0, notFound("User", fmt.Sprint(args[len(args)-1]))
	}
	if err != nil {
		return 0, fmt.Errorf("sqldb.%s: %w", op, err)
	}
	db.changed(ScopeUser(fmt.Sprint(args[len(args)-1])))
	return at, nil
}

// RevokeSessions ends every session of the user issued until now and returns the new revocation
// time (Unix seconds), or ENOTFOUND.
func (s *IdentityStore) RevokeSessions(ctx context.Context, id string) (int64, error) {
	return s.revoke(ctx, "RevokeSessions", `sessions_kept_jti = ''`, id)
}

// ChangePassword stores a new password hash and ends every session of the user issued until now
// except the one whose jti is keepJTI (the caller's; "" keeps none), in one statement. It returns
// the new revocation time, or ENOTFOUND.
func (s *IdentityStore) ChangePassword(ctx context.Context, id, hash, keepJTI string) (int64, error) {
	return s.revoke(ctx, "ChangePassword", `password_hash = $2, updated_at = $3, sessions_kept_jti = $4`, hash, s.ts(s.Now()), keepJTI, id)
}

// SetUserRole changes a user's role and ends their sessions (a session carries the role it was
// issued with), or returns ENOTFOUND.
func (s *IdentityStore) SetUserRole(ctx context.Context, id string, role folio.Role) error {
	if !role.Valid() {
		var v folio.Validation
		v.Invalid("role", "must be owner or editor")
		return v.Err()
	}
	_, err := s.revoke(ctx, "SetUserRole", `role = $2, updated_at = $3, sessions_kept_jti = ''`, string(role), s.ts(s.Now()), id)
	return err
}

// SetTOTPSecret stores a new, not yet enabled TOTP secret (setup). It refuses (ECONFLICT) when
// TOTP is already enabled: disable it first.
func (s *IdentityStore) SetTOTPSecret(ctx context.Context, id, secret string) error {
	res, err := s.W.ExecContext(ctx, `UPDATE users SET totp_secret = $1, totp_last_step = 0 WHERE id = $2 AND totp_enabled = 0`, secret, id)
	if err != nil {
		return wrap("SetTOTPSecret", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.User(ctx, id); err != nil {
			return err
		}
		return folio.Errorf(folio.ECONFLICT, "Two-factor sign-in is already on; turn it off before setting it up again.")
	}
	s.changed(ScopeUser(id))
	return nil
}

// TOTPSecrets returns every stored TOTP secret (set up or in force), by user id.
func (s *IdentityStore) TOTPSecrets(ctx context.Context) (map[string]string, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT id, totp_secret FROM users WHERE totp_secret <> ''`)
	if err != nil {
		return nil, wrap("TOTPSecrets", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, secret string
		if err := rows.Scan(&id, &secret); err != nil {
			return nil, wrap("TOTPSecrets", err)
		}
		out[id] = secret
	}
	return out, rows.Err()
}

// ReplaceTOTPSecret stores secret in place of old, in one conditional statement, so a setup or a
// reset that happened meanwhile is kept; false when the stored secret was no longer old.
func (s *IdentityStore) ReplaceTOTPSecret(ctx context.Context, id, old, secret string) (bool, error) {
	res, err := s.W.ExecContext(ctx, `UPDATE users SET totp_secret = $1 WHERE id = $2 AND totp_secret = $3 AND totp_secret <> ''`,
		secret, id, old)
	if err != nil {
		return false, wrap("ReplaceTOTPSecret", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// EnableTOTP turns TOTP on for the user, marks step as used (the code that proved the setup),
// and replaces the recovery codes by the given hashes, in one transaction. It refuses
// (ECONFLICT) when TOTP is already on or no secret was set up.
func (s *IdentityStore) EnableTOTP(ctx context.Context, id string, step int64, recoveryHashes []string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET totp_enabled = 1, totp_last_step = $1
			WHERE id = $2 AND totp_enabled = 0 AND totp_secret <> ''`, step, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return folio.Errorf(folio.ECONFLICT, "Two-factor sign-in is already on, or was not set up (POST /api/auth/totp/setup first).")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM totp_recovery_codes WHERE user_id = $1`, id); err != nil {
			return err
		}
		for _, h := range recoveryHashes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO totp_recovery_codes (user_id, code_hash) VALUES ($1, $2)`, id, h); err != nil {
				return err
			}
		}
		return nil
	})
	var fe *folio.Error
	if errors.As(err, &fe) {
		return err
	}
	if err != nil {
		return wrap("EnableTOTP", err)
	}
	s.changed(ScopeUser(id))
	return nil
}

// DisableTOTP turns TOTP off for the user and forgets the secret and recovery codes (also the
// CLI's totp-reset). It returns ENOTFOUND for an unknown user; turning off what is off is not an
// error.
func (s *IdentityStore) DisableTOTP(ctx context.Context, id string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET totp_enabled = 0, totp_secret = '', totp_last_step = 0 WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("User", id)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM totp_recovery_codes WHERE user_id = $1`, id)
		return err
	})
	if folio.IsNotFound(err) {
		return err
	}
	if err != nil {
		return wrap("DisableTOTP", err)
	}
	s.changed(ScopeUser(id))
	return nil
}

// UseTOTPStep records that the code of the given 30-second step was accepted. It reports false
// when that step (or a later one) was already used, so each code signs in once, even when two
// instances receive it at the same moment (the update is one conditional statement).
func (s *IdentityStore) UseTOTPStep(ctx context.Context, id string, step int64) (bool, error) {
	res, err := s.W.ExecContext(ctx, `UPDATE users SET totp_last_step = $1 WHERE id = $2 AND totp_enabled = 1 AND totp_last_step < $1`, step, id)
	if err != nil {
		return false, wrap("UseTOTPStep", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// UseRecoveryCode spends the recovery code with the given hash. It reports false when the user
// has no such unused code.
func (s *IdentityStore) UseRecoveryCode(ctx context.Context, id, hash string) (bool, error) {
	res, err := s.W.ExecContext(ctx, `UPDATE totp_recovery_codes SET used_at = $1 WHERE user_id = $2 AND code_hash = $3 AND used_at IS NULL`,
		s.ts(s.Now()), id, hash)
	if err != nil {
		return false, wrap("UseRecoveryCode", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// RecoveryCodesLeft counts the user's unused recovery codes.
func (s *IdentityStore) RecoveryCodesLeft(ctx context.Context, id string) (int, error) {
	var n int
	err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM totp_recovery_codes WHERE user_id = $1 AND used_at IS NULL`, id).Scan(&n)
	if err != nil {
		return 0, wrap("RecoveryCodesLeft", err)
	}
	return n, nil
}

// CreateSignInTicket stores a sign-in ticket under the hash of its secret and forgets the tickets
// that have expired (so the table holds at most the last five minutes' tickets).
func (s *IdentityStore) CreateSignInTicket(ctx context.Context, hash string, t *folio.SignInTicket) error {
	err := s.txRetryable(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM signin_tickets WHERE expires_at <= $1`, s.Now().Unix()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO signin_tickets (id, user_id, issued_at, expires_at) VALUES ($1, $2, $3, $4)`,
			hash, t.UserID, t.IssuedAt, t.ExpiresAt)
		return err
	})
	if err != nil {
		return wrap("CreateSignInTicket", err)
	}
	return nil
}

// SignInTicket returns the ticket stored under hash, or ENOTFOUND.
func (s *IdentityStore) SignInTicket(ctx context.Context, hash string) (*folio.SignInTicket, error) {
	var t folio.SignInTicket
	err := s.R.QueryRowContext(ctx, `SELECT user_id, issued_at, expires_at, attempts FROM signin_tickets WHERE id = $1`, hash).
		Scan(&t.UserID, &t.IssuedAt, &t.ExpiresAt, &t.Attempts)
	if err == sql.ErrNoRows {
		return nil, folio.Errorf(folio.ENOTFOUND, "The sign-in ticket was not found.")
	}
	if err != nil {
		return nil, wrap("SignInTicket", err)
	}
	return &t, nil
}

// TrySignInTicket counts one more code tried with the ticket, in one conditional statement, so
// concurrent tries on any number of instances never count past maxAttempts. It returns the count,
// or 0 when the try was not counted (the ticket is gone or out of tries).
func (s *IdentityStore) TrySignInTicket(ctx context.Context, hash string, maxAttempts int) (int, error) {
	var n int
	err := s.W.QueryRowContext(ctx, `UPDATE signin_tickets SET attempts = attempts + 1 WHERE id = $1 AND attempts < $2
		RETURNING attempts`, hash, maxAttempts).Scan(&n)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, wrap("TrySignInTicket", err)
	}
	return n, nil
}

// SpendSignInTicket removes the ticket; false when it was gone already.
func (s *IdentityStore) SpendSignInTicket(ctx context.Context, hash string) (bool, error) {
	res, err := s.W.ExecContext(ctx, `DELETE FROM signin_tickets WHERE id = $1`, hash)
	if err != nil {
		return false, wrap("SpendSignInTicket", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// UnlockSignIn counts one more unlock of the user's sign-in failure limit (`folio user unlock`)
// and returns the count, or ENOTFOUND. The count is part of the limit's key, so every failure
// counted before no longer applies, on every instance and whether the counts live in memory or
// in Redis; the next sign-in step reads it from here.
func (s *IdentityStore) UnlockSignIn(ctx context.Context, id string) (int64, error) {
	var n int64
	err := s.W.QueryRowContext(ctx, `UPDATE users SET signin_unlocks = signin_unlocks + 1 WHERE id = $1 RETURNING signin_unlocks`, id).Scan(&n)
	if err == sql.ErrNoRows {
		return 0, notFound("User", id)
	}
	if err != nil {
		return 0, wrap("UnlockSignIn", err)
	}
	return n, nil
}
