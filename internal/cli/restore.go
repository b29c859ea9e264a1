package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/backup"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/sqldb"
)

// runRestore replaces the SQLite database by a snapshot: a key under backups/ in the media
// storage (as BACKUP_INTERVAL stores them; "latest" is the newest) or a local file.
func runRestore(ctx context.Context, args []string, env Env) error {
	snap, args := positional(args)
	cfg, err := loadConfig("restore SNAPSHOT", args, env, nil)
	if err != nil {
		return helpOK(err)
	}
	if snap == "" {
		fmt.Fprintln(env.Stderr, "folio restore: name the snapshot: a key such as backups/folio-20260101T000000.000Z.db, latest, or a file")
		return ErrUsage
	}
	if cfg.DatabaseURL != "" && !strings.HasPrefix(cfg.DatabaseURL, "sqlite:") && !strings.HasPrefix(cfg.DatabaseURL, "file:") {
		return errors.New("restore: snapshots are of the SQLite database; restore PostgreSQL with pg_restore (docs/operations.md)")
	}
	dbPath := strings.TrimPrefix(strings.TrimPrefix(cfg.DatabaseURL, "sqlite:"), "file:")
	if dbPath == "" {
		dbPath = filepath.Join(cfg.DataDir, "folio.db")
	}
	var r io.ReadCloser
	if f, err := os.Open(snap); err == nil {
		r = f
	} else {
		store, _, err := openMediaStore(ctx, cfg)
		if err != nil {
			return err
		}
		if snap == "latest" {
			svc := &backup.Service{Store: store}
			keys, err := svc.List(ctx)
			if err != nil {
				return err
			}
			if len(keys) == 0 {
				return errors.New("restore: there is no snapshot under backups/")
			}
			snap = keys[len(keys)-1]
		}
		if r, _, err = store.Get(ctx, snap); err != nil {
			return fmt.Errorf("restore: %s: %w", snap, err)
		}
	}
	defer r.Close()
	if err := backup.Restore(ctx, r, dbPath); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "restored %s into %s\n", snap, dbPath)
	return nil
}

// wireBackups registers the snapshot job and schedules the next one when BACKUP_INTERVAL is set.
func wireBackups(ctx context.Context, cfg *config.Config, db *sqldb.DB, srv *httpapi.Server, handle func(string, func(context.Context, folio.Job) error)) error {
	if cfg.BackupInterval == 0 {
		return nil
	}
	if db.Dialect != sqldb.SQLite {
		return errors.New("BACKUP_INTERVAL snapshots the SQLite database; with PostgreSQL use pg_dump (docs/operations.md)")
	}
	svc := &backup.Service{DB: db, Queue: db.Jobs, Store: srv.MediaStore, TempDir: filepath.Join(cfg.DataDir, "tmp"), Keep: cfg.BackupKeep,
		Interval: cfg.BackupInterval, Now: time.Now, Log: srv.Logger}
	if _, ok := srv.MediaStore.(backup.Lister); !ok {
		return errors.New("BACKUP_INTERVAL: the media storage cannot list objects to prune old snapshots")
	}
	handle(backup.JobKind, svc.Handle)
	return svc.Schedule(ctx)
}
