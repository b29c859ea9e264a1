package httpapi

import (
	"encoding/base64"
	"errors"
	"net/http"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/identity"
)

// authAPI serves every /api/auth route: sign-in with a password and a second factor, sessions,
// their revocation, the password and TOTP (docs/api.md, "Authentication and permissions"). The
// session routes need Identity (needSessions); the TOTP routes use accounts().
type authAPI struct{ *Server }

func (s authAPI) routes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/auth/login", Handle: s.login, Needs: needSessions, Limit: limitSignIn, AuditAlways: true, Audit: "auth.login",
			Tag: "Auth", Summary: "Sign in with email and password: sets the session cookie (HttpOnly, SameSite=Lax, 30 days) and returns the user; with TOTP on, answers {mfaRequired: true, ticket} and no cookie (continue at /api/auth/login/totp). Only failed attempts count toward the sign-in limit",
			Body: folio.LoginInput{}, Status: http.StatusOK, Resp: loginResponse{}, Errors: []int{401, 403, 503}},
		{Method: "POST", Pattern: "/api/auth/logout", Handle: s.logout, Needs: needSessions, Audit: "auth.logout",
			Tag: "Auth", Summary: "Sign out: expires this browser's session cookie (POST /api/auth/sessions/revoke ends every session)",
			Status: http.StatusNoContent, Errors: []int{403}},
		{Method: "GET", Pattern: "/api/auth/session", Handle: s.session,
			Tag: "Auth", Summary: "The current cookie session, as NextAuth's /api/auth/session: {user, expires}, or {} when there is none",
			Status: http.StatusOK, Resp: sessionResponse{}},
		{Method: "POST", Pattern: "/api/auth/login/totp", Handle: s.loginTOTP, Needs: needSessions, Limit: limitSignIn, AuditAlways: true, Audit: "auth.login.totp",
			Tag: "Auth", Summary: "Second sign-in step when TOTP is on: the ticket from /api/auth/login plus a current code or an unused recovery code; sets the session cookie",
			Body: folio.TOTPLoginInput{}, Status: http.StatusOK, Resp: loginResponse{}, Errors: []int{401, 403, 503}},
		{Method: "POST", Pattern: "/api/auth/sessions/revoke", Handle: s.revokeSessions, Needs: needSessions, Level: folio.LevelRead, Audit: "auth.sessions.revoke",
			Tag: "Auth", Summary: "Sign out everywhere (session only; API keys get 403): ends every session of the caller's user on every instance (front-end tokens included); API keys stay valid",
			Status: http.StatusNoContent, Errors: []int{404, 503}},
		{Method: "POST", Pattern: "/api/auth/password", Handle: s.changePassword, Needs: needSessions, Level: folio.LevelRead, Limit: limitSignIn, Audit: "auth.password.change",
			Tag: "Auth", Summary: "Change the password (session only): ends every other session of the user; the caller gets a fresh cookie",
			Body: folio.PasswordChange{}, Status: http.StatusNoContent, Errors: []int{413, 422, 503}},
		{Method: "GET", Pattern: "/api/auth/totp", Handle: s.totpStatus, Level: folio.LevelRead,
			Tag: "Auth", Summary: "Whether two-factor sign-in is on for the caller's user, and how many recovery codes are left",
			Status: http.StatusOK, Resp: totpStatus{}, Errors: []int{404}},
		{Method: "POST", Pattern: "/api/auth/totp/setup", Handle: s.totpSetup, Level: folio.LevelRead, Audit: "auth.totp.setup",
			Tag: "Auth", Summary: "Start TOTP enrolment (session only): a new secret, its otpauth:// URL and a QR code (PNG data URL); not in force until enabled",
			Status: http.StatusOK, Resp: totpSetupResponse{}, Errors: []int{409, 503}},
		{Method: "POST", Pattern: "/api/auth/totp/enable", Handle: s.totpEnable, Level: folio.LevelRead, Audit: "auth.totp.enable",
			Tag: "Auth", Summary: "Turn TOTP on with a current code (session only); answers the 10 recovery codes, shown this once",
			Body: folio.TOTPCodeInput{}, Status: http.StatusOK, Resp: totpEnableResponse{}, Errors: []int{409, 413, 422, 503}},
		{Method: "POST", Pattern: "/api/auth/totp/disable", Handle: s.totpDisable, Level: folio.LevelRead, Limit: limitSignIn, Audit: "auth.totp.disable",
			Tag: "Auth", Summary: "Turn TOTP off (session only), proven by a current code or the password; a wrong one counts toward the sign-in failure limit",
			Body: folio.TOTPDisableInput{}, Status: http.StatusNoContent, Errors: []int{413, 422, 503}},
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

