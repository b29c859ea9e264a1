package analyticsdb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/foliohq/folio/internal/sqldb"
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
func (s *Store) analyticsTx(ctx context.Context, fn func(tx anTx) error) error {
	if s.db.Dialect != sqldb.Postgres {
		uses := map[string]int{}
		err := s.db.TxAlone(ctx, func(tx *sql.Tx) error { return fn(sqlAnTx{s: s, tx: tx, uses: uses}) })
		if err == nil {
			s.db.PrepareRepeated(ctx, uses)
		}
		return err
	}
	conn, err := s.db.W.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("analyticsdb: unexpected PostgreSQL driver connection %T", dc)
		}
		return pgx.BeginFunc(ctx, sc.Conn(), func(tx pgx.Tx) error { return fn(pgxAnTx{tx: tx}) })
	})
}

// sqlAnTx runs statements through the writer's statement cache and counts them (uses), so the
// ones a batch runs more than once get prepared for the next batches (prepareRepeated).
type sqlAnTx struct {
	s    *Store
	tx   *sql.Tx
	uses map[string]int
}

type sqlAnRows struct{ *sql.Rows }

func (t sqlAnTx) query(ctx context.Context, q string, args ...any) (anRows, error) {
	t.uses[q]++
	rows, err := t.s.db.TxQuery(ctx, t.tx, q, args...)
	if err != nil {
		return nil, err
	}
	return sqlAnRows{rows}, nil
}

func (t sqlAnTx) exec(ctx context.Context, q string, args ...any) error {
	t.uses[q]++
	_, err := t.s.db.TxExec(ctx, t.tx, q, args...)
	return err
}

func (t sqlAnTx) insertRows(ctx context.Context, table string, cols []string, rows [][]any) error {
	per := max(1, 4000/len(cols))
	for chunk := range anChunks(rows, per) {
		args := make([]any, 0, len(cols)*len(chunk))
		for _, r := range chunk {
			args = append(args, r...)
		}
		q := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES ` + t.s.anBatchValues(len(chunk), len(cols))
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
