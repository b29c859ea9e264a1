// Package sqldb is folio's one data layer. The same SQL runs on the embedded SQLite file and on
// PostgreSQL: placeholders are $1, $2… (both engines accept them), IDs are TEXT generated in Go,
// times go through ts() and Time so both engines store and compare them the same way, and the
// few differences (DSNs, unique violations, locks, migrations) live in dialect.go.
package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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

	group groupCommit
	stmts stmtCache
	hooks webhookTypes
}

// Open opens the database named by databaseURL: postgres://… (or postgresql://…) for
// PostgreSQL; anything else is an SQLite file path (an optional "sqlite:" or "file:" prefix is
// stripped). An empty URL means dataDir/folio.db.
func Open(ctx context.Context, databaseURL, dataDir string) (*DB, error) {
	db := &DB{Now: func() time.Time { return time.Now().UTC() }}
	db.openStores()
	switch {
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		db.Dialect, db.DSN = Postgres, databaseURL
		pool, err := sql.Open("pgx", databaseURL)
		if err != nil {
			return nil, fmt.Errorf("sqldb: open postgres: %w", err)
		}
		pool.SetMaxOpenConns(20)
		pool.SetMaxIdleConns(20)
		pool.SetConnMaxIdleTime(5 * time.Minute)
		db.W, db.R = pool, pool
	default:
		path := strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite:"), "file:")
		if path == "" {
			path = filepath.Join(dataDir, "folio.db")
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return nil, fmt.Errorf("sqldb: create data directory: %w", err)
		}
		db.Dialect, db.DSN = SQLite, path
		// busy_timeout first so the other pragmas never fail on a locked file.
		dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
			"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(ON)" +
			"&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_txlock=immediate"
		// The writer's page cache may grow to 8 MiB (SQLite's default is 2 MB): an analytics batch
		// reads and rewrites the rows of thousands of visitors and rollup rows spread over the
		// file, and with the default cache each batch read most of those pages back from the OS
		// (a system call a page; a tenth of the ingest CPU in the benchmark's profile). One
		// connection, so the bound is the process's. Not more: the cache is process memory that
		// fills with the database and is never given back, and at 64 MiB a 10-minute soak's
		// resident memory grew 1.40× after its first minute (bench/soak; 1.08 before), while
		// 8 MiB and 64 MiB ingested alike in bench/analytics's ingestion run.
		// The WAL is checkpointed (copied into the database file) once it holds 16,384 pages
		// (64 MiB) rather than SQLite's 1,000: a large analytics batch writes more than 1,000
		// pages, so every batch paid a checkpoint (a third of its commit), copying again the hot
		// rollup pages the next batch rewrites anyway.
		w, err := sql.Open("sqlite", dsn+"&_pragma=cache_size(-8192)&_pragma=wal_autocheckpoint(16384)")
		if err != nil {
			return nil, fmt.Errorf("sqldb: open sqlite: %w", err)
		}
		w.SetMaxOpenConns(1)
		w.SetConnMaxIdleTime(0)
		// Readers keep a small page cache each (512 KiB; SQLite's default is 2 MB): the hot rows are few,
		// the OS caches the file anyway, and eight full default caches made resident memory creep up
		// for minutes as the analytics tables grew (bench/soak).
		r, err := sql.Open("sqlite", dsn+"&mode=ro&_pragma=cache_size(-512)")
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("sqldb: open sqlite: %w", err)
		}
		r.SetMaxOpenConns(8)
		r.SetMaxIdleConns(8)
		db.W, db.R = w, r
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.W.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqldb: connect: %w", err)
	}
	db.prepareWrites(ctx)
	return db, nil
}

// Close closes both pools.
func (db *DB) Close() error {
	db.stmts.close()
	err := db.W.Close()
	if db.R != db.W {
		err = errors.Join(err, db.R.Close())
	}
	return err
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

// tx runs fn in a write transaction and commits it when fn returns nil.
//
// On SQLite, where every write goes through the one writer connection anyway, concurrent calls
// share a transaction (group commit): the first caller becomes the leader and runs every call
// queued meanwhile, each inside its own SAVEPOINT, then commits once; a call whose fn fails is
// rolled back to its savepoint alone and gets its own error, and a call returns only after the
// commit that holds its writes succeeded. The commit (the WAL append, and the periodic
// checkpoint's fsync) is the bulk of a small write's cost, so under concurrent writes this
// multiplies throughput without changing what any caller observes. A lone call runs in a
// transaction of its own, exactly as before.
func (db *DB) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if db.Dialect != SQLite {
		return db.txOnce(ctx, fn)
	}
	return db.group.run(db, ctx, fn, groupPlain)
}

// txRetryable is tx for a write whose fn may safely run more than once: its only effects are
// its statements in tx (and what they return). A group made only of such writes runs without a
// savepoint per call: savepoints cost two statements a call and make the full-text index flush a
// segment at each (FTS5 flushes its pending terms on every savepoint), so the group's index
// entries are written once, at commit. If any call of such a group fails, the whole group is
// rolled back and every call runs again in a transaction of its own, so each still gets exactly
// its own outcome.
func (db *DB) txRetryable(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if db.Dialect != SQLite {
		return db.txOnce(ctx, fn)
	}
	return db.group.run(db, ctx, fn, groupRetryable)
}

