package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/identity"
)

// passkeyAPI serves the passkey routes under /api/auth (docs/api.md, "Passkeys"): registering,
// listing, renaming and removing a user's passkeys, and signing in with one, alone (a
// discoverable credential, no email typed) or as the second step instead of a TOTP code. The
// WebAuthn ceremonies are identity's; this side picks the relying party and sets the cookie.
type passkeyAPI struct{ *Server }

func (s passkeyAPI) routes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/auth/passkeys/register/begin", Handle: s.registerBegin, Needs: needSessions, Level: folio.LevelRead, Audit: "-",
			Tag: "Auth", Summary: "Begin registering a passkey (session only): the WebAuthn creation options {publicKey: {...}} for navigator.credentials.create; valid 5 minutes",
			Status: http.StatusOK, Resp: map[string]any{}, Errors: []int{503}},
		{Method: "POST", Pattern: "/api/auth/passkeys/register/finish", Handle: s.registerFinish, Needs: needSessions, Level: folio.LevelRead, Audit: "auth.passkey.register",
			Tag: "Auth", Summary: "Finish registering a passkey (session only): {name, credential} where credential is the PublicKeyCredential as JSON; answers 201 {passkey}. Every other session of the user ends, as after a password change",
			Body: passkeyRegistration{}, Status: http.StatusCreated, Resp: passkeyResponse{}, Errors: []int{409, 413, 422, 503}},
		{Method: "GET", Pattern: "/api/auth/passkeys", Handle: s.list, Level: folio.LevelRead,
			Tag: "Auth", Summary: "The caller's passkeys, oldest first, with their sign counters and backup flags",
			Status: http.StatusOK, Resp: passkeyList{}},
		{Method: "PATCH", Pattern: "/api/auth/passkeys/{id}", Handle: s.rename, Needs: needSessions, Level: folio.LevelRead, Audit: "auth.passkey.rename",
			Tag: "Auth", Summary: "Rename a passkey (session only); every other session of the user ends",
			Body: folio.PasskeyRename{}, Status: http.StatusOK, Resp: passkeyResponse{}, Errors: []int{404, 413, 422, 503}},
		{Method: "DELETE", Pattern: "/api/auth/passkeys/{id}", Handle: s.remove, Needs: needSessions, Level: folio.LevelRead, Audit: "auth.passkey.delete",
			Tag: "Auth", Summary: "Remove a passkey (session only); every other session of the user ends",
			Status: http.StatusNoContent, Errors: []int{404, 503}},
		{Method: "POST", Pattern: "/api/auth/passkeys/login/begin", Handle: s.loginBegin, Needs: needSessions, Audit: "-",
			Tag: "Auth", Summary: "Begin signing in with a passkey (no email: a discoverable credential, user verification required): the WebAuthn request options {publicKey: {...}} for navigator.credentials.get; valid 5 minutes. Also begins the passkey second step of /api/auth/login/passkey",
			Status: http.StatusOK, Resp: map[string]any{}, Errors: []int{503}},
		{Method: "POST", Pattern: "/api/auth/passkeys/login/finish", Handle: s.loginFinish, Needs: needSessions, Limit: limitSignIn, AuditAlways: true, Audit: "auth.login.passkey",
			Tag: "Auth", Summary: "Finish signing in with a passkey: {credential} (or the PublicKeyCredential itself); sets the session cookie as password sign-in does and returns {user}. A failure counts toward the sign-in failure limit",
			Body: passkeyAssertion{}, Status: http.StatusOK, Resp: loginResponse{}, Errors: []int{401, 403, 413, 422, 503}},
		{Method: "POST", Pattern: "/api/auth/login/passkey", Handle: s.loginSecondFactor, Needs: needSessions, Limit: limitSignIn, AuditAlways: true, Audit: "auth.login.passkey2fa",
			Tag: "Auth", Summary: "Second sign-in step with a passkey instead of a TOTP code: {ticket, credential}, the ticket of /api/auth/login and an assertion of a ceremony begun at /api/auth/passkeys/login/begin; sets the session cookie",
			Body: passkeyAssertion{}, Status: http.StatusOK, Resp: loginResponse{}, Errors: []int{401, 403, 413, 422, 503}},
	}
}

type passkeyRegistration struct {
	Name       string          `json:"name" doc:"what the user calls the passkey, 1–64 characters (default \"Passkey\")"`
	Credential json.RawMessage `json:"credential" doc:"the PublicKeyCredential navigator.credentials.create returned, as JSON (toJSON())"`
}

type passkeyAssertion struct {
	Ticket     string          `json:"ticket,omitempty" doc:"/api/auth/login/passkey only: the ticket of the password step"`
	Credential json.RawMessage `json:"credential" doc:"the PublicKeyCredential navigator.credentials.get returned, as JSON (toJSON())"`
}

type passkeyResponse struct {
	Passkey *folio.Passkey `json:"passkey"`
}

type passkeyList struct {
	Passkeys []*folio.Passkey `json:"passkeys"`
}

