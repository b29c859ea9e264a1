package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/foliohq/folio/internal/archive"
)

// positional splits a leading non-flag argument (FILE in "folio import FILE --flag") from args.
func positional(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

// runExport writes the content archive (posts, projects, profile, media) to --out.
func runExport(ctx context.Context, args []string, env Env) error {
	var out string
	cfg, err := loadConfig("export", args, env, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "zip file to create (required)")
	})
	if err != nil {
		return helpOK(err)
	}
	if out == "" {
		fmt.Fprintln(env.Stderr, "folio export: --out FILE.zip is required")
		return ErrUsage
	}
	db, err := openDB(ctx, cfg, env, false, newLogger(cfg, env.Stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	store, _, err := openMediaStore(ctx, cfg)
	if err != nil {
		return err
	}
	if err := ensureDir(out); err != nil {
		return err
	}
	// Written beside the target and renamed, so a failed export never leaves a partial archive
	// under the requested name.
	tmp, err := os.CreateTemp(filepath.Dir(out), ".folio-export-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := archive.Export(ctx, db.Archive, store, tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("export: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, out)
	return nil
}

// runImport restores an archive made by export (or GET /api/export) into the configured
// database and media storage; importing it again changes nothing. Media files go through the
// upload pipeline (MEDIA_*), as uploads do.
func runImport(ctx context.Context, args []string, env Env) error {
	file, args := positional(args)
	var maxBytes int64
	cfg, err := loadConfig("import FILE.zip", args, env, func(fs *flag.FlagSet) {
		fs.Int64Var(&maxBytes, "max-bytes", archive.DefaultMaxBytes, "refuse an archive that inflates to more than this many bytes")
	})
	if err != nil {
		return helpOK(err)
	}
	if file == "" {
		fmt.Fprintln(env.Stderr, "folio import: name the archive: folio import FILE.zip")
		return ErrUsage
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	a, err := archive.Read(f, st.Size(), maxBytes)
	if err != nil {
		return err
	}
	db, err := openDB(ctx, cfg, env, true, newLogger(cfg, env.Stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	store, _, err := openMediaStore(ctx, cfg)
	if err != nil {
		return err
	}
	up, err := newUploader(cfg, store)
	if err != nil {
		return err
	}
	sum, err := a.Apply(ctx, db.Archive, up)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Fprintf(env.Stdout, "imported %d posts, %d projects, %d media files, profile: %v, settings: %v\n", sum.Posts, sum.Projects, sum.Media, sum.Profile, sum.Settings)
	if sum.Renamed > 0 {
		fmt.Fprintf(env.Stdout, "%d media files were stored under new keys (their content address); posts and projects now refer to those\n", sum.Renamed)
	}
	return nil
}
