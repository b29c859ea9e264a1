package sqldb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/media/mediatest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestMediaStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		mediatest.TestStore(t, func(t *testing.T) mediatest.Stores {
			fresh := foliotest.MustOpenSQLite(t)
			if db.Dialect != sqldb.SQLite {
				fresh = foliotest.MustOpenPostgres(t)
			}
			var changed []string
			fresh.Changed = func(scope string) { changed = append(changed, scope) }
			return mediatest.Stores{Media: fresh.Media, Content: fresh.Content, Changed: &changed}
		})
	})
}
