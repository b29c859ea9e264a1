package identity

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

// TOTPStatus reports whether the user has TOTP on and how many recovery codes are left.
func (s *Service) TOTPStatus(ctx context.Context, userID string) (enabled bool, recoveryCodesLeft int, err error) {
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return false, 0, err
	}
	if !u.TOTPEnabled {
		return false, 0, nil
	}
	n, err := s.store.RecoveryCodesLeft(ctx, u.ID)
	if err != nil {
		return false, 0, err
	}
	return true, n, nil
}

// SetupTOTP starts TOTP enrolment: a new secret is stored (not in force until EnableTOTP) and
// returned with its otpauth:// URL and that URL as a PNG QR code.
func (s *Service) SetupTOTP(ctx context.Context, userID string) (secret, url string, png []byte, err error) {
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return "", "", nil, err
	}
	if u.TOTPEnabled {
		return "", "", nil, folio.Errorf(folio.ECONFLICT, "Two-factor sign-in is already on; turn it off before setting it up again.")
	}
	if s.totp == nil {
		return "", "", nil, errNoInstanceSecret
	}
	if secret, url, png, err = auth.NewTOTPKey(u.Email); err != nil {
		return "", "", nil, err
	}
	if err := s.store.SetTOTPSecret(ctx, u.ID, s.totp.Seal(u.ID, secret)); err != nil {
		return "", "", nil, err
	}
	return secret, url, png, nil
}

var errNoInstanceSecret = errors.New("identity: TOTP needs the instance secret (NEXTAUTH_SECRET)")

// matchTOTP checks code against u's TOTP secret at now and returns its step. A secret the
// instance secret does not open (NEXTAUTH_SECRET changed without NEXTAUTH_SECRET_PREVIOUS) matches
// no code; it is logged, and the user's recovery codes still sign in.
func (s *Service) matchTOTP(u *folio.User, code string, now time.Time) (int64, bool) {
	if s.totp == nil {
		return 0, false
	}
	secret, _, err := s.totp.Open(u.ID, u.TOTPSecret)
	if err != nil {
		s.cfg.Logger.Warn("the TOTP secret of a user cannot be decrypted: NEXTAUTH_SECRET changed without NEXTAUTH_SECRET_PREVIOUS? "+
			"They can sign in with a recovery code, or run `folio user totp-reset`", "user_id", u.ID)
		return 0, false
	}
	return auth.MatchTOTP(secret, code, now)
}

// SealTOTPSecrets encrypts every stored TOTP secret that is not sealed under the current
// instance secret — a plaintext one from before sealing, or one sealed under NEXTAUTH_SECRET_PREVIOUS
// — and returns how many it sealed and the ids of users whose secret no instance secret opens.
// serve runs it at start; several instances may run it at once.
func (s *Service) SealTOTPSecrets(ctx context.Context) (sealed int, unreadable []string, err error) {
	if s.totp == nil {
		return 0, nil, errNoInstanceSecret
	}
	stored, err := s.store.TOTPSecrets(ctx)
	if err != nil {
		return 0, nil, err
	}
	for id, old := range stored {
		secret, current, err := s.totp.Open(id, old)
		if err != nil {
			unreadable = append(unreadable, id)
			continue
		}
		if current {
			continue
		}
		ok, err := s.store.ReplaceTOTPSecret(ctx, id, old, s.totp.Seal(id, secret))
		if err != nil {
			return sealed, unreadable, err
		}
		if ok {
			sealed++
		}
	}
	sort.Strings(unreadable)
	return sealed, unreadable, nil
}

// EnableTOTP turns TOTP on, proven by a current code of the secret SetupTOTP stored, and returns
// the new recovery codes (stored only as hashes).
func (s *Service) EnableTOTP(ctx context.Context, userID, code string) ([]string, error) {
	if strings.TrimSpace(code) == "" {
		return nil, folio.BadRequest("code", "is required")
	}
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return nil, err
	}
	if u.TOTPEnabled {
		return nil, folio.Errorf(folio.ECONFLICT, "Two-factor sign-in is already on.")
	}
	if u.TOTPSecret == "" {
		return nil, folio.Errorf(folio.ECONFLICT, "Set up two-factor sign-in first (POST /api/auth/totp/setup).")
	}
	step, ok := s.matchTOTP(u, code, s.cfg.Now())
	if !ok {
		return nil, wrongCode("code")
	}
	codes, hashes := auth.NewRecoveryCodes()
	if err := s.store.EnableTOTP(ctx, u.ID, step, hashes); err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTOTP turns TOTP off, proven by a current code or, failing that, the password; a wrong
// one is a failure of the account's sign-in, like a wrong password at login.
func (s *Service) DisableTOTP(ctx context.Context, userID string, in *folio.TOTPDisableInput, attempts Attempts) error {
	if strings.TrimSpace(in.Code) == "" && in.Password == "" {
		return folio.BadRequest("code", "a current code or the password is required")
	}
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return err
	}
	if err := attempts.Check(limitAccount(u)); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(in.Code) != "":
		if !u.TOTPEnabled {
			break
		}
		step, ok := s.matchTOTP(u, in.Code, s.cfg.Now())
		if ok {
			ok, err = s.store.UseTOTPStep(ctx, u.ID, step)
			if err != nil {
				return err
			}
		}
		if !ok {
			attempts.Failed()
			return wrongCode("code")
		}
	default:
		if !auth.CheckPassword(u.PasswordHash, in.Password) {
			attempts.Failed()
			return wrongCode("password")
		}
	}
	return s.store.DisableTOTP(ctx, u.ID)
}

func wrongCode(field string) error {
	var v folio.Validation
	if field == "password" {
		v.Invalid(field, "is incorrect")
	} else {
		v.Invalid(field, "is not the current code of your authenticator app (or was already used)")
	}
	return v.Err()
}
