// Package cli is the folio command: it parses arguments and configuration, wires the parts
// together and runs the chosen subcommand. cmd/folio only calls Run.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/sqldb"
)

// Env is what the command sees of its process: arguments aside, the environment and the
// standard streams. Tests run the whole program in-process through it.
type Env struct {
	Getenv func(string) string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Ready, when set, receives the address serve listens on once it accepts connections.
	Ready func(addr string)
	// DotenvPath is the optional .env file ("" skips it).
	DotenvPath string

	// Set by Run from the command's row: its name ("user create") and whether it refuses to
	// create a database (openDB).
	command    string
	existingDB bool
}

// ErrUsage is returned for a bad command line; main exits with status 2.
var ErrUsage = errors.New("usage")

// ErrorLine is the line main prints for an error Run returns: "folio: " and the error. The text
// of a folio.Error in it starts with "folio: " too, which would print twice ("folio: folio:
// VALIDATION_ERROR: …"), so that part is written as its code and message alone, and without a
// field detail that only repeats the message.
func ErrorLine(err error) string {
	msg := err.Error()
	var fe *folio.Error
	if errors.As(err, &fe) {
		text := fe.Code + ": " + fe.Message
		if len(fe.Details) > 0 && fe.Details[0].Message != fe.Message {
			text += " (" + fe.Details[0].Field + ": " + fe.Details[0].Message + ")"
		}
		msg = strings.Replace(msg, fe.Error(), text, 1)
	}
	return "folio: " + msg
}

// command is one row of the command table: Run dispatches by it and --help is printed from it, so
// a command cannot exist without being listed.
type command struct {
	name    string // the word after "folio", or after its group's word
	args    string // its arguments, as the help shows them
	summary string
	run     func(ctx context.Context, args []string, env Env) error
	// existing marks a command that works on folio's data: it refuses to create a database
	// where there is none (run from another folder, it would otherwise make a new, empty one).
	existing bool
	// sub makes the row a group (folio user …): its commands, and note under their usage.
	sub  []command
	note string
}

// defaultCommand runs when no command is named (folio, folio --addr …).
const defaultCommand = "serve"

// commands is every command of folio.
var commands = []command{
	{name: "serve", summary: "start the service (the default)", run: runServe},
	{name: "migrate", summary: "apply database migrations and exit", run: runMigrate},
	{name: "seed", args: "--demo", summary: "add demo content and sample analytics to an empty database", run: runSeed},
	{name: "backup", args: "[--out FILE]", summary: "copy the SQLite database safely while serving, with its signed manifest (FILE.sig)", run: runBackup, existing: true},
	{name: "export", args: "--out FILE.zip", summary: "write posts, projects, profile and media into one zip", run: runExport, existing: true},
	{name: "import", args: "FILE.zip", summary: "restore such a zip into this database (idempotent)", run: runImport},
	{name: "restore", args: "SNAPSHOT", summary: "replace the SQLite database by a snapshot this instance signed (latest, backups/…, a file)", run: runRestore},
	{name: "extblog", sub: []command{
		{name: "import", summary: "copy the external blog's posts into local posts (idempotent)", run: runExtblogImport, existing: true},
	}},
	{name: "user", sub: []command{
		{name: "create", args: "--email E --name N --role owner|editor", summary: "add a user; asks for the password (or reads standard input)", run: runUserCreate},
		{name: "passwd", args: "--email E", summary: "set a new password; ends every session of the user", run: userAdmin("passwd"), existing: true},
		{name: "list", summary: "list the users", run: userAdmin("list"), existing: true},
		{name: "delete", args: "--email E", summary: "remove a user, their API keys and sessions", run: userAdmin("delete"), existing: true},
		{name: "role", args: "--email E --role owner|editor", summary: "change a user's role (ends their sessions)", run: userAdmin("role"), existing: true},
		{name: "totp-reset", args: "--email E", summary: "turn two-factor sign-in off (a lost phone)", run: userAdmin("totp-reset"), existing: true},
		{name: "unlock", args: "--email E", summary: "clear the account's sign-in failure limit (a locked-out owner)", run: runUserUnlock, existing: true},
	}, note: `Passwords have 12 characters or more. They are read from standard input (the first line) when it
is not a terminal, or asked for at a prompt; create's --password P works too but shows up in ps and
shell history. Changes reach running servers at once.`},
	{name: "apikey", sub: []command{
		{name: "create", args: "--name N --level read|write|admin [--user E] [--expires 720h]", summary: "make an API key; prints the secret alone on line 1", run: apikeyCreate, existing: true},
		{name: "list", args: "[--all]", summary: "list API keys (--all: revoked ones too)", run: apikeyList, existing: true},
		{name: "revoke", args: "ID", summary: "revoke an API key; running servers refuse it at once", run: apikeyRevoke, existing: true},
	}, note: `create prints the secret alone on the first line of standard output (KEY=$(folio apikey create …)),
and the key's details on standard error. The secret is shown this once. --user defaults to the
only owner when there is exactly one.`},
	{name: "version", summary: "print the version", run: runVersion},
}

const (
	usageHead = "folio — a self-hosted backend for a portfolio site and its admin dashboard.\n\n"
	usageFoot = `
Every command names the database it opens on standard error; the ones that work on existing data
refuse to create one. Run "folio COMMAND --help" for a command's flags, and "folio serve --help"
for every configuration variable.
`
)

// usage prints the synopsis of cmds, a group's under prefix ("folio user").
func usage(w io.Writer, prefix string, cmds []command) {
	fmt.Fprintln(w, "Usage:")
	synopsis(w, prefix, cmds)
}

