// Package passkeytest is a software WebAuthn authenticator for tests: it answers the creation and
// request options a relying party sends with a real "none" attestation and real ECDSA P-256
// assertion signatures, as a browser with a platform authenticator would, so the WebAuthn library
// verifies a real ceremony (go-webauthn ships no such authenticator).
package passkeytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
)

// Authenticator data flags (WebAuthn §6.1).
const (
	flagUP = 0x01 // user present
	flagUV = 0x04 // user verified
	flagBE = 0x08 // backup eligible
	flagBS = 0x10 // backed up
	flagAT = 0x40 // attested credential data included
)

// Authenticator holds discoverable credentials (resident keys) for one origin.
type Authenticator struct {
	// Origin is what the authenticator's "browser" writes into clientDataJSON.
	Origin string
	// UserVerified, BackupEligible and BackedUp set the flags of what it signs.
	UserVerified, BackupEligible, BackedUp bool
	// Counter, when true, counts signatures (a security key); false keeps 0 (a synced passkey).
	Counter bool

	creds []*Credential
}

// Credential is one key pair the authenticator made.
type Credential struct {
	ID         []byte
	UserHandle []byte
	RPID       string
	Key        *ecdsa.PrivateKey
	SignCount  uint32
}

// New returns an authenticator that verifies its user and counts signatures.
func New(origin string) *Authenticator {
	return &Authenticator{Origin: origin, UserVerified: true, Counter: true}
}

// Credentials returns the credentials made so far.
func (a *Authenticator) Credentials() []*Credential { return a.creds }

type creationOptions struct {
	PublicKey struct {
		Challenge string `json:"challenge"`
		RP        struct {
			ID string `json:"id"`
		} `json:"rp"`
		User struct {
			ID string `json:"id"`
		} `json:"user"`
	} `json:"publicKey"`
}

type requestOptions struct {
	PublicKey struct {
		Challenge string `json:"challenge"`
		RPID      string `json:"rpId"`
	} `json:"publicKey"`
}

var b64 = base64.RawURLEncoding

// Create answers creation options (the JSON of navigator.credentials.create's argument, as
// {publicKey: {...}}) with a new credential, as the PublicKeyCredential JSON a browser posts.
func (a *Authenticator) Create(options []byte) ([]byte, error) {
	var o creationOptions
	if err := json.Unmarshal(options, &o); err != nil {
		return nil, fmt.Errorf("passkeytest: creation options: %w", err)
	}
	handle, err := b64.DecodeString(o.PublicKey.User.ID)
	if err != nil {
		return nil, fmt.Errorf("passkeytest: user id: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	c := &Credential{ID: id, UserHandle: handle, RPID: o.PublicKey.RP.ID, Key: key}
	a.creds = append(a.creds, c)

	ecdh, err := key.PublicKey.ECDH()
	if err != nil {
		return nil, err
	}
	raw := ecdh.Bytes() // 0x04 || X || Y
	cose, err := webauthncbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: raw[1:33], -3: raw[33:65]})
	if err != nil {
		return nil, err
	}
	attested := make([]byte, 0, 16+2+len(id)+len(cose))
	attested = append(attested, make([]byte, 16)...) // AAGUID: zero, as "none" attestation allows
	attested = binary.BigEndian.AppendUint16(attested, uint16(len(id)))
	attested = append(attested, id...)
	attested = append(attested, cose...)
	authData := a.authData(c, flagAT, attested)
	attObj, err := webauthncbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": authData})
	if err != nil {
		return nil, err
	}
	clientData := a.clientData("webauthn.create", o.PublicKey.Challenge)
	return json.Marshal(map[string]any{
		"id": b64.EncodeToString(id), "rawId": b64.EncodeToString(id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(clientData),
			"attestationObject": b64.EncodeToString(attObj), "transports": []string{"internal"}},
	})
}

// Get answers request options ({publicKey: {...}}) with an assertion by the newest credential
// for their relying party, as a browser posts it.
func (a *Authenticator) Get(options []byte) ([]byte, error) {
	var o requestOptions
	if err := json.Unmarshal(options, &o); err != nil {
		return nil, fmt.Errorf("passkeytest: request options: %w", err)
	}
	for i := len(a.creds) - 1; i >= 0; i-- {
		if c := a.creds[i]; c.RPID == o.PublicKey.RPID {
			return a.Assert(c, o.PublicKey.Challenge)
		}
	}
	return nil, errors.New("passkeytest: no credential for this relying party")
}

// Assert signs an assertion of challenge (base64url, as the options carry it) with c.
func (a *Authenticator) Assert(c *Credential, challenge string) ([]byte, error) {
	if a.Counter {
		c.SignCount++
	}
	authData := a.authData(c, 0, nil)
	clientData := a.clientData("webauthn.get", challenge)
	cdHash := sha256.Sum256(clientData)
	digest := sha256.Sum256(append(append([]byte{}, authData...), cdHash[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, c.Key, digest[:])
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{
		"id": b64.EncodeToString(c.ID), "rawId": b64.EncodeToString(c.ID), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(clientData),
			"authenticatorData": b64.EncodeToString(authData), "signature": b64.EncodeToString(sig),
			"userHandle": b64.EncodeToString(c.UserHandle)},
	})
}

func (a *Authenticator) authData(c *Credential, extra byte, attested []byte) []byte {
	rp := sha256.Sum256([]byte(c.RPID))
	flags := flagUP | extra
	if a.UserVerified {
		flags |= flagUV
	}
	if a.BackupEligible {
		flags |= flagBE
	}
	if a.BackedUp {
		flags |= flagBS
	}
	out := append([]byte{}, rp[:]...)
	out = append(out, flags)
	out = binary.BigEndian.AppendUint32(out, c.SignCount)
	return append(out, attested...)
}

func (a *Authenticator) clientData(typ, challenge string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": a.Origin, "crossOrigin": false})
	return b
}
