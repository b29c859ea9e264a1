package auth

import (
	"bytes"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// The session token is what next-auth v4 (next-auth/jwt encode/decode) writes into the
// next-auth.session-token cookie, so a Next.js front end sharing NEXTAUTH_SECRET and folio read
// each other's sessions:
//
//   - a compact JWE with protected header {"alg":"dir","enc":"A256GCM"};
//   - the content key is HKDF-SHA256(ikm = the secret's UTF-8 bytes, salt = "" (empty),
//     info = "NextAuth.js Generated Encryption Key", 32 bytes) — next-auth's
//     getDerivedEncryptionKey with its default empty salt, which means "session token";
//   - the plaintext is the JWT claims as JSON: name, email, picture, sub from the default jwt
//     callback, plus iat, exp (seconds) and jti that encode adds;
//   - decode accepts a token up to 15 s past exp (jose's clockTolerance in next-auth's decode).
//
// This is checked against the real next-auth package by TestNextAuthCompatibility.
const (
	nextAuthKeyInfo = "NextAuth.js Generated Encryption Key"

	// SessionClockSkew is the leeway on exp (and nbf), the same as next-auth's decode.
	SessionClockSkew = 15 * time.Second

	// maxSessionTokenLen bounds the work done on a cookie before any crypto. next-auth splits
	// cookies over 4 KB into chunks, so a joined token can exceed one cookie, but never by this much.
	maxSessionTokenLen = 64 << 10
)

// SessionClaims are the claims of a session token. Name, Email, Picture and Sub are what
// next-auth's default jwt callback stores (Sub is the user's ID); Role is folio's own claim
// ("owner" or "editor"), which a Next.js app can read through its jwt/session callbacks.
type SessionClaims struct {
	Name    string `json:"name,omitempty"`
	Email   string `json:"email,omitempty"`
	Picture string `json:"picture,omitempty"`
	Sub     string `json:"sub"`
	Role    string `json:"role,omitempty"`
	Iat     int64  `json:"iat"`
	Exp     int64  `json:"exp"`
	Jti     string `json:"jti,omitempty"`
}

// ErrInvalidSession is returned by DecodeSession for every token that must not be accepted:
// malformed, tampered, encrypted under another secret or algorithm, or expired. Callers answer
// all of them the same way (no session), so the reason is deliberately not distinguished.
var ErrInvalidSession = errors.New("auth: invalid or expired session token")

// sessionKey derives the A256GCM content key from NEXTAUTH_SECRET.
func sessionKey(secret string) ([]byte, error) {
	if secret == "" {
		return nil, errors.New("auth: empty session secret")
	}
	return hkdf.Key(sha256.New, []byte(secret), nil, nextAuthKeyInfo, 32)
}

// EncodeSession returns the session token for c, encrypted under secret (NEXTAUTH_SECRET).
// c.Iat and c.Exp must be set by the caller (from its clock); an empty c.Jti gets a random UUID,
// as next-auth does.
func EncodeSession(secret string, c SessionClaims) (string, error) {
	if c.Sub == "" || c.Iat <= 0 || c.Exp <= c.Iat {
		return "", errors.New("auth: session claims need sub, iat and an exp after iat")
	}
	if c.Jti == "" {
		c.Jti = randomUUID()
	}
	key, err := sessionKey(secret)
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("auth: session claims: %w", err)
	}
	enc, err := jose.NewEncrypter(jose.A256GCM, jose.Recipient{Algorithm: jose.DIRECT, Key: key}, nil)
	if err != nil {
		return "", fmt.Errorf("auth: session encrypter: %w", err)
	}
	obj, err := enc.Encrypt(payload)
	if err != nil {
		return "", fmt.Errorf("auth: encrypting session: %w", err)
	}
	return obj.CompactSerialize()
}