func (s authAPI) login(w http.ResponseWriter, r *http.Request) error {
	id := s.Identity
	if err := id.checkOrigin(r); err != nil {
		return err
	}
	var in folio.LoginInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	u, ticket, err := id.SignIn(r.Context(), &in, s.signInAttempts(w, r))
	if u != nil {
		auditSubject(r, u.ID, "")
	}
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	if ticket != "" {
		return writeJSON(w, http.StatusOK, loginResponse{MfaRequired: true, Ticket: ticket})
	}
	if _, err := id.issueSession(w, u); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, loginResponse{User: u})
}

func (s authAPI) logout(w http.ResponseWriter, r *http.Request) error {
	id := s.Identity
	id.clearSession(w, r)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s authAPI) session(w http.ResponseWriter, r *http.Request) error {
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

type totpStatus struct {
	Enabled           bool `json:"enabled"`
	RecoveryCodesLeft int  `json:"recoveryCodesLeft"`
}

type totpSetupResponse struct {
	Secret     string `json:"secret" doc:"base32 secret, for typing into an authenticator app"`
	OtpauthURL string `json:"otpauthUrl" doc:"otpauth://totp/… URL, what the QR code holds"`
	QRCode     string `json:"qrCode" doc:"the otpauth URL as a QR code: a data:image/png;base64 URL"`
}

type totpEnableResponse struct {
	RecoveryCodes []string `json:"recoveryCodes" doc:"10 single-use codes for when the phone is lost; shown this once"`
}

// sessionOnly refuses callers that are not a session: TOTP and the password belong to a person
// at the dashboard, not to an API key.
func sessionOnly(r *http.Request) error {
	if !folio.ActorFrom(r.Context()).Session {
		return folio.Errorf(folio.EFORBIDDEN, "This route needs a signed-in session; API keys cannot use it.")
	}
	return nil
}

// revokeSessions needs a session of the user (docs/api.md, "Revocation"): ending a person's
// sessions is theirs to do, and a key — a read key in a script, say — must not sign them out.
func (s authAPI) revokeSessions(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	id := s.Identity
	if err := id.RevokeSessions(r.Context(), folio.ActorFrom(r.Context()).UserID); err != nil {
		return err
	}
	id.clearSession(w, r)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s authAPI) changePassword(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	id := s.Identity
	var in folio.PasswordChange
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	// Every other session ends with the revocation; the caller's own token is spared by its jti,
	// so it keeps working as it is (a token without a jti gets a fresh cookie instead).
	_, claims, _ := id.sessionUser(r)
	u, err := id.ChangePassword(r.Context(), folio.ActorFrom(r.Context()).UserID, &in, claims.Jti, s.signInAttempts(w, r))
	if err != nil {
		return err
	}
	if claims.Jti == "" {
		if _, err := id.issueSession(w, u); err != nil {
			return err
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s authAPI) totpStatus(w http.ResponseWriter, r *http.Request) error {
	var out totpStatus
	var err error
	out.Enabled, out.RecoveryCodesLeft, err = s.accounts().TOTPStatus(r.Context(), folio.ActorFrom(r.Context()).UserID)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, out)
}

func (s authAPI) totpSetup(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	secret, url, png, err := s.accounts().SetupTOTP(r.Context(), folio.ActorFrom(r.Context()).UserID)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, totpSetupResponse{Secret: secret, OtpauthURL: url,
		QRCode: "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)})
}

func (s authAPI) totpEnable(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	var in folio.TOTPCodeInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	codes, err := s.accounts().EnableTOTP(r.Context(), folio.ActorFrom(r.Context()).UserID, in.Code)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, totpEnableResponse{RecoveryCodes: codes})
}

func (s authAPI) totpDisable(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	var in folio.TOTPDisableInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := s.accounts().DisableTOTP(r.Context(), folio.ActorFrom(r.Context()).UserID, &in, s.signInAttempts(w, r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s authAPI) loginTOTP(w http.ResponseWriter, r *http.Request) error {
	id := s.Identity
	if err := id.checkOrigin(r); err != nil {
		return err
	}
	var in folio.TOTPLoginInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	userID, u, err := id.SignInSecondFactor(r.Context(), &in, s.signInAttempts(w, r))
	if userID != "" {
		auditSubject(r, userID, "")
	}
	if errors.Is(err, identity.ErrTicketLocked) {
		// The ticket's last try failed: its owner learns of it in the audit log.
		s.recordEvent(r, "auth.login.totp.locked", userID, http.StatusUnauthorized)
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
