package identity

import (
	"context"
	"net/mail"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

// Sign-in links by mail (docs/api.md, "Sign-in links"): a single-use secret, valid
// SignInLinkMaxAge, kept by the store under its hash like a two-factor ticket but as a challenge
// of its own kind, so neither can be spent as the other.

const challengeLink = "signin.link"

// SignInLinkMaxAge is how long a sign-in link signs in.
const SignInLinkMaxAge = 15 * time.Minute

// ErrBadLink answers a link that is unknown, used, expired or revoked, all alike.
var ErrBadLink = folio.Errorf(folio.EUNAUTHORIZED, "This sign-in link is invalid, was used already or has expired; ask for a new one.")

// LinkRequest is the body of POST /api/auth/link.
type LinkRequest struct {
	Email string `json:"email" doc:"the account's email address"`
}

// Validate checks the address's form (never whether an account has it).
func (in *LinkRequest) Validate() error {
	var v folio.Validation
	in.Email = strings.TrimSpace(in.Email)
	if in.Email == "" {
		v.Missing("email")
	} else if a, err := mail.ParseAddress(in.Email); err != nil || a.Address != in.Email || len(in.Email) > folio.MaxEmailLen {
		v.Invalid("email", "must be an email address such as ada@example.com")
	}
	return v.Err()
}

// RequestSignInLink makes a sign-in link's secret for the account with the email, when there is
// one that may sign in; otherwise it returns no user and no error, so the answer is the same.
// Every request counts toward the account's (or the address's) sign-in limit, so links cannot
// be used to flood a mailbox.
func (s *Service) RequestSignInLink(ctx context.Context, in *LinkRequest, attempts Attempts) (*folio.User, string, error) {
	if err := in.Validate(); err != nil {
		return nil, "", err
	}
	u, err := s.store.UserByEmail(ctx, in.Email)
	if folio.IsNotFound(err) {
		if err := attempts.Check(limitEmail(in.Email)); err != nil {
			return nil, "", err
		}
		attempts.Failed()
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	if err := attempts.Check(limitAccount(u)); err != nil {
		return nil, "", err
	}
	attempts.Failed()
	if !u.Role.Valid() {
		return nil, "", nil
	}
	now := s.cfg.Now()
	token, hash := auth.NewTicket()
	c := &folio.AuthChallenge{Kind: challengeLink, UserID: u.ID, Data: strconv.FormatInt(u.IssuedAt(now), 10),
		ExpiresAt: now.Add(SignInLinkMaxAge).Unix()}
	if err := s.store.CreateAuthChallenge(ctx, hash, c); err != nil {
		return nil, "", err
	}
	return u, token, nil
}

// SignInWithLink spends a sign-in link's secret and returns its user. A link works once, within
// SignInLinkMaxAge, and not after the user's sessions were revoked; a failure counts toward the
// client's sign-in limit.
func (s *Service) SignInWithLink(ctx context.Context, token string, attempts Attempts) (*folio.User, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		var v folio.Validation
		v.Missing("token")
		return nil, v.Err()
	}
	hash := auth.HashTicket(token)
	c, err := s.store.TakeAuthChallenge(ctx, hash, challengeLink)
	if folio.IsNotFound(err) {
		if err := attempts.Check("link"); err != nil {
			return nil, err
		}
		attempts.Failed()
		return nil, ErrBadLink
	}
	if err != nil {
		return nil, err
	}
	u, err := s.store.User(ctx, c.UserID)
	if folio.IsNotFound(err) {
		return nil, ErrBadLink
	}
	if err != nil {
		return nil, err
	}
	iat, _ := strconv.ParseInt(c.Data, 10, 64)
	if s.cfg.Now().Unix() >= c.ExpiresAt || !u.Role.Valid() || !u.SessionValid(iat, "") {
		return u, ErrBadLink
	}
	return u, nil
}
