package identity

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

// Passkeys (docs/api.md, "Passkeys"): WebAuthn ceremonies run by github.com/go-webauthn/webauthn.
// The session data of a ceremony is kept by the store under the hash of its challenge, which the
// browser signs into clientDataJSON, so the finishing request needs nothing but the credential:
// any instance finishes what another began, and a challenge is used once.

// Kinds of folio.AuthChallenge kept for passkey ceremonies.
const (
	challengeRegister = "passkey.register"
	challengeLogin    = "passkey.login"
)

// PasskeyCeremonyMaxAge is how long a begun ceremony can be finished.
const PasskeyCeremonyMaxAge = 5 * time.Minute

// Party is the WebAuthn relying party a ceremony runs for: ID is the site's host name (what a
// passkey is bound to), Origins the origins its pages are served from.
type Party struct {
	ID, Name string
	Origins  []string
}

func (p Party) webauthn() (*webauthn.WebAuthn, error) {
	name := p.Name
	if name == "" {
		name = "folio"
	}
	return webauthn.New(&webauthn.Config{RPID: p.ID, RPDisplayName: name, RPOrigins: p.Origins,
		Timeouts: webauthn.TimeoutsConfig{
			Login:        webauthn.TimeoutConfig{Enforce: true, Timeout: PasskeyCeremonyMaxAge},
			Registration: webauthn.TimeoutConfig{Enforce: true, Timeout: PasskeyCeremonyMaxAge},
		}})
}

// ErrBadPasskey answers a passkey sign-in that does not verify (unknown passkey, a signature
// or challenge that does not match, a used or expired ceremony).
var ErrBadPasskey = folio.Errorf(folio.EUNAUTHORIZED, "The passkey was not accepted, or the sign-in took too long; try again.")

// passkeyUser is a folio user as the WebAuthn library sees it. The user handle is the user's id.
type passkeyUser struct {
	u     *folio.User
	creds []webauthn.Credential
}

func (p passkeyUser) WebAuthnID() []byte                         { return []byte(p.u.ID) }
func (p passkeyUser) WebAuthnName() string                       { return p.u.Email }
func (p passkeyUser) WebAuthnDisplayName() string                { return p.u.Name }
func (p passkeyUser) WebAuthnCredentials() []webauthn.Credential { return p.creds }

// loadPasskeyUser reads the user and its passkeys' credential records.
func (s *Service) loadPasskeyUser(ctx context.Context, userID string) (passkeyUser, []*folio.Passkey, error) {
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return passkeyUser{}, nil, err
	}
	keys, err := s.store.Passkeys(ctx, userID)
	if err != nil {
		return passkeyUser{}, nil, err
	}
	pu := passkeyUser{u: u}
	for _, k := range keys {
		var c webauthn.Credential
		if err := json.Unmarshal(k.Credential, &c); err != nil {
			return passkeyUser{}, nil, fmt.Errorf("identity: passkey %s: %w", k.ID, err)
		}
		pu.creds = append(pu.creds, c)
	}
	return pu, keys, nil
}

func challengeHash(challenge string) string {
	sum := sha256.Sum256([]byte("passkey:" + challenge))
	return hex.EncodeToString(sum[:])
}

// saveCeremony keeps a begun ceremony's session data for its finishing request.
func (s *Service) saveCeremony(ctx context.Context, kind, userID string, sd *webauthn.SessionData) error {
	data, err := json.Marshal(sd)
	if err != nil {
		return err
	}
	return s.store.CreateAuthChallenge(ctx, challengeHash(sd.Challenge), &folio.AuthChallenge{Kind: kind, UserID: userID,
		Data: string(data), ExpiresAt: s.cfg.Now().Add(PasskeyCeremonyMaxAge).Unix()})
}

// takeCeremony takes the session data of the ceremony whose challenge the client signed.
func (s *Service) takeCeremony(ctx context.Context, kind, challenge string) (*folio.AuthChallenge, webauthn.SessionData, error) {
	var sd webauthn.SessionData
	c, err := s.store.TakeAuthChallenge(ctx, challengeHash(challenge), kind)
	if folio.IsNotFound(err) {
		return nil, sd, ErrBadPasskey
	}
	if err != nil {
		return nil, sd, err
	}
	if s.cfg.Now().Unix() >= c.ExpiresAt {
		return nil, sd, ErrBadPasskey
	}
	if err := json.Unmarshal([]byte(c.Data), &sd); err != nil {
		return nil, sd, err
	}
	return c, sd, nil
}

