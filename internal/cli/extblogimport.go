package cli

import (
	"context"
	"fmt"
)

// runExtblogImport runs "folio extblog import": every post of the configured publication copied
// into local posts, idempotently.
func runExtblogImport(ctx context.Context, args []string, env Env) error {
	cfg, err := loadConfig("extblog import", args, env, nil)
	if err != nil {
		return helpOK(err)
	}
	log := newLogger(cfg, env.Stderr)
	db, err := openDB(ctx, cfg, env, true, log)
	if err != nil {
		return err
	}
	defer db.Close()
	w, err := newExtblog(cfg, db, nil, log)
	if err != nil {
		return err
	}
	sum, err := w.Publisher.ImportAll(ctx)
	if err != nil {
		return fmt.Errorf("extblog import: %w", err)
	}
	fmt.Fprintf(env.Stdout, "%d posts on the platform, %d imported or updated\n", sum.Seen, sum.Changed)
	return nil
}
