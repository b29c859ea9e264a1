package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/backup"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/sqldb"
)

// runBackup copies the SQLite database to a new file while the service may keep running, with
// its signed manifest beside it (FILE.sig), so folio restore takes it.
func runBackup(ctx context.Context, args []string, env Env) error {
	var out string
	cfg, err := loadConfig("backup", args, env, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "backup file to create (default FOLIO_DATA_DIR/backups/folio-<time>.db)")
	})
	if err != nil {
		return helpOK(err)
	}
	if out == "" {
		out = fmt.Sprintf("%s/backups/folio-%s.db", cfg.DataDir, time.Now().UTC().Format("20060102T150405Z"))
	}
	db, err := openDB(ctx, cfg, env, false, newLogger(cfg, env.Stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := ensureDir(out); err != nil {
		return err
	}
	signer, err := newSigner(cfg)
	if err != nil {
		return err
	}
	takenAt := time.Now()
	if err := db.Backup(ctx, out); err != nil {
		return err
	}
	if err := signer.SignFile(out, takenAt); err != nil {
		return fmt.Errorf("backup: signing %s: %w", out, err)
	}
	fmt.Fprintln(env.Stdout, out)
	return nil
}

// newSigner signs and checks snapshot manifests with the instance secret.
func newSigner(cfg *config.Config) (*backup.Signer, error) {
	secret, err := instanceSecret(cfg)
	if err != nil {
		return nil, err
	}
	return backup.NewSigner(secret)
}

func ensureDir(file string) error {
	return os.MkdirAll(filepath.Dir(file), 0o750)
}

// newBackups is the scheduled SQLite snapshots into the media storage (BACKUP_INTERVAL; folio
// restore reads them back), or nil when BACKUP_INTERVAL is unset.
func newBackups(cfg *config.Config, db *sqldb.DB, store folio.BlobStore, log *slog.Logger) (*backup.Service, error) {
	if cfg.BackupInterval == 0 {
		return nil, nil
	}
	if db.Dialect != sqldb.SQLite {
		return nil, errors.New("BACKUP_INTERVAL snapshots the SQLite database; with PostgreSQL use pg_dump (docs/operations.md)")
	}
	if _, ok := store.(backup.Lister); !ok {
		return nil, errors.New("BACKUP_INTERVAL: the media storage cannot list objects to prune old snapshots")
	}
	signer, err := newSigner(cfg)
	if err != nil {
		return nil, err
	}
	return &backup.Service{DB: db, Queue: db.Jobs, Store: store, Signer: signer, TempDir: filepath.Join(cfg.DataDir, "tmp"),
		Keep: cfg.BackupKeep, Interval: cfg.BackupInterval, Now: time.Now, Log: log}, nil
}
