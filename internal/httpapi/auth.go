package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/sqldb"
)

// Session cookie names (contract §2): next-auth v4's, so a Next.js front end sharing
// NEXTAUTH_SECRET and folio read each other's sessions. The __Secure- form is used when
// NEXTAUTH_URL is https, as next-auth does.
const (
	SessionCookieName       = "next-auth.session-token"
	SecureSessionCookieName = "__Secure-next-auth.session-token"
)

// Defaults of IdentityConfig.
const (
	DefaultSessionMaxAge = 30 * 24 * time.Hour // next-auth's default session maxAge
	DefaultUserCacheTTL  = 5 * time.Second
	DefaultUsageFlush    = 30 * time.Second
	maxCachedUsers       = 1024
	maxCachedKeys        = 4096
)

// IdentityConfig configures an Identity.
type IdentityConfig struct {
	// Secret is NEXTAUTH_SECRET, the key material of session tokens. Required.
	Secret string
	// BaseURL is NEXTAUTH_URL. When it is https, the cookie is __Secure-… and marked Secure. Its
	// origin passes the Origin check of cookie-authenticated unsafe requests.
	BaseURL string
	// AllowedOrigins (CORS_ALLOWED_ORIGINS) also pass the Origin check.
	AllowedOrigins []string
	// SessionMaxAge is how long a login lasts (default 30 days).
	SessionMaxAge time.Duration
	// UserCacheTTL is how long a session's user, once read, is trusted without reading it again
	// (default 5 s): a deleted or demoted user loses access within this time on every instance.
	UserCacheTTL time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives flush failures (default: discard).
	Logger *slog.Logger
}

// Identity is folio's Authenticator: it turns a bearer API key or a session cookie into an
// actor, issues session cookies at login, and keeps API keys' last-use times. It is safe for
// concurrent use.
type Identity struct {
	db         *sqldb.DB
	cfg        IdentityConfig
	cookieName string
	secure     bool
	origins    *http.CrossOriginProtection

	usersMu sync.Mutex
	users   map[string]cachedUser
	keys    map[string]cachedKey // by the hash of the secret; guarded by usersMu

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

// NewIdentity returns an Identity over db. It fails when the secret is empty or an origin is not
// a valid origin.
func NewIdentity(db *sqldb.DB, cfg IdentityConfig) (*Identity, error) {
	if cfg.Secret == "" {
		return nil, errors.New("httpapi: NEXTAUTH_SECRET is empty")
	}
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
	id := &Identity{db: db, cfg: cfg, cookieName: SessionCookieName, origins: http.NewCrossOriginProtection(),
		users: map[string]cachedUser{}, keys: map[string]cachedKey{}}
	id.usage.seen = map[string]time.Time{}
	id.usage.dirty = map[string]bool{}
	trusted := append([]string{}, cfg.AllowedOrigins...)
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("httpapi: NEXTAUTH_URL %q is not a URL", cfg.BaseURL)
		}
		if u.Scheme == "https" {
			id.cookieName, id.secure = SecureSessionCookieName, true
		}
		trusted = append(trusted, u.Scheme+"://"+u.Host)
	}
	for _, o := range trusted {
		if err := id.origins.AddTrustedOrigin(strings.TrimRight(o, "/")); err != nil {
			return nil, fmt.Errorf("httpapi: trusted origin: %w", err)
		}
	}
	return id, nil
}

// CookieName is the session cookie's name.
func (id *Identity) CookieName() string { return id.cookieName }

var (
	errBadKey = folio.Errorf(folio.EUNAUTHORIZED, "The API key is missing, invalid, revoked or expired.")
)

