package cli

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/term"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/ratelimit"
	"github.com/foliohq/folio/internal/sqldb"
)

const userUsage = `Usage:
  folio user create --email E --name N --role owner|editor [--password P]
  folio user passwd --email E        set a new password (ends every session of the user)
  folio user list                    list the users
  folio user delete --email E        remove a user, their API keys and sessions
  folio user role --email E --role owner|editor
                                     change a user's role (ends their sessions)
  folio user totp-reset --email E    turn two-factor sign-in off (a lost phone)

Passwords are read from standard input (first line) when it is not a terminal, or asked for at
a prompt; create's --password still works but shows up in ps and shell history.
`

func runUser(ctx context.Context, args []string, env Env) error {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, userUsage)
		return ErrUsage
	}
	switch args[0] {
	case "create":
		return runUserCreate(ctx, args[1:], env)
	case "passwd", "list", "delete", "role", "totp-reset":
		return runUserAdmin(ctx, args[0], args[1:], env)
	}
	fmt.Fprint(env.Stderr, userUsage)
	return ErrUsage
}

func runUserCreate(ctx context.Context, args []string, env Env) error {
	var in folio.UserInput
	var role string
	var passwordSet bool
	cfg, err := loadConfig("user create", args, env, func(fs *flag.FlagSet) {
		fs.StringVar(&in.Email, "email", "", "the user's email address (their sign-in name)")
		fs.StringVar(&in.Name, "name", "", "the user's display name")
		fs.StringVar(&role, "role", "", "owner (every permission) or editor (articles and projects)")
		fs.Func("password", "the password (prefer standard input or the prompt: arguments show up in ps and shell history)", func(s string) error {
			in.Password, passwordSet = s, true
			return nil
		})
	})
	if err != nil {
		return helpOK(err)
	}
	in.Role = folio.Role(role)
	if !passwordSet {
		if in.Password, err = readPassword(env); err != nil {
			return err
		}
	}
	if err := in.Validate(); err != nil {
		return validationError("user create", err)
	}
	log := newLogger(cfg, env.Stderr)
	db, err := openDB(ctx, cfg, true, log)
	if err != nil {
		return err
	}
	defer db.Close()
	hash, err := auth.HashPassword(in.Password)
	if err != nil {
		return err
	}
	u, err := db.Identity.CreateUser(ctx, &in, hash)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "created %s %s (id %s)\n", u.Role, u.Email, u.ID)
	if in.WeakPassword() {
		fmt.Fprintf(env.Stderr, "warning: the password is shorter than %d characters; change it with `folio user passwd --email %s`\n",
			folio.MinPasswordLen, u.Email)
	}
	return nil
}

