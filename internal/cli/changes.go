package cli

import (
	"context"
	"log/slog"

	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/sqldb"
)

// changes carries the scope of a write to the caches: this instance's at once, the other
// instances' through the database's notifications (the owner's settings, cached responses,
// cached users for a revocation, the external blog's listing).
type changes struct {
	db       *sqldb.DB
	srv      *httpapi.Server
	settings *settings.Service
	ext      *extblogPart
	notices  *sqldb.Notifier
	log      *slog.Logger
}

// newChanges makes db's writes reload the settings and drop the server's cached responses. The
// settings reload first, so no response is cached anew from the old ones. The notice to the other
// instances goes out from a background sender (send) that coalesces bursts into one notice per
// scope: a pg_notify per write in the request path cost a round trip and serialised commits.
func newChanges(db *sqldb.DB, srv *httpapi.Server, st *settings.Service, ext *extblogPart, log *slog.Logger) *changes {
	c := &changes{db: db, srv: srv, settings: st, ext: ext, notices: sqldb.NewNotifier(db, log), log: log}
	db.Changed = func(scope string) {
		st.Changed(context.Background(), scope)
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
		c.settings.Changed(ctx, scope)
		c.srv.Invalidate(scope)
		c.ext.invalidated(ctx, scope)
	})
}
