package auth

import (
	"strings"
	"testing"
	"time"
)

// RFC 6238 Appendix B's SHA-1 secret ("12345678901234567890") in base32.
const rfcSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

// Ensure codes are RFC 6238's (the appendix's vectors, last six digits) and match ±1 step only.
func TestTOTPRFC6238(t *testing.T) {
	for _, v := range []struct {
		unix int64
		code string
	}{{59, "287082"}, {1111111109, "081804"}, {1111111111, "050471"}, {1234567890, "005924"}, {2000000000, "279037"}} {
		got, err := TOTPCode(rfcSecret, time.Unix(v.unix, 0))
		if err != nil || got != v.code {
			t.Errorf("code at %d = %q %v, want %s", v.unix, got, err, v.code)
		}
		step, ok := MatchTOTP(rfcSecret, v.code, time.Unix(v.unix, 0))
		if !ok || step != v.unix/30 {
			t.Errorf("MatchTOTP(%s at %d) = %d %v", v.code, v.unix, step, ok)
		}
	}
	at := time.Unix(1111111109, 0) // step 37037036
	for _, tc := range []struct {
		offset time.Duration
		ok     bool
	}{{-30 * time.Second, true}, {30 * time.Second, true}, {-61 * time.Second, false}, {61 * time.Second, false}} {
		if _, ok := MatchTOTP(rfcSecret, "081804", at.Add(tc.offset)); ok != tc.ok {
			t.Errorf("offset %s: ok = %v, want %v", tc.offset, ok, tc.ok)
		}
	}
	for _, bad := range []string{"", "08180", "0818045", "08l804", "081804\n", "０８１８０４"} {
		if _, ok := MatchTOTP(rfcSecret, bad, at); ok {
			t.Errorf("%q matched", bad)
		}
	}
	if _, ok := MatchTOTP(rfcSecret, "081 804", at); !ok {
		t.Error("a code typed with a space did not match")
	}
}

