package identity

import (
	"context"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

// Profile returns the user with the given id.
func (s *Service) Profile(ctx context.Context, userID string) (*folio.User, error) {
	return s.store.User(ctx, userID)
}

// UpdateProfile validates in and stores it as the user's profile; the cached copy of the user is
// dropped at once.
func (s *Service) UpdateProfile(ctx context.Context, userID string, in *folio.ProfileUpdate) (*folio.User, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	u, err := s.store.UpdateProfile(ctx, userID, in)
	if err != nil {
		return nil, err
	}
	s.ForgetUser(userID)
	return u, nil
}

// APIKeys returns the keys that are not revoked, newest first, with the last uses this instance
// has seen but not yet written.
func (s *Service) APIKeys(ctx context.Context) ([]*folio.APIKey, error) {
	keys, err := s.store.APIKeys(ctx, false)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		s.LastUsed(k)
	}
	return keys, nil
}

// CreateAPIKey validates in and mints a key for the user; it returns the secret, which is stored
// only as its hash, and the key.
func (s *Service) CreateAPIKey(ctx context.Context, userID string, in *folio.APIKeyInput) (string, *folio.APIKey, error) {
	if err := in.Validate(s.cfg.Now()); err != nil {
		return "", nil, err
	}
	level, _ := folio.ParseLevel(in.Level)
	secret, prefix, hash := auth.MintAPIKey()
	k := &folio.APIKey{UserID: userID, Name: in.Name, Level: level, Prefix: prefix, ExpiresAt: in.Expiry()}
	if err := s.store.CreateAPIKey(ctx, k, hash); err != nil {
		return "", nil, err
	}
	return secret, k, nil
}

// RevokeAPIKey revokes a key; it stops working on this instance at once, whether or not the
// change notification reaches it, and on the others when they hear of the change.
func (s *Service) RevokeAPIKey(ctx context.Context, id string) error {
	if err := s.store.RevokeAPIKey(ctx, id); err != nil {
		return err
	}
	s.ForgetKey(id)
	return nil
}
