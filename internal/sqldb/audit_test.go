package sqldb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/audit/audittest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestAuditStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		audittest.TestStore(t, func(*testing.T) audittest.Store { return db.Audit })
	})
}
