// Package identity is folio's sign-in use case: it turns a bearer API key or a session token
// into an actor, issues session tokens (NextAuth-compatible, see internal/auth), caches users and
// keys for a short while, and keeps API keys' last-use times in memory until they are flushed.
// It reads and writes through the narrow Store it declares; the HTTP side (headers, cookies,
// Origin checks) stays in internal/httpapi.
package identity

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

// Store is what the identity service reads and writes (sqldb.IdentityStore implements it;
// identitytest.TestStore checks every implementation).
type Store interface {
	// User returns the user with the given id, or a folio ENOTFOUND error.
	User(ctx context.Context, id string) (*folio.User, error)
	// UserByEmail returns the user with the given email (letter case and surrounding space
	// ignored), or a folio ENOTFOUND error.
	UserByEmail(ctx context.Context, email string) (*folio.User, error)
	// APIKeyByHash returns the key whose secret hashes to hash (revoked and expired keys too),
	// with its owner, or a folio ENOTFOUND error.
	APIKeyByHash(ctx context.Context, hash []byte) (*folio.APIKey, *folio.User, error)
	// TouchAPIKeys stores keys' last-use times, never moving one backwards; unknown ids are
	// ignored.
	TouchAPIKeys(ctx context.Context, uses map[string]time.Time) error
	// APIKeys returns the keys, newest first, with their owners' emails; revoked ones only when
	// includeRevoked.
	APIKeys(ctx context.Context, includeRevoked bool) ([]*folio.APIKey, error)
	// CreateAPIKey stores k (setting its ID and CreatedAt) with the hash of its secret; a key for
	// an unknown user is ENOTFOUND.
	CreateAPIKey(ctx context.Context, k *folio.APIKey, hash []byte) error
	// RevokeAPIKey revokes a key that is not revoked yet, or answers ENOTFOUND.
	RevokeAPIKey(ctx context.Context, id string) error

	// UpdateProfile replaces the profile fields present in in and returns the user.
	UpdateProfile(ctx context.Context, id string, in *folio.ProfileUpdate) (*folio.User, error)
	// SetPasswordHash replaces a password's hash (a rehash; sessions stay valid).
	SetPasswordHash(ctx context.Context, id, hash string) error
	// ChangePassword stores a new password hash and revokes every session of the user but the
	// one whose token id is keepJTI; it returns the new revocation time (Unix seconds).
	ChangePassword(ctx context.Context, id, hash, keepJTI string) (int64, error)
	// RevokeSessions revokes every session of the user and returns the revocation time.
	RevokeSessions(ctx context.Context, id string) (int64, error)

	// SetTOTPSecret stores a TOTP secret (as the service seals it) that is not in force yet;
	// ECONFLICT when TOTP is on.
	SetTOTPSecret(ctx context.Context, id, secret string) error
	// TOTPSecrets returns every stored TOTP secret (set up or in force), by user id.
	TOTPSecrets(ctx context.Context) (map[string]string, error)
	// ReplaceTOTPSecret stores secret in place of old, if the user's stored secret is still old
	// (a setup or a reset meanwhile wins); false when it was not.
	ReplaceTOTPSecret(ctx context.Context, id, old, secret string) (bool, error)
	// EnableTOTP turns TOTP on, with step as the last used time step and the recovery codes'
	// hashes replacing any earlier ones, in one transaction; ECONFLICT when TOTP is on already or
	// no secret was set up.
	EnableTOTP(ctx context.Context, id string, step int64, recoveryHashes []string) error
	// DisableTOTP turns TOTP off and forgets its secret and recovery codes; turning off what is
	// off is not an error.
	DisableTOTP(ctx context.Context, id string) error
	// UseTOTPStep records step as used; false when it (or a later one) already was, or TOTP is
	// off. Two concurrent calls with one step cannot both succeed.
	UseTOTPStep(ctx context.Context, id string, step int64) (bool, error)
	// UseRecoveryCode uses up the unused recovery code with the given hash; false when none.
	UseRecoveryCode(ctx context.Context, id, hash string) (bool, error)
	// RecoveryCodesLeft counts the user's unused recovery codes.
	RecoveryCodesLeft(ctx context.Context, id string) (int, error)

	// CreateSignInTicket stores a sign-in ticket under the hash of its secret, and forgets the
	// tickets that have expired.
	CreateSignInTicket(ctx context.Context, hash string, t *folio.SignInTicket) error
	// SignInTicket returns the ticket stored under hash, or a folio ENOTFOUND error (never
	// issued, or spent).
	SignInTicket(ctx context.Context, hash string) (*folio.SignInTicket, error)
	// TrySignInTicket counts one more code tried with the ticket and returns the count, unless
	// maxAttempts were counted already: then, or when the ticket is gone, it returns 0. However
	// many calls arrive at once, on however many instances, no more than maxAttempts count.
	TrySignInTicket(ctx context.Context, hash string, maxAttempts int) (int, error)
	// SpendSignInTicket removes the ticket; false when it was gone already, so of two callers
	// only one spends it.
	SpendSignInTicket(ctx context.Context, hash string) (bool, error)

	// CreatePasskey stores p (setting ID and CreatedAt) and revokes every session of its user
	// but the one whose token id is keepJTI, returning the revocation time; a credential stored
	// already is ECONFLICT.
	CreatePasskey(ctx context.Context, p *folio.Passkey, keepJTI string) (int64, error)
	// Passkeys returns the user's passkeys, oldest first.
	Passkeys(ctx context.Context, userID string) ([]*folio.Passkey, error)
	// PasskeyByCredentialID returns the passkey with the raw credential id, or ENOTFOUND.
	PasskeyByCredentialID(ctx context.Context, credID []byte) (*folio.Passkey, error)
	// UsePasskey stores a passkey's record after a sign-in; false when its stored counter is
	// not below signCount any more (and signCount is not 0), so a counter value signs in once.
	UsePasskey(ctx context.Context, id string, credential []byte, signCount uint32, backupState bool) (bool, error)
	// RenamePasskey and DeletePasskey change one of the user's passkeys (ENOTFOUND when the
	// user has no such passkey) and revoke the user's sessions but keepJTI's.
	RenamePasskey(ctx context.Context, userID, id, name, keepJTI string) (*folio.Passkey, int64, error)
	DeletePasskey(ctx context.Context, userID, id, keepJTI string) (int64, error)

	// CreateAuthChallenge stores a ceremony's single-use secret under its hash and forgets the
	// expired ones.
	CreateAuthChallenge(ctx context.Context, hash string, c *folio.AuthChallenge) error
	// TakeAuthChallenge removes and returns the challenge of kind under hash (expired ones
	// too), or ENOTFOUND; of two callers only one gets it.
	TakeAuthChallenge(ctx context.Context, hash, kind string) (*folio.AuthChallenge, error)

	// ExternalIdentityUser returns the user an identity provider's account is linked to, or
	// ENOTFOUND; LinkExternalIdentity links one (again to the same user: nothing changes; to
	// another: ECONFLICT).
	ExternalIdentityUser(ctx context.Context, provider, subject string) (string, error)
	LinkExternalIdentity(ctx context.Context, provider, subject, userID, email string) error
}

