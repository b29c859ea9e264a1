// Package sqldb is folio's one data layer. The same SQL runs on the embedded SQLite file and on
// PostgreSQL: placeholders are $1, $2… (both engines accept them; Args numbers them), IDs are TEXT
// generated in Go, and times go through ts() and Time so both engines store and compare them the
// same way.
//
// The engine (DB) is in db.go (opening either engine, times, errors), groupcommit.go (SQLite's
// shared write transactions), stmtcache.go (prepared statements on SQLite), migrate.go and
// migrations/ (the schema of each engine), notify.go (cross-instance change notices),
// hooks.go (what internal/sqldb/analyticsdb uses of it) and analyticsfile.go (SQLite's analytics
// file of its own, DB.Analytics). Each domain has a store type over the
// engine (stores.go), its SQL in a file named after the domain (post.go, project.go, search.go,
// booking*.go, webhook.go, …). The few engine differences sit beside the SQL they concern, behind
// db.Dialect.
package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
	_ "modernc.org/sqlite"             // pure-Go SQLite driver "sqlite"

	"github.com/foliohq/folio"
)

// Dialect names the database engine.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is the store. W is the writer pool (one connection on SQLite, where writes serialise anyway,
// which avoids SQLITE_BUSY); R serves reads.
type DB struct {
	W, R    *sql.DB
	Dialect Dialect
	// DSN is the connection string (PostgreSQL listeners open their own connection with it).
	DSN string
	// Now is the clock; tests pin it.
	Now func() time.Time
	// Changed, when set, is called after a commit that changed data of a scope ("projects",
	// "posts", …) so caches of rendered responses can drop what they hold.
	Changed func(scope string)

	// The domain stores over this database (stores.go).
	Posts    *PostStore
	Projects *ProjectStore
	Search   *SearchStore
	Media    *MediaStore
	Content  *ContentStore // posts, projects and search together, for the content use case
	Bookings *BookingStore
	Identity *IdentityStore
	Audit    *AuditStore
	Jobs     *JobStore
	Outbox   *OutboxStore
	Webhooks *WebhookStore
	Extblog  *ExtblogStore
	Contact  *ContactStore
	Archive  *ArchiveStore
	Settings *SettingsStore
	// Fediverse keeps the actor's key and followers; post events queue its deliveries.
	Fediverse *FediverseStore

	Subscribers *SubscriberStore // readers who follow the site by e-mail

	// an is the analytics file's engine on SQLite (see Analytics), nil elsewhere.
	an *DB

	group groupCommit
	stmts stmtCache
	hooks webhookTypes
}

// Location is where a configuration's database is: an SQLite file or a PostgreSQL URL.
type Location struct {
	Dialect Dialect
	// DSN is the SQLite file's path, or the PostgreSQL URL (which may hold a password: show
	// String instead).
	DSN string
}

// Locate resolves databaseURL as Open does: postgres://… (or postgresql://…) is PostgreSQL;
// anything else is an SQLite file path (an optional "sqlite:" or "file:" prefix is stripped). An
// empty URL means dataDir/folio.db.
func Locate(databaseURL, dataDir string) Location {
	if strings.HasPrefix(databaseURL, "postgres://") || strings.HasPrefix(databaseURL, "postgresql://") {
		return Location{Postgres, databaseURL}
	}
	path := strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite:"), "file:")
	if path == "" {
		path = filepath.Join(dataDir, "folio.db")
	}
	return Location{SQLite, path}
}

// String names the database for people, never with credentials: the SQLite file's absolute path
// (so a command run from the wrong folder shows it), or PostgreSQL's database and host.
func (l Location) String() string {
	if l.Dialect == SQLite {
		path, err := filepath.Abs(l.DSN)
		if err != nil {
			path = l.DSN
		}
		return path + " (SQLite)"
	}
	u, err := url.Parse(l.DSN)
	if err != nil {
		return "(PostgreSQL)"
	}
	return strings.TrimPrefix(u.Path, "/") + " on " + u.Host + " (PostgreSQL)"
}

// ErrNoDatabase is OpenExisting's answer where no folio database is.
var ErrNoDatabase = errors.New("sqldb: no folio database")

// Open opens the database named by databaseURL and dataDir (see Locate), creating the SQLite file
// (and its folder) when it is missing.
func Open(ctx context.Context, databaseURL, dataDir string) (*DB, error) {
	return open(ctx, Locate(databaseURL, dataDir), true)
}

