package identity

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

// Sign-in failures. A step answers ErrBadLogin, ErrWrongPassword or ErrBadSecondFactor when the
// password or code it checked was wrong (and counts it, Attempts.Failed), and ErrTicketLocked
// when that wrong code was the last one the ticket allowed.
var (
	ErrBadLogin        = folio.Errorf(folio.EUNAUTHORIZED, "The email or password is incorrect.")
	ErrWrongPassword   = folio.Errorf(folio.EFORBIDDEN, "The current password is incorrect.")
	ErrBadSecondFactor = folio.Errorf(folio.EUNAUTHORIZED, "The code is incorrect or was already used, or the sign-in ticket has expired; sign in again.")
	ErrTicketLocked    = folio.Errorf(folio.EUNAUTHORIZED, "Too many wrong codes: this sign-in has ended. Sign in again with your password.")
)

// Attempts is the failure limit of sign-in as each step that checks a password or code sees it
// (internal/httpapi counts per account and client, docs/api.md "Rate limits"). The step asks
// Check, with the account it is about to check, before it looks at the password or code: an
// error refuses the attempt and is answered as it is. Failed counts a wrong password or code
// against that account. Only failures count, so a correct password never locks its owner out.
type Attempts interface {
	Check(account string) error
	Failed()
}

// limitAccount names u's account to the failure limit: its id, and how many times it was
// unlocked, so `folio user unlock` starts every client afresh without reaching the counts.
func limitAccount(u *folio.User) string {
	return "user:" + u.ID + "." + strconv.FormatInt(u.SignInUnlocks, 10)
}

// limitEmail names an email that has no account to the failure limit, as a fixed-size hash: it
// fails like an account (no address is told apart by how it is limited), and a long address
// costs the limiter no more than a short one.
func limitEmail(email string) string {
	sum := sha256.Sum256([]byte(folio.EmailKey(email)))
	return "email:" + hex.EncodeToString(sum[:16])
}

// SignIn is the password step of signing in. It returns the user the email names whenever there
// is one, even when the step fails (the audit log records whose account was tried), and, when the
// user has TOTP on, a ticket for the second step (SignInSecondFactor) instead of a session. An
// unknown email, a wrong password and a user without a valid role are all ErrBadLogin, and count
// as a failure of that account (or, for an unknown email, of that email). A password hashed with
// outdated parameters is hashed again.
func (s *Service) SignIn(ctx context.Context, in *folio.LoginInput, attempts Attempts) (*folio.User, string, error) {
	if err := in.Validate(); err != nil {
		return nil, "", err
	}
	u, err := s.store.UserByEmail(ctx, in.Email)
	if folio.IsNotFound(err) {
		if err := attempts.Check(limitEmail(in.Email)); err != nil {
			return nil, "", err
		}
		// Same work as a wrong password, so the answer does not tell which emails have accounts.
		auth.DummyCheckPassword(in.Password)
		attempts.Failed()
		return nil, "", ErrBadLogin
	}
	if err != nil {
		return nil, "", err
	}
	if err := attempts.Check(limitAccount(u)); err != nil {
		return u, "", err
	}
	if !auth.CheckPassword(u.PasswordHash, in.Password) || !u.Role.Valid() {
		attempts.Failed()
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
	now := s.cfg.Now()
	ticket, hash := auth.NewTicket()
	t := &folio.SignInTicket{UserID: u.ID, IssuedAt: u.IssuedAt(now), ExpiresAt: now.Add(auth.TicketMaxAge).Unix()}
	if err := s.store.CreateSignInTicket(ctx, hash, t); err != nil {
		return u, "", err
	}
	return u, ticket, nil
}

// SignInSecondFactor is the second step of signing in for a user with TOTP on: the ticket of the
// password step plus a current code or an unused recovery code. It returns the id of the user the
// ticket names whenever it is valid (for the audit log), and the user when the step succeeds. A
// ticket signs in once, and allows auth.TicketMaxAttempts codes; every failure of the step is
// ErrBadSecondFactor, but the wrong code that uses up the ticket's last try, ErrTicketLocked.
func (s *Service) SignInSecondFactor(ctx context.Context, in *folio.TOTPLoginInput, attempts Attempts) (string, *folio.User, error) {
	if err := in.Validate(); err != nil {
		return "", nil, err
	}
	now := s.cfg.Now()
	hash := auth.HashTicket(strings.TrimSpace(in.Ticket))
	t, err := s.store.SignInTicket(ctx, hash)
	if folio.IsNotFound(err) {
		return "", nil, ErrBadSecondFactor
	}
	if err != nil {
		return "", nil, err
	}
	u, err := s.store.User(ctx, t.UserID)
	if folio.IsNotFound(err) {
		return t.UserID, nil, ErrBadSecondFactor
	}
	if err != nil {
		return t.UserID, nil, err
	}
	if err := attempts.Check(limitAccount(u)); err != nil {
		return t.UserID, nil, err
	}
	// A ticket from before a revocation (a password change, say) is as dead as a session.
	if now.Unix() >= t.ExpiresAt || t.Attempts >= auth.TicketMaxAttempts ||
		!u.TOTPEnabled || !u.Role.Valid() || !u.SessionValid(t.IssuedAt, "") {
		return t.UserID, nil, ErrBadSecondFactor
	}
	// The try is counted on the ticket before the code is looked at, so no burst of requests
	// gets more codes checked than the ticket allows.
	try, err := s.store.TrySignInTicket(ctx, hash, auth.TicketMaxAttempts)
	if err != nil {
		return t.UserID, nil, err
	}
	if try == 0 {
		return t.UserID, nil, ErrBadSecondFactor
	}
	ok, err := s.useSecondFactor(ctx, u, in, now)
	if err != nil {
		return t.UserID, nil, err
	}
	if !ok {
		attempts.Failed()
		if try == auth.TicketMaxAttempts {
			return t.UserID, nil, ErrTicketLocked
		}
		return t.UserID, nil, ErrBadSecondFactor
	}
	if spent, err := s.store.SpendSignInTicket(ctx, hash); err != nil || !spent {
		if err == nil {
			err = ErrBadSecondFactor // another request signed in with it a moment earlier
		}
		return t.UserID, nil, err
	}
	return t.UserID, u, nil
}

// useSecondFactor checks the step's code or recovery code and, when it is right, uses it up.
func (s *Service) useSecondFactor(ctx context.Context, u *folio.User, in *folio.TOTPLoginInput, now time.Time) (bool, error) {
	if strings.TrimSpace(in.Code) != "" {
		step, ok := s.matchTOTP(u, in.Code, now)
		if !ok {
			return false, nil
		}
		return s.store.UseTOTPStep(ctx, u.ID, step)
	}
	if _, valid := auth.NormalizeRecoveryCode(in.RecoveryCode); !valid {
		return false, nil
	}
	return s.store.UseRecoveryCode(ctx, u.ID, auth.HashRecoveryCode(in.RecoveryCode))
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

// ChangePassword checks the user's current password (ErrWrongPassword, a failure of the account's
// sign-in) and stores the new one; every session of the user ends but the one whose token id is
// keepJTI (none when empty). It returns the user with its new revocation time.
func (s *Service) ChangePassword(ctx context.Context, userID string, in *folio.PasswordChange, keepJTI string, attempts Attempts) (*folio.User, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return nil, err
	}
	if err := attempts.Check(limitAccount(u)); err != nil {
		return nil, err
	}
	if !auth.CheckPassword(u.PasswordHash, in.CurrentPassword) {
		attempts.Failed()
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
