package folio

import (
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

// Role is a user's role (docs/api.md, "Authentication and permissions"): an owner holds every
// permission and acts at level admin; an editor holds manage:articles and manage:projects and
// acts at level write.
type Role string

// ScopeUserPrefix starts the change scope of one user ("user:<id>"): a store announces it after a
// revocation, a password, role or TOTP change, or a removal, and every instance drops its cached
// copy of the user when it hears it, so a revocation is in force everywhere as soon as the
// notification arrives.
const ScopeUserPrefix = "user:"

// Roles.
const (
	RoleOwner  Role = "owner"
	RoleEditor Role = "editor"
)

// Valid reports whether r is owner or editor.
func (r Role) Valid() bool { return r == RoleOwner || r == RoleEditor }

// Level is the permission level a session of r acts at; an unknown role gets no access.
func (r Role) Level() Level {
	switch r {
	case RoleOwner:
		return LevelAdmin
	case RoleEditor:
		return LevelWrite
	}
	return LevelPublic
}

// User is a person who signs in to the dashboard. Its JSON form is the API's profile: id, email,
// name, bio, location, website, role, createdAt, updatedAt.
type User struct {
	ID       string `json:"id"`
	Email    string `json:"email"`
	Name     string `json:"name"`
	Bio      string `json:"bio"`
	Location string `json:"location"`
	Website  string `json:"website"`
	Role     Role   `json:"role" doc:"owner or editor"`
	// PasswordHash is the argon2id PHC string; never serialised.
	PasswordHash string    `json:"-"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`

	// SessionsRevokedAt (Unix seconds) ends every session issued before it: a session token whose
	// iat is earlier is refused (docs/api.md, "Authentication and permissions"). 0: never revoked.
	SessionsRevokedAt int64 `json:"-"`
	// SessionsKeptJTI is the jti of the one session the last revocation spared: the caller's
	// own, when they changed their password ("ends every other session").
	SessionsKeptJTI string `json:"-"`
	// TOTPSecret is the base32 TOTP secret, set by setup; it protects sign-in only once
	// TOTPEnabled. Never serialised.
	TOTPSecret  string `json:"-"`
	TOTPEnabled bool   `json:"-"`
	// SignInUnlocks counts the unlocks of the account's sign-in failure limit (`folio user
	// unlock`). It is part of the limit's key (identity.Attempts), so an unlock starts every
	// client of the account afresh, on every instance and whatever holds the counts.
	SignInUnlocks int64 `json:"-"`
}

// IssuedAt is the iat (Unix seconds) of a session or sign-in ticket issued for u at now: now, or
// u's revocation time when that is later. A revocation ends what was issued up to the next whole
// second (tokens carry whole seconds), so what is issued within that second takes the revocation
// time and survives the revocation that preceded it (SessionValid).
func (u *User) IssuedAt(now time.Time) int64 { return max(now.Unix(), u.SessionsRevokedAt) }

// SessionValid reports whether a session token issued at iat (Unix seconds) with the given jti is
// still valid for u: issued no earlier than u's sessions were revoked, or the one session the
// revocation spared.
func (u *User) SessionValid(iat int64, jti string) bool {
	return iat >= u.SessionsRevokedAt || (jti != "" && jti == u.SessionsKeptJTI)
}

// SessionActor is the actor of a request carrying a session of u.
func (u *User) SessionActor() Actor {
	return Actor{UserID: u.ID, Email: u.Email, Name: u.Name, Role: string(u.Role), Level: u.Role.Level(), Session: true}
}

// Limits of user fields.
const (
	MaxUserNameLen = 100
	MaxBioLen      = 2000
	MaxLocationLen = 100
	// MinPasswordLen is folio's one password rule, for every password set anywhere: `folio user
	// create` and `passwd`, POST /api/auth/password, FOLIO_ADMIN_PASSWORD (see checkPassword).
	MinPasswordLen   = 12   // characters
	MaxPasswordLen   = 1024 // bytes; hashing cost does not depend on it, but bodies should stay small
	MaxAPIKeyNameLen = 100
)

// EmailKey is the form an email address is compared and kept unique in: trimmed and lower-cased,
// so one address cannot hold two accounts by changing case.
func EmailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// UserInput creates a user (CLI `folio user create`, first-start bootstrap).
type UserInput struct {
	Email    string
	Name     string
	Role     Role
	Password string
}

// Validate checks every field: all are required; the email must be a plain address, the role
// owner or editor, the password as ValidatePassword says.
func (in *UserInput) Validate() error {
	var v Validation
	in.Email, in.Name = strings.TrimSpace(in.Email), strings.TrimSpace(in.Name)
	switch {
	case in.Email == "":
		v.Missing("email")
	case !ValidEmail(in.Email):
		v.Invalid("email", "must be a plain email address such as ada@example.com")
	}
	switch {
	case in.Name == "":
		v.Missing("name")
	case utf8.RuneCountInString(in.Name) > MaxUserNameLen || hasControl(in.Name):
		v.Invalid("name", "must be at most %d characters without control characters", MaxUserNameLen)
	}
	switch {
	case in.Role == "":
		v.Missing("role")
	case !in.Role.Valid():
		v.Invalid("role", "must be owner or editor")
	}
	checkPassword(&v, "password", in.Password)
	return v.Err()
}

// ValidatePassword checks a new password alone (FOLIO_ADMIN_PASSWORD, `folio user passwd`): the
// error's one detail names the field "password".
func ValidatePassword(p string) error {
	var v Validation
	checkPassword(&v, "password", p)
	return v.Err()
}

// checkPassword applies the password rule to a new password in field: at least MinPasswordLen
// characters (what a person counts, not bytes), at most MaxPasswordLen bytes.
func checkPassword(v *Validation, field, p string) {
	switch {
	case p == "":
		v.Missing(field)
	case utf8.RuneCountInString(p) < MinPasswordLen:
		v.Invalid(field, "must be at least %d characters", MinPasswordLen)
	case len(p) > MaxPasswordLen:
		v.Invalid(field, "must be at most %d bytes", MaxPasswordLen)
	}
}

// ValidEmail accepts "local@domain" with nothing else (no display name, no angle brackets,
// no line breaks), at most MaxEmailLen bytes (RFC 5321).
func ValidEmail(s string) bool {
	if len(s) > MaxEmailLen || strings.ContainsAny(s, "\r\n<> ") {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && a.Name == "" && strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".")
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// LoginInput is the body of POST /api/auth/login.
type LoginInput struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// Validate reports a missing email or password (400); nothing else is checked, so a login
// attempt never learns more than "wrong email or password".
func (in *LoginInput) Validate() error {
	var v Validation
	if strings.TrimSpace(in.Email) == "" {
		v.Missing("email")
	}
	if in.Password == "" {
		v.Missing("password")
	} else if len(in.Password) > MaxPasswordLen {
		v.Invalid("password", "must be at most %d bytes", MaxPasswordLen)
	}
	return v.Err()
}

// ProfileUpdate is the body of PUT /api/user/profile. Present fields replace the stored value;
// absent ones keep it.
type ProfileUpdate struct {
	Name     *string `json:"name"`
	Bio      *string `json:"bio"`
	Location *string `json:"location"`
	Website  *string `json:"website" doc:"an http(s) URL, or empty to clear it"`
}

// Validate checks the present fields: name not empty, lengths, website an http(s) URL or empty.
func (in *ProfileUpdate) Validate() error {
	var v Validation
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		switch {
		case n == "":
			v.Invalid("name", "must not be empty")
		case utf8.RuneCountInString(n) > MaxUserNameLen || hasControl(n):
			v.Invalid("name", "must be at most %d characters without control characters", MaxUserNameLen)
		}
	}
	if in.Bio != nil && utf8.RuneCountInString(*in.Bio) > MaxBioLen {
		v.Invalid("bio", "must be at most %d characters", MaxBioLen)
	}
	if in.Location != nil {
		l := strings.TrimSpace(*in.Location)
		if utf8.RuneCountInString(l) > MaxLocationLen || hasControl(l) {
			v.Invalid("location", "must be at most %d characters without control characters", MaxLocationLen)
		}
	}
	optionalURL(&v, "website", in.Website)
	return v.Err()
}

// Apply copies the present fields onto u, trimmed.
func (in *ProfileUpdate) Apply(u *User) {
	if in.Name != nil {
		u.Name = strings.TrimSpace(*in.Name)
	}
	if in.Bio != nil {
		u.Bio = strings.TrimSpace(*in.Bio)
	}
	if in.Location != nil {
		u.Location = strings.TrimSpace(*in.Location)
	}
	if in.Website != nil {
		u.Website = strings.TrimSpace(*in.Website)
	}
}

// APIKey is a stored API key. The secret itself is never stored: only its hash (looked up) and
// Prefix (shown so an owner can tell keys apart). A key acts for its user, at the lower of its
// Level and the user's role level.
type APIKey struct {
	ID         string
	UserID     string
	UserEmail  string // the owner's email, filled by listings
	Name       string
	Level      Level
	Prefix     string
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// Usable reports whether k may authenticate a request at now: not revoked and not expired.
func (k *APIKey) Usable(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// EffectiveLevel is the level a request authenticated by k acts at: the key's level, capped at
// what the owner's role allows (so demoting a user also demotes their keys).
func (k *APIKey) EffectiveLevel(owner Role) Level {
	return min(k.Level, owner.Level())
}

// APIKeyInput is the body of POST /api/keys.
type APIKeyInput struct {
	Name      string  `json:"name"`
	Level     string  `json:"level" doc:"read, write or admin"`
	ExpiresAt *string `json:"expiresAt,omitempty" doc:"RFC 3339 time after which the key stops working; absent or null: never"`

	expires *time.Time
}

// Validate checks the input as of now: name and level are required, level is read, write or
// admin, expiresAt (when given) is an RFC 3339 time in the future.
func (in *APIKeyInput) Validate(now time.Time) error {
	var v Validation
	in.Name = strings.TrimSpace(in.Name)
	switch {
	case in.Name == "":
		v.Missing("name")
	case utf8.RuneCountInString(in.Name) > MaxAPIKeyNameLen || hasControl(in.Name):
		v.Invalid("name", "must be at most %d characters without control characters", MaxAPIKeyNameLen)
	}
	if in.Level == "" {
		v.Missing("level")
	} else if _, ok := ParseLevel(in.Level); !ok {
		v.Invalid("level", "must be read, write or admin")
	}
	in.expires = nil
	if in.ExpiresAt != nil && strings.TrimSpace(*in.ExpiresAt) != "" {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(*in.ExpiresAt))
		switch {
		case err != nil:
			v.Invalid("expiresAt", "must be an RFC 3339 time such as 2030-01-02T15:04:05Z")
		case !t.After(now):
			v.Invalid("expiresAt", "must be in the future")
		default:
			t = t.UTC()
			in.expires = &t
		}
	}
	return v.Err()
}

// Expiry returns the parsed expiresAt after a successful Validate (nil: never expires).
func (in *APIKeyInput) Expiry() *time.Time { return in.expires }
