package auth

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"image/png"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// Two-factor sign-in (docs/api.md, "Two-factor sign-in (TOTP)"): TOTP per RFC 6238 with a 30-second step, 6 digits and
// HMAC-SHA1 (what every authenticator app understands), accepting the previous, current and next
// step to absorb clock drift. The codes are computed by github.com/pquerna/otp; folio adds the
// step bookkeeping so each code signs in once.
const (
	TOTPPeriod   = 30 * time.Second
	TOTPDigits   = 6
	TOTPSkew     = 1 // steps accepted either side of the current one
	TOTPIssuer   = "folio"
	TicketMaxAge = 5 * time.Minute
	// TicketMaxAttempts codes may be tried with one sign-in ticket; then it is dead.
	TicketMaxAttempts = 5

	// RecoveryCodeCount recovery codes are made when TOTP is enabled.
	RecoveryCodeCount = 10
)

var totpOpts = totp.ValidateOpts{Period: uint(TOTPPeriod / time.Second), Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// NewTOTPKey makes a new random TOTP secret for the account and returns it (base32, no padding),
// its otpauth:// URL (what the QR code holds) and the QR code as a PNG image.
func NewTOTPKey(account string) (secret, otpauthURL string, qrPNG []byte, err error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: TOTPIssuer, AccountName: account, Period: totpOpts.Period,
		Digits: totpOpts.Digits, Algorithm: totpOpts.Algorithm, SecretSize: 20})
	if err != nil {
		return "", "", nil, err
	}
	img, err := key.Image(240, 240)
	if err != nil {
		return "", "", nil, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", "", nil, err
	}
	return key.Secret(), key.URL(), buf.Bytes(), nil
}

// NormalizeTOTPCode reads what a person typed as a code: digits, possibly with spaces or a dash
// in the middle ("123 456"). It reports false for anything else, including a wrong length.
func NormalizeTOTPCode(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			if b.Len() >= TOTPDigits {
				return "", false
			}
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '\t':
		default:
			return "", false
		}
	}
	if b.Len() != TOTPDigits {
		return "", false
	}
	return b.String(), true
}

// TOTPCode returns the code of secret at time t (for tests and the dashboard's browser tests).
func TOTPCode(secret string, t time.Time) (string, error) {
	return totp.GenerateCodeCustom(secret, t, totpOpts)
}

// MatchTOTP checks code against secret at now, ±TOTPSkew steps, and returns the step (Unix time
// / 30 s) whose code it is. The caller records the step so it cannot be used again. A malformed
// code or secret never matches.
func MatchTOTP(secret, code string, now time.Time) (step int64, ok bool) {
	code, ok = NormalizeTOTPCode(code)
	if !ok {
		return 0, false
	}
	cur := now.Unix() / int64(TOTPPeriod/time.Second)
	matched := int64(-1)
	// Every candidate is computed and compared in constant time, so timing does not tell which
	// step matched.
	for d := int64(-TOTPSkew); d <= TOTPSkew; d++ {
		s := cur + d
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*int64(TOTPPeriod/time.Second), 0), totpOpts)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && matched < 0 {
			matched = s
		}
	}
	return matched, matched >= 0
}

// NewRecoveryCodes returns RecoveryCodeCount fresh recovery codes, as shown to the user
// ("xxxxx-xxxxx", 50 random bits each), and their hashes for storage.
func NewRecoveryCodes() (codes, hashes []string) {
	enc := base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)
	for range RecoveryCodeCount {
		var b [7]byte
		_, _ = rand.Read(b[:])
		s := enc.EncodeToString(b[:])[:10]
		codes = append(codes, s[:5]+"-"+s[5:])
		hashes = append(hashes, HashRecoveryCode(s))
	}
	return codes, hashes
}

// NormalizeRecoveryCode reads a recovery code as typed: letters a–z and digits 2–7 in any case,
// with or without the dash and spaces. It reports false for anything else.
func NormalizeRecoveryCode(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '2' && r <= '7':
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		case r == '-' || r == ' ':
			continue
		default:
			return "", false
		}
		if b.Len() >= 10 {
			return "", false
		}
		b.WriteRune(r)
	}
	if b.Len() != 10 {
		return "", false
	}
	return b.String(), true
}

// HashRecoveryCode is the stored form of a recovery code (normalised first; a malformed code
// hashes to a value no stored code has).
func HashRecoveryCode(code string) string {
	n, ok := NormalizeRecoveryCode(code)
	if !ok {
		return "invalid"
	}
	sum := sha256.Sum256([]byte("folio-recovery:" + n))
	return hex.EncodeToString(sum[:])
}

// NewTicket returns a new sign-in ticket, the password step's proof handed to POST
// /api/auth/login/totp (256 random bits, base64url), and its hash, the form the store keeps it in
// (HashTicket): a copy of the database holds no ticket that works.
func NewTicket() (ticket, hash string) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	ticket = base64.RawURLEncoding.EncodeToString(b[:])
	return ticket, HashTicket(ticket)
}

// HashTicket is the stored form of a ticket: its SHA-256, hex.
func HashTicket(ticket string) string {
	sum := sha256.Sum256([]byte("folio-ticket:" + ticket))
	return hex.EncodeToString(sum[:])
}
