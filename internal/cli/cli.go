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
}

// ErrUsage is returned for a bad command line; main exits with status 2.
var ErrUsage = errors.New("usage")

const usage = `folio — a self-hosted backend for a portfolio site and its admin dashboard.

Usage:
  folio [serve]                         start the service (default)
  folio migrate                         apply database migrations and exit
  folio seed --demo                     fill an empty database with demo content and a few
                                        weeks of sample analytics
  folio backup [--out FILE]             copy the SQLite database safely while serving, with
                                        its signed manifest (FILE.sig)
  folio export --out FILE.zip           write posts, projects, profile and media into one zip
  folio import FILE.zip                 restore such a zip into this database (idempotent)
  folio restore SNAPSHOT                replace the SQLite database by a snapshot this
                                        instance signed (backups/…, latest, or a file)
  folio extblog import                  copy every post of the external blog into local posts
  folio user create --email E --name N --role owner|editor [--password P]
                                        add a user (password from stdin or a prompt)
  folio apikey create --name N --level read|write|admin [--user E] [--expires 720h]
                                        make an API key; prints the secret alone on line 1
  folio apikey list [--all]             list API keys
  folio apikey revoke ID                revoke an API key
  folio version                         print the version

Run "folio COMMAND --help" for a command's flags, and "folio serve --help" for every
configuration variable.
`

// Run runs the folio command with args (without the program name).
func Run(ctx context.Context, args []string, env Env) error {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	cmd := "serve"
	// "folio --help" is about the command, not about serve (whose variables are under
	// "folio serve --help").
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprint(env.Stdout, usage)
		return nil
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return runServe(ctx, args, env)
	case "migrate":
		return runMigrate(ctx, args, env)
	case "seed":
		return runSeed(ctx, args, env)
	case "backup":
		return runBackup(ctx, args, env)
	case "export":
		return runExport(ctx, args, env)
	case "import":
		return runImport(ctx, args, env)
	case "restore":
		return runRestore(ctx, args, env)
	case "extblog":
		return runExtblog(ctx, args, env)
	case "user":
		return runUser(ctx, args, env)
	case "apikey":
		return runAPIKey(ctx, args, env)
	case "version":
		fmt.Fprintln(env.Stdout, "folio", folio.Version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(env.Stdout, usage)
		return nil
	}
	fmt.Fprintf(env.Stderr, "folio: unknown command %q\n\n%s", cmd, usage)
	return ErrUsage
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

func openDB(ctx context.Context, cfg *config.Config, migrate bool, log *slog.Logger) (*sqldb.DB, error) {
	db, err := sqldb.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
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

func runMigrate(ctx context.Context, args []string, env Env) error {
	cfg, err := loadConfig("migrate", args, env, nil)
	if err != nil {
		return helpOK(err)
	}
	log := newLogger(cfg, env.Stderr)
	db, err := openDB(ctx, cfg, false, log)
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
