package sqldb

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// invalidationChannel is the PostgreSQL LISTEN/NOTIFY channel that tells every instance which
// data scope changed, so each drops its cached responses within moments of a write elsewhere.
const invalidationChannel = "folio_invalidate"

// Notify tells every instance listening on the same PostgreSQL database that scope changed. On
// SQLite it does nothing: the commit itself is the notice (see Listen).
func (db *DB) Notify(ctx context.Context, scope string) error {
	if db.Dialect != Postgres {
		return nil
	}
	_, err := db.W.ExecContext(ctx, `SELECT pg_notify($1, $2)`, invalidationChannel, scope)
	return err
}

// Listen calls fn with the scope of every notification until ctx ends. It keeps a dedicated
// connection and reconnects with backoff. Each time it starts listening, the first time too, it
// calls fn("*"): notifications sent before LISTEN took effect are lost, and the instance may have
// cached a response meanwhile (it serves requests before its listener has connected). On SQLite
// it calls fn("*") whenever another process committed to the file (watchOthers).
func (db *DB) Listen(ctx context.Context, log *slog.Logger, fn func(scope string)) {
	if db.Dialect != Postgres {
		db.watchOthers(ctx, log, fn)
		return
	}
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		conn, err := pgx.Connect(ctx, db.DSN)
		if err == nil {
			_, err = conn.Exec(ctx, `LISTEN `+invalidationChannel)
		}
		if err != nil {
			if conn != nil {
				conn.Close(context.Background())
			}
			if ctx.Err() == nil {
				log.Warn("cache invalidation listener cannot connect; retrying", "error", err.Error(), "retry_in", backoff.String())
			}
			select {
			case <-ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 10*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		db.heard("*")
		fn("*")
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				if ctx.Err() == nil {
					log.Warn("cache invalidation listener lost its connection; reconnecting", "error", err.Error())
				}
				break
			}
			db.heard(n.Payload)
			fn(n.Payload)
		}
		conn.Close(context.Background())
	}
}

// watchEvery is how often an SQLite instance asks whether another process committed to its
// file: a folio command (apikey revoke, user passwd, user role…) must take effect at once. The
// question costs microseconds.
const watchEvery = 50 * time.Millisecond

// watchOthers calls fn("*") after every commit of another process to the SQLite file, until ctx
// ends. Such a commit names no scope, so every cache goes; they are rare (a command, an operator's
// sqlite3 session), and this instance's own commits never count.
func (db *DB) watchOthers(ctx context.Context, log *slog.Logger, fn func(scope string)) {
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	var others otherCommits
	failing := false
	for {
		changed, err := others.since(ctx, db)
		if err != nil && ctx.Err() == nil && !failing {
			log.Warn("cannot check the database for other processes' changes; retrying", "error", err.Error())
		}
		failing = err != nil
		if changed {
			db.heard("*")
			fn("*")
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// otherCommits tells whether a connection other than the writer's committed to the SQLite file
// since it was last asked. PRAGMA data_version, asked on the writer's one connection, changes with
// every commit but that connection's own, so this instance's writes never count (its readers
// open the file read-only). The first answer sets the baseline.
// The analytics file counts too: a command that writes analytics (an import) must show in the
// reports cached here.
type otherCommits struct {
	version, analytics int64
	known              bool
}

func (o *otherCommits) since(ctx context.Context, db *DB) (bool, error) {
	var v, a int64
	if err := db.W.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return false, err
	}
	if db.an != nil {
		if err := db.an.W.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&a); err != nil {
			return false, err
		}
	}
	changed := o.known && (v != o.version || a != o.analytics)
	o.version, o.analytics, o.known = v, a, true
	return changed, nil
}

// Notifier sends Notify for changed scopes from one background goroutine, so a write does not
// wait for (or serialise on) its notice, and a burst of writes to one scope costs one notice.
// Notify never blocks. On SQLite it does nothing.
type Notifier struct {
	db   *DB
	log  *slog.Logger
	mu   sync.Mutex
	due  map[string]bool
	wake chan struct{}
}

// NewNotifier returns a Notifier for db; Run sends its notices.
func NewNotifier(db *DB, log *slog.Logger) *Notifier {
	return &Notifier{db: db, log: log, due: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// Notify queues a notice that scope changed.
func (n *Notifier) Notify(scope string) {
	if n.db.Dialect != Postgres {
		return
	}
	n.mu.Lock()
	n.due[scope] = true
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Run sends queued notices until ctx ends, then sends what is still queued.
func (n *Notifier) Run(ctx context.Context) {
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			n.flush(sctx)
			cancel()
			return
		case <-n.wake:
			// Under a stream of writes, send at most one round of notices per notifyEvery, so
			// a scope written a thousand times a second costs a few hundred notices, not a
			// thousand; an isolated write's notice still goes at once.
			if wait := notifyEvery - time.Since(last); wait > 0 {
				select {
				case <-time.After(wait):
				case <-ctx.Done():
				}
			}
			last = time.Now()
			n.flush(ctx)
		}
	}
}

// notifyEvery is the shortest time between two rounds of notices of a Notifier.
const notifyEvery = 5 * time.Millisecond

func (n *Notifier) flush(ctx context.Context) {
	n.mu.Lock()
	due := n.due
	n.due = map[string]bool{}
	n.mu.Unlock()
	for scope := range due {
		if err := n.db.Notify(ctx, scope); err != nil {
			n.log.Warn("cache invalidation notify failed", "scope", scope, "error", err.Error())
		}
	}
}
