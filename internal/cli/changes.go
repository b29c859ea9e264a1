package cli

import (
	"context"
	"log/slog"

	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/sqldb"
)

// changes carries the scope of a write to the caches: this instance's at once, the other
// instances' through the database's notifications (cached responses, cached users for a
// revocation, the external blog's listing).
type changes struct {
	db      *sqldb.DB
	srv     *httpapi.Server
	ext     *extblogPart
	notices *sqldb.Notifier
	log     *slog.Logger
}

// newChanges makes db's writes drop the server's cached responses. The notice to the other
// instances goes out from a background sender (send) that coalesces bursts into one notice per
// scope: a pg_notify per write in the request path cost a round trip and serialised commits.
func newChanges(db *sqldb.DB, srv *httpapi.Server, ext *extblogPart, log *slog.Logger) *changes {
	c := &changes{db: db, srv: srv, ext: ext, notices: sqldb.NewNotifier(db, log), log: log}
	db.Changed = func(scope string) {
		srv.Invalidate(scope)
		c.notices.Notify(scope)
	}
	return c
}

// send tells the other instances of this instance's writes until ctx ends.
func (c *changes) send(ctx context.Context) { c.notices.Run(ctx) }

// listen applies the other instances' writes to this instance's caches until ctx ends.
func (c *changes) listen(ctx context.Context) {
	c.db.Listen(ctx, c.log, func(scope string) {
		c.srv.Invalidate(scope)
		c.ext.invalidated(ctx, scope)
	})
}
