package identity

import (
	"context"
	"strings"

	"github.com/foliohq/folio"
)

// Identity providers (docs/api.md, "Identity providers"): an account at a provider signs in the
// user it is linked to. It is linked when the user links it from Security (signed in already),
// or at its first sign-in when the provider vouches for an email address that is a user's. No
// user is ever created this way: users are the owner's to create.

// ExternalAccount is an account at an identity provider, as the provider told it.
type ExternalAccount struct {
	Provider      string // the provider's id in the settings
	Subject       string
	Email         string
	EmailVerified bool
}

// Refusals of a provider sign-in; their messages are shown on the sign-in page.
var (
	ErrUnverifiedEmail = folio.Errorf(folio.EFORBIDDEN, "The identity provider did not confirm this account's email address, so it cannot be matched to a user. Sign in another way and link the account from Security.")
	ErrNoLinkedUser    = folio.Errorf(folio.EFORBIDDEN, "No user has this account's email address. Ask the site's owner for an account, or sign in another way and link the account from Security.")
)

// SignInExternal returns the user an account at a provider signs in. With linkUserID (a signed-in
// user linking the account from Security), the account is linked to that user first.
func (s *Service) SignInExternal(ctx context.Context, a ExternalAccount, linkUserID string) (*folio.User, error) {
	if a.Subject == "" {
		return nil, folio.Errorf(folio.EUPSTREAM, "The identity provider named no account.")
	}
	userID, err := s.store.ExternalIdentityUser(ctx, a.Provider, a.Subject)
	switch {
	case err == nil && linkUserID != "" && userID != linkUserID:
		return nil, folio.Errorf(folio.ECONFLICT, "This account of the identity provider is linked to another user.")
	case err == nil:
	case !folio.IsNotFound(err):
		return nil, err
	case linkUserID != "":
		if err := s.store.LinkExternalIdentity(ctx, a.Provider, a.Subject, linkUserID, a.Email); err != nil {
			return nil, err
		}
		userID = linkUserID
	case !a.EmailVerified || strings.TrimSpace(a.Email) == "":
		return nil, ErrUnverifiedEmail
	default:
		u, err := s.store.UserByEmail(ctx, a.Email)
		if folio.IsNotFound(err) {
			return nil, ErrNoLinkedUser
		}
		if err != nil {
			return nil, err
		}
		if err := s.store.LinkExternalIdentity(ctx, a.Provider, a.Subject, u.ID, a.Email); err != nil {
			return nil, err
		}
		userID = u.ID
	}
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return nil, err
	}
	if !u.Role.Valid() {
		return nil, ErrNoLinkedUser
	}
	return u, nil
}

// challengeProviderState is the folio.AuthChallenge kind of a provider sign-in's state.
const challengeProviderState = "provider.state"

// SaveProviderState keeps a provider sign-in's secrets (data, as its owner encodes them) under
// the hash of its state until expires (Unix seconds); linkUserID is the user linking an account.
func (s *Service) SaveProviderState(ctx context.Context, state, linkUserID, data string, expires int64) error {
	return s.store.CreateAuthChallenge(ctx, challengeHash("provider:"+state), &folio.AuthChallenge{Kind: challengeProviderState,
		UserID: linkUserID, Data: data, ExpiresAt: expires})
}

// ErrProviderState answers a callback whose state is unknown, used or expired.
var ErrProviderState = folio.Errorf(folio.EUNAUTHORIZED, "This sign-in with the identity provider has expired or was already used; start again.")

// TakeProviderState takes a provider sign-in's secrets, once; ErrProviderState when they are
// unknown, taken or expired.
func (s *Service) TakeProviderState(ctx context.Context, state string) (linkUserID, data string, err error) {
	c, err := s.store.TakeAuthChallenge(ctx, challengeHash("provider:"+state), challengeProviderState)
	if folio.IsNotFound(err) {
		return "", "", ErrProviderState
	}
	if err != nil {
		return "", "", err
	}
	if s.cfg.Now().Unix() >= c.ExpiresAt {
		return "", "", ErrProviderState
	}
	return c.UserID, c.Data, nil
}
