package auth

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

const testSecret = "a-test-nextauth-secret-of-decent-length"

var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func testClaims() SessionClaims {
	return SessionClaims{
		Name: "Ada Lovelace", Email: "ada@example.com", Picture: "https://example.com/ada.png",
		Sub: "0193a0c4-7e1a-7c3b-9a55-3b1f0e2d4c5a", Role: "owner",
		Iat: testNow.Unix(), Exp: testNow.Add(30 * 24 * time.Hour).Unix(),
	}
}

func mustEncode(t *testing.T, secret string, c SessionClaims) string {
	t.Helper()
	tok, err := EncodeSession(secret, c)
	if err != nil {
		t.Fatalf("EncodeSession: %v", err)
	}
	return tok
}

// encryptRaw builds a token from arbitrary plaintext and algorithms, for the cases EncodeSession
// refuses to produce.
func encryptRaw(t *testing.T, key []byte, alg jose.KeyAlgorithm, enc jose.ContentEncryption, plaintext string, opts *jose.EncrypterOptions) string {
	t.Helper()
	e, err := jose.NewEncrypter(enc, jose.Recipient{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatalf("NewEncrypter(%s, %s): %v", alg, enc, err)
	}
	obj, err := e.Encrypt([]byte(plaintext))
	if err != nil {
		t.Fatal(err)
	}
	s, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustKey(t *testing.T, secret string) []byte {
	t.Helper()
	k, err := sessionKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSessionRoundTrip(t *testing.T) {
	t.Parallel()
	in := testClaims()
	tok := mustEncode(t, testSecret, in)
	if got := strings.Count(tok, "."); got != 4 {
		t.Fatalf("token has %d dots, want a 5-part compact JWE", got)
	}
	if hdr, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0]); string(hdr) != `{"alg":"dir","enc":"A256GCM"}` {
		t.Errorf("protected header = %s, want next-auth's {\"alg\":\"dir\",\"enc\":\"A256GCM\"}", hdr)
	}
	got, err := DecodeSession(testSecret, tok, testNow)
	if err != nil {
		t.Fatalf("DecodeSession: %v", err)
	}
	if got.Jti == "" {
		t.Error("jti empty, want a generated one")
	}
	in.Jti = got.Jti
	if got != in {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, in)
	}
	if again := mustEncode(t, testSecret, testClaims()); again == tok {
		t.Error("two encodings are identical; IV or jti is not random")
	}
}

func TestEncodeSessionRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		secret string
		edit   func(*SessionClaims)
	}{
		{"empty secret", "", func(*SessionClaims) {}},
		{"no sub", testSecret, func(c *SessionClaims) { c.Sub = "" }},
		{"no iat", testSecret, func(c *SessionClaims) { c.Iat = 0 }},
		{"exp before iat", testSecret, func(c *SessionClaims) { c.Exp = c.Iat - 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := testClaims()
			tt.edit(&c)
			if tok, err := EncodeSession(tt.secret, c); err == nil {
				t.Errorf("EncodeSession = %q, want an error", tok)
			}
		})
	}
}

func TestDecodeSessionExpiry(t *testing.T) {
	t.Parallel()
	c := testClaims()
	tok := mustEncode(t, testSecret, c)
	exp := time.Unix(c.Exp, 0)
	tests := []struct {
		name string
		now  time.Time
		ok   bool
	}{
		{"well before exp", testNow, true},
		{"at exp, within next-auth's 15 s tolerance", exp, true},
		{"last instant of the tolerance", exp.Add(SessionClockSkew - time.Nanosecond), true},
		{"tolerance used up", exp.Add(SessionClockSkew), false},
		{"long expired", exp.Add(24 * time.Hour), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeSession(testSecret, tok, tt.now)
			if tt.ok && err != nil {
				t.Errorf("DecodeSession: %v, want accepted", err)
			}
			if !tt.ok && !errors.Is(err, ErrInvalidSession) {
				t.Errorf("DecodeSession: err = %v, want ErrInvalidSession", err)
			}
		})
	}
}

