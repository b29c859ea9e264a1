package analytics

import "github.com/foliohq/folio/internal/sqldb"

// newTestService is a Service over db's analytics store.
func newTestService(db *sqldb.DB, o Options) (*Service, error) {
	return New(db.Analytics, db.Content, o)
}