// txAlone is tx for a long write (an analytics batch, up to a second): it waits its turn like
// any other but is never grouped with other calls, which would otherwise wait for it twice —
// once while it runs and again in a group with it — and, in a failed group, run it again.
func (db *DB) txAlone(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if db.Dialect != SQLite {
		return db.txOnce(ctx, fn)
	}
	return db.group.run(db, ctx, fn, groupAlone)
}

// txOnce runs fn in a transaction of its own.
func (db *DB) txOnce(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// stmtCache keeps the prepared statements of hot queries on SQLite, where preparing a statement
// (parsing and planning it, which database/sql does on every call without one) costs as much as
// running a small query. Keys are query strings of this package — a list's filters and its LIMIT
// (1 to 100) make a few hundred of them — and the cache stops taking new ones at
// maxCachedStmts, past which a query simply runs unprepared. PostgreSQL needs none: pgx caches
// prepared statements per connection itself.
type stmtCache struct {
	mu        sync.Mutex
	m         map[stmtKey]*sql.Stmt
	analytics int // statements added by PrepareRepeated
}

// maxCachedStmts bounds stmtCache.
const maxCachedStmts = 1024

type stmtKey struct {
	pool  *sql.DB
	query string
}

// prepared returns query prepared on pool, or nil when it cannot be (the caller then runs the
// query unprepared, so a failure here never changes a result).
func (db *DB) prepared(ctx context.Context, pool *sql.DB, query string) *sql.Stmt {
	if db.Dialect != SQLite {
		return nil
	}
	c := &db.stmts
	k := stmtKey{pool, query}
	c.mu.Lock()
	st, full := c.m[k], len(c.m) >= maxCachedStmts
	c.mu.Unlock()
	if st != nil {
		return st
	}
	if full {
		return nil
	}
	st, err := pool.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[k]; old != nil {
		st.Close()
		return old
	}
	if c.m == nil {
		c.m = map[stmtKey]*sql.Stmt{}
	}
	c.m[k] = st
	return st
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, st := range c.m {
		st.Close()
		delete(c.m, k)
	}
}

// queryRow is pool.QueryRowContext through the statement cache.
func (db *DB) queryRow(ctx context.Context, pool *sql.DB, query string, args ...any) *sql.Row {
	if st := db.prepared(ctx, pool, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return pool.QueryRowContext(ctx, query, args...)
}

// query is pool.QueryContext through the statement cache.
func (db *DB) query(ctx context.Context, pool *sql.DB, query string, args ...any) (*sql.Rows, error) {
	if st := db.prepared(ctx, pool, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return pool.QueryContext(ctx, query, args...)
}

// txExec is tx.ExecContext through the statement cache (tx belongs to db.W). Writer statements
// are only taken from the cache, never prepared here: on SQLite the writer pool's one connection
// is the transaction's, so preparing on the pool now would wait for it forever. They are
// prepared up front by prepareWrites.
func (db *DB) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := db.writerStmt(query); st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// writerStmt is query's statement prepared on the writer, or nil when it was not prepared.
func (db *DB) writerStmt(query string) *sql.Stmt {
	db.stmts.mu.Lock()
	defer db.stmts.mu.Unlock()
	return db.stmts.m[stmtKey{db.W, query}]
}

// txQuery is tx.QueryContext through the statement cache, as txExec.
func (db *DB) txQuery(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	if st := db.writerStmt(query); st != nil {
		return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return tx.QueryContext(ctx, query, args...)
}

// hotWrites are the writer statements prepared once at Open (see txExec).
var hotWrites = []string{insertProject, selectWebhookEvents,
	insertSearchDocSQLite, insertSearchFTSSQLite, savepointGroupItem, releaseGroupItem, insertAuditSQLite}

// The statements around each call of a group commit (see runGroup).
const (
	savepointGroupItem = `SAVEPOINT folio_group_item`
	releaseGroupItem   = `RELEASE folio_group_item`
)

// prepareWrites prepares hotWrites on the writer pool; a statement that cannot be prepared (the
// schema is not migrated yet) is simply run unprepared.
func (db *DB) prepareWrites(ctx context.Context) {
	for _, q := range hotWrites {
		db.prepared(ctx, db.W, q)
	}
}

// maxGroup bounds how many calls one group commit holds, so one transaction stays short.
const maxGroup = 64

// groupCommit queues SQLite write transactions; see DB.tx.
type groupCommit struct {
	mu      sync.Mutex
	queue   []*pendingTx
	leading bool
	// wholeGroups counts groups committed without savepoints (runGroupWhole), for tests.
	wholeGroups atomic.Int64
}

type pendingTx struct {
	ctx  context.Context
	fn   func(tx *sql.Tx) error
	kind groupKind
	done chan error
	lead chan struct{}
}

// groupKind says how a call may share a group commit: see tx, txRetryable and txAlone.
type groupKind int

const (
	groupPlain groupKind = iota
	groupRetryable
	groupAlone
)

func (g *groupCommit) run(db *DB, ctx context.Context, fn func(tx *sql.Tx) error, kind groupKind) error {
	p := &pendingTx{ctx: ctx, fn: fn, kind: kind, done: make(chan error, 1), lead: make(chan struct{}, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, p)
	if !g.leading {
		g.leading = true
		p.lead <- struct{}{}
	}
	g.mu.Unlock()
	for {
		select {
		case err := <-p.done:
			return err
		case <-p.lead:
			// Lead one group (p's own call is in it: a caller is only made leader while queued),
			// then hand the lead to the next queued caller, so no caller waits on others' groups.
			g.mu.Lock()
			if len(g.queue) == 1 && p.kind != groupAlone {
				// Alone: let the other runnable goroutines (requests on their way to a write)
				// run first, so under load they join this group instead of each committing on
				// its own (a groupAlone call takes no one in). Without load this returns at once.
				g.mu.Unlock()
				runtime.Gosched()
				g.mu.Lock()
			}
			n := groupLen(g.queue)
			group := append([]*pendingTx(nil), g.queue[:n]...)
			g.queue = g.queue[n:]
			g.mu.Unlock()
			db.runGroup(group)
			g.mu.Lock()
			if len(g.queue) > 0 {
				g.queue[0].lead <- struct{}{}
			} else {
				g.leading = false
				g.queue = nil
			}
			g.mu.Unlock()
		}
	}
}

// runGroup runs the queued calls in one transaction and answers each.
func (db *DB) runGroup(group []*pendingTx) {
	if len(group) == 1 {
		p := group[0]
		p.done <- db.txOnce(p.ctx, p.fn)
		return
	}
	if allRetryable(group) {
		if db.runGroupWhole(group) {
			return
		}
		// A call failed (or the commit did): nothing of the group was kept, and each call runs
		// again alone for its own outcome (a panic still becomes its caller's error: this
		// goroutine leads for others).
		for _, p := range group {
			p.done <- db.txOnce(p.ctx, func(tx *sql.Tx) error { return callTx(p.fn, tx) })
		}
		return
	}
	errs := make([]error, len(group))
	fail := func(err error) {
		for i, p := range group {
			if errs[i] == nil {
				errs[i] = err
			}
			p.done <- errs[i]
		}
	}
	// The group's own statements use a context no caller can cancel; each fn still uses its own.
	bg := context.Background()
	tx, err := db.W.BeginTx(bg, nil)
	if err != nil {
		fail(err)
		return
	}
	defer tx.Rollback()
	for i, p := range group {
		if err := p.ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		if _, err := db.txExec(bg, tx, savepointGroupItem); err != nil {
			fail(err)
			return
		}
		if errs[i] = callTx(p.fn, tx); errs[i] != nil {
			// A caller's context ending mid-statement interrupts SQLite, which may roll back the
			// whole transaction: then nothing of the group can be trusted, and every call fails.
			if p.ctx.Err() != nil {
				fail(fmt.Errorf("sqldb: group commit abandoned: %w", p.ctx.Err()))
				return
			}
			if _, err := tx.ExecContext(bg, `ROLLBACK TO folio_group_item`); err != nil {
				fail(err)
				return
			}
		}
		if _, err := db.txExec(bg, tx, releaseGroupItem); err != nil {
			fail(err)
			return
		}
	}
	if err := tx.Commit(); err != nil {
		fail(err)
		return
	}
	for i, p := range group {
		p.done <- errs[i]
	}
}

// groupLen is how many calls at the head of queue form the next group: up to maxGroup, and a
// call of kind groupAlone only by itself.
func groupLen(queue []*pendingTx) int {
	if queue[0].kind == groupAlone {
		return 1
	}
	n := 1
	for n < len(queue) && n < maxGroup && queue[n].kind != groupAlone {
		n++
	}
	return n
}

func allRetryable(group []*pendingTx) bool {
	for _, p := range group {
		if p.kind != groupRetryable {
			return false
		}
	}
	return true
}

// runGroupWhole runs a group of retryable calls in one transaction without savepoints and
// answers them all when every call and the commit succeed; otherwise it rolls the transaction
// back, answers none and reports false.
func (db *DB) runGroupWhole(group []*pendingTx) bool {
	tx, err := db.W.BeginTx(context.Background(), nil)
	if err != nil {
		return false
	}
	for _, p := range group {
		if p.ctx.Err() != nil || callTx(p.fn, tx) != nil {
			// Rolled back now, not deferred: the calls run again on the one writer connection.
			tx.Rollback()
			return false
		}
	}
	if tx.Commit() != nil {
		return false
	}
	db.group.wholeGroups.Add(1)
	for _, p := range group {
		p.done <- nil
	}
	return true
}

// callTx runs fn, turning a panic into an error so one caller's bug cannot strand the others
// waiting on the group it leads.
func callTx(fn func(tx *sql.Tx) error, tx *sql.Tx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("sqldb: panic in a write transaction: %v", v)
		}
	}()
	return fn(tx)
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
