package sqldb

import (
	"context"
	"database/sql"
	"time"
)

// The engine hooks a store of another package (analyticsdb) builds on: the transactions of the
// group commit, the writer's statement cache and the time encoding the stores of this package
// use.

// Tx runs fn in a write transaction and commits it when fn returns nil; on SQLite concurrent
// calls share a group commit (see tx).
func (db *DB) Tx(ctx context.Context, fn func(tx *sql.Tx) error) error { return db.tx(ctx, fn) }

// TxAlone is Tx for a long write (an analytics batch): it waits its turn in the group commit but
// is never grouped with other calls (see txAlone).
func (db *DB) TxAlone(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.txAlone(ctx, fn)
}

// TxExec is tx.ExecContext through the writer's statement cache (tx is one of Tx or TxAlone).
func (db *DB) TxExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	return db.txExec(ctx, tx, query, args...)
}

// TxQuery is tx.QueryContext through the writer's statement cache, as TxExec.
func (db *DB) TxQuery(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	return db.txQuery(ctx, tx, query, args...)
}

// TS converts a time for storage as the stores of this package do: UTC with microsecond
// precision; fixed-width text on SQLite. Scan it back with Time.
func (db *DB) TS(t time.Time) any { return db.ts(t) }

// maxRepeatedStmts bounds the statements kept prepared by PrepareRepeated.
const maxRepeatedStmts = 64

// PrepareRepeated prepares, on SQLite's writer, the statements a transaction ran at least twice
// (uses counts the runs of each): the full-size chunks of multi-row statements (a chunk of 200
// page views, of 300 upserts), whose text recurs in every large batch. Parsing such a statement
// (thousands of placeholders) cost about as much as running it. Call it after the transaction
// ends (the writer's one connection is the transaction's until then). Partial chunks, whose size
// varies, stay unprepared; the count is bounded by maxRepeatedStmts.
func (db *DB) PrepareRepeated(ctx context.Context, uses map[string]int) {
	if db.Dialect != SQLite {
		return
	}
	for q, n := range uses {
		if n < 2 {
			continue
		}
		db.stmts.mu.Lock()
		_, have := db.stmts.m[stmtKey{db.W, q}]
		full := db.stmts.analytics >= maxRepeatedStmts
		if !have && !full {
			db.stmts.analytics++
		}
		db.stmts.mu.Unlock()
		if !have && !full {
			db.prepared(ctx, db.W, q)
		}
	}
}