// Defaults of Config.
const (
	DefaultSessionMaxAge = 30 * 24 * time.Hour // next-auth's default session maxAge
	DefaultUserCacheTTL  = 5 * time.Second
	DefaultUsageFlush    = 30 * time.Second
	maxCachedUsers       = 1024
	maxCachedKeys        = 4096
)

// Config configures a Service.
type Config struct {
	// Secret is NEXTAUTH_SECRET, the key material of session tokens and of the TOTP secrets at
	// rest.
	Secret string
	// PreviousSecret (NEXTAUTH_SECRET_PREVIOUS) is the instance secret before the last rotation:
	// TOTP secrets sealed under it still open, and SealTOTPSecrets seals them again under Secret.
	PreviousSecret string
	// SessionMaxAge is how long a login lasts (default 30 days).
	SessionMaxAge time.Duration
	// UserCacheTTL is how long a session's user, once read, is trusted without reading it again
	// (default 5 s; negative: no cache): a deleted or demoted user loses access within this time
	// on every instance.
	UserCacheTTL time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives lookup and flush failures (default: discard).
	Logger *slog.Logger
}

// Service authenticates callers and keeps the caches of users and API keys. It is safe for
// concurrent use.
type Service struct {
	store Store
	cfg   Config
	// totp seals the TOTP secrets the store keeps; nil without a Secret (a server without
	// sessions, where no one can set TOTP up).
	totp *auth.TOTPSealer

	mu    sync.Mutex
	users map[string]cachedUser
	keys  map[string]cachedKey // by the hash of the secret; guarded by mu

	usage keyUsage
}

