package analytics

import (
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// newTestService is a Service over db's analytics store.
func newTestService(db *sqldb.DB, o Options) (*Service, error) {
	return New(analyticsdb.New(db), db.Content, o)
}
