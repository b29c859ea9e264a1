package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"strings"
)

// TOTPSealer seals TOTP secrets for storage (docs/operations.md, "Secrets at rest"): AES-256-GCM
// under a key derived with HKDF-SHA256 from the instance secret (NEXTAUTH_SECRET), with the
// user's id as associated data, so a copy of the database holds no secret that makes codes, and a
// sealed secret moved into another user's row does not open. It also opens what an earlier
// instance secret sealed, and plaintext secrets stored before sealing existed, so both can be
// sealed again under the current secret (identity.Service.SealTOTPSecrets).
type TOTPSealer struct {
	aeads []cipher.AEAD // the current instance secret's first, then the previous ones'
}

const (
	sealedTOTPPrefix = "v1:"
	totpKeyInfo      = "folio totp secret at rest"
)

// ErrUnreadableTOTPSecret is a stored secret that none of the instance secrets opens, or that is
// neither sealed nor a plaintext secret.
var ErrUnreadableTOTPSecret = errors.New("auth: the stored TOTP secret cannot be decrypted with the instance secret")

// NewTOTPSealer returns a sealer keyed by secret, which also opens what the previous secrets
// sealed (empty ones are skipped).
func NewTOTPSealer(secret string, previous ...string) (*TOTPSealer, error) {
	if secret == "" {
		return nil, errors.New("auth: empty instance secret")
	}
	var s TOTPSealer
	for _, sec := range append([]string{secret}, previous...) {
		if sec == "" {
			continue
		}
		key, err := hkdf.Key(sha256.New, []byte(sec), nil, totpKeyInfo, 32)
		if err != nil {
			return nil, err
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		gcm, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		s.aeads = append(s.aeads, gcm)
	}
	return &s, nil
}

// Seal returns the stored form of userID's TOTP secret: "v1:" and base64url(nonce | ciphertext).
func (s *TOTPSealer) Seal(userID, secret string) string {
	gcm := s.aeads[0]
	nonce := make([]byte, gcm.NonceSize(), gcm.NonceSize()+len(secret)+gcm.Overhead())
	_, _ = rand.Read(nonce)
	return sealedTOTPPrefix + base64.RawURLEncoding.EncodeToString(gcm.Seal(nonce, nonce, []byte(secret), []byte(userID)))
}

// Open returns userID's TOTP secret from its stored form. current is false when the stored form
// should be sealed again: it was sealed under a previous instance secret, or it is a plaintext
// secret from before sealing.
func (s *TOTPSealer) Open(userID, stored string) (secret string, current bool, err error) {
	b64, sealed := strings.CutPrefix(stored, sealedTOTPPrefix)
	if !sealed {
		if _, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(stored); err != nil || stored == "" {
			return "", false, ErrUnreadableTOTPSecret
		}
		return stored, false, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil {
		return "", false, ErrUnreadableTOTPSecret
	}
	for i, gcm := range s.aeads {
		if len(raw) < gcm.NonceSize() {
			break
		}
		if plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], []byte(userID)); err == nil {
			return string(plain), i == 0, nil
		}
	}
	return "", false, ErrUnreadableTOTPSecret
}