// Authenticate implements Authenticator. A bearer key wins over a cookie. An unknown, malformed,
// revoked or expired key is EUNAUTHORIZED (all alike); an invalid, expired or foreign session
// cookie, or one whose user no longer exists, counts as no credentials. A valid session on an
// unsafe request that a browser sent from an origin other than this site, NEXTAUTH_URL or
// CORS_ALLOWED_ORIGINS is EFORBIDDEN (CSRF protection; bearer requests are exempt because
// browsers never attach them on their own).
func (id *Identity) Authenticate(r *http.Request) (folio.Actor, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		return id.authenticateKey(r.Context(), h)
	}
	tok := id.sessionToken(r)
	if tok == "" {
		return folio.Actor{}, nil
	}
	u, _, ok := id.sessionUser(r.Context(), tok)
	if !ok {
		return folio.Actor{}, nil
	}
	if err := id.origins.Check(r); err != nil {
		return folio.Actor{}, folio.Errorf(folio.EFORBIDDEN,
			"Cross-origin request refused: a session cookie may only be used from this site, NEXTAUTH_URL or CORS_ALLOWED_ORIGINS.")
	}
	return u.SessionActor(), nil
}

func (id *Identity) authenticateKey(ctx context.Context, header string) (folio.Actor, error) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return folio.Actor{}, errBadKey
	}
	tok = strings.TrimSpace(tok)
	// The shape check turns junk away without touching the database.
	if !auth.LooksLikeAPIKey(tok) {
		return folio.Actor{}, errBadKey
	}
	now := id.cfg.Now()
	k, owner, err := id.apiKey(ctx, auth.HashAPIKey(tok), now)
	if folio.IsNotFound(err) {
		return folio.Actor{}, errBadKey
	}
	if err != nil {
		return folio.Actor{}, err
	}
	level := k.EffectiveLevel(owner.Role)
	if !k.Usable(now) || level == folio.LevelPublic {
		return folio.Actor{}, errBadKey
	}
	id.usage.record(k.ID, now)
	return folio.Actor{UserID: owner.ID, Email: owner.Email, Name: owner.Name, Role: string(owner.Role),
		Level: level, KeyID: k.ID}, nil
}

// sessionToken returns the session cookie's value, joining next-auth's chunks (name.0, name.1, …)
// when a front end had to split a large token.
func (id *Identity) sessionToken(r *http.Request) string {
	if c, err := r.Cookie(id.cookieName); err == nil {
		return c.Value
	}
	var b strings.Builder
	for i := 0; i < 16; i++ {
		c, err := r.Cookie(id.cookieName + "." + strconv.Itoa(i))
		if err != nil {
			break
		}
		b.WriteString(c.Value)
	}
	return b.String()
}

// sessionUser decodes a session token and returns its user (re-read from the store, cached for
// UserCacheTTL and dropped at once when the user changes on any instance) and its claims.
//
// The user is the one whose id is the token's sub; a token written by a Next.js front end that
// signs people in with its own provider carries that provider's account id in sub instead, and
// then the user is the one whose email equals the token's email, without letter case (contract
// §6). A token issued before the user's sessions were revoked is refused.
func (id *Identity) sessionUser(ctx context.Context, tok string) (*folio.User, auth.SessionClaims, bool) {
	now := id.cfg.Now()
	claims, err := auth.DecodeSession(id.cfg.Secret, tok, now)
	if err != nil {
		return nil, claims, false
	}
	u, err := id.user(ctx, claims.Sub, claims.Email, now)
	if err != nil {
		if !folio.IsNotFound(err) {
			id.cfg.Logger.Warn("session user lookup failed", "error", err.Error())
		}
		return nil, claims, false
	}
	if !u.Role.Valid() || !u.SessionValid(claims.Iat, claims.Jti) {
		return nil, claims, false
	}
	return u, claims, true
}

