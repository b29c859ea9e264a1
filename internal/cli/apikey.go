package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/sqldb"
)

func apikeyCreate(ctx context.Context, args []string, env Env) error {
	var in folio.APIKeyInput
	var email string
	var expires time.Duration
	cfg, err := loadConfig("apikey create", args, env, func(fs *flag.FlagSet) {
		fs.StringVar(&in.Name, "name", "", "what the key is for (shown in lists)")
		fs.StringVar(&in.Level, "level", "", "read, write or admin")
		fs.StringVar(&email, "user", "", "email of the user the key acts for (default: the only owner)")
		fs.DurationVar(&expires, "expires", 0, "lifetime such as 720h (default: never expires)")
	})
	if err != nil {
		return helpOK(err)
	}
	now := time.Now()
	if expires < 0 {
		return errors.New("apikey create: --expires must be positive")
	}
	if expires > 0 {
		at := now.Add(expires).UTC().Format(time.RFC3339)
		in.ExpiresAt = &at
	}
	if err := in.Validate(now.Add(-time.Second)); err != nil {
		return validationError("apikey create", err)
	}
	db, err := openDB(ctx, cfg, env, true, newLogger(cfg, env.Stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	user, err := keyOwner(ctx, db, email)
	if err != nil {
		return err
	}
	level, _ := folio.ParseLevel(in.Level)
	if level > user.Role.Level() {
		return fmt.Errorf("apikey create: %s is an %s, whose keys act at most at level %s", user.Email, user.Role, user.Role.Level())
	}
	secret, prefix, hash := auth.MintAPIKey()
	k := &folio.APIKey{UserID: user.ID, Name: in.Name, Level: level, Prefix: prefix, ExpiresAt: in.Expiry()}
	if err := db.Identity.CreateAPIKey(ctx, k, hash); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, secret)
	exp := "never"
	if k.ExpiresAt != nil {
		exp = k.ExpiresAt.Format(time.RFC3339)
	}
	fmt.Fprintf(env.Stderr, "created %s key %q (id %s, prefix %s) for %s; expires %s.\nThe secret above is shown this once: store it now.\n",
		k.Level, k.Name, k.ID, k.Prefix, user.Email, exp)
	return nil
}

// keyOwner finds the user a new key acts for: by email, or the only owner.
func keyOwner(ctx context.Context, db *sqldb.DB, email string) (*folio.User, error) {
	if email != "" {
		u, err := db.Identity.UserByEmail(ctx, email)
		if folio.IsNotFound(err) {
			return nil, fmt.Errorf("apikey create: no user has the email %q (folio user create adds one)", email)
		}
		return u, err
	}
	users, err := db.Identity.Users(ctx)
	if err != nil {
		return nil, err
	}
	var owners []*folio.User
	for _, u := range users {
		if u.Role == folio.RoleOwner {
			owners = append(owners, u)
		}
	}
	switch len(owners) {
	case 1:
		return owners[0], nil
	case 0:
		return nil, errors.New("apikey create: there is no owner yet; run folio user create --role owner first, or pass --user EMAIL")
	}
	return nil, errors.New("apikey create: there are several owners; say which with --user EMAIL")
}

func apikeyList(ctx context.Context, args []string, env Env) error {
	var all bool
	cfg, err := loadConfig("apikey list", args, env, func(fs *flag.FlagSet) {
		fs.BoolVar(&all, "all", false, "include revoked keys")
	})
	if err != nil {
		return helpOK(err)
	}
	db, err := openDB(ctx, cfg, env, true, newLogger(cfg, env.Stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	keys, err := db.Identity.APIKeys(ctx, all)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tLEVEL\tPREFIX\tUSER\tCREATED\tEXPIRES\tLAST USED\tREVOKED")
	ts := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return t.UTC().Format(time.RFC3339)
	}
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, strings.ReplaceAll(k.Name, "\t", " "), k.Level, k.Prefix,
			k.UserEmail, ts(&k.CreatedAt), ts(k.ExpiresAt), ts(k.LastUsedAt), ts(k.RevokedAt))
	}
	return tw.Flush()
}

func apikeyRevoke(ctx context.Context, args []string, env Env) error {
	var id string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		id, args = args[0], args[1:]
	}
	cfg, err := loadConfig("apikey revoke", args, env, nil)
	if err != nil {
		return helpOK(err)
	}
	if id == "" {
		fmt.Fprintln(env.Stderr, "folio apikey revoke: name the key: folio apikey revoke ID (the ID column of folio apikey list)")
		return ErrUsage
	}
	log := newLogger(cfg, env.Stderr)
	db, err := openDB(ctx, cfg, env, true, log)
	if err != nil {
		return err
	}
	defer db.Close()
	// Tell running instances to drop their cached copy of the key (PostgreSQL; on SQLite they see
	// the commit itself).
	db.Changed = func(scope string) {
		if err := db.Notify(ctx, scope); err != nil {
			log.Warn("could not notify running servers; they pick the revocation up within seconds", "error", err.Error())
		}
	}
	if err := db.Identity.RevokeAPIKey(ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "revoked %s\n", id)
	return nil
}
