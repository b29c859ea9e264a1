package sqldb

import (
	"context"
	"database/sql"
	"sync"
)

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

// prepareWrites prepares hotWrites on the writer pool; a statement that cannot be prepared (the
// schema is not migrated yet) is simply run unprepared.
func (db *DB) prepareWrites(ctx context.Context) {
	for _, q := range hotWrites {
		db.prepared(ctx, db.W, q)
	}
}