// user returns the user a token's sub (or, failing that, email) names, from the cache when fresh.
func (id *Identity) user(ctx context.Context, sub, email string, now time.Time) (*folio.User, error) {
	key := sub + "\x00" + folio.EmailKey(email)
	id.usersMu.Lock()
	c, ok := id.users[key]
	id.usersMu.Unlock()
	if ok && now.Sub(c.at) < id.cfg.UserCacheTTL && !now.Before(c.at) {
		return c.user, nil
	}
	u, err := id.db.Identity.User(ctx, sub)
	if folio.IsNotFound(err) && strings.Contains(email, "@") {
		u, err = id.db.Identity.UserByEmail(ctx, email)
	}
	if err != nil {
		if folio.IsNotFound(err) {
			id.usersMu.Lock()
			delete(id.users, key)
			id.usersMu.Unlock()
		}
		return nil, err
	}
	id.usersMu.Lock()
	if len(id.users) >= maxCachedUsers {
		clear(id.users)
	}
	id.users[key] = cachedUser{user: u, at: now}
	id.usersMu.Unlock()
	return u, nil
}

// apiKey returns the key whose secret hashes to hash, with its owner, from the cache when fresh
// (read within UserCacheTTL; dropped at once when the owner or the key changes on any instance,
// see forgetUser). Revocation and expiry are checked by the caller on every request, against the
// clock, so a cached key that expires stops working on time.
func (id *Identity) apiKey(ctx context.Context, hash []byte, now time.Time) (*folio.APIKey, *folio.User, error) {
	h := string(hash)
	id.usersMu.Lock()
	c, ok := id.keys[h]
	id.usersMu.Unlock()
	if ok && now.Sub(c.at) < id.cfg.UserCacheTTL && !now.Before(c.at) {
		return c.key, c.owner, nil
	}
	k, owner, err := id.db.Identity.APIKeyByHash(ctx, hash)
	if err != nil {
		if folio.IsNotFound(err) {
			id.usersMu.Lock()
			delete(id.keys, h)
			id.usersMu.Unlock()
		}
		return nil, nil, err
	}
	id.usersMu.Lock()
	if len(id.keys) >= maxCachedKeys {
		clear(id.keys)
	}
	id.keys[h] = cachedKey{key: k, owner: owner, at: now}
	id.usersMu.Unlock()
	return k, owner, nil
}

// forgetKey drops the cached copy of the key with the given id (revoked through this instance).
func (id *Identity) forgetKey(keyID string) {
	id.usersMu.Lock()
	defer id.usersMu.Unlock()
	for h, c := range id.keys {
		if c.key.ID == keyID {
			delete(id.keys, h)
		}
	}
}

// forgetUser drops every cached copy of a user at once, and of the user's API keys (after a change made through this
// instance, or announced by another one); "*" drops them all.
func (id *Identity) forgetUser(userID string) {
	id.usersMu.Lock()
	defer id.usersMu.Unlock()
	if userID == "*" {
		clear(id.users)
		clear(id.keys)
		return
	}
	for k, c := range id.users {
		if c.user.ID == userID {
			delete(id.users, k)
		}
	}
	for h, c := range id.keys {
		if c.key.UserID == userID {
			delete(id.keys, h)
		}
	}
}

// UserChanged is the change-notification hook: a scope of sqldb.ScopeUser (or "*", after the
// listener reconnected) drops the cached user, so a revocation, role or password change or
// removal takes effect on this instance as soon as it hears of it.
func (id *Identity) UserChanged(scope string) {
	if scope == "*" {
		id.forgetUser("*")
	} else if uid, ok := strings.CutPrefix(scope, sqldb.ScopeUserPrefix); ok {
		id.forgetUser(uid)
	}
}

// issueSession writes a session cookie for u and returns when it expires.
func (id *Identity) issueSession(w http.ResponseWriter, u *folio.User) (time.Time, error) {
	now := id.cfg.Now()
	exp := now.Add(id.cfg.SessionMaxAge).Truncate(time.Second)
	// A revocation ends the sessions issued up to the next whole second (tokens carry whole
	// seconds); a session issued within that second takes the revocation time as its iat, so it
	// survives the revocation that preceded it.
	iat := max(now.Unix(), u.SessionsRevokedAt)
	tok, err := auth.EncodeSession(id.cfg.Secret, auth.SessionClaims{Name: u.Name, Email: u.Email, Sub: u.ID,
		Role: string(u.Role), Iat: iat, Exp: exp.Unix()})
	if err != nil {
		return time.Time{}, err
	}
	http.SetCookie(w, &http.Cookie{Name: id.cookieName, Value: tok, Path: "/", Expires: exp,
		MaxAge: int(id.cfg.SessionMaxAge / time.Second), HttpOnly: true, Secure: id.secure, SameSite: http.SameSiteLaxMode})
	return exp, nil
}

