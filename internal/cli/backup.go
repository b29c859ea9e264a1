package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// runBackup copies the SQLite database to a new file while the service may keep running.
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
	db, err := openDB(ctx, cfg, false, newLogger(cfg, env.Stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := ensureDir(out); err != nil {
		return err
	}
	if err := db.Backup(ctx, out); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, out)
	return nil
}

func ensureDir(file string) error {
	return os.MkdirAll(filepath.Dir(file), 0o750)
}
