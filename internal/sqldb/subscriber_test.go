package sqldb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/newsletter"
	"github.com/foliohq/folio/internal/newsletter/newslettertest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestSubscriberStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		newslettertest.TestStore(t, func(t *testing.T) newsletter.Store {
			fresh := foliotest.MustOpenSQLite
			if db.Dialect != sqldb.SQLite {
				fresh = foliotest.MustOpenPostgres
			}
			return fresh(t).Subscribers
		})
	})
}

func TestSendStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		newslettertest.TestSendStore(t, func(t *testing.T) (newsletter.Store, newsletter.SendStore) {
			fresh := foliotest.MustOpenSQLite
			if db.Dialect != sqldb.SQLite {
				fresh = foliotest.MustOpenPostgres
			}
			d := fresh(t)
			return d.Subscribers, d.Subscribers
		})
	})
}
