package identity

import (
	"context"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

// Sign-in failures. ErrBadLogin, ErrWrongPassword and ErrBadSecondFactor are the ones that count
// toward the sign-in limit.
var (
	ErrBadLogin        = folio.Errorf(folio.EUNAUTHORIZED, "The email or password is incorrect.")
	ErrWrongPassword   = folio.Errorf(folio.EFORBIDDEN, "The current password is incorrect.")
	ErrBadSecondFactor = folio.Errorf(folio.EUNAUTHORIZED, "The code is incorrect or was already used, or the sign-in ticket has expired; sign in again.")
)

// SignIn is the password step of signing in. It returns the user the email names whenever there
// is one, even when the step fails (the audit log records whose account was tried), and, when the
// user has TOTP on, a ticket for the second step (SignInSecondFactor) instead of a session. An
// unknown email, a wrong password and a user without a valid role are all ErrBadLogin. A
// password hashed with outdated parameters is hashed again.
func (s *Service) SignIn(ctx context.Context, in *folio.LoginInput) (*folio.User, string, error) {
	if err := in.Validate(); err != nil {
		return nil, "", err
	}
	u, err := s.store.UserByEmail(ctx, in.Email)
	if folio.IsNotFound(err) {
		// Same work as a wrong password, so the answer does not tell which emails have accounts.
		auth.DummyCheckPassword(in.Password)
		return nil, "", ErrBadLogin
	}
	if err != nil {
		return nil, "", err
	}
	if !auth.CheckPassword(u.PasswordHash, in.Password) || !u.Role.Valid() {
		return u, "", ErrBadLogin
	}
	if auth.NeedsRehash(u.PasswordHash) {
		if h, err := auth.HashPassword(in.Password); err == nil {
			if err := s.store.SetPasswordHash(ctx, u.ID, h); err != nil {
				s.cfg.Logger.Warn("could not store a rehashed password", "user_id", u.ID, "error", err.Error())
			}
		}
	}
	if !u.TOTPEnabled {
		return u, "", nil
	}
	ticket, err := auth.IssueTicket(s.cfg.Secret, u.ID, s.cfg.Now())
	if err != nil {
		return u, "", err
	}
	return u, ticket, nil
}

// SignInSecondFactor is the second step of signing in for a user with TOTP on: the ticket of the
// password step plus a current code or an unused recovery code. It returns the id of the user the
// ticket names whenever it is valid (for the audit log), and the user when the step succeeds; every
// failure of the step is ErrBadSecondFactor.
func (s *Service) SignInSecondFactor(ctx context.Context, in *folio.TOTPLoginInput) (string, *folio.User, error) {
	if err := in.Validate(); err != nil {
		return "", nil, err
	}
	now := s.cfg.Now()
	t, err := auth.ParseTicket(s.cfg.Secret, strings.TrimSpace(in.Ticket), now)
	if err != nil {
		return "", nil, ErrBadSecondFactor
	}
	u, err := s.store.User(ctx, t.UserID)
	if folio.IsNotFound(err) {
		return t.UserID, nil, ErrBadSecondFactor
	}
	if err != nil {
		return t.UserID, nil, err
	}
	// A ticket from before a revocation (a password change, say) is as dead as a session.
	if !u.TOTPEnabled || !u.Role.Valid() || !u.SessionValid(t.IssuedAt.Unix(), "") {
		return t.UserID, nil, ErrBadSecondFactor
	}
	var ok bool
	if strings.TrimSpace(in.Code) != "" {
		var step int64
		if step, ok = auth.MatchTOTP(u.TOTPSecret, in.Code, now); ok {
			if ok, err = s.store.UseTOTPStep(ctx, u.ID, step); err != nil {
				return t.UserID, nil, err
			}
		}
	} else if _, valid := auth.NormalizeRecoveryCode(in.RecoveryCode); valid {
		if ok, err = s.store.UseRecoveryCode(ctx, u.ID, auth.HashRecoveryCode(in.RecoveryCode)); err != nil {
			return t.UserID, nil, err
		}
	}
	if !ok {
		return t.UserID, nil, ErrBadSecondFactor
	}
	return t.UserID, u, nil
}

// RevokeSessions ends every session of the user on every instance (front-end tokens included);
// API keys stay valid.
func (s *Service) RevokeSessions(ctx context.Context, userID string) error {
	if _, err := s.store.RevokeSessions(ctx, userID); err != nil {
		return err
	}
	s.ForgetUser(userID)
	return nil
}

// ChangePassword checks the user's current password (ErrWrongPassword) and stores the new one;
// every session of the user ends but the one whose token id is keepJTI (none when empty). It
// returns the user with its new revocation time.
func (s *Service) ChangePassword(ctx context.Context, userID string, in *folio.PasswordChange, keepJTI string) (*folio.User, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return nil, err
	}
	if !auth.CheckPassword(u.PasswordHash, in.CurrentPassword) {
		return nil, ErrWrongPassword
	}
	hash, err := auth.HashPassword(in.NewPassword)
	if err != nil {
		return nil, err
	}
	if u.SessionsRevokedAt, err = s.store.ChangePassword(ctx, u.ID, hash, keepJTI); err != nil {
		return nil, err
	}
	s.ForgetUser(u.ID)
	return u, nil
}
