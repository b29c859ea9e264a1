package sqldb

import (
	"context"
	"database/sql"

	"github.com/foliohq/folio"
)

const userColumns = `id, email, name, role, password_hash, bio, location, website, created_at, updated_at,
	sessions_revoked_at, sessions_kept_jti, totp_secret, totp_enabled, signin_unlocks`

func scanUser(row interface{ Scan(...any) error }) (*folio.User, error) {
	var u folio.User
	var created, updated Time
	var totpEnabled int64
	if err := row.Scan(&u.ID, &u.Email, &u.Name, &u.Role, &u.PasswordHash, &u.Bio, &u.Location, &u.Website,
		&created, &updated, &u.SessionsRevokedAt, &u.SessionsKeptJTI, &u.TOTPSecret, &totpEnabled, &u.SignInUnlocks); err != nil {
		return nil, err
	}
	u.CreatedAt, u.UpdatedAt, u.TOTPEnabled = created.Time, updated.Time, totpEnabled != 0
	return &u, nil
}

// CreateUser stores a new user from in (already validated) with the given password hash. An
// email already taken, in any letter case, is ECONFLICT.
func (s *IdentityStore) CreateUser(ctx context.Context, in *folio.UserInput, passwordHash string) (*folio.User, error) {
	return s.insertUser(ctx, in, passwordHash, false)
}

// CreateFirstUser stores a new user only when the users table is empty (first-start bootstrap).
// It returns nil and no error when a user already exists, including when another instance
// starting at the same moment created it first.
func (s *IdentityStore) CreateFirstUser(ctx context.Context, in *folio.UserInput, passwordHash string) (*folio.User, error) {
	u, err := s.insertUser(ctx, in, passwordHash, true)
	if folio.ErrorCode(err) == folio.ECONFLICT {
		return nil, nil
	}
	return u, err
}

func (db *DB) insertUser(ctx context.Context, in *folio.UserInput, passwordHash string, onlyFirst bool) (*folio.User, error) {
	now := db.Now().UTC().Truncate(1000)
	u := &folio.User{ID: folio.NewID(), Email: in.Email, Name: in.Name, Role: in.Role, PasswordHash: passwordHash,
		CreatedAt: now, UpdatedAt: now}
	q := `INSERT INTO users (id, email, email_key, name, role, password_hash, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	if onlyFirst {
		q = `INSERT INTO users (id, email, email_key, name, role, password_hash, created_at, updated_at)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE NOT EXISTS (SELECT 1 FROM users)`
	}
	res, err := db.W.ExecContext(ctx, q, u.ID, u.Email, folio.EmailKey(u.Email), u.Name, string(u.Role), passwordHash,
		db.ts(now), db.ts(now))
	if isUniqueViolation(err) {
		return nil, folio.Errorf(folio.ECONFLICT, "A user with the email %q already exists.", in.Email)
	}
	if err != nil {
		return nil, wrap("CreateUser", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, folio.Errorf(folio.ECONFLICT, "A user already exists.")
	}
	return u, nil
}

// User returns the user with the given id, or ENOTFOUND.
func (s *IdentityStore) User(ctx context.Context, id string) (*folio.User, error) {
	u, err := scanUser(s.R.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if err == sql.ErrNoRows {
		return nil, notFound("User", id)
	}
	if err != nil {
		return nil, wrap("User", err)
	}
	return u, nil
}

// UserByEmail returns the user with the given email, compared without letter case, or
// ENOTFOUND.
func (s *IdentityStore) UserByEmail(ctx context.Context, email string) (*folio.User, error) {
	u, err := scanUser(s.R.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE email_key = $1`, folio.EmailKey(email)))
	if err == sql.ErrNoRows {
		return nil, notFound("User", email)
	}
	if err != nil {
		return nil, wrap("UserByEmail", err)
	}
	return u, nil
}

// Users returns every user, oldest first.
func (s *IdentityStore) Users(ctx context.Context) ([]*folio.User, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT `+userColumns+` FROM users ORDER BY created_at, id`)
	if err != nil {
		return nil, wrap("Users", err)
	}
	defer rows.Close()
	out := []*folio.User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, wrap("Users", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// CountUsers returns how many users exist.
func (s *IdentityStore) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM users`).Scan(&n); err != nil {
		return 0, wrap("CountUsers", err)
	}
	return n, nil
}

// UpdateProfile applies in (already validated) to the user with the given id, or returns
// ENOTFOUND.
func (s *IdentityStore) UpdateProfile(ctx context.Context, id string, in *folio.ProfileUpdate) (*folio.User, error) {
	var u *folio.User
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
		if err == sql.ErrNoRows {
			return notFound("User", id)
		}
		if err != nil {
			return err
		}
		in.Apply(u)
		u.UpdatedAt = s.Now().UTC().Truncate(1000)
		_, err = tx.ExecContext(ctx, `UPDATE users SET name = $1, bio = $2, location = $3, website = $4, updated_at = $5
			WHERE id = $6`, u.Name, u.Bio, u.Location, u.Website, s.ts(u.UpdatedAt), u.ID)
		return err
	})
	if folio.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		return nil, wrap("UpdateProfile", err)
	}
	return u, nil
}

// SetPasswordHash replaces a user's password hash (a new password, or a rehash at login when the
// hashing parameters changed), or returns ENOTFOUND.
func (s *IdentityStore) SetPasswordHash(ctx context.Context, id, hash string) error {
	res, err := s.W.ExecContext(ctx, `UPDATE users SET password_hash = $1, updated_at = $2 WHERE id = $3`,
		hash, s.ts(s.Now()), id)
	if err != nil {
		return wrap("SetPasswordHash", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("User", id)
	}
	return nil
}

// DeleteUser removes a user and their API keys, or returns ENOTFOUND. Their sessions stop
// working at once on every instance: the user is gone, and the instances are told to forget
// their cached copy (ScopeUser).
func (s *IdentityStore) DeleteUser(ctx context.Context, id string) error {
	res, err := s.W.ExecContext(ctx, `DELETE FROM users WHERE id = $1`, id)
	if err != nil {
		return wrap("DeleteUser", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("User", id)
	}
	s.changed(ScopeUser(id))
	return nil
}
