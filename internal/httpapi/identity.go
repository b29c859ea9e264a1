package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

// identityRoutes are sign-in, sessions, API keys and the user's profile (contract §2, §4).
func (s *Server) identityRoutes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/auth/login", Handle: s.login, Limit: limitHelperLogin, AuditAlways: true, Audit: "auth.login",
			Tag: "Auth", Summary: "Sign in with email and password: sets the session cookie (HttpOnly, SameSite=Lax, 30 days) and returns the user; with TOTP on, answers {mfaRequired: true, ticket} and no cookie (continue at /api/auth/login/totp). Only failed attempts count toward the sign-in limit",
			Body: folio.LoginInput{}, Status: http.StatusOK, Resp: loginResponse{}, Errors: []int{401, 403, 503}},
		{Method: "POST", Pattern: "/api/auth/logout", Handle: s.logout, Audit: "auth.logout",
			Tag: "Auth", Summary: "Sign out: expires this browser's session cookie (POST /api/auth/sessions/revoke ends every session)",
			Status: http.StatusNoContent, Errors: []int{403}},
		{Method: "GET", Pattern: "/api/auth/session", Handle: s.session,
			Tag: "Auth", Summary: "The current cookie session, as NextAuth's /api/auth/session: {user, expires}, or {} when there is none",
			Status: http.StatusOK, Resp: sessionResponse{}},
		{Method: "GET", Pattern: "/api/user/profile", Handle: s.getProfile, Level: folio.LevelRead,
			Tag: "User", Summary: "The caller's profile (a key acts for the user who owns it)", Status: http.StatusOK, Resp: folio.User{}, Errors: []int{404}},
		{Method: "PUT", Pattern: "/api/user/profile", Handle: s.updateProfile, Level: folio.LevelWrite,
			Tag: "User", Summary: "Update the caller's name, bio, location and website (present fields replace, absent ones stay)",
			Body: folio.ProfileUpdate{}, Status: http.StatusOK, Resp: folio.User{}, Errors: []int{404, 413, 422}},
		{Method: "GET", Pattern: "/api/keys", Handle: s.listAPIKeys, Level: folio.LevelAdmin,
			Tag: "API keys", Summary: "List the API keys that are not revoked, newest first", Status: http.StatusOK, Resp: apiKeyList{}},
		{Method: "POST", Pattern: "/api/keys", Handle: s.createAPIKey, Level: folio.LevelAdmin, Audit: "apikey.create",
			Tag: "API keys", Summary: "Create an API key for the caller's user; the secret is in the response and never shown again",
			Body: folio.APIKeyInput{}, Status: http.StatusCreated, Resp: createdAPIKey{}, Errors: []int{404, 413, 422}},
		{Method: "DELETE", Pattern: "/api/keys/{id}", Handle: s.revokeAPIKey, Level: folio.LevelAdmin, Audit: "apikey.revoke",
			Tag: "API keys", Summary: "Revoke an API key; it stops working at once", Status: http.StatusNoContent, Errors: []int{404}},
	}
}

// loginResponse is {user} after a complete sign-in, or {mfaRequired: true, ticket} when the
// user has TOTP on and the second step is still to come.
type loginResponse struct {
	User        *folio.User `json:"user,omitempty" doc:"the signed-in user (absent when mfaRequired)"`
	MfaRequired bool        `json:"mfaRequired,omitempty" doc:"true: no session yet; send the ticket and a code to /api/auth/login/totp"`
	Ticket      string      `json:"ticket,omitempty" doc:"proof of the password step, valid 5 minutes"`
}

type sessionUser struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Role  string `json:"role"`
}

type sessionResponse struct {
	User    *sessionUser `json:"user,omitempty"`
	Expires *time.Time   `json:"expires,omitempty" doc:"when the session ends"`
}