// runUserAdmin runs passwd, list, delete, role and totp-reset. Their changes reach running
// servers at once on PostgreSQL (the change notification) and within the session cache's few
// seconds on SQLite.
func runUserAdmin(ctx context.Context, cmd string, args []string, env Env) error {
	var email, role string
	cfg, err := loadConfig("user "+cmd, args, env, func(fs *flag.FlagSet) {
		if cmd != "list" {
			fs.StringVar(&email, "email", "", "the user's email address")
		}
		if cmd == "role" {
			fs.StringVar(&role, "role", "", "owner or editor")
		}
	})
	if err != nil {
		return helpOK(err)
	}
	if cmd != "list" && strings.TrimSpace(email) == "" {
		return fmt.Errorf("user %s: --email is required", cmd)
	}
	var password string
	if cmd == "passwd" {
		if password, err = readPassword(env); err != nil {
			return err
		}
		var fe *folio.Error
		if err := folio.ValidatePassword(password); errors.As(err, &fe) && len(fe.Details) > 0 {
			return fmt.Errorf("user passwd: the password %s", fe.Details[0].Message)
		}
	}
	if cmd == "role" && !folio.Role(role).Valid() {
		return errors.New("user role: --role must be owner or editor")
	}
	log := newLogger(cfg, env.Stderr)
	db, err := openDB(ctx, cfg, true, log)
	if err != nil {
		return err
	}
	defer db.Close()
	// Tell running instances (PostgreSQL) to drop their cached copy of the user.
	db.Changed = func(scope string) {
		if err := db.Notify(ctx, scope); err != nil {
			log.Warn("could not notify running servers; they pick the change up within seconds", "error", err.Error())
		}
	}
	if cmd == "list" {
		users, err := db.Identity.Users(ctx)
		if err != nil {
			return err
		}
		if len(users) == 0 {
			fmt.Fprintln(env.Stdout, "no users yet: create one with `folio user create`")
			return nil
		}
		fmt.Fprintf(env.Stdout, "%-36s  %-6s  %-4s  %-20s  %s\n", "ID", "ROLE", "2FA", "CREATED", "EMAIL (NAME)")
		for _, u := range users {
			tfa := "off"
			if u.TOTPEnabled {
				tfa = "on"
			}
			fmt.Fprintf(env.Stdout, "%-36s  %-6s  %-4s  %-20s  %s (%s)\n", u.ID, u.Role, tfa, u.CreatedAt.UTC().Format(time.RFC3339), u.Email, u.Name)
		}
		return nil
	}
	u, err := db.Identity.UserByEmail(ctx, email)
	if err != nil {
		return fmt.Errorf("user %s: %w", cmd, err)
	}
	switch cmd {
	case "passwd":
		hash, err := auth.HashPassword(password)
		if err != nil {
			return err
		}
		if _, err := db.Identity.ChangePassword(ctx, u.ID, hash, ""); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "password of %s changed; every session of theirs has ended\n", u.Email)
	case "delete":
		if err := db.Identity.DeleteUser(ctx, u.ID); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "deleted %s, with their API keys and sessions\n", u.Email)
	case "role":
		if err := db.Identity.SetUserRole(ctx, u.ID, folio.Role(role)); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s is now %s; their sessions have ended\n", u.Email, role)
	case "totp-reset":
		if err := db.Identity.DisableTOTP(ctx, u.ID); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "two-factor sign-in is off for %s; they sign in with their password and can set it up again\n", u.Email)
	}
	return nil
}

