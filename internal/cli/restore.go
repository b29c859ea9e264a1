package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/backup"
	"github.com/foliohq/folio/internal/sqldb"
)

// runRestore replaces the SQLite database by a snapshot: a key under backups/ in the media
// storage (as BACKUP_INTERVAL stores them; "latest" is the newest signed one) or a local file
// (as folio backup writes them). Only snapshots whose manifest this instance's secret signed
// are restored, unless the snapshot is named with --trust-unsigned.
func runRestore(ctx context.Context, args []string, env Env) error {
	snap, args := positional(args)
	var trust bool
	cfg, err := loadConfig("restore SNAPSHOT", args, env, func(fs *flag.FlagSet) {
		fs.BoolVar(&trust, "trust-unsigned", false, "restore the named snapshot without checking its signed manifest (snapshots taken before signing existed or under another NEXTAUTH_SECRET)")
	})
	if err != nil {
		return helpOK(err)
	}
	if snap == "" {
		fmt.Fprintln(env.Stderr, "folio restore: name the snapshot: a key such as backups/folio-20260101T000000.000Z.db, latest, or a file")
		return ErrUsage
	}
	if trust && snap == "latest" {
		fmt.Fprintln(env.Stderr, "folio restore: --trust-unsigned restores one snapshot you name, never latest")
		return ErrUsage
	}
	loc := sqldb.Locate(cfg.DatabaseURL, cfg.DataDir)
	if loc.Dialect != sqldb.SQLite {
		return errors.New("restore: snapshots are of the SQLite database; restore PostgreSQL with pg_restore (docs/operations.md)")
	}
	announceDB(env, nil, loc) // a new machine has no database yet: restore makes it
	dbPath := loc.DSN
	signer, err := newSigner(cfg)
	if err != nil {
		return err
	}
	var r io.ReadCloser
	var want *backup.Manifest
	refused := func(err error) error {
		if errors.Is(err, backup.ErrUnsigned) {
			return fmt.Errorf("restore: %s: %w; if you know where it comes from, restore it with folio restore %s --trust-unsigned", snap, err, snap)
		}
		return fmt.Errorf("restore: %s: %w", snap, err)
	}
	if f, err := os.Open(snap); err == nil {
		defer f.Close()
		r = f
		if !trust {
			m, err := signer.CheckFile(snap)
			if err != nil {
				return refused(err)
			}
			want = &m
		}
	} else {
		store, _, err := openMediaStore(ctx, cfg)
		if err != nil {
			return err
		}
		svc := &backup.Service{Store: store, Signer: signer}
		if snap == "latest" {
			key, m, unsigned, err := svc.Latest(ctx)
			for _, k := range unsigned {
				fmt.Fprintf(env.Stderr, "folio restore: passing over %s: no manifest signed with this instance's secret\n", k)
			}
			if folio.IsNotFound(err) && len(unsigned) > 0 {
				return fmt.Errorf("restore: %w; name one with --trust-unsigned to restore it anyway", err)
			}
			if err != nil {
				return fmt.Errorf("restore: %w", err)
			}
			snap, want = key, &m
		}
		if r, _, err = store.Get(ctx, snap); err != nil {
			return fmt.Errorf("restore: %s: %w", snap, err)
		}
		defer r.Close()
		if want == nil && !trust {
			m, err := svc.Manifest(ctx, snap)
			if err != nil {
				return refused(err)
			}
			want = &m
		}
	}
	if want != nil {
		fmt.Fprintf(env.Stdout, "restoring %s (signed, taken %s)\n", snap, want.TakenAt.Format(time.RFC3339))
	} else {
		fmt.Fprintf(env.Stdout, "restoring %s without checking its signature (--trust-unsigned)\n", snap)
	}
	if err := backup.Restore(ctx, r, dbPath, want); err != nil {
		return err
	}
	// The snapshot holds the analytics; the analytics file of the replaced database goes, and the
	// next start moves the snapshot's into a new one. Removed after the rename: a restore that
	// stops before leaves the old pair whole, and running it again finishes it.
	if err := sqldb.RemoveAnalyticsFile(dbPath); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fmt.Fprintf(env.Stdout, "restored %s into %s\n", snap, dbPath)
	return nil
}
