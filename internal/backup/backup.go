// Package backup takes scheduled snapshots of the embedded SQLite database into the media
// storage (local directory or S3) under backups/, keeps the newest BACKUP_KEEP of them, and
// restores one (folio restore). PostgreSQL is backed up with pg_dump (docs/operations.md). Each
// snapshot has a signed manifest (manifest.go); restore takes only snapshots whose manifest
// this instance's secret signed, unless told to trust one by name.
//
// A snapshot is VACUUM INTO on a read connection: one consistent read of everything committed
// when it starts, taken while the service keeps writing. Scheduling goes through the durable job
// scheduler, with one job per time slot (the key names the slot), so several instances sharing
// a database — and restarts — still take each snapshot once.
package backup

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/jobs"
)

// Prefix is where snapshots live in the media storage; the local media handler never serves it.
const Prefix = blob.PrivatePrefix

// JobKind is the kind of the scheduled snapshot job.
const JobKind = "backup.snapshot"

// Lister is the listing a store must offer for old snapshots to be pruned (blob.Local and
// blob.S3 do).
type Lister interface {
	List(ctx context.Context, prefix string) ([]string, error)
}

// Engine is the database a snapshot is taken of.
type Engine interface {
	// Backup writes a consistent copy of the database to path, which must not exist yet; it
	// refuses a database that is not SQLite.
	Backup(ctx context.Context, path string) error
}

