package sqldb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/publishing/publishingtest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestExtblogStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		publishingtest.TestStore(t, func(t *testing.T) publishingtest.Stores {
			fresh := foliotest.MustOpenSQLite
			if db.Dialect != sqldb.SQLite {
				fresh = foliotest.MustOpenPostgres
			}
			d := fresh(t)
			return publishingtest.Stores{Store: d.Extblog, Content: d.Content}
		})
	})
}