func TestDecodeSessionWrongSecret(t *testing.T) {
	t.Parallel()
	tok := mustEncode(t, testSecret, testClaims())
	for _, secret := range []string{testSecret + "x", "A" + testSecret[1:], "other"} {
		if _, err := DecodeSession(secret, tok, testNow); !errors.Is(err, ErrInvalidSession) {
			t.Errorf("secret %q: err = %v, want ErrInvalidSession", secret, err)
		}
	}
	if _, err := DecodeSession("", tok, testNow); err == nil {
		t.Error("empty secret: accepted")
	}
}

func TestDecodeSessionTampered(t *testing.T) {
	t.Parallel()
	tok := mustEncode(t, testSecret, testClaims())
	parts := strings.Split(tok, ".")
	names := []string{"protected header", "encrypted key", "iv", "ciphertext", "tag"}

	replace := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, ".")
	}
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var variants []string
			if parts[i] == "" {
				// dir carries no encrypted key; putting one in must not be accepted.
				variants = append(variants, replace(i, "AAAAAAAAAAAAAAAAAAAAAA"))
			} else {
				flipped := []byte(parts[i])
				flipped[0] ^= 1
				mid := []byte(parts[i])
				mid[len(mid)/2] ^= 2
				variants = append(variants, replace(i, string(flipped)), replace(i, string(mid)), replace(i, ""),
					replace(i, parts[i][:len(parts[i])-4]))
			}
			for _, v := range variants {
				if c, err := DecodeSession(testSecret, v, testNow); err == nil {
					t.Errorf("tampered %s accepted: %+v", name, c)
				}
			}
		})
	}

	t.Run("every character", func(t *testing.T) {
		t.Parallel()
		want, err := DecodeSession(testSecret, tok, testNow)
		if err != nil {
			t.Fatal(err)
		}
		// Changing any one character must be rejected, unless it only touches base64 padding
		// bits and so decodes to the same bytes; either way the claims never change.
		for i := range len(tok) {
			if tok[i] == '.' {
				continue
			}
			b := []byte(tok)
			if b[i] == 'A' {
				b[i] = 'B'
			} else {
				b[i] = 'A'
			}
			if got, err := DecodeSession(testSecret, string(b), testNow); err == nil && got != want {
				t.Fatalf("changing byte %d gave different accepted claims: %+v", i, got)
			}
		}
	})

	t.Run("segment count", func(t *testing.T) {
		t.Parallel()
		for _, v := range []string{strings.Join(parts[:4], "."), tok + ".", tok + ".x", strings.ReplaceAll(tok, ".", "")} {
			if _, err := DecodeSession(testSecret, v, testNow); err == nil {
				t.Errorf("token %q accepted", v)
			}
		}
	})
}

func TestDecodeSessionAlgorithms(t *testing.T) {
	t.Parallel()
	key := mustKey(t, testSecret)
	payload := `{"sub":"u1","iat":1795000000,"exp":1895000000}`
	tests := []struct {
		name string
		tok  string
	}{
		{"dir + A128GCM", encryptRaw(t, key[:16], jose.DIRECT, jose.A128GCM, payload, nil)},
		{"dir + A256CBC-HS512", encryptRaw(t, append(append([]byte{}, key...), key...), jose.DIRECT, jose.A256CBC_HS512, payload, nil)},
		{"A256KW + A256GCM", encryptRaw(t, key, jose.A256KW, jose.A256GCM, payload, nil)},
		{"A256GCMKW + A256GCM", encryptRaw(t, key, jose.A256GCMKW, jose.A256GCM, payload, nil)},
		{"compressed", encryptRaw(t, key, jose.DIRECT, jose.A256GCM, payload, &jose.EncrypterOptions{Compression: jose.DEFLATE})},
		{"crit header", encryptRaw(t, key, jose.DIRECT, jose.A256GCM, payload,
			(&jose.EncrypterOptions{}).WithHeader("crit", []string{"exp"}).WithHeader("exp", 1))},
	}
	// Sanity: the same payload with the right algorithms is accepted.
	if _, err := DecodeSession(testSecret, encryptRaw(t, key, jose.DIRECT, jose.A256GCM, payload, nil), testNow); err != nil {
		t.Fatalf("control token rejected: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if c, err := DecodeSession(testSecret, tt.tok, testNow); err == nil {
				t.Errorf("accepted: %+v", c)
			}
		})
	}
	t.Run("signed JWS instead of JWE", func(t *testing.T) {
		t.Parallel()
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: key}, nil)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := s.Sign([]byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		jws, _ := obj.CompactSerialize()
		if c, err := DecodeSession(testSecret, jws, testNow); err == nil {
			t.Errorf("JWS accepted: %+v", c)
		}
	})
}