// Service takes and prunes snapshots.
type Service struct {
	DB Engine
	// Queue takes the job of the next snapshot.
	Queue jobs.Enqueuer
	Store folio.BlobStore
	// Signer signs each snapshot's manifest (and checks them for Latest and Manifest).
	Signer *Signer
	// TempDir holds the snapshot file between VACUUM INTO and the upload.
	TempDir string
	// Keep is how many snapshots to keep (BACKUP_KEEP); at least 1.
	Keep int
	// Interval is the time between scheduled snapshots (BACKUP_INTERVAL).
	Interval time.Duration
	Now      func() time.Time
	Log      *slog.Logger
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Snapshot copies the database into the store and prunes old snapshots; it returns the key.
func (s *Service) Snapshot(ctx context.Context) (string, error) {
	if err := os.MkdirAll(s.TempDir, 0o750); err != nil {
		return "", err
	}
	tmp := filepath.Join(s.TempDir, "snapshot-"+rand.Text()+".db")
	defer os.Remove(tmp)
	if err := s.DB.Backup(ctx, tmp); err != nil {
		return "", err
	}
	f, err := os.Open(tmp)
	if err != nil {
		return "", err
	}
	defer f.Close()
	now := s.now().UTC()
	m, err := manifestOf(f, now)
	if err != nil {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	key := Prefix + "folio-" + now.Format("20060102T150405.000Z") + ".db"
	if err := s.Store.Put(ctx, key, f, m.Size, folio.BlobMeta{ContentType: "application/vnd.sqlite3"}); err != nil {
		return "", fmt.Errorf("backup: store %s: %w", key, err)
	}
	sig := s.Signer.Sign(m)
	if err := s.Store.Put(ctx, key+ManifestSuffix, bytes.NewReader(sig), int64(len(sig)), folio.BlobMeta{ContentType: "application/json"}); err != nil {
		return "", fmt.Errorf("backup: store %s: %w", key+ManifestSuffix, err)
	}
	s.log().Info("database snapshot stored", "key", key, "bytes", m.Size)
	if err := s.Prune(ctx); err != nil {
		s.log().Warn("old snapshots not pruned", "error", err.Error())
	}
	return key, nil
}

// List returns the stored snapshots, oldest first.
func (s *Service) List(ctx context.Context) ([]string, error) {
	l, ok := s.Store.(Lister)
	if !ok {
		return nil, errors.New("backup: the media storage cannot list objects")
	}
	keys, err := l.List(ctx, Prefix)
	if err != nil {
		return nil, err
	}
	out := keys[:0]
	for _, k := range keys {
		if strings.HasPrefix(k, Prefix+"folio-") && strings.HasSuffix(k, ".db") {
			out = append(out, k)
		}
	}
	sort.Strings(out) // the names carry the UTC time, so name order is time order
	return out, nil
}

// Prune deletes all but the newest Keep snapshots.
func (s *Service) Prune(ctx context.Context) error {
	keys, err := s.List(ctx)
	if err != nil {
		return err
	}
	keep := max(s.Keep, 1)
	for len(keys) > keep {
		for _, k := range []string{keys[0], keys[0] + ManifestSuffix} {
			if err := s.Store.Delete(ctx, k); err != nil {
				return err
			}
		}
		keys = keys[1:]
	}
	return nil
}

// Manifest returns the checked manifest of the snapshot under key (ErrUnsigned when it has
// none that this instance's secret signed).
func (s *Service) Manifest(ctx context.Context, key string) (Manifest, error) {
	rc, _, err := s.Store.Get(ctx, key+ManifestSuffix)
	if folio.IsNotFound(err) {
		return Manifest{}, ErrUnsigned
	}
	if err != nil {
		return Manifest{}, err
	}
	defer rc.Close()
	return s.Signer.readManifest(rc)
}

// Latest returns the signed snapshot taken last (by its signed time) and the stored snapshots
// it passed over for want of a valid manifest; ENOTFOUND when no snapshot is signed.
func (s *Service) Latest(ctx context.Context) (key string, m Manifest, unsigned []string, err error) {
	keys, err := s.List(ctx)
	if err != nil {
		return "", Manifest{}, nil, err
	}
	for _, k := range keys {
		km, err := s.Manifest(ctx, k)
		if errors.Is(err, ErrUnsigned) {
			unsigned = append(unsigned, k)
			continue
		}
		if err != nil {
			return "", Manifest{}, nil, err
		}
		if key == "" || !km.TakenAt.Before(m.TakenAt) {
			key, m = k, km
		}
	}
	if key == "" {
		return "", Manifest{}, unsigned, folio.Errorf(folio.ENOTFOUND, "There is no signed snapshot under %s.", Prefix)
	}
	return key, m, unsigned, nil
}

type jobPayload struct {
	At time.Time `json:"at"`
}

// slot is the next scheduled time after t: a multiple of Interval since the zero time, so every
// instance computes the same one.
func (s *Service) slot(t time.Time) time.Time {
	return t.UTC().Truncate(s.Interval).Add(s.Interval)
}

// Schedule enqueues the job of the next slot (a no-op when another instance already did).
func (s *Service) Schedule(ctx context.Context) error {
	at := s.slot(s.now())
	b, _ := json.Marshal(jobPayload{At: at})
	return s.Queue.EnqueueJob(ctx, JobKind, JobKind+":"+at.Format(time.RFC3339), string(b), at)
}

// Handle is the job handler: take the snapshot, then schedule the next slot.
func (s *Service) Handle(ctx context.Context, _ folio.Job) error {
	if _, err := s.Snapshot(ctx); err != nil {
		return err
	}
	return s.Schedule(ctx)
}

// Restore replaces the SQLite database file dbPath by the snapshot read from r. It checks that
// the snapshot is the one want describes (its signed manifest; nil when the operator chose to
// trust an unsigned snapshot) and an intact folio database first, writes it beside the target
// and renames it into place, and removes the old write-ahead log, so nothing of the replaced
// database mixes in. The service must be stopped. The snapshot holds the analytics too: the
// caller then removes the analytics file beside dbPath (sqldb.RemoveAnalyticsFile), so that the
// next start moves the snapshot's analytics into a new one.
func Restore(ctx context.Context, r io.Reader, dbPath string, want *Manifest) error {
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o750); err != nil {
		return err
	}
	tmp := dbPath + ".restore-" + rand.Text()
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	got, err := manifestOf(io.TeeReader(r, f), time.Time{})
	if err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if want != nil && (got.SHA256 != want.SHA256 || got.Size != want.Size) {
		return errors.New("backup: the snapshot is not the one its signed manifest describes (changed or truncated)")
	}
	if err := check(ctx, tmp); err != nil {
		return err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(dbPath + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.Rename(tmp, dbPath)
}

// check opens a file as SQLite read-only and runs the integrity check.
func check(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	var res string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res); err != nil {
		return fmt.Errorf("backup: the snapshot is not an SQLite database: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("backup: the snapshot is damaged: %s", res)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n == 0 {
		return errors.New("backup: the snapshot is not a folio database")
	}
	return nil
}