// readPassword takes the password from standard input: the first line when it is not a terminal
// (a pipe or a file), else a prompt without echo, asked twice.
func readPassword(env Env) (string, error) {
	if f, ok := env.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(env.Stderr, "Password: ")
		p1, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(env.Stderr)
		if err != nil {
			return "", fmt.Errorf("reading the password: %w", err)
		}
		fmt.Fprint(env.Stderr, "Again: ")
		p2, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(env.Stderr)
		if err != nil {
			return "", fmt.Errorf("reading the password: %w", err)
		}
		if string(p1) != string(p2) {
			return "", errors.New("the passwords do not match")
		}
		return string(p1), nil
	}
	if env.Stdin == nil {
		return "", nil
	}
	line, err := bufio.NewReader(io.LimitReader(env.Stdin, folio.MaxPasswordLen+2)).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("reading the password from standard input: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// validationError turns a *folio.Error from Validate into a message naming every field, the way
// a command line reads best.
func validationError(cmd string, err error) error {
	var fe *folio.Error
	if !errors.As(err, &fe) || len(fe.Details) == 0 {
		return err
	}
	var parts []string
	for _, d := range fe.Details {
		parts = append(parts, "--"+d.Field+" "+d.Message)
	}
	return fmt.Errorf("%s: %s", cmd, strings.Join(parts, "; "))
}

// wireIdentity sets up sign-in and rate limiting for serve: the session secret (generated into
// the data directory in development when NEXTAUTH_SECRET is unset), the first-start owner from
// FOLIO_ADMIN_EMAIL and FOLIO_ADMIN_PASSWORD, the Identity as the server's Authenticator, and
// the Redis limiter when rdb is not nil. The returned function flushes API keys' last-use times
// until its context ends.
func wireIdentity(ctx context.Context, cfg *config.Config, db *sqldb.DB, srv *httpapi.Server, rdb *redis.Client, log *slog.Logger) (run func(context.Context), err error) {
	secret := cfg.NextAuthSecret
	if secret == "" {
		// config refuses production without NEXTAUTH_SECRET, so this is development.
		path := filepath.Join(cfg.DataDir, "nextauth.secret")
		if secret, err = loadOrCreateSecret(path); err != nil {
			return nil, err
		}
		log.Warn("NEXTAUTH_SECRET is not set: using a generated secret kept in the data directory; "+
			"set NEXTAUTH_SECRET to share sessions with a Next.js front end or other instances", "path", path)
	}
	if err := bootstrapOwner(ctx, cfg, db, log); err != nil {
		return nil, err
	}
	id, err := httpapi.NewIdentity(db.Identity, httpapi.IdentityConfig{Secret: secret, BaseURL: cfg.NextAuthURL,
		AllowedOrigins: cfg.CORSAllowedOrigins, Logger: log})
	if err != nil {
		return nil, err
	}
	srv.Auth, srv.Identity, srv.CORSAllowedOrigins = id, id, cfg.CORSAllowedOrigins
	if rdb != nil {
		srv.Limiter = ratelimit.NewRedis(rdb, "folio:ratelimit:")
		log.Info("rate limits are shared through Redis")
	}
	return func(ctx context.Context) { id.Run(ctx, httpapi.DefaultUsageFlush) }, nil
}

// loadOrCreateSecret reads the secret kept at path, or creates it (256 random bits, mode 0600).
// Two instances starting at once on one data directory end up with the same secret.
func loadOrCreateSecret(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return "", fmt.Errorf("creating the data directory: %w", err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	secret := base64.RawURLEncoding.EncodeToString(b[:])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		b, rerr := os.ReadFile(path)
		if rerr != nil || len(strings.TrimSpace(string(b))) < 32 {
			return "", fmt.Errorf("%s exists but does not hold a usable secret; delete it or set NEXTAUTH_SECRET", path)
		}
		return strings.TrimSpace(string(b)), nil
	}
	if err != nil {
		return "", fmt.Errorf("writing the session secret: %w", err)
	}
	if _, err := f.WriteString(secret + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("writing the session secret: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("writing the session secret: %w", err)
	}
	return secret, nil
}

// bootstrapOwner creates the owner of FOLIO_ADMIN_EMAIL and FOLIO_ADMIN_PASSWORD when no user
// exists yet (and does nothing once one does, so the variables can stay set).
func bootstrapOwner(ctx context.Context, cfg *config.Config, db *sqldb.DB, log *slog.Logger) error {
	if cfg.AdminEmail == "" && cfg.AdminPassword == "" {
		return nil // announceStart says how to make the first user when there is none
	}
	if cfg.AdminEmail == "" || cfg.AdminPassword == "" {
		return errors.New("config: FOLIO_ADMIN_EMAIL and FOLIO_ADMIN_PASSWORD must be set together")
	}
	if n, err := db.Identity.CountUsers(ctx); err != nil || n > 0 {
		return err
	}
	name, _, _ := strings.Cut(cfg.AdminEmail, "@")
	in := folio.UserInput{Email: cfg.AdminEmail, Name: name, Role: folio.RoleOwner, Password: cfg.AdminPassword}
	if err := in.Validate(); err != nil {
		return fmt.Errorf("config: FOLIO_ADMIN_EMAIL/FOLIO_ADMIN_PASSWORD: %w", validationError("serve", err))
	}
	hash, err := auth.HashPassword(in.Password)
	if err != nil {
		return err
	}
	u, err := db.Identity.CreateFirstUser(ctx, &in, hash)
	if err != nil {
		return err
	}
	if u != nil {
		log.Info("created the first owner from FOLIO_ADMIN_EMAIL", "email", u.Email, "user_id", u.ID)
		if in.WeakPassword() {
			log.Warn("FOLIO_ADMIN_PASSWORD is shorter than the 12 characters a password change requires; change it in the dashboard (Settings → Security)", "email", u.Email)
		}
	}
	return nil
}
