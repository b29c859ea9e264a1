package sqldb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/content/contenttest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestContentStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		contenttest.TestStore(t, func(t *testing.T) content.Store {
			if db.Dialect == sqldb.SQLite {
				return foliotest.MustOpenSQLite(t).Content
			}
			return foliotest.MustOpenPostgres(t).Content
		})
	})
}
