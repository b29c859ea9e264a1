package httpapi

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

// signInRoutes are the hardened sign-in of contract §6: revocation, password change, TOTP
// two-factor sign-in.
func (s *Server) signInRoutes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/auth/login/totp", Handle: s.loginTOTP, Limit: limitHelperLogin, AuditAlways: true, Audit: "auth.login.totp",
			Tag: "Auth", Summary: "Second sign-in step when TOTP is on: the ticket from /api/auth/login plus a current code or an unused recovery code; sets the session cookie",
			Body: folio.TOTPLoginInput{}, Status: http.StatusOK, Resp: loginResponse{}, Errors: []int{401, 403, 503}},
		{Method: "POST", Pattern: "/api/auth/sessions/revoke", Handle: s.revokeSessions, Level: folio.LevelRead, Audit: "auth.sessions.revoke",
			Tag: "Auth", Summary: "Sign out everywhere: ends every session of the caller's user on every instance (front-end tokens included); API keys stay valid",
			Status: http.StatusNoContent, Errors: []int{404, 503}},
		{Method: "POST", Pattern: "/api/auth/password", Handle: s.changePassword, Level: folio.LevelRead, Limit: limitHelperLogin, Audit: "auth.password.change",
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
		{Method: "POST", Pattern: "/api/auth/totp/disable", Handle: s.totpDisable, Level: folio.LevelRead, Audit: "auth.totp.disable",
			Tag: "Auth", Summary: "Turn TOTP off (session only), proven by a current code or the password",
			Body: folio.TOTPDisableInput{}, Status: http.StatusNoContent, Errors: []int{413, 422, 503}},
	}
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

// sessionUserOf reads the caller's user fresh from the database.
func (s *Server) sessionUserOf(r *http.Request) (*folio.User, error) {
	if err := sessionOnly(r); err != nil {
		return nil, err
	}
	return s.DB.Identity.User(r.Context(), folio.ActorFrom(r.Context()).UserID)
}

