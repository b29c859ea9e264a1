package sqldb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/fediverse/fedtest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestFediverseStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		fedtest.TestStore(t, func(t *testing.T) fedtest.Store {
			if db.Dialect == sqldb.SQLite {
				return foliotest.MustOpenSQLite(t).Fediverse
			}
			return foliotest.MustOpenPostgres(t).Fediverse
		})
	})
}
