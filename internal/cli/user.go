package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
)

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
	db, err := openDB(ctx, cfg, env, true, log)
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
	return nil
}

// userAdmin is the command that runs passwd, list, delete, role or totp-reset (cmd).
func userAdmin(cmd string) func(context.Context, []string, Env) error {
	return func(ctx context.Context, args []string, env Env) error { return runUserAdmin(ctx, cmd, args, env) }
}

// runUserAdmin runs passwd, list, delete, role and totp-reset. Their changes reach running
// servers at once: on PostgreSQL through the change notification, on SQLite because servers watch
// the file for other processes' commits (sqldb.DB.Listen).
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
		if err := folio.ValidatePassword(password); err != nil {
			return validationError("user passwd", err)
		}
	}
	if cmd == "role" && !folio.Role(role).Valid() {
		return errors.New("user role: --role must be owner or editor")
	}
	log := newLogger(cfg, env.Stderr)
	db, err := openDB(ctx, cfg, env, true, log)
	if err != nil {
		return err
	}
	defer db.Close()
	// Tell running instances to drop their cached copy of the user (PostgreSQL; on SQLite they see
	// the commit itself).
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

// validationError turns a *folio.Error from Validate into a message naming every field the way a
// command line reads best: a flag by its name (--email), the password as "the password" — it is
// typed at a prompt or piped, so the reader may have used no flag.
func validationError(cmd string, err error) error {
	var fe *folio.Error
	if !errors.As(err, &fe) || len(fe.Details) == 0 {
		return err
	}
	var parts []string
	for _, d := range fe.Details {
		switch {
		case d.Field != "password":
			parts = append(parts, "--"+d.Field+" "+d.Message)
		case d.Message != "is required":
			parts = append(parts, "the password "+d.Message)
		default:
			parts = append(parts, "the password is required: type it at the prompt, or give it as the first line of standard input")
		}
	}
	return fmt.Errorf("%s: %s", cmd, strings.Join(parts, "; "))
}