// apiKeyView is the contract's apiKey object.
type apiKeyView struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Level      string     `json:"level" doc:"read, write or admin"`
	Prefix     string     `json:"prefix" doc:"the first characters of the secret, to tell keys apart"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  *time.Time `json:"expiresAt" nullable:"true"`
	LastUsedAt *time.Time `json:"lastUsedAt" nullable:"true"`
}

type apiKeyList struct {
	Keys []apiKeyView `json:"keys"`
}

type createdAPIKey struct {
	Key    string     `json:"key" doc:"the secret; shown this once, send it as Authorization: Bearer <key>"`
	APIKey apiKeyView `json:"apiKey"`
}

func viewAPIKey(k *folio.APIKey) apiKeyView {
	return apiKeyView{ID: k.ID, Name: k.Name, Level: k.Level.String(), Prefix: k.Prefix, CreatedAt: k.CreatedAt,
		ExpiresAt: k.ExpiresAt, LastUsedAt: k.LastUsedAt}
}

func (s *Server) identity() (*Identity, error) {
	if s.Identity == nil {
		return nil, folio.Errorf(folio.EUNAVAILABLE, "Sessions are not configured on this server (NEXTAUTH_SECRET).")
	}
	return s.Identity, nil
}

var errBadLogin = folio.Errorf(folio.EUNAUTHORIZED, "The email or password is incorrect.")

func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	id, err := s.identity()
	if err != nil {
		return err
	}
	if err := id.checkOrigin(r); err != nil {
		return err
	}
	var in folio.LoginInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	u, err := s.DB.Identity.UserByEmail(r.Context(), in.Email)
	if folio.IsNotFound(err) {
		// Same work as a wrong password, so the answer does not tell which emails have accounts.
		auth.DummyCheckPassword(in.Password)
		s.countFailedSignIn(r)
		return errBadLogin
	}
	if err != nil {
		return err
	}
	auditSubject(r, u.ID, "")
	if !auth.CheckPassword(u.PasswordHash, in.Password) || !u.Role.Valid() {
		s.countFailedSignIn(r)
		return errBadLogin
	}
	if auth.NeedsRehash(u.PasswordHash) {
		if h, err := auth.HashPassword(in.Password); err == nil {
			if err := s.DB.Identity.SetPasswordHash(r.Context(), u.ID, h); err != nil {
				s.log(r).Warn("could not store a rehashed password", "user_id", u.ID, "error", err.Error())
			}
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	if u.TOTPEnabled {
		ticket, err := auth.IssueTicket(id.cfg.Secret, u.ID, id.cfg.Now())
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, loginResponse{MfaRequired: true, Ticket: ticket})
	}
	if _, err := id.issueSession(w, u); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, loginResponse{User: u})
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	id, err := s.identity()
	if err != nil {
		return err
	}
	id.clearSession(w, r)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	out := sessionResponse{}
	if s.Identity != nil && folio.ActorFrom(r.Context()).Session {
		if u, claims, ok := s.Identity.sessionUser(r); ok {
			exp := time.Unix(claims.Exp, 0).UTC()
			out = sessionResponse{User: &sessionUser{ID: u.ID, Name: u.Name, Email: u.Email, Role: string(u.Role)}, Expires: &exp}
		}
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) getProfile(w http.ResponseWriter, r *http.Request) error {
	u, err := s.DB.Identity.User(r.Context(), folio.ActorFrom(r.Context()).UserID)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, u)
}

func (s *Server) updateProfile(w http.ResponseWriter, r *http.Request) error {
	var in folio.ProfileUpdate
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	userID := folio.ActorFrom(r.Context()).UserID
	u, err := s.DB.Identity.UpdateProfile(r.Context(), userID, &in)
	if err != nil {
		return err
	}
	if s.Identity != nil {
		s.Identity.ForgetUser(userID)
	}
	return writeJSON(w, http.StatusOK, u)
}

func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.DB.Identity.APIKeys(r.Context(), false)
	if err != nil {
		return err
	}
	out := apiKeyList{Keys: make([]apiKeyView, 0, len(keys))}
	for _, k := range keys {
		if s.Identity != nil {
			s.Identity.LastUsed(k)
		}
		out.Keys = append(out.Keys, viewAPIKey(k))
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var in folio.APIKeyInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(s.now()); err != nil {
		return err
	}
	actor := folio.ActorFrom(r.Context())
	level, _ := folio.ParseLevel(in.Level)
	secret, prefix, hash := auth.MintAPIKey()
	k := &folio.APIKey{UserID: actor.UserID, Name: in.Name, Level: level, Prefix: prefix, ExpiresAt: in.Expiry()}
	if err := s.DB.Identity.CreateAPIKey(r.Context(), k, hash); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", "/api/keys/"+k.ID)
	return writeJSON(w, http.StatusCreated, createdAPIKey{Key: secret, APIKey: viewAPIKey(k)})
}

func (s *Server) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	if err := s.DB.Identity.RevokeAPIKey(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	if s.Identity != nil { // at once here, whether or not the change hook is wired
		s.Identity.ForgetKey(r.PathValue("id"))
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// loginLimitKey is the identifier of the login helper limit: the client IP plus the email being
// tried (contract §2, "per IP+email"). It reads the email from the body and puts the bytes back
// for the handler; a body it cannot read as JSON counts under the IP with an empty email.
func (s *Server) loginLimitKey(r *http.Request) string {
	var email string
	if r.Body != nil {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxJSONBody+1))
		rest := r.Body
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), rest), rest}
		if err == nil {
			var in struct {
				Email string `json:"email"`
			}
			if json.Unmarshal(b, &in) == nil {
				email = folio.EmailKey(in.Email)
			}
		}
	}
	return s.limitIP(r) + "|" + email
}
