package sqldb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/identity/identitytest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestIdentityStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		identitytest.TestStore(t, func(t *testing.T) identitytest.Store {
			if db.Dialect == sqldb.SQLite {
				return foliotest.MustOpenSQLite(t).Identity
			}
			return foliotest.MustOpenPostgres(t).Identity
		})
	})
}
