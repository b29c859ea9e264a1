package cli

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/ratelimit"
	"github.com/foliohq/folio/internal/sqldb"
)

// newIdentity builds sign-in for serve: the session secret (generated into the data directory
// in development when NEXTAUTH_SECRET is unset), the first-start owner from FOLIO_ADMIN_EMAIL
// and FOLIO_ADMIN_PASSWORD, and the Identity that serves sessions and API keys (the server's
// Authenticator too). Its Run flushes API keys' last-use times.
func newIdentity(ctx context.Context, cfg *config.Config, db *sqldb.DB, log *slog.Logger) (*httpapi.Identity, error) {
	secret, err := instanceSecret(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.NextAuthSecret == "" {
		log.Warn("NEXTAUTH_SECRET is not set: using a generated secret kept in the data directory; "+
			"set NEXTAUTH_SECRET to share sessions with a Next.js front end or other instances", "path", secretPath(cfg))
	}
	if err := bootstrapOwner(ctx, cfg, db, log); err != nil {
		return nil, err
	}
	id, err := httpapi.NewIdentity(db.Identity, httpapi.IdentityConfig{Secret: secret, PreviousSecret: cfg.NextAuthSecretPrevious,
		BaseURL: cfg.NextAuthURL, AllowedOrigins: cfg.CORSAllowedOrigins, Logger: log})
	if err != nil {
		return nil, err
	}
	sealTOTPSecrets(ctx, id, log)
	return id, nil
}

// sealTOTPSecrets encrypts the TOTP secrets stored in plaintext by earlier versions, or under
// NEXTAUTH_SECRET_PREVIOUS, with the instance secret (docs/operations.md, "Secrets at rest"). A
// failure is logged, not fatal: the secrets keep working and the next start tries again.
func sealTOTPSecrets(ctx context.Context, id *httpapi.Identity, log *slog.Logger) {
	n, unreadable, err := id.SealTOTPSecrets(ctx)
	if err != nil {
		log.Warn("could not encrypt the stored TOTP secrets; the next start tries again", "error", err.Error())
	}
	if n > 0 {
		log.Info("encrypted stored TOTP secrets with the instance secret", "count", n)
	}
	if len(unreadable) > 0 {
		log.Warn("TOTP secrets that neither NEXTAUTH_SECRET nor NEXTAUTH_SECRET_PREVIOUS decrypts: those users sign in with a recovery code, "+
			"or `folio user totp-reset --email E` turns two-factor sign-in off for them", "user_ids", unreadable)
	}
}

// newLimiter is the rate limiter: shared through Redis when rdb is not nil, else in memory
// (tracking at most RATE_LIMIT_MAX_IDENTIFIERS identifiers).
func newLimiter(cfg *config.Config, rdb *redis.Pool, log *slog.Logger) folio.Limiter {
	if rdb != nil {
		log.Info("rate limits are shared through Redis")
		return ratelimit.NewRedis(rdb, "folio:ratelimit:")
	}
	return ratelimit.NewMemoryBounded(time.Now, cfg.RateLimitMaxIDs)
}

// instanceSecret is NEXTAUTH_SECRET, the key material of sessions, TOTP secrets at rest, the
// settings' stored secrets and backup manifests; without it (development: config refuses
// production without it) the secret generated into the data directory on first use.
func instanceSecret(cfg *config.Config) (string, error) {
	if cfg.NextAuthSecret != "" {
		return cfg.NextAuthSecret, nil
	}
	return loadOrCreateSecret(secretPath(cfg))
}

func secretPath(cfg *config.Config) string { return filepath.Join(cfg.DataDir, "nextauth.secret") }

// loadOrCreateSecret reads the secret kept at path, or creates it (256 random bits, mode 0600).
// Two instances starting at once on one data directory end up with the same secret.
func loadOrCreateSecret(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return "", fmt.Errorf("creating the data directory: %w", err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	secret := base64.RawURLEncoding.EncodeToString(b[:])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		b, rerr := os.ReadFile(path)
		if rerr != nil || len(strings.TrimSpace(string(b))) < 32 {
			return "", fmt.Errorf("%s exists but does not hold a usable secret; delete it or set NEXTAUTH_SECRET", path)
		}
		return strings.TrimSpace(string(b)), nil
	}
	if err != nil {
		return "", fmt.Errorf("writing the session secret: %w", err)
	}
	if _, err := f.WriteString(secret + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("writing the session secret: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("writing the session secret: %w", err)
	}
	return secret, nil
}

// bootstrapOwner creates the owner of FOLIO_ADMIN_EMAIL and FOLIO_ADMIN_PASSWORD when no user
// exists yet (and does nothing once one does, so the variables can stay set).
func bootstrapOwner(ctx context.Context, cfg *config.Config, db *sqldb.DB, log *slog.Logger) error {
	if cfg.AdminEmail == "" && cfg.AdminPassword == "" {
		return nil // announceStart says how to make the first user when there is none
	}
	if cfg.AdminEmail == "" || cfg.AdminPassword == "" {
		return errors.New("config: FOLIO_ADMIN_EMAIL and FOLIO_ADMIN_PASSWORD must be set together")
	}
	if n, err := db.Identity.CountUsers(ctx); err != nil || n > 0 {
		return err
	}
	name, _, _ := strings.Cut(cfg.AdminEmail, "@")
	in := folio.UserInput{Email: cfg.AdminEmail, Name: name, Role: folio.RoleOwner, Password: cfg.AdminPassword}
	if err := in.Validate(); err != nil {
		return fmt.Errorf("config: FOLIO_ADMIN_EMAIL/FOLIO_ADMIN_PASSWORD: %w", validationError("serve", err))
	}
	hash, err := auth.HashPassword(in.Password)
	if err != nil {
		return err
	}
	u, err := db.Identity.CreateFirstUser(ctx, &in, hash)
	if err != nil {
		return err
	}
	if u != nil {
		log.Info("created the first owner from FOLIO_ADMIN_EMAIL", "email", u.Email, "user_id", u.ID)
	}
	return nil
}
