package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// anTx is the transaction an analytics batch is written in. On PostgreSQL it is a pgx
// transaction, so the raw rows go in with COPY (one round trip and no statement to plan, where a
// multi-row INSERT of 4,000 rows × 20 columns costs the server more than the rows themselves);
// on SQLite it is the database/sql transaction with multi-row INSERTs.
type anTx interface {
	query(ctx context.Context, q string, args ...any) (anRows, error)
	exec(ctx context.Context, q string, args ...any) error
	// insertRows appends rows (each len(cols) values) to table.
	insertRows(ctx context.Context, table string, cols []string, rows [][]any) error
}

type anRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// analyticsTx runs fn in one transaction of the engine's kind.
func (db *DB) analyticsTx(ctx context.Context, fn func(tx anTx) error) error {
	if db.Dialect != Postgres {
		uses := map[string]int{}
		err := db.txAlone(ctx, func(tx *sql.Tx) error { return fn(sqlAnTx{db: db, tx: tx, uses: uses}) })
		if err == nil {
			db.prepareRepeated(ctx, uses)
		}
		return err
	}
	conn, err := db.W.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("sqldb: unexpected PostgreSQL driver connection %T", dc)
		}
		return pgx.BeginFunc(ctx, sc.Conn(), func(tx pgx.Tx) error { return fn(pgxAnTx{tx: tx}) })
	})
}

// sqlAnTx runs statements through the writer's statement cache and counts them (uses), so the
// ones a batch runs more than once get prepared for the next batches (prepareRepeated).
type sqlAnTx struct {
	db   *DB
	tx   *sql.Tx
	uses map[string]int
}

type sqlAnRows struct{ *sql.Rows }

func (t sqlAnTx) query(ctx context.Context, q string, args ...any) (anRows, error) {
	t.uses[q]++
	rows, err := t.db.txQuery(ctx, t.tx, q, args...)
	if err != nil {
		return nil, err
	}
	return sqlAnRows{rows}, nil
}

func (t sqlAnTx) exec(ctx context.Context, q string, args ...any) error {
	t.uses[q]++
	_, err := t.db.txExec(ctx, t.tx, q, args...)
	return err
}

// maxAnalyticsStmts bounds the analytics statements kept prepared.
const maxAnalyticsStmts = 64

// prepareRepeated prepares, on SQLite's writer, the statements a batch ran at least twice: the
// full-size chunks of its multi-row statements (a chunk of 200 page views, of 300 upserts),
// whose text recurs in every large batch. Parsing such a statement (thousands of placeholders)
// cost about as much as running it. Partial chunks, whose size varies, stay unprepared; the
// count is bounded by the statement kinds (and maxAnalyticsStmts).
func (db *DB) prepareRepeated(ctx context.Context, uses map[string]int) {
	for q, n := range uses {
		if n < 2 {
			continue
		}
		db.stmts.mu.Lock()
		_, have := db.stmts.m[stmtKey{db.W, q}]
		full := db.stmts.analytics >= maxAnalyticsStmts
		if !have && !full {
			db.stmts.analytics++
		}
		db.stmts.mu.Unlock()
		if !have && !full {
			db.prepared(ctx, db.W, q)
		}
	}
}

func (t sqlAnTx) insertRows(ctx context.Context, table string, cols []string, rows [][]any) error {
	per := max(1, 4000/len(cols))
	for chunk := range anChunks(rows, per) {
		args := make([]any, 0, len(cols)*len(chunk))
		for _, r := range chunk {
			args = append(args, r...)
		}
		q := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES ` + t.db.anBatchValues(len(chunk), len(cols))
		if err := t.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

type pgxAnTx struct{ tx pgx.Tx }

// pgxAnRows closes itself when exhausted (pgx rows must be closed before the next statement).
type pgxAnRows struct{ pgx.Rows }

func (t pgxAnTx) query(ctx context.Context, q string, args ...any) (anRows, error) {
	rows, err := t.tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgxAnRows{rows}, nil
}

func (t pgxAnTx) exec(ctx context.Context, q string, args ...any) error {
	_, err := t.tx.Exec(ctx, q, args...)
	return err
}

func (t pgxAnTx) insertRows(ctx context.Context, table string, cols []string, rows [][]any) error {
	_, err := t.tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	return err
}

// closeRows releases rows of either kind.
func closeRows(r anRows) {
	switch r := r.(type) {
	case sqlAnRows:
		r.Rows.Close()
	case pgxAnRows:
		r.Rows.Close()
	}
}