// clearSession expires the session cookie (and any chunks the request carried).
func (id *Identity) clearSession(w http.ResponseWriter, r *http.Request) {
	names := []string{id.cookieName}
	for _, c := range r.Cookies() {
		if strings.HasPrefix(c.Name, id.cookieName+".") {
			names = append(names, c.Name)
		}
	}
	for _, n := range names {
		http.SetCookie(w, &http.Cookie{Name: n, Value: "", Path: "/", MaxAge: -1, Expires: time.Unix(0, 0),
			HttpOnly: true, Secure: id.secure, SameSite: http.SameSiteLaxMode})
	}
}

// checkOrigin applies the Origin check to a request that is about to set a session (login), so
// another site cannot sign a visitor in to an account of its choosing.
func (id *Identity) checkOrigin(r *http.Request) error {
	if err := id.origins.Check(r); err != nil {
		return folio.Errorf(folio.EFORBIDDEN, "Cross-origin sign-in refused: the request's origin is not this site, NEXTAUTH_URL or CORS_ALLOWED_ORIGINS.")
	}
	return nil
}

// keyUsage keeps API keys' last-use times in memory, so authenticating a request costs no
// database write; Flush writes the new ones in one batch.
type keyUsage struct {
	mu    sync.Mutex
	seen  map[string]time.Time // latest use this instance has seen, per key id
	dirty map[string]bool      // keys whose latest use is not yet written
}

func (u *keyUsage) record(keyID string, at time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if prev, ok := u.seen[keyID]; ok && !at.After(prev) {
		return
	}
	if len(u.seen) >= 100_000 { // bound memory if keys churn; only written entries are dropped
		for k := range u.seen {
			if !u.dirty[k] {
				delete(u.seen, k)
			}
		}
	}
	u.seen[keyID] = at
	u.dirty[keyID] = true
}

// latest returns the last use of keyID seen by this instance.
func (u *keyUsage) latest(keyID string) (time.Time, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	t, ok := u.seen[keyID]
	return t, ok
}

// LastUsed merges this instance's unwritten last-use time into k.
func (id *Identity) lastUsed(k *folio.APIKey) {
	if t, ok := id.usage.latest(k.ID); ok && (k.LastUsedAt == nil || t.After(*k.LastUsedAt)) {
		t = t.UTC().Truncate(time.Microsecond)
		k.LastUsedAt = &t
	}
}

// Flush writes the last-use times recorded since the previous flush. On failure they are kept
// for the next one.
func (id *Identity) Flush(ctx context.Context) error {
	id.usage.mu.Lock()
	batch := make(map[string]time.Time, len(id.usage.dirty))
	for k := range id.usage.dirty {
		batch[k] = id.usage.seen[k]
	}
	clear(id.usage.dirty)
	id.usage.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := id.db.Identity.TouchAPIKeys(ctx, batch); err != nil {
		id.usage.mu.Lock()
		for k := range batch {
			id.usage.dirty[k] = true
		}
		id.usage.mu.Unlock()
		return err
	}
	return nil
}

// Run flushes last-use times every interval (DefaultUsageFlush when ≤ 0) until ctx ends, then
// once more, so a clean shutdown loses none.
func (id *Identity) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultUsageFlush
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := id.Flush(fctx); err != nil {
				id.cfg.Logger.Warn("could not write API keys' last-use times at shutdown", "error", err.Error())
			}
			return
		case <-t.C:
			if err := id.Flush(ctx); err != nil && ctx.Err() == nil {
				id.cfg.Logger.Warn("could not write API keys' last-use times; will retry", "error", err.Error())
			}
		}
	}
}
