package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
)

// runUserUnlock is `folio user unlock --email E`: the way back in for an owner whose failed
// sign-ins closed the account (docs/operations.md, "Locked out"). The CLI is a process of its
// own and cannot reach a running server's memory, nor is Redis always there: it counts the unlock
// in the database instead, and the count is part of the failure limit's key (identity.Attempts),
// which every sign-in step reads with the user. So the failures counted so far stop applying at
// the next attempt, on every instance, SQLite or PostgreSQL, counts in memory or in Redis; the
// stale counts expire with their window.
func runUserUnlock(ctx context.Context, args []string, env Env) error {
	var email string
	cfg, err := loadConfig("user unlock", args, env, func(fs *flag.FlagSet) {
		fs.StringVar(&email, "email", "", "the user's email address")
	})
	if err != nil {
		return helpOK(err)
	}
	if strings.TrimSpace(email) == "" {
		return fmt.Errorf("user unlock: --email is required")
	}
	db, err := openDB(ctx, cfg, env, true, newLogger(cfg, env.Stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	u, err := db.Identity.UserByEmail(ctx, email)
	if err != nil {
		return fmt.Errorf("user unlock: %w", err)
	}
	if _, err := db.Identity.UnlockSignIn(ctx, u.ID); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "sign-in unlocked for %s: the failed attempts counted so far no longer apply, from any address, on every instance\n", u.Email)
	return nil
}
