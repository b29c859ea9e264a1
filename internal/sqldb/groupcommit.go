package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

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

// The statements around each call of a group commit (see runGroup).
const (
	savepointGroupItem = `SAVEPOINT folio_group_item`
	releaseGroupItem   = `RELEASE folio_group_item`
)

// maxGroup bounds how many calls one group commit holds, so one transaction stays short.
const maxGroup = 64

// groupCommit queues SQLite write transactions; see DB.tx.
type groupCommit struct {
	mu      sync.Mutex
	queue   []*pendingTx
	leading bool
	// idleSince is when the last leader found the queue empty: a call arriving long after it
	// is a lone write, not one of a stream (see run).
	idleSince time.Time
	// wholeGroups counts groups committed without savepoints (runGroupWhole), for tests.
	wholeGroups atomic.Int64
}

type pendingTx struct {
	ctx  context.Context
	fn   func(tx *sql.Tx) error
	kind groupKind
	done chan error
	lead chan struct{}
	// afterIdle: p found no leader and none had been for more than idleGap.
	afterIdle bool
}

// idleGap is how long the writer must have been idle for a call to count as a lone write. Under
// a stream of writes (a request every few hundred microseconds or less) the writer is never idle
// that long.
const idleGap = time.Millisecond

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
		p.afterIdle = time.Since(g.idleSince) > idleGap
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
			if len(g.queue) == 1 && p.kind != groupAlone && !p.afterIdle {
				// Alone amid a stream of writes: let the other runnable goroutines (requests on
				// their way to a write) run first, so they join this group instead of each
				// committing on its own (a groupAlone call takes no one in). Without load this
				// returns at once. A write arriving after the writer sat idle skips it: with no
				// stream to gather, the yield would only send it behind every runnable goroutine
				// when the cores are busy with something else (an analytics flood, say), which
				// is where the tail of such writes came from (docs/performance.md).
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
				g.idleSince = time.Now()
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
