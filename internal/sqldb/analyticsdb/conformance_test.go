package analyticsdb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/analytics/analyticstest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

var _ analytics.Store = (*analyticsdb.Store)(nil)

func TestStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		analyticstest.TestStore(t, func(t *testing.T) analytics.Store {
			if db.Dialect == sqldb.SQLite {
				return analyticsdb.New(foliotest.MustOpenSQLite(t))
			}
			return analyticsdb.New(foliotest.MustOpenPostgres(t))
		})
	})
}