func TestNewTOTPKey(t *testing.T) {
	secret, url, png, err := NewTOTPKey("ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if len(secret) != 32 || !strings.HasPrefix(url, "otpauth://totp/folio:ada@example.com?") ||
		!strings.Contains(url, "secret="+secret) || !strings.Contains(url, "period=30") || !strings.Contains(url, "digits=6") {
		t.Errorf("secret %q url %q", secret, url)
	}
	if len(png) < 100 || string(png[1:4]) != "PNG" {
		t.Errorf("QR code is not a PNG (%d bytes)", len(png))
	}
	code, _ := TOTPCode(secret, time.Now())
	if _, ok := MatchTOTP(secret, code, time.Now()); !ok {
		t.Error("a fresh key's current code does not match")
	}
}

func TestRecoveryCodes(t *testing.T) {
	codes, hashes := NewRecoveryCodes()
	if len(codes) != 10 || len(hashes) != 10 {
		t.Fatalf("%d codes, %d hashes", len(codes), len(hashes))
	}
	seen := map[string]bool{}
	for i, c := range codes {
		if len(c) != 11 || c[5] != '-' || seen[c] {
			t.Errorf("code %q", c)
		}
		seen[c] = true
		if HashRecoveryCode(c) != hashes[i] || HashRecoveryCode(strings.ToUpper(strings.ReplaceAll(c, "-", " "))) != hashes[i] {
			t.Errorf("code %q does not hash to its stored hash in every typed form", c)
		}
		if strings.Contains(hashes[i], c[:5]) {
			t.Errorf("hash %q shows the code", hashes[i])
		}
	}
	for _, bad := range []string{"", "abcde", "abcde-fghij-k", "abcde-fghi1", "abcde_fghij"} {
		if _, ok := NormalizeRecoveryCode(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestTicket(t *testing.T) {
	a, ha := NewTicket()
	b, hb := NewTicket()
	if len(a) != 43 || a == b || ha == hb || HashTicket(a) != ha || strings.Contains(ha, a) {
		t.Errorf("NewTicket: %q %q, hashes %q %q", a, b, ha, hb)
	}
}

func FuzzTOTPInput(f *testing.F) {
	f.Add("123456")
	f.Add("123 456")
	f.Add("abcde-fghij")
	f.Add("ＡＢＣ")
	f.Fuzz(func(t *testing.T, s string) {
		if c, ok := NormalizeTOTPCode(s); ok {
			if len(c) != 6 || strings.Trim(c, "0123456789") != "" {
				t.Fatalf("NormalizeTOTPCode(%q) = %q", s, c)
			}
		}
		if c, ok := NormalizeRecoveryCode(s); ok {
			if len(c) != 10 || strings.Trim(c, "abcdefghijklmnopqrstuvwxyz234567") != "" {
				t.Fatalf("NormalizeRecoveryCode(%q) = %q", s, c)
			}
		}
		_, _ = MatchTOTP(rfcSecret, s, time.Unix(59, 0))
	})
}

// Ensure a sealed TOTP secret opens for its user under the instance secret and nowhere else,
// holds nothing of the secret in the clear, and that secrets to be sealed again are told apart:
// one sealed under a previous instance secret, and a plaintext one from before sealing.
func TestTOTPSealer(t *testing.T) {
	s, err := NewTOTPSealer("instance secret one", "")
	if err != nil {
		t.Fatal(err)
	}
	sealed := s.Seal("user-1", rfcSecret)
	if !strings.HasPrefix(sealed, "v1:") || strings.Contains(sealed, rfcSecret) || sealed == s.Seal("user-1", rfcSecret) {
		t.Errorf("Seal = %q (twice the same, or the secret shows)", sealed)
	}
	if got, current, err := s.Open("user-1", sealed); err != nil || got != rfcSecret || !current {
		t.Errorf("Open = %q, %v, %v", got, current, err)
	}
	if got, current, err := s.Open("user-1", rfcSecret); err != nil || got != rfcSecret || current {
		t.Errorf("Open of a plaintext secret = %q, %v, %v; want it, not current", got, current, err)
	}
	rotated, _ := NewTOTPSealer("instance secret two", "instance secret one")
	if got, current, err := rotated.Open("user-1", sealed); err != nil || got != rfcSecret || current {
		t.Errorf("Open under the previous secret = %q, %v, %v; want it, not current", got, current, err)
	}
	other, _ := NewTOTPSealer("instance secret two")
	tampered := []byte(sealed)
	if tampered[10] = 'A'; sealed[10] == 'A' {
		tampered[10] = 'B'
	}
	for name, c := range map[string]struct {
		s            *TOTPSealer
		user, stored string
	}{
		"another user's row":      {s, "user-2", sealed},
		"another instance secret": {other, "user-1", sealed},
		"tampered":                {s, "user-1", string(tampered)},
		"cut short":               {s, "user-1", "v1:AAAA"},
		"not base64":              {s, "user-1", "v1:!!"},
		"not a secret":            {s, "user-1", "hello, world"},
		"empty":                   {s, "user-1", ""},
	} {
		if got, _, err := c.s.Open(c.user, c.stored); err != ErrUnreadableTOTPSecret || got != "" {
			t.Errorf("%s: Open = %q, %v", name, got, err)
		}
	}
	if _, err := NewTOTPSealer(""); err == nil {
		t.Error("an empty instance secret was accepted")
	}
}

func FuzzOpenTOTPSecret(f *testing.F) {
	s, _ := NewTOTPSealer("fuzz secret")
	f.Add(s.Seal("u", rfcSecret))
	f.Add(rfcSecret)
	f.Add("v1:")
	f.Fuzz(func(t *testing.T, stored string) {
		got, current, err := s.Open("u", stored)
		// Only what Seal made opens as current; anything else is a plaintext secret returned as
		// it is, or refused.
		if err == nil && current && !strings.HasPrefix(stored, "v1:") {
			t.Fatalf("Open(%q) = %q, current, without being sealed", stored, got)
		}
		if err == nil && !current && got != stored {
			t.Fatalf("Open(%q) = %q, not current, yet not the plaintext secret", stored, got)
		}
	})
}
