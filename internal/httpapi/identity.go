package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/identity"
)

// Session cookie names (docs/api.md, "Authentication and permissions"): next-auth v4's, so a
// Next.js front end sharing NEXTAUTH_SECRET and folio read each other's sessions. The __Secure-
// form is used when NEXTAUTH_URL is https, as next-auth does.
const (
	SessionCookieName       = "next-auth.session-token"
	SecureSessionCookieName = "__Secure-next-auth.session-token"
)

// Defaults of IdentityConfig (the identity service's).
const (
	DefaultSessionMaxAge = identity.DefaultSessionMaxAge
	DefaultUserCacheTTL  = identity.DefaultUserCacheTTL
	DefaultUsageFlush    = identity.DefaultUsageFlush
)

// IdentityConfig configures an Identity.
type IdentityConfig struct {
	// Secret is NEXTAUTH_SECRET, the key material of session tokens and of TOTP secrets at rest.
	// Required.
	Secret string
	// PreviousSecret is NEXTAUTH_SECRET_PREVIOUS (identity.Config).
	PreviousSecret string
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

// Identity is folio's Authenticator: the HTTP side of the identity service. It reads a bearer
// API key or a session cookie from a request and lets the service turn it into an actor, sets
// and clears session cookies, and applies the Origin check to cookie-authenticated requests. It
// is safe for concurrent use.
type Identity struct {
	*identity.Service
	cfg        IdentityConfig
	cookieName string
	secure     bool
	origins    *http.CrossOriginProtection
}

// NewIdentity returns an Identity over store. It fails when the secret is empty or an origin is
// not a valid origin.
func NewIdentity(store identity.Store, cfg IdentityConfig) (*Identity, error) {
	if cfg.Secret == "" {
		return nil, errors.New("httpapi: NEXTAUTH_SECRET is empty")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	svc := identity.New(store, identity.Config{Secret: cfg.Secret, PreviousSecret: cfg.PreviousSecret, SessionMaxAge: cfg.SessionMaxAge,
		UserCacheTTL: cfg.UserCacheTTL, Now: cfg.Now, Logger: cfg.Logger})
	id := &Identity{Service: svc, cfg: cfg, cookieName: SessionCookieName, origins: http.NewCrossOriginProtection()}
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

// Authenticate implements Authenticator. A bearer key wins over a cookie. An unknown, malformed,
// revoked or expired key is EUNAUTHORIZED (all alike); an invalid, expired or foreign session
// cookie, or one whose user no longer exists, counts as no credentials. A valid session on an
// unsafe request that a browser sent from an origin other than this site, NEXTAUTH_URL or
// CORS_ALLOWED_ORIGINS is EFORBIDDEN (CSRF protection; bearer requests are exempt because
// browsers never attach them on their own).
func (id *Identity) Authenticate(r *http.Request) (folio.Actor, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return folio.Actor{}, identity.ErrBadKey
		}
		return id.AuthenticateKey(r.Context(), strings.TrimSpace(tok))
	}
	tok := id.sessionToken(r)
	if tok == "" {
		return folio.Actor{}, nil
	}
	u, _, ok := id.SessionUser(r.Context(), tok)
	if !ok {
		return folio.Actor{}, nil
	}
	if err := id.origins.Check(r); err != nil {
		return folio.Actor{}, folio.Errorf(folio.EFORBIDDEN,
			"Cross-origin request refused: a session cookie may only be used from this site, NEXTAUTH_URL or CORS_ALLOWED_ORIGINS.")
	}
	return u.SessionActor(), nil
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

// sessionUser is the session of the request's cookie: its user and claims.
func (id *Identity) sessionUser(r *http.Request) (*folio.User, auth.SessionClaims, bool) {
	return id.SessionUser(r.Context(), id.sessionToken(r))
}

// issueSession writes a session cookie for u and returns when it expires.
func (id *Identity) issueSession(w http.ResponseWriter, u *folio.User) (time.Time, error) {
	tok, exp, err := id.NewSession(u)
	if err != nil {
		return time.Time{}, err
	}
	http.SetCookie(w, &http.Cookie{Name: id.cookieName, Value: tok, Path: "/", Expires: exp,
		MaxAge: int(id.SessionMaxAge() / time.Second), HttpOnly: true, Secure: id.secure, SameSite: http.SameSiteLaxMode})
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