type cachedUser struct {
	user *folio.User
	at   time.Time
}

// cachedKey is an API key found by its hash, with its owner, as read at at. Only keys that exist
// are cached (a stranger's made-up keys never are), and the map is bounded by maxCachedKeys.
type cachedKey struct {
	key   *folio.APIKey
	owner *folio.User
	at    time.Time
}

// New returns a Service over store, with cfg's zero fields set to their defaults.
func New(store Store, cfg Config) *Service {
	if cfg.SessionMaxAge <= 0 {
		cfg.SessionMaxAge = DefaultSessionMaxAge
	}
	if cfg.UserCacheTTL < 0 {
		cfg.UserCacheTTL = 0
	} else if cfg.UserCacheTTL == 0 {
		cfg.UserCacheTTL = DefaultUserCacheTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: store, cfg: cfg, users: map[string]cachedUser{}, keys: map[string]cachedKey{}}
	s.totp, _ = auth.NewTOTPSealer(cfg.Secret, cfg.PreviousSecret) // nil only when Secret is empty
	s.usage.seen = map[string]time.Time{}
	s.usage.dirty = map[string]bool{}
	return s
}

// SessionMaxAge is how long a session issued now lasts.
func (s *Service) SessionMaxAge() time.Duration { return s.cfg.SessionMaxAge }

// ErrBadKey answers every bearer key that does not authenticate: unknown, malformed, revoked or
// expired alike.
var ErrBadKey = folio.Errorf(folio.EUNAUTHORIZED, "The API key is missing, invalid, revoked or expired.")

// AuthenticateKey returns the actor of a bearer API key (the token after "Bearer "), or
// ErrBadKey. It records the key's use for the next Flush.
func (s *Service) AuthenticateKey(ctx context.Context, tok string) (folio.Actor, error) {
	// The shape check turns junk away without touching the database.
	if !auth.LooksLikeAPIKey(tok) {
		return folio.Actor{}, ErrBadKey
	}
	now := s.cfg.Now()
	k, owner, err := s.apiKey(ctx, auth.HashAPIKey(tok), now)
	if folio.IsNotFound(err) {
		return folio.Actor{}, ErrBadKey
	}
	if err != nil {
		return folio.Actor{}, err
	}
	level := k.EffectiveLevel(owner.Role)
	if !k.Usable(now) || level == folio.LevelPublic {
		return folio.Actor{}, ErrBadKey
	}
	s.usage.record(k.ID, now)
	return folio.Actor{UserID: owner.ID, Email: owner.Email, Name: owner.Name, Role: string(owner.Role),
		Level: level, KeyID: k.ID}, nil
}

// SessionUser decodes a session token and returns its user (re-read from the store, cached for
// UserCacheTTL and dropped at once when the user changes on any instance) and its claims.
//
// The user is the one whose id is the token's sub; a token written by a Next.js front end that
// signs people in with its own provider carries that provider's account id in sub instead, and
// then the user is the one whose email equals the token's email, without letter case (docs/api.md,
// "Authentication and permissions"). A token issued before the user's sessions were revoked is
// refused.
func (s *Service) SessionUser(ctx context.Context, tok string) (*folio.User, auth.SessionClaims, bool) {
	now := s.cfg.Now()
	claims, err := auth.DecodeSession(s.cfg.Secret, tok, now)
	if err != nil {
		return nil, claims, false
	}
	u, err := s.user(ctx, claims.Sub, claims.Email, now)
	if err != nil {
		if !folio.IsNotFound(err) {
			s.cfg.Logger.Warn("session user lookup failed", "error", err.Error())
		}
		return nil, claims, false
	}
	if !u.Role.Valid() || !u.SessionValid(claims.Iat, claims.Jti) {
		return nil, claims, false
	}
	return u, claims, true
}

