package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
)

// leaves calls fn with the words of every command of the table ("user", "passwd") and its row.
func leaves(prefix []string, cmds []command, fn func(path []string, c command)) {
	for _, c := range cmds {
		path := append(append([]string(nil), prefix...), c.name)
		if c.sub != nil {
			leaves(path, c.sub, fn)
			continue
		}
		fn(path, c)
	}
}

// Ensure folio --help lists every command Run dispatches (the user administration commands were
// once missing), and that each one is reached by its words: its own --help succeeds.
func TestHelpListsEveryCommand(t *testing.T) {
	env, out, _ := envWith(t, map[string]string{})
	if err := Run(context.Background(), []string{"--help"}, env); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	n := 0
	leaves(nil, commands, func(path []string, c command) {
		n++
		words := strings.Join(path, " ")
		if words == defaultCommand {
			words = "[" + words + "]"
		}
		if !strings.Contains(help, "\n  folio "+strings.TrimSpace(words+" "+c.args)) {
			t.Errorf("folio --help does not list folio %s", strings.Join(path, " "))
		}
		if _, _, err := runCmd(t, env, append(path, "--help")...); err != nil {
			t.Errorf("folio %s --help: %v", strings.Join(path, " "), err)
		}
	})
	for _, want := range []string{"user passwd", "user list", "user delete", "user role", "user totp-reset", "apikey revoke", "extblog import"} {
		if !strings.Contains(help, "folio "+want) {
			t.Errorf("folio --help does not list folio %s", want)
		}
	}
	if n < 18 {
		t.Errorf("the table has %d commands", n)
	}
	for _, args := range [][]string{{"user"}, {"apikey"}, {"user", "frobnicate"}, {"frobnicate"}} {
		if _, errs, err := runCmd(t, env, args...); err != ErrUsage || !strings.Contains(errs, "Usage:\n  folio ") {
			t.Errorf("folio %s: %v\n%s", strings.Join(args, " "), err, errs)
		}
	}
	if out, _, err := runCmd(t, env, "user", "--help"); err != nil || !strings.Contains(out, "folio user totp-reset") || strings.Contains(out, "apikey") {
		t.Errorf("folio user --help: %v\n%s", err, out)
	}
}

// existingDataArgs are arguments that take each command marked existing as far as opening the
// database (a new such command needs a line here).
var existingDataArgs = map[string][]string{
	"backup":          nil,
	"export":          {"--out", "OUT/site.zip"},
	"extblog import":  nil,
	"user passwd":     {"--email", "me@example.com"},
	"user list":       nil,
	"user delete":     {"--email", "me@example.com"},
	"user role":       {"--email", "me@example.com", "--role", "editor"},
	"user totp-reset": {"--email", "me@example.com"},
	"user unlock":     {"--email", "me@example.com"},
	"apikey create":   {"--name", "scripts", "--level", "write", "--user", "me@example.com"},
	"apikey list":     nil,
	"apikey revoke":   {"0000"},
}

// Ensure every command that works on folio's data, run where there is no database (another
// folder), names the database it looked for and refuses to create one — no file, no folder —
// instead of reporting on a new, empty database ("no user has the email …").
func TestCommandsOnExistingDataRefuseToCreateADatabase(t *testing.T) {
	leaves(nil, commands, func(path []string, c command) {
		name := strings.Join(path, " ")
		args, listed := existingDataArgs[name]
		if c.existing != listed {
			t.Errorf("folio %s: existing is %v; existingDataArgs lists it: %v", name, c.existing, listed)
		}
		if !c.existing {
			return
		}
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "data")
			env, _, _ := envWith(t, map[string]string{"FOLIO_DATA_DIR": dir})
			env.Stdin = strings.NewReader(cliTestPassword + "\n")
			args := append([]string(nil), args...)
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "OUT", root)
			}
			db := filepath.Join(dir, "folio.db")
			_, errs, err := runCmd(t, env, append(path, args...)...)
			if err == nil || !strings.Contains(err.Error(), "no folio database at "+db+" (SQLite) — run from the folder you serve from, or set FOLIO_DATA_DIR or DATABASE_URL") {
				t.Errorf("error: %v", err)
			}
			if !strings.Contains(errs, "folio: database "+db+" (SQLite)\n") {
				t.Errorf("stderr does not name the database:\n%s", errs)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the command created %s: %v", dir, err)
			}
		})
	})
}

// Ensure the commands that may start a database name it too, and that once it exists the others
// work on it; on PostgreSQL, a database without folio's tables is refused the same way.
func TestCommandsNameTheirDatabase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	env, _, _ := envWith(t, map[string]string{"FOLIO_DATA_DIR": dir})
	env.Stdin = strings.NewReader(cliTestPassword + "\n")
	line := "folio: database " + filepath.Join(dir, "folio.db") + " (SQLite)\n"
	if _, errs, err := runCmd(t, env, "user", "create", "--email", "me@example.com", "--name", "Me", "--role", "owner"); err != nil || !strings.HasPrefix(errs, line) {
		t.Fatalf("user create: %v\n%s", err, errs)
	}
	for _, args := range [][]string{{"apikey", "list"}, {"user", "list"}, {"migrate"}} {
		if _, errs, err := runCmd(t, env, args...); err != nil || errs != line {
			t.Errorf("folio %s: %v, stderr %q", strings.Join(args, " "), err, errs)
		}
	}

	t.Run("postgres", func(t *testing.T) {
		dsn := foliotest.PostgresSchema(t)
		env, _, _ := envWith(t, map[string]string{"DATABASE_URL": dsn})
		_, errs, err := runCmd(t, env, "apikey", "list")
		if err == nil || !strings.Contains(err.Error(), "no folio database at ") || !strings.Contains(err.Error(), "(PostgreSQL) — check DATABASE_URL") {
			t.Errorf("apikey list on an empty schema: %v", err)
		}
		if !strings.HasPrefix(errs, "folio: database ") || !strings.Contains(errs, "(PostgreSQL)") {
			t.Errorf("stderr: %q", errs)
		}
		if _, _, err := runCmd(t, env, "migrate"); err != nil {
			t.Fatal(err)
		}
		if out, _, err := runCmd(t, env, "user", "list"); err != nil || !strings.Contains(out, "no users yet") {
			t.Errorf("user list after migrate: %v %q", err, out)
		}
	})
}
