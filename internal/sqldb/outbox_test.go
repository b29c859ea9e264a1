package sqldb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/mail/outboxtest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestOutboxStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		outboxtest.TestStore(t, func(t *testing.T) outboxtest.Store {
			if db.Dialect == sqldb.SQLite {
				return foliotest.MustOpenSQLite(t).Outbox
			}
			return foliotest.MustOpenPostgres(t).Outbox
		})
	})
}