func TestDecodeSessionClaims(t *testing.T) {
	t.Parallel()
	key := mustKey(t, testSecret)
	now := testNow.Unix()
	tests := []struct {
		name    string
		payload string
		want    *SessionClaims // nil: rejected
	}{
		{"minimal", `{"sub":"u1","exp":1900000000}`, &SessionClaims{Sub: "u1", Exp: 1900000000}},
		{"fractional numbers truncate", `{"sub":"u1","iat":1795000000.9,"exp":1900000000.5}`,
			&SessionClaims{Sub: "u1", Iat: 1795000000, Exp: 1900000000}},
		{"nulls read as empty", `{"name":null,"email":null,"picture":null,"sub":"u1","exp":1900000000}`,
			&SessionClaims{Sub: "u1", Exp: 1900000000}},
		{"unknown claims ignored", `{"sub":"u1","exp":1900000000,"accessToken":"x","nested":{"a":[1]}}`,
			&SessionClaims{Sub: "u1", Exp: 1900000000}},
		{"nbf within tolerance", `{"sub":"u1","exp":1900000000,"nbf":` + itoa(now+10) + `}`,
			&SessionClaims{Sub: "u1", Exp: 1900000000}},
		{"nbf in the future", `{"sub":"u1","exp":1900000000,"nbf":` + itoa(now+60) + `}`, nil},
		{"no sub", `{"exp":1900000000}`, nil},
		{"empty sub", `{"sub":"","exp":1900000000}`, nil},
		{"no exp", `{"sub":"u1","iat":1795000000}`, nil},
		{"string exp", `{"sub":"u1","exp":"1900000000"}`, nil},
		{"negative exp", `{"sub":"u1","exp":-1}`, nil},
		{"huge exp", `{"sub":"u1","exp":1e300}`, nil},
		{"numeric sub", `{"sub":42,"exp":1900000000}`, nil},
		{"array", `[{"sub":"u1","exp":1900000000}]`, nil},
		{"two objects", `{"sub":"u1","exp":1900000000}{"sub":"u2","exp":1900000000}`, nil},
		{"not json", `sub=u1`, nil},
		{"empty", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeSession(testSecret, encryptRaw(t, key, jose.DIRECT, jose.A256GCM, tt.payload, nil), testNow)
			if tt.want == nil {
				if err == nil {
					t.Errorf("accepted %s as %+v, want rejected", tt.payload, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeSession(%s): %v", tt.payload, err)
			}
			if got != *tt.want {
				t.Errorf("got %+v, want %+v", got, *tt.want)
			}
		})
	}
}

func TestDecodeSessionTooLong(t *testing.T) {
	t.Parallel()
	key := mustKey(t, testSecret)
	big := `{"sub":"u1","exp":1900000000,"pad":"` + strings.Repeat("x", maxSessionTokenLen) + `"}`
	if _, err := DecodeSession(testSecret, encryptRaw(t, key, jose.DIRECT, jose.A256GCM, big, nil), testNow); err == nil {
		t.Error("oversized token accepted")
	}
	if _, err := DecodeSession(testSecret, "", testNow); err == nil {
		t.Error("empty token accepted")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// FuzzDecodeSession: no input may panic the decoder, and anything it accepts has a subject.
func FuzzDecodeSession(f *testing.F) {
	c := testClaims()
	tok, err := EncodeSession(testSecret, c)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tok)
	f.Add("")
	f.Add("....")
	f.Add("eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..AAAA.AAAA.AAAA")
	f.Add(`{"protected":"eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0","iv":"","ciphertext":"","tag":""}`)
	f.Add(strings.Replace(tok, ".", "..", 1))
	f.Fuzz(func(t *testing.T, token string) {
		got, err := DecodeSession(testSecret, token, testNow)
		if err == nil && got.Sub == "" {
			t.Fatalf("accepted a token without sub: %+v", got)
		}
	})
}