// relyingParty is the WebAuthn relying party of r: NEXTAUTH_URL's host and origin (with
// CORS_ALLOWED_ORIGINS' origins on the same host), or, without NEXTAUTH_URL (development), the
// host the request came to.
func (s passkeyAPI) relyingParty(r *http.Request) identity.Party {
	name := ""
	if s.Settings != nil {
		name = s.Settings.Current().Site.Name
	}
	if base := s.Identity.cfg.BaseURL; base != "" {
		u, err := url.Parse(base)
		if err == nil {
			rp := identity.Party{ID: u.Hostname(), Name: name, Origins: []string{u.Scheme + "://" + u.Host}}
			for _, o := range s.Identity.cfg.AllowedOrigins {
				rp.Origins = append(rp.Origins, strings.TrimRight(o, "/"))
			}
			return rp
		}
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	hostname := host
	if h, _, ok := strings.Cut(host, ":"); ok && !strings.HasPrefix(host, "[") {
		hostname = h
	}
	return identity.Party{ID: hostname, Name: name, Origins: []string{scheme + "://" + host}}
}

// credentialBody reads a body that is {credential, …} or the PublicKeyCredential itself.
func credentialBody(w http.ResponseWriter, r *http.Request, into any) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := decodeJSON(w, r, &raw); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return nil, jsonError(err)
	}
	var probe struct {
		Credential json.RawMessage `json:"credential"`
		RawID      string          `json:"rawId"`
	}
	_ = json.Unmarshal(raw, &probe)
	switch {
	case len(probe.Credential) > 0 && string(probe.Credential) != "null":
		return probe.Credential, nil
	case probe.RawID != "":
		return raw, nil
	}
	return nil, folio.BadRequest("credential", "credential is required: the PublicKeyCredential as JSON.")
}

// keepSession is the caller's token id, which a change to its sign-in methods spares; a token
// without one gets a fresh cookie after the change instead.
func (s passkeyAPI) keepSession(r *http.Request) string {
	_, claims, _ := s.Identity.sessionUser(r)
	return claims.Jti
}

func (s passkeyAPI) refreshSession(w http.ResponseWriter, r *http.Request, keep string) error {
	if keep != "" {
		return nil
	}
	u, err := s.accounts().Profile(r.Context(), folio.ActorFrom(r.Context()).UserID)
	if err != nil {
		return err
	}
	_, err = s.Identity.issueSession(w, u)
	return err
}

func (s passkeyAPI) registerBegin(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	opts, err := s.Identity.BeginPasskeyRegistration(r.Context(), s.relyingParty(r), folio.ActorFrom(r.Context()).UserID)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, opts)
}

func (s passkeyAPI) registerFinish(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	var in passkeyRegistration
	cred, err := credentialBody(w, r, &in)
	if err != nil {
		return err
	}
	if strings.TrimSpace(in.Name) == "" {
		in.Name = "Passkey"
	}
	keep := s.keepSession(r)
	p, err := s.Identity.FinishPasskeyRegistration(r.Context(), s.relyingParty(r), folio.ActorFrom(r.Context()).UserID, cred, in.Name, keep)
	if err != nil {
		return err
	}
	auditSubject(r, "", p.ID)
	if err := s.refreshSession(w, r, keep); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusCreated, passkeyResponse{Passkey: p})
}

func (s passkeyAPI) list(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.accounts().Passkeys(r.Context(), folio.ActorFrom(r.Context()).UserID)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, passkeyList{Passkeys: keys})
}

func (s passkeyAPI) rename(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	var in folio.PasskeyRename
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	keep := s.keepSession(r)
	p, err := s.Identity.RenamePasskey(r.Context(), folio.ActorFrom(r.Context()).UserID, r.PathValue("id"), &in, keep)
	if err != nil {
		return err
	}
	if err := s.refreshSession(w, r, keep); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, passkeyResponse{Passkey: p})
}

func (s passkeyAPI) remove(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	keep := s.keepSession(r)
	if err := s.Identity.DeletePasskey(r.Context(), folio.ActorFrom(r.Context()).UserID, r.PathValue("id"), keep); err != nil {
		return err
	}
	if err := s.refreshSession(w, r, keep); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s passkeyAPI) loginBegin(w http.ResponseWriter, r *http.Request) error {
	opts, err := s.Identity.BeginPasskeyLogin(r.Context(), s.relyingParty(r))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, opts)
}

func (s passkeyAPI) loginFinish(w http.ResponseWriter, r *http.Request) error {
	id := s.Identity
	if err := id.checkOrigin(r); err != nil {
		return err
	}
	var in passkeyAssertion
	cred, err := credentialBody(w, r, &in)
	if err != nil {
		return err
	}
	u, err := id.FinishPasskeyLogin(r.Context(), s.relyingParty(r), cred, s.signInAttempts(w, r))
	if u != nil {
		auditSubject(r, u.ID, "")
	}
	if err != nil {
		return err
	}
	if _, err := id.issueSession(w, u); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, loginResponse{User: u})
}

func (s passkeyAPI) loginSecondFactor(w http.ResponseWriter, r *http.Request) error {
	id := s.Identity
	if err := id.checkOrigin(r); err != nil {
		return err
	}
	var in passkeyAssertion
	cred, err := credentialBody(w, r, &in)
	if err != nil {
		return err
	}
	userID, u, err := id.SignInSecondFactorPasskey(r.Context(), s.relyingParty(r), in.Ticket, cred, s.signInAttempts(w, r))
	if userID != "" {
		auditSubject(r, userID, "")
	}
	if err != nil {
		return err
	}
	if _, err := id.issueSession(w, u); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, loginResponse{User: u})
}
