// Package auth holds folio's credential primitives, as pure functions: password hashing
// (argon2id), API key minting and hashing, the NextAuth-v4-compatible session token codec, and
// TOTP codes with the sign-in tickets of the two-factor step.
// It does no I/O; the HTTP layer and the store wire them to cookies, headers and tables.
package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"
)

// PasswordParams are argon2id cost parameters.
type PasswordParams struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
	SaltLen int
	KeyLen  int
}

// DefaultPasswordParams follow OWASP's password storage guidance for argon2id (19 MiB, 2
// passes, 1 lane). NB: each check holds Memory KiB while it runs, so concurrent logins cost
// 19 MiB each; the login route's rate limit keeps that bounded.
var DefaultPasswordParams = PasswordParams{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Bounds on parameters read back from a stored hash, so a corrupt or hostile row cannot make a
// check allocate gigabytes or run for minutes.
const (
	maxMemoryKiB = 256 * 1024
	maxTime      = 16
	maxThreads   = 16
)

var b64 = base64.RawStdEncoding // PHC strings use unpadded standard base64

// HashPassword returns the argon2id hash of pw with a fresh random salt, in PHC string format:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>.
func HashPassword(pw string) (string, error) {
	return hashPassword(rand.Reader, pw, DefaultPasswordParams)
}

func hashPassword(random io.Reader, pw string, p PasswordParams) (string, error) {
	salt := make([]byte, p.SaltLen)
	if _, err := io.ReadFull(random, salt); err != nil {
		return "", fmt.Errorf("auth: password salt: %w", err)
	}
	key := argon2.IDKey([]byte(pw), salt, p.Time, p.Memory, p.Threads, uint32(p.KeyLen))
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckPassword reports whether pw matches hash, a string from HashPassword (or any argon2id
// PHC string within sane cost bounds). The comparison is constant-time; a malformed hash
// never matches.
func CheckPassword(hash, pw string) bool {
	p, salt, want, ok := parsePHC(hash)
	if !ok {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// NeedsRehash reports whether hash was made with parameters other than DefaultPasswordParams (or
// is malformed), so a successful login can store a fresh hash.
func NeedsRehash(hash string) bool {
	p, salt, key, ok := parsePHC(hash)
	d := DefaultPasswordParams
	return !ok || p.Memory != d.Memory || p.Time != d.Time || p.Threads != d.Threads ||
		len(salt) != d.SaltLen || len(key) != d.KeyLen
}

var dummy struct {
	once sync.Once
	hash string
}

// DummyCheckPassword does the work of one CheckPassword against a hash nobody knows the password
// of, and returns false. Login calls it when the email is unknown, so the answer takes as long
// as for a known user with a wrong password and does not reveal which emails have accounts.
func DummyCheckPassword(pw string) bool {
	dummy.once.Do(func() {
		var secret [32]byte
		_, _ = rand.Read(secret[:])
		dummy.hash, _ = HashPassword(string(secret[:]))
	})
	CheckPassword(dummy.hash, pw)
	return false
}

// parsePHC splits "$argon2id$v=19$m=M,t=T,p=P$salt$hash".
func parsePHC(s string) (p PasswordParams, salt, key []byte, ok bool) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, false
	}
	params := strings.Split(parts[3], ",")
	if len(params) != 3 {
		return p, nil, nil, false
	}
	m, okM := parseParam(params[0], "m=", maxMemoryKiB)
	t, okT := parseParam(params[1], "t=", maxTime)
	th, okP := parseParam(params[2], "p=", maxThreads)
	if !okM || !okT || !okP || t < 1 || th < 1 || m < 8*th {
		return p, nil, nil, false
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 || len(salt) > 64 {
		return p, nil, nil, false
	}
	key, err = b64.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return p, nil, nil, false
	}
	return PasswordParams{Memory: m, Time: t, Threads: uint8(th), SaltLen: len(salt), KeyLen: len(key)}, salt, key, true
}

func parseParam(s, name string, limit uint32) (uint32, bool) {
	v, found := strings.CutPrefix(s, name)
	if !found {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n > uint64(limit) {
		return 0, false
	}
	return uint32(n), true
}
