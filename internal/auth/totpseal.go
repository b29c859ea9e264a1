package auth

import (
	"encoding/base32"
	"errors"
	"strings"
)

// TOTPSealer seals TOTP secrets for storage with a Sealer: the user's id is the associated data,
// so a sealed secret moved into another user's row does not open. It also reads the plaintext
// secrets stored before sealing existed, so they can be sealed (identity.Service.SealTOTPSecrets).
type TOTPSealer struct{ s *Sealer }

const totpKeyInfo = "folio totp secret at rest"

// ErrUnreadableTOTPSecret is a stored secret that none of the instance secrets opens, or that is
// neither sealed nor a plaintext secret.
var ErrUnreadableTOTPSecret = errors.New("auth: the stored TOTP secret cannot be decrypted with the instance secret")

// NewTOTPSealer returns a sealer keyed by secret, which also opens what the previous secrets
// sealed (empty ones are skipped).
func NewTOTPSealer(secret string, previous ...string) (*TOTPSealer, error) {
	s, err := NewSealer(totpKeyInfo, secret, previous...)
	if err != nil {
		return nil, err
	}
	return &TOTPSealer{s}, nil
}

// Seal returns the stored form of userID's TOTP secret.
func (t *TOTPSealer) Seal(userID, secret string) string { return t.s.Seal(userID, secret) }

// Open returns userID's TOTP secret from its stored form. current is false when the stored form
// should be sealed again: it was sealed under a previous instance secret, or it is a plaintext
// secret from before sealing.
func (t *TOTPSealer) Open(userID, stored string) (secret string, current bool, err error) {
	if !strings.HasPrefix(stored, sealedPrefix) {
		if _, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(stored); err != nil || stored == "" {
			return "", false, ErrUnreadableTOTPSecret
		}
		return stored, false, nil
	}
	secret, current, err = t.s.Open(userID, stored)
	if err != nil {
		return "", false, ErrUnreadableTOTPSecret
	}
	return secret, current, nil
}
