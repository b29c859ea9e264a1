package backup

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// A snapshot is restored only with its manifest, written beside it when it is taken (key or file
// name + ManifestSuffix): its SHA-256, size and time, signed with HMAC-SHA256 under a key
// derived from the instance secret (NEXTAUTH_SECRET). So a file that something else put under
// backups/ — an import, a user of the bucket — is never restored by mistake, and "latest" is
// the newest snapshot by its signed time, not by a name anyone can choose. A snapshot taken
// before signing existed, or under another secret, is restored only when named with
// --trust-unsigned (docs/operations.md).

// ManifestSuffix names a snapshot's manifest: backups/folio-<time>.db.sig.
const ManifestSuffix = ".sig"

// signingInfo is the HKDF info of the manifest key, so it is independent of every other key
// derived from the same secret.
const signingInfo = "folio backup snapshot manifest"

// maxManifestBytes bounds what is read of a manifest (they are about 200 bytes).
const maxManifestBytes = 4 << 10

// ErrUnsigned is every reason a manifest is refused: missing, malformed, or not signed with
// this instance's secret.
var ErrUnsigned = errors.New("backup: the snapshot has no manifest signed with this instance's secret (NEXTAUTH_SECRET)")

// Manifest is what a snapshot's signature vouches for.
type Manifest struct {
	SHA256  string    `json:"sha256"` // hex
	Size    int64     `json:"size"`
	TakenAt time.Time `json:"takenAt"`
}

type signedManifest struct {
	Version int `json:"version"`
	Manifest
	MAC string `json:"mac"` // base64url HMAC-SHA256 of payload()
}

func (m Manifest) payload() []byte {
	return fmt.Appendf(nil, "folio snapshot v1\n%s\n%d\n%s", m.SHA256, m.Size, m.TakenAt.UTC().Format(time.RFC3339Nano))
}

// Signer signs and checks manifests.
type Signer struct{ key []byte }

// NewSigner derives the manifest key from the instance secret.
func NewSigner(secret string) (*Signer, error) {
	if secret == "" {
		return nil, errors.New("backup: empty instance secret")
	}
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, signingInfo, 32)
	if err != nil {
		return nil, err
	}
	return &Signer{key: key}, nil
}

func (s *Signer) mac(m Manifest) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write(m.payload())
	return h.Sum(nil)
}

// Sign returns the manifest file of m.
func (s *Signer) Sign(m Manifest) []byte {
	b, _ := json.Marshal(signedManifest{Version: 1, Manifest: m, MAC: base64.RawURLEncoding.EncodeToString(s.mac(m))})
	return append(b, '\n')
}

// Check parses a manifest file and checks its signature; every failure is ErrUnsigned.
func (s *Signer) Check(data []byte) (Manifest, error) {
	var sm signedManifest
	if len(data) > maxManifestBytes || json.Unmarshal(data, &sm) != nil || sm.Version != 1 {
		return Manifest{}, ErrUnsigned
	}
	mac, err := base64.RawURLEncoding.DecodeString(sm.MAC)
	if err != nil || !hmac.Equal(mac, s.mac(sm.Manifest)) {
		return Manifest{}, ErrUnsigned
	}
	return sm.Manifest, nil
}

// readManifest reads a manifest from r and checks it.
func (s *Signer) readManifest(r io.Reader) (Manifest, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxManifestBytes+1))
	if err != nil {
		return Manifest{}, err
	}
	return s.Check(b)
}

// manifestOf hashes a snapshot's bytes.
func manifestOf(r io.Reader, takenAt time.Time) (Manifest, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return Manifest{}, err
	}
	return Manifest{SHA256: hex.EncodeToString(h.Sum(nil)), Size: n, TakenAt: takenAt.UTC()}, nil
}

// SignFile writes the manifest of the snapshot file at path to path+ManifestSuffix (mode 0600,
// never over an existing file): folio backup's files are restored like scheduled snapshots.
func (s *Signer) SignFile(path string, takenAt time.Time) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	m, err := manifestOf(f, takenAt)
	f.Close()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(path+ManifestSuffix, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := out.Write(s.Sign(m)); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// CheckFile returns the checked manifest of the snapshot file at path.
func (s *Signer) CheckFile(path string) (Manifest, error) {
	f, err := os.Open(path + ManifestSuffix)
	if errors.Is(err, os.ErrNotExist) {
		return Manifest{}, ErrUnsigned
	}
	if err != nil {
		return Manifest{}, err
	}
	defer f.Close()
	return s.readManifest(f)
}