// BeginPasskeyRegistration starts registering a passkey for the user: the creation options for
// navigator.credentials.create (a discoverable credential, user verification preferred, the
// user's passkeys excluded).
func (s *Service) BeginPasskeyRegistration(ctx context.Context, rp Party, userID string) (*protocol.CredentialCreation, error) {
	wa, err := rp.webauthn()
	if err != nil {
		return nil, err
	}
	pu, _, err := s.loadPasskeyUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	exclude := make([]protocol.CredentialDescriptor, 0, len(pu.creds))
	for i := range pu.creds {
		exclude = append(exclude, pu.creds[i].Descriptor())
	}
	opts, sd, err := wa.BeginRegistration(pu, webauthn.WithExclusions(exclude),
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey: protocol.ResidentKeyRequirementRequired, RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification: protocol.VerificationPreferred}))
	if err != nil {
		return nil, err
	}
	if err := s.saveCeremony(ctx, challengeRegister, userID, sd); err != nil {
		return nil, err
	}
	return opts, nil
}

// FinishPasskeyRegistration verifies the authenticator's answer (the PublicKeyCredential as
// JSON) to a ceremony the same user began, and stores the passkey under name; every other
// session of the user ends (keepJTI is the caller's).
func (s *Service) FinishPasskeyRegistration(ctx context.Context, rp Party, userID string, credential []byte, name, keepJTI string) (*folio.Passkey, error) {
	name, err := folio.ValidPasskeyName("name", name)
	if err != nil {
		return nil, err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(credential)
	if err != nil {
		return nil, badCredential("credential", err)
	}
	c, sd, err := s.takeCeremony(ctx, challengeRegister, parsed.Response.CollectedClientData.Challenge)
	if err != nil || c.UserID != userID {
		var v folio.Validation
		v.Invalid("credential", "answers no registration in progress: it was not begun, has expired or was finished already; begin again")
		return nil, v.Err()
	}
	wa, err := rp.webauthn()
	if err != nil {
		return nil, err
	}
	pu, _, err := s.loadPasskeyUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	cred, err := wa.CreateCredential(pu, sd, parsed)
	if err != nil {
		return nil, badCredential("credential", err)
	}
	record, err := json.Marshal(cred)
	if err != nil {
		return nil, err
	}
	p := &folio.Passkey{UserID: userID, Name: name, CredentialID: cred.ID, Credential: record, SignCount: cred.Authenticator.SignCount,
		BackupEligible: cred.Flags.BackupEligible, BackupState: cred.Flags.BackupState}
	if _, err := s.store.CreatePasskey(ctx, p, keepJTI); err != nil {
		return nil, err
	}
	s.ForgetUser(userID)
	return p, nil
}

// badCredential is the 422 of an authenticator answer that does not parse or verify, with the
// WebAuthn library's reason.
func badCredential(field string, err error) error {
	var v folio.Validation
	msg := "was not accepted"
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Details != "" {
		msg += ": " + pe.Details
	}
	v.Invalid(field, "%s", msg)
	return v.Err()
}

// Passkeys lists the user's passkeys.
func (s *Service) Passkeys(ctx context.Context, userID string) ([]*folio.Passkey, error) {
	return s.store.Passkeys(ctx, userID)
}

// RenamePasskey renames one of the user's passkeys; every other session of the user ends.
func (s *Service) RenamePasskey(ctx context.Context, userID, id string, in *folio.PasskeyRename, keepJTI string) (*folio.Passkey, error) {
	name, err := folio.ValidPasskeyName("name", in.Name)
	if err != nil {
		return nil, err
	}
	p, _, err := s.store.RenamePasskey(ctx, userID, id, name, keepJTI)
	if err != nil {
		return nil, err
	}
	s.ForgetUser(userID)
	return p, nil
}

// DeletePasskey removes one of the user's passkeys; every other session of the user ends.
func (s *Service) DeletePasskey(ctx context.Context, userID, id, keepJTI string) error {
	if _, err := s.store.DeletePasskey(ctx, userID, id, keepJTI); err != nil {
		return err
	}
	s.ForgetUser(userID)
	return nil
}

// BeginPasskeyLogin starts a sign-in with a discoverable passkey (no email typed): the request
// options for navigator.credentials.get. The passkey must verify its user (a PIN, a fingerprint),
// since it is then the only factor.
func (s *Service) BeginPasskeyLogin(ctx context.Context, rp Party) (*protocol.CredentialAssertion, error) {
	wa, err := rp.webauthn()
	if err != nil {
		return nil, err
	}
	opts, sd, err := wa.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return nil, err
	}
	if err := s.saveCeremony(ctx, challengeLogin, "", sd); err != nil {
		return nil, err
	}
	return opts, nil
}

// FinishPasskeyLogin verifies an assertion (the PublicKeyCredential as JSON) to a sign-in begun
// by BeginPasskeyLogin and returns its user, whenever the passkey is known even when the step
// fails (for the audit log). A failure is ErrBadPasskey (counted toward the account's sign-in
// limit) or the limit's refusal; the passkey's counter and backup state are stored.
func (s *Service) FinishPasskeyLogin(ctx context.Context, rp Party, credential []byte, attempts Attempts) (*folio.User, error) {
	return s.passkeyAssertion(ctx, rp, credential, "", attempts)
}