// NewSession returns a session token for u and when it expires.
func (s *Service) NewSession(u *folio.User) (string, time.Time, error) {
	now := s.cfg.Now()
	exp := now.Add(s.cfg.SessionMaxAge).Truncate(time.Second)
	tok, err := auth.EncodeSession(s.cfg.Secret, auth.SessionClaims{Name: u.Name, Email: u.Email, Sub: u.ID,
		Role: string(u.Role), Iat: u.IssuedAt(now), Exp: exp.Unix()})
	if err != nil {
		return "", time.Time{}, err
	}
	return tok, exp, nil
}

// user returns the user a token's sub (or, failing that, email) names, from the cache when fresh.
func (s *Service) user(ctx context.Context, sub, email string, now time.Time) (*folio.User, error) {
	key := sub + "\x00" + folio.EmailKey(email)
	s.mu.Lock()
	c, ok := s.users[key]
	s.mu.Unlock()
	if ok && now.Sub(c.at) < s.cfg.UserCacheTTL && !now.Before(c.at) {
		return c.user, nil
	}
	u, err := s.store.User(ctx, sub)
	if folio.IsNotFound(err) && strings.Contains(email, "@") {
		u, err = s.store.UserByEmail(ctx, email)
	}
	if err != nil {
		if folio.IsNotFound(err) {
			s.mu.Lock()
			delete(s.users, key)
			s.mu.Unlock()
		}
		return nil, err
	}
	s.mu.Lock()
	if len(s.users) >= maxCachedUsers {
		clear(s.users)
	}
	s.users[key] = cachedUser{user: u, at: now}
	s.mu.Unlock()
	return u, nil
}

// apiKey returns the key whose secret hashes to hash, with its owner, from the cache when fresh
// (read within UserCacheTTL; dropped at once when the owner or the key changes on any instance,
// see ForgetUser). Revocation and expiry are checked by the caller on every request, against the
// clock, so a cached key that expires stops working on time.
func (s *Service) apiKey(ctx context.Context, hash []byte, now time.Time) (*folio.APIKey, *folio.User, error) {
	h := string(hash)
	s.mu.Lock()
	c, ok := s.keys[h]
	s.mu.Unlock()
	if ok && now.Sub(c.at) < s.cfg.UserCacheTTL && !now.Before(c.at) {
		return c.key, c.owner, nil
	}
	k, owner, err := s.store.APIKeyByHash(ctx, hash)
	if err != nil {
		if folio.IsNotFound(err) {
			s.mu.Lock()
			delete(s.keys, h)
			s.mu.Unlock()
		}
		return nil, nil, err
	}
	s.mu.Lock()
	if len(s.keys) >= maxCachedKeys {
		clear(s.keys)
	}
	s.keys[h] = cachedKey{key: k, owner: owner, at: now}
	s.mu.Unlock()
	return k, owner, nil
}

// ForgetKey drops the cached copy of the key with the given id (revoked through this instance).
func (s *Service) ForgetKey(keyID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, c := range s.keys {
		if c.key.ID == keyID {
			delete(s.keys, h)
		}
	}
}

// ForgetUser drops every cached copy of a user at once, and of the user's API keys (after a
// change made through this instance, or announced by another one); "*" drops them all.
func (s *Service) ForgetUser(userID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if userID == "*" {
		clear(s.users)
		clear(s.keys)
		return
	}
	for k, c := range s.users {
		if c.user.ID == userID {
			delete(s.users, k)
		}
	}
	for h, c := range s.keys {
		if c.key.UserID == userID {
			delete(s.keys, h)
		}
	}
}

// CachedKeys is how many API keys the key cache holds.
func (s *Service) CachedKeys() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.keys)
}

// UserChanged is the change-notification hook: a scope of folio.ScopeUserPrefix (or "*", after
// the listener reconnected) drops the cached user, so a revocation, role or password change or
// removal takes effect on this instance as soon as it hears of it.
func (s *Service) UserChanged(scope string) {
	if scope == "*" {
		s.ForgetUser("*")
	} else if uid, ok := strings.CutPrefix(scope, folio.ScopeUserPrefix); ok {
		s.ForgetUser(uid)
	}
}
