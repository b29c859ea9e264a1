package settings

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// secretBox encrypts the secret settings at rest (docs/api.md, "Settings"):
// AES-256-GCM under a key derived from the instance secret with HKDF-SHA256, the field's path as
// additional data (a value cannot be moved to another field), a random nonce per value. A sealed
// value reads "v1:" + base64(nonce ‖ ciphertext); the empty secret is stored as "".
type secretBox struct{ aead cipher.AEAD }

// secretInfo is the HKDF context of the key: no other key folio derives from the same secret
// (the session key) equals it.
const secretInfo = "folio settings secrets v1"

func newSecretBox(secret string) (*secretBox, error) {
	if secret == "" {
		return nil, errors.New("settings: an instance secret is required to store secret settings")
	}
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, secretInfo, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &secretBox{aead: aead}, nil
}

func (b *secretBox) seal(path, plain string) string {
	if plain == "" {
		return ""
	}
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plain)+b.aead.Overhead())
	rand.Read(nonce) // never fails (crypto/rand)
	return "v1:" + base64.RawStdEncoding.EncodeToString(b.aead.Seal(nonce, nonce, []byte(plain), []byte(path)))
}

var errUnreadable = errors.New("settings: a sealed secret does not open with this instance secret")

func (b *secretBox) open(path, sealed string) (string, error) {
	if sealed == "" {
		return "", nil
	}
	enc, ok := strings.CutPrefix(sealed, "v1:")
	if !ok {
		return "", errUnreadable
	}
	raw, err := base64.RawStdEncoding.DecodeString(enc)
	if err != nil || len(raw) < b.aead.NonceSize() {
		return "", errUnreadable
	}
	plain, err := b.aead.Open(nil, raw[:b.aead.NonceSize()], raw[b.aead.NonceSize():], []byte(path))
	if err != nil {
		return "", errUnreadable
	}
	return string(plain), nil
}

// sealJSON and openJSON seal and open a JSON string value.
func (b *secretBox) sealJSON(path string, raw json.RawMessage) (json.RawMessage, error) {
	plain, err := unmarshalString(raw)
	if err != nil {
		return nil, err
	}
	return json.Marshal(b.seal(path, plain))
}

func (b *secretBox) openJSON(path string, raw json.RawMessage) (json.RawMessage, error) {
	sealed, err := unmarshalString(raw)
	if err != nil {
		return nil, errUnreadable
	}
	plain, err := b.open(path, sealed)
	if err != nil {
		return nil, err
	}
	return json.Marshal(plain)
}
