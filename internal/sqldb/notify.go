package sqldb

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// invalidationChannel is the PostgreSQL LISTEN/NOTIFY channel that tells every instance which
// data scope changed, so each drops its cached responses within moments of a write elsewhere.
const invalidationChannel = "folio_invalidate"

// Notify tells every instance listening on the same PostgreSQL database that scope changed. On
// SQLite (one instance) it does nothing.
func (db *DB) Notify(ctx context.Context, scope string) error {
	if db.Dialect != Postgres {
		return nil
	}
	_, err := db.W.ExecContext(ctx, `SELECT pg_notify($1, $2)`, invalidationChannel, scope)
	return err
}

// Listen calls fn with the scope of every notification until ctx ends. It keeps a dedicated
// connection and reconnects with backoff; after a reconnect it calls fn("*") because
// notifications sent while it was away are lost. On SQLite it returns at once.
func (db *DB) Listen(ctx context.Context, log *slog.Logger, fn func(scope string)) {
	if db.Dialect != Postgres {
		return
	}
	backoff := 100 * time.Millisecond
	first := true
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
		if !first {
			fn("*")
		}
		first = false
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				if ctx.Err() == nil {
					log.Warn("cache invalidation listener lost its connection; reconnecting", "error", err.Error())
				}
				break
			}
			fn(n.Payload)
		}
		conn.Close(context.Background())
	}
}
