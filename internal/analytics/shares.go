package analytics

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"unicode/utf8"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

// Bounds of a share's password.
const (
	MinSharePassword = 8
	MaxSharePassword = 200
)

// shareTokenLen is the length of a share token: 32 random bytes, base64url without padding.
const shareTokenLen = 43

// hashShareToken is what is stored of a token: its SHA-256, hex.
func hashShareToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// CreateShare makes a read-only link to the analytics page, with a password when one is given,
// and returns it with its token (shown once; only its hash is kept).
func (s *Service) CreateShare(ctx context.Context, in folio.AnalyticsShareInput) (*folio.AnalyticsShare, string, error) {
	if in.Password != "" {
		if n := utf8.RuneCountInString(in.Password); n < MinSharePassword || n > MaxSharePassword || !utf8.ValidString(in.Password) {
			return nil, "", &folio.Error{Code: folio.EINVALID, Message: "Validation failed.", RuleBroken: true,
				Details: []folio.FieldError{{Field: "password", Message: "must be 8 to 200 characters"}}}
		}
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, "", err
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	sh := &folio.AnalyticsShare{ID: folio.NewID(), TokenHash: hashShareToken(token), CreatedAt: s.now().UTC()}
	if in.Password != "" {
		h, err := auth.HashPassword(in.Password)
		if err != nil {
			return nil, "", err
		}
		sh.PasswordHash = h
	}
	if err := s.store.CreateAnalyticsShare(ctx, *sh); err != nil {
		return nil, "", err
	}
	return sh, token, nil
}

// Share returns the share of a token, or RESOURCE_NOT_FOUND (a malformed token too, without
// asking the store).
func (s *Service) Share(ctx context.Context, token string) (*folio.AnalyticsShare, error) {
	if len(token) != shareTokenLen {
		return nil, folio.Errorf(folio.ENOTFOUND, "This link does not exist or was revoked.")
	}
	return s.store.AnalyticsShareByToken(ctx, hashShareToken(token))
}

// Shares lists the shares, newest first.
func (s *Service) Shares(ctx context.Context) ([]folio.AnalyticsShare, error) {
	return s.store.AnalyticsShares(ctx)
}

// DeleteShare revokes a share.
func (s *Service) DeleteShare(ctx context.Context, id string) error {
	return s.store.DeleteAnalyticsShare(ctx, id)
}

// UnlockShare checks a share's password and returns the proof a browser keeps in a cookie for
// it (ShareUnlocked); a wrong password is AUTHENTICATION_REQUIRED.
func UnlockShare(sh *folio.AnalyticsShare, password string) (string, error) {
	if sh.PasswordHash == "" {
		return shareProof(sh), nil
	}
	if len(password) > 4*MaxSharePassword || !auth.CheckPassword(sh.PasswordHash, password) {
		return "", &folio.Error{Code: folio.EUNAUTHORIZED, Message: "The password is not right.",
			Details: []folio.FieldError{{Field: "password", Message: "is not right"}}}
	}
	return shareProof(sh), nil
}

// ShareUnlocked reports whether proof (the cookie) opens the share: always for a share without
// a password.
func ShareUnlocked(sh *folio.AnalyticsShare, proof string) bool {
	return sh.PasswordHash == "" || hmac.Equal([]byte(proof), []byte(shareProof(sh)))
}

// shareProof is an HMAC of the share's id under its password hash: nobody without the hash can
// make it, it needs no server-side session, and it dies with the share.
func shareProof(sh *folio.AnalyticsShare) string {
	m := hmac.New(sha256.New, []byte(sh.PasswordHash))
	m.Write([]byte("folio-share\x00" + sh.ID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