func (s *Server) revokeSessions(w http.ResponseWriter, r *http.Request) error {
	id, err := s.identity()
	if err != nil {
		return err
	}
	actor := folio.ActorFrom(r.Context())
	if _, err := s.DB.Identity.RevokeSessions(r.Context(), actor.UserID); err != nil {
		return err
	}
	id.ForgetUser(actor.UserID)
	if actor.Session {
		id.clearSession(w, r)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

var errWrongPassword = folio.Errorf(folio.EFORBIDDEN, "The current password is incorrect.")

func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	id, err := s.identity()
	if err != nil {
		return err
	}
	var in folio.PasswordChange
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	u, err := s.sessionUserOf(r)
	if err != nil {
		return err
	}
	if !auth.CheckPassword(u.PasswordHash, in.CurrentPassword) {
		s.countFailedSignIn(r)
		return errWrongPassword
	}
	hash, err := auth.HashPassword(in.NewPassword)
	if err != nil {
		return err
	}
	// Every other session ends with the revocation; the caller's own token is spared by its jti,
	// so it keeps working as it is (a token without a jti gets a fresh cookie instead).
	_, claims, _ := id.sessionUser(r)
	if u.SessionsRevokedAt, err = s.DB.Identity.ChangePassword(r.Context(), u.ID, hash, claims.Jti); err != nil {
		return err
	}
	id.ForgetUser(u.ID)
	if claims.Jti == "" {
		if _, err := id.issueSession(w, u); err != nil {
			return err
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) totpStatus(w http.ResponseWriter, r *http.Request) error {
	u, err := s.DB.Identity.User(r.Context(), folio.ActorFrom(r.Context()).UserID)
	if err != nil {
		return err
	}
	out := totpStatus{Enabled: u.TOTPEnabled}
	if u.TOTPEnabled {
		if out.RecoveryCodesLeft, err = s.DB.Identity.RecoveryCodesLeft(r.Context(), u.ID); err != nil {
			return err
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) totpSetup(w http.ResponseWriter, r *http.Request) error {
	u, err := s.sessionUserOf(r)
	if err != nil {
		return err
	}
	if u.TOTPEnabled {
		return folio.Errorf(folio.ECONFLICT, "Two-factor sign-in is already on; turn it off before setting it up again.")
	}
	secret, url, png, err := auth.NewTOTPKey(u.Email)
	if err != nil {
		return err
	}
	if err := s.DB.Identity.SetTOTPSecret(r.Context(), u.ID, secret); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, totpSetupResponse{Secret: secret, OtpauthURL: url,
		QRCode: "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)})
}

func (s *Server) totpEnable(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	var in folio.TOTPCodeInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Code) == "" {
		return folio.BadRequest("code", "is required")
	}
	u, err := s.sessionUserOf(r)
	if err != nil {
		return err
	}
	if u.TOTPEnabled {
		return folio.Errorf(folio.ECONFLICT, "Two-factor sign-in is already on.")
	}
	if u.TOTPSecret == "" {
		return folio.Errorf(folio.ECONFLICT, "Set up two-factor sign-in first (POST /api/auth/totp/setup).")
	}
	step, ok := auth.MatchTOTP(u.TOTPSecret, in.Code, s.now())
	if !ok {
		return wrongCode("code")
	}
	codes, hashes := auth.NewRecoveryCodes()
	if err := s.DB.Identity.EnableTOTP(r.Context(), u.ID, step, hashes); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, totpEnableResponse{RecoveryCodes: codes})
}

func wrongCode(field string) error {
	var v folio.Validation
	if field == "password" {
		v.Invalid(field, "is incorrect")
	} else {
		v.Invalid(field, "is not the current code of your authenticator app (or was already used)")
	}
	return v.Err()
}

func (s *Server) totpDisable(w http.ResponseWriter, r *http.Request) error {
	if err := sessionOnly(r); err != nil {
		return err
	}
	var in folio.TOTPDisableInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Code) == "" && in.Password == "" {
		return folio.BadRequest("code", "a current code or the password is required")
	}
	u, err := s.sessionUserOf(r)
	if err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(in.Code) != "":
		if !u.TOTPEnabled {
			break
		}
		step, ok := auth.MatchTOTP(u.TOTPSecret, in.Code, s.now())
		if ok {
			ok, err = s.DB.Identity.UseTOTPStep(r.Context(), u.ID, step)
			if err != nil {
				return err
			}
		}
		if !ok {
			return wrongCode("code")
		}
	default:
		if !auth.CheckPassword(u.PasswordHash, in.Password) {
			return wrongCode("password")
		}
	}
	if err := s.DB.Identity.DisableTOTP(r.Context(), u.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

var errBadSecondFactor = folio.Errorf(folio.EUNAUTHORIZED, "The code is incorrect or was already used, or the sign-in ticket has expired; sign in again.")

func (s *Server) loginTOTP(w http.ResponseWriter, r *http.Request) error {
	id, err := s.identity()
	if err != nil {
		return err
	}
	if err := id.checkOrigin(r); err != nil {
		return err
	}
	var in folio.TOTPLoginInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	fail := func() error {
		s.countFailedSignIn(r)
		return errBadSecondFactor
	}
	t, err := auth.ParseTicket(id.cfg.Secret, strings.TrimSpace(in.Ticket), s.now())
	if err != nil {
		return fail()
	}
	auditSubject(r, t.UserID, "")
	u, err := s.DB.Identity.User(r.Context(), t.UserID)
	if folio.IsNotFound(err) {
		return fail()
	}
	if err != nil {
		return err
	}
	// A ticket from before a revocation (a password change, say) is as dead as a session.
	if !u.TOTPEnabled || !u.Role.Valid() || !u.SessionValid(t.IssuedAt.Unix(), "") {
		return fail()
	}
	var ok bool
	if strings.TrimSpace(in.Code) != "" {
		var step int64
		if step, ok = auth.MatchTOTP(u.TOTPSecret, in.Code, s.now()); ok {
			if ok, err = s.DB.Identity.UseTOTPStep(r.Context(), u.ID, step); err != nil {
				return err
			}
		}
	} else if _, valid := auth.NormalizeRecoveryCode(in.RecoveryCode); valid {
		if ok, err = s.DB.Identity.UseRecoveryCode(r.Context(), u.ID, auth.HashRecoveryCode(in.RecoveryCode)); err != nil {
			return err
		}
	}
	if !ok {
		return fail()
	}
	if _, err := id.issueSession(w, u); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, loginResponse{User: u})
}
