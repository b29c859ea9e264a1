package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestGroupCommit: many concurrent SQLite write transactions, some failing part-way and one
// panicking, each get their own outcome: the failing ones leave nothing behind, every other one
// is committed before its call returns, and the rows of one call are never split.
//
// It runs for savepoint groups (tx) and for retryable groups (txRetryable), whose failing call
// rolls its whole group back and has every call run again alone.
func TestGroupCommit(t *testing.T) {
	t.Run("savepoints", func(t *testing.T) { testGroupCommit(t, (*DB).tx) })
	t.Run("retryable", func(t *testing.T) { testGroupCommit(t, (*DB).txRetryable) })
	t.Run("alone", func(t *testing.T) { testGroupCommit(t, (*DB).txAlone) })
}

func testGroupCommit(t *testing.T, txFn func(*DB, context.Context, func(*sql.Tx) error) error) {
	ctx := context.Background()
	db := openGroupCommitDB(t, `CREATE TABLE gc (k TEXT PRIMARY KEY, part INTEGER NOT NULL)`)
	errPlanned := errors.New("planned failure")
	const calls = 400
	results := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			results[i] = txFn(db, ctx, func(tx *sql.Tx) error {
				for part := range 2 {
					if _, err := tx.ExecContext(ctx, `INSERT INTO gc (k, part) VALUES ($1, $2)`, fmt.Sprint(i), part); err != nil {
						if part == 1 {
							return nil // duplicate key on the second row is expected: k is the primary key
						}
						return err
					}
					switch {
					case i%7 == 3 && part == 0:
						return errPlanned // after writing a row: it must be rolled back
					case i == 101 && part == 0:
						panic("planned panic")
					}
				}
				return nil
			})
			if results[i] == nil {
				// Committed before the call returned: visible to the read pool at once.
				var n int
				if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM gc WHERE k = $1`, fmt.Sprint(i)).Scan(&n); err != nil || n != 1 {
					t.Errorf("call %d returned nil but its row is not readable (%d rows, %v)", i, n, err)
				}
			}
		})
	}
	wg.Wait()
	for i, err := range results {
		var n int
		if qerr := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM gc WHERE k = $1`, fmt.Sprint(i)).Scan(&n); qerr != nil {
			t.Fatal(qerr)
		}
		switch {
		case i%7 == 3:
			if !errors.Is(err, errPlanned) || n != 0 {
				t.Errorf("call %d: err %v, %d rows; want the planned error and no row", i, err, n)
			}
		case i == 101:
			if err == nil || n != 0 {
				t.Errorf("panicking call: err %v, %d rows; want an error and no row", err, n)
			}
		default:
			if err != nil || n != 1 {
				t.Errorf("call %d: err %v, %d rows; want success and its row", i, err, n)
			}
		}
	}
}

// TestGroupCommitCancelledCaller: a caller whose context has ended before its turn gets the
// context's error and writes nothing; the others are unaffected.
func TestGroupCommitCancelledCaller(t *testing.T) {
	ctx := context.Background()
	db := openGroupCommitDB(t, `CREATE TABLE gc (k TEXT PRIMARY KEY)`)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range errs {
		c := ctx
		if i%10 == 0 {
			c = cancelled
		}
		wg.Go(func() {
			errs[i] = db.tx(c, func(tx *sql.Tx) error {
				_, err := tx.ExecContext(context.Background(), `INSERT INTO gc (k) VALUES ($1)`, fmt.Sprint(i))
				return err
			})
		})
	}
	wg.Wait()
	var n int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM gc`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for i, err := range errs {
		if i%10 == 0 {
			if err == nil {
				t.Errorf("call %d with an ended context succeeded", i)
			}
			failed++
		} else if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if n != len(errs)-failed {
		t.Errorf("%d rows, want %d", n, len(errs)-failed)
	}
}

// TestGroupCommitRetryableWhole: concurrent retryable writes that all succeed are committed in
// groups without savepoints, and every one is kept.
func TestGroupCommitRetryableWhole(t *testing.T) {
	ctx := context.Background()
	db := openGroupCommitDB(t, `CREATE TABLE gc (k TEXT PRIMARY KEY)`)
	const calls = 300
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			if err := db.txRetryable(ctx, func(tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO gc (k) VALUES ($1)`, fmt.Sprint(i))
				return err
			}); err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	var n int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM gc`).Scan(&n); err != nil || n != calls {
		t.Fatalf("%d rows (%v), want %d", n, err, calls)
	}
	if db.group.wholeGroups.Load() == 0 {
		t.Error("no group ran whole: 300 concurrent writes never shared a transaction")
	}
}

// TestGroupCommitAlone: a call of txAlone is never grouped with others. A write queued behind a
// long txAlone call is committed in a group that does not hold the next txAlone call, so it
// waits for one long call, not two.
func TestGroupCommitAlone(t *testing.T) {
	ctx := context.Background()
	db := openGroupCommitDB(t, `CREATE TABLE gc (k TEXT PRIMARY KEY)`)
	insert := func(k string) func(tx *sql.Tx) error {
		return func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO gc (k) VALUES ($1)`, k)
			return err
		}
	}
	queued := func(n int) { // waits until n calls wait behind the running one
		for {
			db.group.mu.Lock()
			l := len(db.group.queue)
			db.group.mu.Unlock()
			if l >= n {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	running, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := db.txAlone(ctx, func(tx *sql.Tx) error { close(running); <-release; return insert("first")(tx) }); err != nil {
			t.Error(err)
		}
	})
	<-running // the first call leads and has left the queue
	wg.Go(func() {
		if err := db.tx(ctx, insert("short")); err != nil {
			t.Error(err)
		}
	})
	queued(1)
	var shortCommitted int
	wg.Go(func() {
		if err := db.txAlone(ctx, func(tx *sql.Tx) error {
			// Another connection sees committed rows only: the short write must be in.
			if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM gc WHERE k = 'short'`).Scan(&shortCommitted); err != nil {
				return err
			}
			return insert("second")(tx)
		}); err != nil {
			t.Error(err)
		}
	})
	queued(2)
	close(release)
	wg.Wait()
	if shortCommitted != 1 {
		t.Error("the write queued before the second txAlone call was not committed before it ran: they were grouped")
	}
	var n int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM gc`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d rows (%v), want 3", n, err)
	}
}

func TestGroupLen(t *testing.T) {
	q := func(kinds ...groupKind) []*pendingTx {
		var out []*pendingTx
		for _, k := range kinds {
			out = append(out, &pendingTx{kind: k})
		}
		return out
	}
	for _, c := range []struct {
		queue []*pendingTx
		want  int
	}{
		{q(groupAlone, groupPlain), 1},
		{q(groupPlain, groupRetryable, groupAlone, groupPlain), 2},
		{q(groupPlain, groupPlain), 2},
		{q(make([]groupKind, maxGroup+5)...), maxGroup},
	} {
		if got := groupLen(c.queue); got != c.want {
			t.Errorf("groupLen of %d calls = %d, want %d", len(c.queue), got, c.want)
		}
	}
}

// openGroupCommitDB opens a fresh SQLite database with table (its CREATE TABLE statement).
func openGroupCommitDB(t *testing.T, table string) *DB {
	t.Helper()
	db, err := Open(context.Background(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.W.Exec(table); err != nil {
		t.Fatal(err)
	}
	return db
}
