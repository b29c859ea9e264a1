package backup_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/backup"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestManifestSignature(t *testing.T) {
	s := signer(t, testSecret)
	m := backup.Manifest{SHA256: strings.Repeat("ab", 32), Size: 4096, TakenAt: time.Date(2026, 4, 1, 0, 0, 0, 123, time.UTC)}
	sig := s.Sign(m)
	if got, err := s.Check(sig); err != nil || got != m {
		t.Fatalf("Check(Sign(m)) = %+v, %v", got, err)
	}
	if _, err := signer(t, "another secret of at least thirty-two bytes").Check(sig); !errors.Is(err, backup.ErrUnsigned) {
		t.Fatalf("a manifest signed under another secret: %v", err)
	}
	for name, forged := range map[string][]byte{
		"size":    bytes.Replace(sig, []byte(`"size":4096`), []byte(`"size":4097`), 1),
		"hash":    bytes.Replace(sig, []byte(`"sha256":"ab`), []byte(`"sha256":"cd`), 1),
		"time":    bytes.Replace(sig, []byte(`2026-04-01`), []byte(`2999-04-01`), 1),
		"no mac":  bytes.Replace(sig, []byte(`"mac":"`), []byte(`"mac":"x`), 1),
		"version": bytes.Replace(sig, []byte(`"version":1`), []byte(`"version":2`), 1),
		"empty":   nil,
	} {
		if bytes.Equal(forged, sig) {
			t.Fatalf("%s: the forgery changed nothing", name)
		}
		if _, err := s.Check(forged); !errors.Is(err, backup.ErrUnsigned) {
			t.Errorf("%s: Check = %v", name, err)
		}
	}
}

// TestLatestTakesOnlySignedSnapshots: a folio database put under backups/ by anything but the
// backup job — with a later name, without a manifest or with the manifest of another snapshot —
// is not what "latest" restores; the newest signed snapshot is.
func TestLatestTakesOnlySignedSnapshots(t *testing.T) {
	ctx := context.Background()
	l, err := blob.NewLocal(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	db := foliotest.MustOpenSQLite(t)
	now := time.Date(2026, 4, 1, 3, 0, 0, 0, time.UTC)
	svc := &backup.Service{DB: db, Queue: db.Jobs, Store: l, Signer: signer(t, testSecret), TempDir: t.TempDir(), Keep: 7, Now: func() time.Time { return now }}
	title, desc := "Genuine", "d"
	if _, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: &title, Description: &desc}); err != nil {
		t.Fatal(err)
	}
	older, err := svc.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	newer, err := svc.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// A planted folio database (its own marker project) under later names.
	planted := foliotest.MustOpenSQLite(t)
	mark := "Planted"
	if _, err := content.New(planted.Content).CreateProject(ctx, &folio.ProjectInput{Title: &mark, Description: &desc}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "planted.db")
	if err := planted.Backup(ctx, file); err != nil {
		t.Fatal(err)
	}
	body, _ := os.ReadFile(file)
	put := func(key string, b []byte) {
		if err := l.Put(ctx, key, bytes.NewReader(b), int64(len(b)), folio.BlobMeta{}); err != nil {
			t.Fatal(err)
		}
	}
	const unsigned, copied = "backups/folio-29990101T000000Z.db", "backups/folio-29990102T000000Z.db"
	put(unsigned, body)
	put(copied, body)
	rc, _, _ := l.Get(ctx, older+backup.ManifestSuffix)
	sig := new(bytes.Buffer)
	sig.ReadFrom(rc)
	rc.Close()
	put(copied+backup.ManifestSuffix, sig.Bytes())

	key, m, passed, err := svc.Latest(ctx)
	if err != nil || key != newer || !m.TakenAt.Equal(now) {
		t.Fatalf("Latest = %s %+v %v, want %s", key, m, err, newer)
	}
	if len(passed) != 1 || passed[0] != unsigned {
		t.Fatalf("passed over %v", passed)
	}
	if _, err := svc.Manifest(ctx, unsigned); !errors.Is(err, backup.ErrUnsigned) {
		t.Fatalf("Manifest(unsigned) = %v", err)
	}
	// The copied manifest vouches for other bytes: restoring under it is refused.
	cm, err := svc.Manifest(ctx, copied)
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(t.TempDir(), "folio.db")
	r, _, _ := l.Get(ctx, copied)
	err = backup.Restore(ctx, r, dbPath, &cm)
	r.Close()
	if err == nil || !strings.Contains(err.Error(), "manifest") {
		t.Fatalf("restoring bytes the manifest does not describe: %v", err)
	}
	if _, err := os.Stat(dbPath); !os.IsNotExist(err) {
		t.Fatal("a refused restore left a database")
	}
	// The genuine one restores.
	r, _, _ = l.Get(ctx, key)
	err = backup.Restore(ctx, r, dbPath, &m)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	restored, err := sqldb.Open(ctx, "", filepath.Dir(dbPath))
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if all, _ := restored.Archive.AllProjects(ctx); len(all) != 1 || all[0].Title != "Genuine" {
		t.Fatalf("restored %+v", all)
	}
}

func TestSignFile(t *testing.T) {
	s := signer(t, testSecret)
	path := filepath.Join(t.TempDir(), "folio.db")
	os.WriteFile(path, []byte("snapshot bytes"), 0o600)
	if _, err := s.CheckFile(path); !errors.Is(err, backup.ErrUnsigned) {
		t.Fatalf("CheckFile without a manifest: %v", err)
	}
	at := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	if err := s.SignFile(path, at); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + backup.ManifestSuffix); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("manifest file: %v %v", fi, err)
	}
	m, err := s.CheckFile(path)
	if err != nil || m.Size != int64(len("snapshot bytes")) || !m.TakenAt.Equal(at) {
		t.Fatalf("CheckFile = %+v %v", m, err)
	}
	if err := s.SignFile(path, at); err == nil {
		t.Fatal("SignFile overwrote a manifest")
	}
}

func FuzzCheckManifest(f *testing.F) {
	s := signer(f, testSecret)
	other := signer(f, "another secret of at least thirty-two bytes")
	f.Add(s.Sign(backup.Manifest{SHA256: strings.Repeat("0", 64), Size: 1, TakenAt: time.Unix(0, 0)}), []byte("x"), int64(1), int64(0))
	f.Add([]byte(`{"version":1,"sha256":"","size":0,"takenAt":"0001-01-01T00:00:00Z","mac":""}`), []byte{}, int64(0), int64(-1))
	f.Fuzz(func(t *testing.T, data, sum []byte, size, nanos int64) {
		// Whatever the bytes, no manifest checks under two secrets.
		if _, err := s.Check(data); err == nil {
			if _, err := other.Check(data); err == nil {
				t.Fatal("one manifest checks under two secrets")
			}
		}
		// Backup signs the digests it computed: 32 bytes, whatever the fuzzer's length.
		digest := sha256.Sum256(sum)
		m := backup.Manifest{SHA256: hex.EncodeToString(digest[:]), Size: size, TakenAt: time.Unix(0, nanos).UTC()}
		if got, err := s.Check(s.Sign(m)); err != nil || got.SHA256 != m.SHA256 || got.Size != m.Size || !got.TakenAt.Equal(m.TakenAt) {
			t.Fatalf("Check(Sign(%+v)) = %+v, %v", m, got, err)
		}
	})
}
