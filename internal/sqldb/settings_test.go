package sqldb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/settings/settingstest"
	"github.com/foliohq/folio/internal/sqldb"
)

// settingsAndUsers is the settings store plus user creation, for the suite's owner accounts.
type settingsAndUsers struct {
	*sqldb.SettingsStore
	*sqldb.IdentityStore
}

func TestSettingsStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		settingstest.TestStore(t, func(t *testing.T) settingstest.Store {
			fresh := foliotest.MustOpenSQLite(t)
			if db.Dialect == sqldb.Postgres {
				fresh = foliotest.MustOpenPostgres(t)
			}
			return settingsAndUsers{fresh.Settings, fresh.Identity}
		})
	})
}
