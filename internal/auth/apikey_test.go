package auth

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"
)

func TestMintAPIKey(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 200 {
		secret, prefix, hash := MintAPIKey()
		if !strings.HasPrefix(secret, APIKeyPrefix) || len(secret) != apiKeyLen {
			t.Fatalf("secret %q: want %q prefix and length %d", secret, APIKeyPrefix, apiKeyLen)
		}
		if prefix != secret[:DisplayPrefixLen] {
			t.Errorf("prefix = %q, want the secret's first %d characters", prefix, DisplayPrefixLen)
		}
		if want := sha256.Sum256([]byte(secret)); !bytes.Equal(hash, want[:]) || !bytes.Equal(HashAPIKey(secret), hash) {
			t.Errorf("hash is not SHA-256 of the secret")
		}
		if !LooksLikeAPIKey(secret) {
			t.Errorf("LooksLikeAPIKey(%q) = false for a minted key", secret)
		}
		if seen[secret] {
			t.Fatalf("secret %q minted twice", secret)
		}
		seen[secret] = true
	}
}

func TestMintAPIKeyEncodesAllBits(t *testing.T) {
	t.Parallel()
	// Extreme inputs still give full-length keys: all zero bits pad with '0', all one bits fit
	// in 43 base62 digits.
	for _, b := range []byte{0x00, 0xff} {
		secret, _, _ := mintAPIKey(bytes.NewReader(bytes.Repeat([]byte{b}, apiKeyRandomBytes)))
		if len(secret) != apiKeyLen || !LooksLikeAPIKey(secret) {
			t.Errorf("random bytes all %#x: secret %q is not a valid key", b, secret)
		}
	}
	a, _, _ := mintAPIKey(bytes.NewReader(bytes.Repeat([]byte{1}, apiKeyRandomBytes)))
	b, _, _ := mintAPIKey(bytes.NewReader(append(bytes.Repeat([]byte{1}, apiKeyRandomBytes-1), 2)))
	if a == b {
		t.Error("keys from different random bytes are equal")
	}
}

func TestLooksLikeAPIKey(t *testing.T) {
	t.Parallel()
	good, _, _ := MintAPIKey()
	flip := func(s string, i int) string {
		c := byte('A')
		if s[i] == 'A' {
			c = 'B'
		}
		return s[:i] + string(c) + s[i+1:]
	}
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"minted", good, true},
		{"empty", "", false},
		{"prefix only", APIKeyPrefix, false},
		{"wrong prefix", "fooio_" + good[len(APIKeyPrefix):], false},
		{"truncated", good[:len(good)-1], false},
		{"extended", good + "0", false},
		{"typo in body", flip(good, 20), false},
		{"typo in checksum", flip(good, len(good)-1), false},
		{"non-base62 character", good[:30] + "-" + good[31:], false},
		{"bearer scheme left in", "Bearer " + good[:len(good)-7], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := LooksLikeAPIKey(tt.in); got != tt.want {
				t.Errorf("LooksLikeAPIKey(%q) = %t, want %t", tt.in, got, tt.want)
			}
		})
	}
}
