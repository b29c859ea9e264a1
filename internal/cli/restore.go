package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/foliohq/folio/internal/backup"
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
	loc := sqldb.Locate(cfg.DatabaseURL, cfg.DataDir)
	if loc.Dialect != sqldb.SQLite {
		return errors.New("restore: snapshots are of the SQLite database; restore PostgreSQL with pg_restore (docs/operations.md)")
	}
	announceDB(env, nil, loc) // a new machine has no database yet: restore makes it
	dbPath := loc.DSN
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