// rawSessionClaims reads the numeric claims loosely, as jose does: JSON numbers, possibly
// fractional (some hand-written encoders put Date.now()/1000 + maxAge into exp).
type rawSessionClaims struct {
	Name    *string         `json:"name"`
	Email   *string         `json:"email"`
	Picture *string         `json:"picture"`
	Sub     *string         `json:"sub"`
	Role    *string         `json:"role"`
	Iat     json.RawMessage `json:"iat"`
	Exp     json.RawMessage `json:"exp"`
	Nbf     json.RawMessage `json:"nbf"`
	Jti     *string         `json:"jti"`
}

// DecodeSession decrypts and checks a session token encrypted under secret, as of now. Any
// failure is ErrInvalidSession: wrong shape, algorithm other than dir + A256GCM, a
// compressed or "crit" token, a failed authentication tag (tampering or another secret), claims
// that are not a JSON object, a missing sub or exp, exp more than SessionClockSkew in the past,
// or nbf more than SessionClockSkew in the future.
func DecodeSession(secret, token string, now time.Time) (SessionClaims, error) {
	if len(token) == 0 || len(token) > maxSessionTokenLen {
		return SessionClaims{}, ErrInvalidSession
	}
	key, err := sessionKey(secret)
	if err != nil {
		return SessionClaims{}, err
	}
	// With "dir" the encrypted-key part must be empty (RFC 7516 §5.1 step 5; jose, which
	// next-auth uses, enforces it); go-jose ignores it, so check here.
	if parts := strings.SplitN(token, ".", 3); len(parts) != 3 || parts[1] != "" {
		return SessionClaims{}, ErrInvalidSession
	}
	obj, err := jose.ParseEncryptedCompact(token, []jose.KeyAlgorithm{jose.DIRECT}, []jose.ContentEncryption{jose.A256GCM})
	if err != nil {
		return SessionClaims{}, ErrInvalidSession
	}
	// next-auth never compresses; refusing "zip" keeps decompression (and its costs) out of reach.
	if _, zipped := obj.Header.ExtraHeaders["zip"]; zipped {
		return SessionClaims{}, ErrInvalidSession
	}
	payload, err := obj.Decrypt(key)
	if err != nil {
		return SessionClaims{}, ErrInvalidSession
	}

	var raw rawSessionClaims
	dec := json.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return SessionClaims{}, ErrInvalidSession
	}
	if raw.Sub == nil || *raw.Sub == "" || !isPresent(raw.Exp) {
		return SessionClaims{}, ErrInvalidSession
	}
	exp, ok := numericDate(raw.Exp)
	if !ok || !now.Before(time.Unix(exp, 0).Add(SessionClockSkew)) {
		return SessionClaims{}, ErrInvalidSession
	}
	if isPresent(raw.Nbf) {
		nbf, ok := numericDate(raw.Nbf)
		if !ok || now.Add(SessionClockSkew).Before(time.Unix(nbf, 0)) {
			return SessionClaims{}, ErrInvalidSession
		}
	}
	c := SessionClaims{Name: deref(raw.Name), Email: deref(raw.Email), Picture: deref(raw.Picture),
		Sub: *raw.Sub, Role: deref(raw.Role), Exp: exp, Jti: deref(raw.Jti)}
	if isPresent(raw.Iat) {
		if c.Iat, ok = numericDate(raw.Iat); !ok {
			return SessionClaims{}, ErrInvalidSession
		}
	}
	return c, nil
}

// deref reads an optional string claim; null and absent read as "".
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// isPresent reports whether a claim was given a value other than null.
func isPresent(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// numericDate reads a JWT NumericDate (seconds, possibly fractional), truncated to seconds. A
// string, even one holding digits, is not a NumericDate (jose refuses it too).
func numericDate(raw json.RawMessage) (int64, bool) {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 1<<40 {
		return 0, false
	}
	return int64(f), true
}

// randomUUID returns a random (version 4) UUID, the form next-auth uses for jti.
func randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
