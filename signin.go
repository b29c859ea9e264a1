package folio

import (
	"strconv"
	"strings"
	"time"
)

// AuditActor names who did something: the user, and the API key when a key was used.
type AuditActor struct {
	UserID string `json:"userId"`
	KeyID  string `json:"keyId"`
	// Name and Email name the user when the log is read (GET /api/audit); they are not stored,
	// so an entry shows the user's current name, and nothing once the user is removed.
	Name  string `json:"name,omitempty" doc:"the user's current name (when listed; empty once the user is removed)"`
	Email string `json:"email,omitempty" doc:"the user's current email (when listed)"`
}

// AuditEntry is one record of the audit log (docs/api.md, "Authentication and permissions"). IP
// is truncated to its /24 (IPv4) or /48 (IPv6) network, never the full address; no entry ever
// holds a secret.
type AuditEntry struct {
	ID         string     `json:"id"`
	At         time.Time  `json:"at"`
	Actor      AuditActor `json:"actor"`
	Action     string     `json:"action" doc:"what happened, e.g. auth.login, auth.login.totp, project.create, apikey.revoke"`
	Resource   string     `json:"resource" doc:"the kind of thing acted on, e.g. projects, posts, keys, session"`
	ResourceID string     `json:"resourceId" doc:"the id or slug acted on, when there is one"`
	IP         string     `json:"ip" doc:"the client's network: IPv4 /24 or IPv6 /48"`
	Status     int        `json:"status" doc:"the HTTP status the request was answered with"`
	// Refused, when above 0, makes the entry stand for that many requests a rate limit refused
	// (429) from one client on one route in one rate-limit window: refusals are counted, not
	// recorded one by one, so a flood cannot grow the log (docs/api.md, "Audit log").
	Refused int `json:"refused,omitempty" doc:"for a 429: how many requests of this client and action the rate limit refused in this window"`
	// Detail says what Refused counts, in words ("170 attempts refused"); it is not stored.
	Detail string `json:"detail,omitempty" doc:"for a 429: the count in words, e.g. 170 attempts refused"`
}

// RefusedDetail is the Detail of an entry that stands for n refused requests.
func RefusedDetail(n int) string {
	if n == 1 {
		return "1 attempt refused"
	}
	return strconv.Itoa(n) + " attempts refused"
}

// PasswordChange is the body of POST /api/auth/password.
type PasswordChange struct {
	CurrentPassword string `json:"currentPassword"`
	NewPassword     string `json:"newPassword" doc:"at least 12 characters"`
}

// Validate reports missing fields (400) and a new password that is too short or too long (422).
func (in *PasswordChange) Validate() error {
	var v Validation
	if in.CurrentPassword == "" {
		v.Missing("currentPassword")
	}
	checkPassword(&v, "newPassword", in.NewPassword)
	return v.Err()
}

// TOTPCodeInput is the body of POST /api/auth/totp/enable.
type TOTPCodeInput struct {
	Code string `json:"code" doc:"the 6-digit code the authenticator app shows now"`
}

// TOTPDisableInput is the body of POST /api/auth/totp/disable: a current code or the password.
type TOTPDisableInput struct {
	Code     string `json:"code,omitempty" doc:"a current 6-digit code"`
	Password string `json:"password,omitempty" doc:"the account's password, instead of a code"`
}

// SignInTicket is the proof of a passed password step that the second step of a two-factor
// sign-in presents (docs/api.md, "Two-factor sign-in"). The store keeps it, so any instance takes
// it, once, and counts the codes tried with it.
type SignInTicket struct {
	UserID string
	// IssuedAt is the password step's time as a session's iat (User.IssuedAt): a ticket issued
	// before the user's sessions were revoked is refused like such a session.
	IssuedAt int64
	// ExpiresAt (Unix seconds): the ticket is refused from then on.
	ExpiresAt int64
	// Attempts is how many codes were tried with it.
	Attempts int
}

// TOTPLoginInput is the body of POST /api/auth/login/totp: the ticket from the login answer and
// either a current code or one of the recovery codes.
type TOTPLoginInput struct {
	Ticket       string `json:"ticket"`
	Code         string `json:"code,omitempty" doc:"a current 6-digit code"`
	RecoveryCode string `json:"recoveryCode,omitempty" doc:"one unused recovery code, instead of a code"`
}

// Validate reports a missing ticket or a missing code (400); a code or recovery code present
// but malformed is also 400, as the caller cannot fix it by retrying the same value.
func (in *TOTPLoginInput) Validate() error {
	var v Validation
	if strings.TrimSpace(in.Ticket) == "" {
		v.Missing("ticket")
	}
	if strings.TrimSpace(in.Code) == "" && strings.TrimSpace(in.RecoveryCode) == "" {
		v.Missing("code")
	}
	return v.Err()
}
