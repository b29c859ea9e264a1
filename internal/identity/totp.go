package identity

import (
	"context"
	"strings"

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
	if secret, url, png, err = auth.NewTOTPKey(u.Email); err != nil {
		return "", "", nil, err
	}
	if err := s.store.SetTOTPSecret(ctx, u.ID, secret); err != nil {
		return "", "", nil, err
	}
	return secret, url, png, nil
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
	step, ok := auth.MatchTOTP(u.TOTPSecret, code, s.cfg.Now())
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
		step, ok := auth.MatchTOTP(u.TOTPSecret, in.Code, s.cfg.Now())
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