// SignInSecondFactorPasskey is the second step of a two-factor sign-in with a passkey of the
// ticket's user instead of a TOTP code (the assertion of a ceremony begun by BeginPasskeyLogin).
// It returns the ticket's user id whenever the ticket is valid, and the user on success.
func (s *Service) SignInSecondFactorPasskey(ctx context.Context, rp Party, ticket string, credential []byte, attempts Attempts) (string, *folio.User, error) {
	if strings.TrimSpace(ticket) == "" {
		var v folio.Validation
		v.Missing("ticket")
		return "", nil, v.Err()
	}
	now := s.cfg.Now()
	hash := auth.HashTicket(strings.TrimSpace(ticket))
	t, err := s.store.SignInTicket(ctx, hash)
	if folio.IsNotFound(err) {
		return "", nil, ErrBadSecondFactor
	}
	if err != nil {
		return "", nil, err
	}
	if now.Unix() >= t.ExpiresAt || t.Attempts >= auth.TicketMaxAttempts {
		return t.UserID, nil, ErrBadSecondFactor
	}
	if try, err := s.store.TrySignInTicket(ctx, hash, auth.TicketMaxAttempts); err != nil || try == 0 {
		if err == nil {
			err = ErrBadSecondFactor
		}
		return t.UserID, nil, err
	}
	u, err := s.passkeyAssertion(ctx, rp, credential, t.UserID, attempts)
	if err != nil {
		return t.UserID, nil, err
	}
	if !u.TOTPEnabled || !u.SessionValid(t.IssuedAt, "") {
		return t.UserID, nil, ErrBadSecondFactor
	}
	if spent, err := s.store.SpendSignInTicket(ctx, hash); err != nil || !spent {
		if err == nil {
			err = ErrBadSecondFactor
		}
		return t.UserID, nil, err
	}
	return t.UserID, u, nil
}

// passkeyAssertion verifies a discoverable assertion; when wantUser is set the passkey must be
// that user's.
func (s *Service) passkeyAssertion(ctx context.Context, rp Party, credential []byte, wantUser string, attempts Attempts) (*folio.User, error) {
	parsed, err := protocol.ParseCredentialRequestResponseBytes(credential)
	if err != nil {
		return nil, badCredential("credential", err)
	}
	key, err := s.store.PasskeyByCredentialID(ctx, parsed.RawID)
	if folio.IsNotFound(err) || (err == nil && wantUser != "" && key.UserID != wantUser) {
		// An unknown passkey fails like a wrong password for an unknown email.
		sum := sha256.Sum256(parsed.RawID)
		if err := attempts.Check("passkey:" + hex.EncodeToString(sum[:16])); err != nil {
			return nil, err
		}
		attempts.Failed()
		return nil, ErrBadPasskey
	}
	if err != nil {
		return nil, err
	}
	pu, keys, err := s.loadPasskeyUser(ctx, key.UserID)
	if err != nil {
		return nil, err
	}
	if err := attempts.Check(limitAccount(pu.u)); err != nil {
		return pu.u, err
	}
	fail := func() (*folio.User, error) {
		attempts.Failed()
		return pu.u, ErrBadPasskey
	}
	_, sd, err := s.takeCeremony(ctx, challengeLogin, parsed.Response.CollectedClientData.Challenge)
	if errors.Is(err, ErrBadPasskey) {
		return fail()
	}
	if err != nil {
		return nil, err
	}
	wa, err := rp.webauthn()
	if err != nil {
		return nil, err
	}
	handler := func(rawID, userHandle []byte) (webauthn.User, error) {
		if !bytes.Equal(userHandle, []byte(pu.u.ID)) || !bytes.Equal(rawID, key.CredentialID) {
			return nil, errors.New("the passkey does not belong to the user it names")
		}
		return pu, nil
	}
	_, cred, err := wa.ValidatePasskeyLogin(handler, sd, parsed)
	if err != nil || !pu.u.Role.Valid() {
		return fail()
	}
	if cred.Authenticator.CloneWarning {
		s.cfg.Logger.Warn("passkey sign-in refused: its signature counter went backwards (a cloned authenticator?)",
			"user_id", pu.u.ID, "passkey_id", key.ID)
		return fail()
	}
	record, err := json.Marshal(cred)
	if err != nil {
		return nil, err
	}
	stored := key
	for _, k := range keys {
		if k.ID == key.ID {
			stored = k
		}
	}
	ok, err := s.store.UsePasskey(ctx, stored.ID, record, cred.Authenticator.SignCount, cred.Flags.BackupState)
	if err != nil {
		return nil, err
	}
	if !ok {
		return fail()
	}
	return pu.u, nil
}
