package folio

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Passkey is a WebAuthn credential a user registered to sign in with (docs/api.md, "Passkeys").
// Credential is the WebAuthn library's record of it (public key, flags, sign counter,
// attestation) as JSON; the fields beside it are what lists show and what the store searches by.
type Passkey struct {
	ID             string     `json:"id"`
	UserID         string     `json:"-"`
	Name           string     `json:"name"`
	CreatedAt      time.Time  `json:"createdAt"`
	LastUsedAt     *time.Time `json:"lastUsedAt"`
	SignCount      uint32     `json:"signCount" doc:"the authenticator's signature counter at the last use (0: it keeps none, as synced passkeys)"`
	BackupEligible bool       `json:"backupEligible" doc:"the passkey may be synced to other devices"`
	BackupState    bool       `json:"backupState" doc:"the passkey is synced (backed up) now"`
	CredentialID   []byte     `json:"-"`
	Credential     []byte     `json:"-"`
}

// PasskeyRename is the body of PATCH /api/auth/passkeys/{id}.
type PasskeyRename struct {
	Name string `json:"name" doc:"1–64 characters"`
}

// MaxPasskeyName is the longest passkey name, in characters.
const MaxPasskeyName = 64

// ValidPasskeyName returns name trimmed, or a validation error naming field.
func ValidPasskeyName(field, name string) (string, error) {
	name = strings.TrimSpace(name)
	var v Validation
	switch {
	case name == "":
		v.Missing(field)
	case utf8.RuneCountInString(name) > MaxPasskeyName:
		v.Invalid(field, "must be at most %d characters", MaxPasskeyName)
	}
	return name, v.Err()
}

// AuthChallenge is a single-use secret of a sign-in ceremony kept by the store under its hash:
// a WebAuthn challenge with its session data, a sign-in link sent by mail, or the state of an
// OpenID Connect sign-in. Kind keeps one kind from being spent as another.
type AuthChallenge struct {
	Kind      string
	UserID    string // "" when the ceremony does not know its user yet
	Data      string // the ceremony's state, as its owner encodes it
	ExpiresAt int64  // Unix seconds
}