// OpenExisting opens the database at loc only if it is folio's: it never creates the SQLite
// file, and it returns ErrNoDatabase when the file is missing or when either engine's database
// has no migrations table (schema_migrations) — an empty PostgreSQL database, a stray file.
func OpenExisting(ctx context.Context, loc Location) (*DB, error) {
	analyticsFile := true
	if loc.Dialect == SQLite {
		if _, err := os.Stat(loc.DSN); errors.Is(err, os.ErrNotExist) {
			return nil, ErrNoDatabase
		}
		_, err := os.Stat(AnalyticsPath(loc.DSN))
		analyticsFile = err == nil
	}
	db, err := open(ctx, loc, false)
	if err != nil {
		return nil, err
	}
	q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`
	if db.Dialect == Postgres {
		q = `SELECT CASE WHEN to_regclass('schema_migrations') IS NULL THEN 0 ELSE 1 END` // on the search_path
	}
	var n int
	if err := db.W.QueryRowContext(ctx, q).Scan(&n); err != nil || n == 0 {
		db.Close()
		if !analyticsFile {
			RemoveAnalyticsFile(loc.DSN) // opened beside a file that is not folio's: leave no trace
		}
		if err != nil {
			return nil, fmt.Errorf("sqldb: %w", err)
		}
		return nil, ErrNoDatabase
	}
	return db, nil
}

// open opens the database at loc; create allows a new SQLite file (else the writer opens it in
// mode=rw, which fails rather than create one).
func open(ctx context.Context, loc Location, create bool) (*DB, error) {
	db := &DB{Dialect: loc.Dialect, DSN: loc.DSN, Now: func() time.Time { return time.Now().UTC() }}
	db.openStores()
	switch loc.Dialect {
	case Postgres:
		pool, err := sql.Open("pgx", loc.DSN)
		if err != nil {
			return nil, fmt.Errorf("sqldb: open postgres: %w", err)
		}
		pool.SetMaxOpenConns(20)
		pool.SetMaxIdleConns(20)
		pool.SetConnMaxIdleTime(5 * time.Minute)
		db.W, db.R = pool, pool
	default:
		w, r, err := openSQLite(loc.DSN, create)
		if err != nil {
			return nil, err
		}
		db.W, db.R = w, r
		// The analytics file is created even beside an existing database (create false): an
		// install from before it existed gets it at its first start (see moveAnalytics).
		an := &DB{Dialect: SQLite, DSN: AnalyticsPath(loc.DSN), Now: func() time.Time { return db.Now() }}
		an.openStores()
		if an.W, an.R, err = openSQLite(an.DSN, true); err != nil {
			db.Close()
			return nil, err
		}
		db.an = an
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.W.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqldb: connect: %w", err)
	}
	if db.an != nil {
		if err := db.an.W.PingContext(pctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("sqldb: open the analytics file: %w", err)
		}
	}
	db.prepareWrites(ctx)
	return db, nil
}

// Close closes both pools (and the analytics file's).
func (db *DB) Close() error {
	db.stmts.close()
	err := db.W.Close()
	if db.R != db.W {
		err = errors.Join(err, db.R.Close())
	}
	if db.an != nil {
		err = errors.Join(err, db.an.Close())
	}
	return err
}

// openSQLite opens the writer (one connection) and reader pools of the SQLite file at path;
// create allows a new file (else the writer opens it in mode=rw, which fails rather than create
// one).
func openSQLite(path string, create bool) (w, r *sql.DB, err error) {
	writerMode := ""
	if create {
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return nil, nil, fmt.Errorf("sqldb: create data directory: %w", err)
		}
	} else {
		writerMode = "&mode=rw"
	}
	// busy_timeout first so the other pragmas never fail on a locked file.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(ON)" +
		"&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_txlock=immediate"
	// The writer's page cache may grow to 8 MiB, enough for an analytics batch's pages and no
	// more (the cache is never given back); the WAL is checkpointed at 16,384 pages so a large
	// batch does not pay a checkpoint each. Measurements: docs/performance.md, "Storage".
	w, err = sql.Open("sqlite", dsn+writerMode+"&_pragma=cache_size(-8192)&_pragma=wal_autocheckpoint(16384)")
	if err != nil {
		return nil, nil, fmt.Errorf("sqldb: open sqlite: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	// Readers keep a small page cache each (512 KiB): the hot rows are few and the OS caches
	// the file anyway.
	r, err = sql.Open("sqlite", dsn+"&mode=ro&_pragma=cache_size(-512)")
	if err != nil {
		w.Close()
		return nil, nil, fmt.Errorf("sqldb: open sqlite: %w", err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	return w, r, nil
}

// Ping checks that the database answers (for /readyz).
func (db *DB) Ping(ctx context.Context) error {
	return db.W.PingContext(ctx)
}

func (db *DB) changed(scope string) {
	if db.Changed != nil {
		db.Changed(scope)
	}
}

// ts converts a time for storage: UTC with microsecond precision (what PostgreSQL keeps). SQLite
// gets a fixed-width text form, so that text comparison orders times correctly.
func (db *DB) ts(t time.Time) any {
	t = t.UTC().Truncate(time.Microsecond)
	if db.Dialect == SQLite {
		return t.Format(sqliteTime)
	}
	return t
}

// nts is ts for an optional time: nil stores NULL.
func (db *DB) nts(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return db.ts(*t)
}

const sqliteTime = "2006-01-02T15:04:05.000000Z"

// Time scans a time stored by ts from either engine. A NULL leaves it zero.
type Time struct{ time.Time }

// Scan implements sql.Scanner.
func (t *Time) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		t.Time = time.Time{}
	case time.Time:
		t.Time = v.UTC()
	case string:
		return t.parse(v)
	case []byte:
		return t.parse(string(v))
	default:
		return fmt.Errorf("sqldb: cannot scan %T into a time", src)
	}
	return nil
}

func (t *Time) parse(s string) error {
	for _, layout := range []string{sqliteTime, time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05"} {
		if v, err := time.Parse(layout, s); err == nil {
			t.Time = v.UTC()
			return nil
		}
	}
	return fmt.Errorf("sqldb: unparseable time %q", s)
}

// Ptr returns nil for a NULL time.
func (t Time) Ptr() *time.Time {
	if t.IsZero() {
		return nil
	}
	v := t.Time
	return &v
}

// isUniqueViolation reports whether err is a unique-constraint violation on either engine.
func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	// pgx reports SQLSTATE 23505; SQLite reports "UNIQUE constraint failed" (extended code 2067).
	return strings.Contains(s, "SQLSTATE 23505") || strings.Contains(s, "UNIQUE constraint failed")
}

// notFound is the error of a missing row.
func notFound(what, id string) error {
	return folio.Errorf(folio.ENOTFOUND, "%s %q was not found.", what, id)
}

// escapeLike escapes the LIKE wildcards of a user's search text (used with ESCAPE '\').
func escapeLike(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}
