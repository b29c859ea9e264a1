package fediverse

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/foliohq/folio"
)

// sealInfo separates the key that seals the actor's private key from the instance secret's
// other uses (sessions, TOTP tickets, snapshot manifests).
const sealInfo = "folio fediverse actor key v1"

// keyBits is the actor key's size: Mastodon's.
const keyBits = 2048

// ErrKeyUnreadable is the stored actor key not opening with this instance's secret (another
// instance made it with a different secret, or the secret changed).
var ErrKeyUnreadable = errors.New("fediverse: the stored actor key does not open with this instance secret")

func sealer(secret string) (cipher.AEAD, error) {
	if secret == "" {
		return nil, errors.New("fediverse: empty instance secret")
	}
	k, err := hkdf.Key(sha256.New, []byte(secret), nil, sealInfo, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// seal encrypts the private key's DER with AES-GCM under the derived key: base64(nonce‖box).
func seal(secret string, der []byte) (string, error) {
	aead, err := sealer(secret)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(aead.Seal(nonce, nonce, der, nil)), nil
}

func unseal(secret, sealed string) ([]byte, error) {
	aead, err := sealer(secret)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(b) < aead.NonceSize() {
		return nil, errors.New("fediverse: the stored actor key is malformed")
	}
	der, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], nil)
	if err != nil {
		return nil, ErrKeyUnreadable
	}
	return der, nil
}

// LoadKey returns the actor's key pair, creating and storing it on first use. Of instances
// starting at once, one key is stored and every instance uses that one.
func LoadKey(ctx context.Context, store KeyStore, secret string, now time.Time) (*rsa.PrivateKey, string, error) {
	k, err := store.ActorKey(ctx)
	if folio.IsNotFound(err) {
		k, err = createKey(ctx, store, secret, now)
	}
	if err != nil {
		return nil, "", err
	}
	der, err := unseal(secret, k.SealedPrivate)
	if err != nil {
		return nil, "", err
	}
	priv, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, "", fmt.Errorf("fediverse: actor key: %w", err)
	}
	rk, ok := priv.(*rsa.PrivateKey)
	if !ok {
		return nil, "", errors.New("fediverse: the actor key is not RSA")
	}
	return rk, k.PublicPEM, nil
}

func createKey(ctx context.Context, store KeyStore, secret string, now time.Time) (folio.ActorKey, error) {
	priv, err := rsa.GenerateKey(rand.Reader, keyBits)
	if err != nil {
		return folio.ActorKey{}, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return folio.ActorKey{}, err
	}
	sealed, err := seal(secret, der)
	if err != nil {
		return folio.ActorKey{}, err
	}
	pub, err := publicPEM(&priv.PublicKey)
	if err != nil {
		return folio.ActorKey{}, err
	}
	return store.CreateActorKey(ctx, folio.ActorKey{SealedPrivate: sealed, PublicPEM: pub, CreatedAt: now})
}

func publicPEM(pub *rsa.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), nil
}

// parsePublicPEM reads an actor's publicKeyPem: PKIX (Mastodon) or PKCS#1.
func parsePublicPEM(s string) (*rsa.PublicKey, error) {
	b, _ := pem.Decode([]byte(s))
	if b == nil {
		return nil, errors.New("the public key is not PEM")
	}
	if k, err := x509.ParsePKIXPublicKey(b.Bytes); err == nil {
		if rk, ok := k.(*rsa.PublicKey); ok {
			return rk, nil
		}
		return nil, errors.New("the public key is not RSA")
	}
	return x509.ParsePKCS1PublicKey(b.Bytes)
}
