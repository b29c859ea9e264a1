package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"hash/crc32"
	"io"
	"math/big"
	"strings"
)

// API key format: "folio_" + 43 base62 characters carrying 32 random bytes (256 bits) + 6 base62
// characters of CRC-32 over those 43. The fixed prefix lets secret scanners and people recognise
// a folio key; the checksum lets LooksLikeAPIKey turn away typos and junk without a database
// lookup (it is not a security measure: anyone can compute it). Base62 keeps the key one
// "word" for double-click selection.
const (
	APIKeyPrefix = "folio_"

	apiKeyRandomBytes = 32
	apiKeyBodyLen     = 43 // ceil(256 / log2(62))
	apiKeyCheckLen    = 6  // ceil(32 / log2(62))
	apiKeyLen         = len(APIKeyPrefix) + apiKeyBodyLen + apiKeyCheckLen

	// DisplayPrefixLen is how much of a key is stored in clear and shown in lists, so an owner
	// can tell keys apart: "folio_" plus 6 characters (about 36 of the 256 random bits).
	DisplayPrefixLen = 12
)

const base62Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// MintAPIKey returns a new API key: secret is shown to its creator once and never stored; prefix
// (its first DisplayPrefixLen characters) is stored and listed; hash = HashAPIKey(secret) is
// stored and looked up.
func MintAPIKey() (secret, prefix string, hash []byte) {
	return mintAPIKey(rand.Reader)
}

func mintAPIKey(random io.Reader) (secret, prefix string, hash []byte) {
	var b [apiKeyRandomBytes]byte
	if _, err := io.ReadFull(random, b[:]); err != nil {
		// crypto/rand.Reader never fails (Go ≥ 1.24 crashes the program instead); only a
		// broken test reader can get here.
		panic("auth: reading random bytes for an API key: " + err.Error())
	}
	body := base62(new(big.Int).SetBytes(b[:]), apiKeyBodyLen)
	secret = APIKeyPrefix + body + apiKeyChecksum(body)
	return secret, secret[:DisplayPrefixLen], HashAPIKey(secret)
}

// HashAPIKey returns the SHA-256 of secret, the value stored and looked up.
//
// Why a plain, fast, unsalted hash is right here (unlike passwords): a key carries 256 bits from
// crypto/rand, so guessing it, or inverting the hash of a leaked table, is infeasible at any hash
// speed; a slow KDF would only add cost to every request. Being deterministic, the hash can be
// a unique, indexed column, so a request finds its key with one equality lookup. That lookup's
// timing can only tell an attacker about hashes of strings they chose, which reveals nothing
// about a real key (they would need a preimage), so no comparison of secrets ever happens.
func HashAPIKey(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// LooksLikeAPIKey reports whether s has the shape of a folio API key (prefix, length, alphabet,
// checksum). It lets the HTTP layer answer 401 to junk without touching the database; passing it
// says nothing about whether the key exists.
func LooksLikeAPIKey(s string) bool {
	if len(s) != apiKeyLen || !strings.HasPrefix(s, APIKeyPrefix) {
		return false
	}
	rest := s[len(APIKeyPrefix):]
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(base62Alphabet, rest[i]) < 0 {
			return false
		}
	}
	body, check := rest[:apiKeyBodyLen], rest[apiKeyBodyLen:]
	return apiKeyChecksum(body) == check
}

func apiKeyChecksum(body string) string {
	return base62(new(big.Int).SetUint64(uint64(crc32.ChecksumIEEE([]byte(body)))), apiKeyCheckLen)
}

// base62 writes n in base 62, left-padded with '0' to width characters.
func base62(n *big.Int, width int) string {
	out := []byte(strings.Repeat("0", width))
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := width - 1; i >= 0 && n.Sign() > 0; i-- {
		n.DivMod(n, base, mod)
		out[i] = base62Alphabet[mod.Int64()]
	}
	return string(out)
}
