package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
)

// Sealer encrypts small secrets for storage (docs/operations.md, "Secrets at rest"): AES-256-GCM
// under a key derived with HKDF-SHA256 from the instance secret (NEXTAUTH_SECRET) and a label of
// the kind of secret, with associated data naming where the secret belongs (a user's id, a
// settings field), so a copy of the database holds no usable secret and a sealed value moved
// elsewhere does not open. It also opens what a previous instance secret sealed, so that can be
// sealed again under the current one.
type Sealer struct {
	aeads []cipher.AEAD // the current instance secret's first, then the previous ones'
}

// sealedPrefix starts every sealed value: "v1:" and base64url(nonce | ciphertext).
const sealedPrefix = "v1:"

// ErrUnsealable is a value that none of the instance secrets opens.
var ErrUnsealable = errors.New("auth: the sealed value does not open with the instance secrets")

// NewSealer returns a sealer for the kind of secret label, keyed by secret, which also opens what
// the previous secrets sealed (empty ones are skipped).
func NewSealer(label, secret string, previous ...string) (*Sealer, error) {
	if secret == "" {
		return nil, errors.New("auth: empty instance secret")
	}
	var s Sealer
	for _, sec := range append([]string{secret}, previous...) {
		if sec == "" {
			continue
		}
		key, err := hkdf.Key(sha256.New, []byte(sec), nil, label, 32)
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

// Seal returns the stored form of plain, which belongs to ad.
func (s *Sealer) Seal(ad, plain string) string {
	gcm := s.aeads[0]
	nonce := make([]byte, gcm.NonceSize(), gcm.NonceSize()+len(plain)+gcm.Overhead())
	_, _ = rand.Read(nonce)
	return sealedPrefix + base64.RawURLEncoding.EncodeToString(gcm.Seal(nonce, nonce, []byte(plain), []byte(ad)))
}

// Open returns the secret sealed in stored for ad. current is false when a previous instance
// secret sealed it (it should be sealed again).
func (s *Sealer) Open(ad, stored string) (plain string, current bool, err error) {
	b64, ok := strings.CutPrefix(stored, sealedPrefix)
	if !ok {
		return "", false, ErrUnsealable
	}
	raw, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil {
		return "", false, ErrUnsealable
	}
	for i, gcm := range s.aeads {
		if len(raw) < gcm.NonceSize() {
			break
		}
		if p, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], []byte(ad)); err == nil {
			return string(p), i == 0, nil
		}
	}
	return "", false, ErrUnsealable
}