// synopsis prints one line per command of cmds, a group's nested in place.
func synopsis(w io.Writer, prefix string, cmds []command) {
	const column = 38
	for _, c := range cmds {
		if c.sub != nil {
			synopsis(w, prefix+" "+c.name, c.sub)
			continue
		}
		name := c.name
		if prefix == "folio" && name == defaultCommand {
			name = "[" + name + "]"
		}
		line := strings.TrimSpace(prefix + " " + name + " " + c.args)
		if len(line) < column {
			fmt.Fprintf(w, "  %-*s%s\n", column, line, c.summary)
		} else {
			fmt.Fprintf(w, "  %s\n  %-*s%s\n", line, column, "", c.summary)
		}
	}
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, usageHead)
	usage(w, "folio", commands)
	fmt.Fprint(w, usageFoot)
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// Run runs the folio command with args (without the program name).
func Run(ctx context.Context, args []string, env Env) error {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	// "folio --help" is about the command, not about serve (whose variables are under
	// "folio serve --help"); flags alone are serve's.
	if len(args) > 0 && isHelp(args[0]) {
		printUsage(env.Stdout)
		return nil
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		args = append([]string{defaultCommand}, args...)
	}
	prefix, cmds := "folio", commands
	for {
		i := slices.IndexFunc(cmds, func(c command) bool { return c.name == args[0] })
		if i < 0 {
			fmt.Fprintf(env.Stderr, "%s: unknown command %q\n\n", prefix, args[0])
			if prefix == "folio" {
				printUsage(env.Stderr)
			} else {
				usage(env.Stderr, prefix, cmds)
			}
			return ErrUsage
		}
		c := cmds[i]
		prefix, args = prefix+" "+c.name, args[1:]
		if c.sub == nil {
			env.command, env.existingDB = strings.TrimPrefix(prefix, "folio "), c.existing
			return c.run(ctx, args, env)
		}
		if len(args) == 0 || isHelp(args[0]) { // "folio user" is a usage error, "folio user --help" a question
			asked := len(args) > 0
			w := env.Stderr
			if asked {
				w = env.Stdout
			}
			usage(w, prefix, c.sub)
			if c.note != "" {
				fmt.Fprintf(w, "\n%s\n", c.note)
			}
			if !asked {
				return ErrUsage
			}
			return nil
		}
		cmds = c.sub
	}
}

func runVersion(_ context.Context, _ []string, env Env) error {
	fmt.Fprintln(env.Stdout, "folio", folio.Version)
	return nil
}

// loadConfig parses flags common to every subcommand (only --help for now) and the config.
func loadConfig(name string, args []string, env Env, extra func(fs *flag.FlagSet)) (*config.Config, error) {
	fs := flag.NewFlagSet("folio "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	if extra != nil {
		extra(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(env.Stdout, "Usage: folio %s [flags]\n\n", name)
		fs.SetOutput(env.Stdout)
		fs.PrintDefaults()
		fmt.Fprintln(env.Stdout)
		config.Help(env.Stdout)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, flag.ErrHelp
		}
		return nil, ErrUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "folio %s: unexpected argument %q\n", name, fs.Arg(0))
		return nil, ErrUsage
	}
	return config.Load(env.Getenv, env.DotenvPath)
}

func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	switch logFormat(cfg, w) {
	case "human":
		return slog.New(newHumanHandler(w, level))
	case "text":
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// openDB opens the configured database and names it on stderr (serve, whose stderr is its log, in
// a log record), applying migrations when migrate is set. A command marked existing gets an
// error, not a new database, where there is none.
func openDB(ctx context.Context, cfg *config.Config, env Env, migrate bool, log *slog.Logger) (*sqldb.DB, error) {
	loc := sqldb.Locate(cfg.DatabaseURL, cfg.DataDir)
	announceDB(env, log, loc)
	var db *sqldb.DB
	var err error
	if env.existingDB {
		db, err = sqldb.OpenExisting(ctx, loc)
	} else {
		db, err = sqldb.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	}
	if errors.Is(err, sqldb.ErrNoDatabase) {
		hint := "run from the folder you serve from, or set FOLIO_DATA_DIR or DATABASE_URL"
		if loc.Dialect == sqldb.Postgres {
			hint = "check DATABASE_URL, or set the database up with folio migrate"
		}
		return nil, fmt.Errorf("no folio database at %s — %s", loc, hint)
	}
	if err != nil {
		return nil, err
	}
	if migrate {
		applied, err := db.Migrate(ctx)
		if err != nil {
			db.Close()
			return nil, err
		}
		if len(applied) > 0 {
			log.Info("applied migrations", "migrations", applied)
		}
	}
	return db, nil
}

// announceDB names the database a command works on, so one run from the wrong folder shows it.
func announceDB(env Env, log *slog.Logger, loc sqldb.Location) {
	if env.command == "serve" {
		log.Info("using the database", "database", loc.String())
		return
	}
	fmt.Fprintf(env.Stderr, "folio: database %s\n", loc)
}

func runMigrate(ctx context.Context, args []string, env Env) error {
	cfg, err := loadConfig("migrate", args, env, nil)
	if err != nil {
		return helpOK(err)
	}
	log := newLogger(cfg, env.Stderr)
	db, err := openDB(ctx, cfg, env, false, log)
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := db.Migrate(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "applied %d migration(s) on %s\n", len(applied), db.Dialect)
	for _, a := range applied {
		fmt.Fprintln(env.Stdout, "  "+a)
	}
	return nil
}

// helpOK turns a --help request into success.
func helpOK(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}
