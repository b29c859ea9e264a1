package sqldb_test

import (
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/jobs/jobstest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestJobStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		jobstest.TestStore(t, func(*testing.T) jobstest.Store { return db.Jobs })
	})
}
