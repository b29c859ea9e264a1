package sqldb

import (
	"context"
	"database/sql"

	"github.com/foliohq/folio"
)

// ExternalIdentityUser returns the id of the user an identity provider's account (provider id,
// subject) is linked to, or ENOTFOUND.
func (s *IdentityStore) ExternalIdentityUser(ctx context.Context, provider, subject string) (string, error) {
	var id string
	err := s.R.QueryRowContext(ctx, `SELECT user_id FROM external_identities WHERE provider = $1 AND subject = $2`, provider, subject).Scan(&id)
	if err == sql.ErrNoRows {
		return "", folio.Errorf(folio.ENOTFOUND, "This account of the identity provider is not linked to a user.")
	}
	if err != nil {
		return "", wrap("ExternalIdentityUser", err)
	}
	return id, nil
}

// LinkExternalIdentity links a provider's account to the user; linking it again to the same
// user changes nothing, to another user is ECONFLICT, to an unknown user ENOTFOUND.
func (s *IdentityStore) LinkExternalIdentity(ctx context.Context, provider, subject, userID, email string) error {
	_, err := s.W.ExecContext(ctx, `INSERT INTO external_identities (provider, subject, user_id, email, created_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (provider, subject) DO NOTHING`, provider, subject, userID, email, s.ts(s.Now()))
	if err != nil {
		if _, uerr := s.User(ctx, userID); folio.IsNotFound(uerr) {
			return uerr
		}
		return wrap("LinkExternalIdentity", err)
	}
	owner, err := s.ExternalIdentityUser(ctx, provider, subject)
	if err != nil {
		return err
	}
	if owner != userID {
		return folio.Errorf(folio.ECONFLICT, "This account of the identity provider is linked to another user.")
	}
	return nil
}
