package sqldb

import (
	"crypto/md5"
	"database/sql/driver"
	"fmt"

	"modernc.org/sqlite"
)

// VisitorSample hashes a visitor key to 0–65535, uniform over visitors, so a visitor's page views
// and events are all in a sample or all out (analytics_pageviews.visitor_sample and
// analytics_events.visitor_sample). MD5 is not used for security here: it is the hash
// both engines can compute in SQL, which migration 0023 needs for existing rows.
func VisitorSample(visitorKey string) int {
	h := md5.Sum([]byte(visitorKey))
	return int(h[0])<<8 | int(h[1])
}

func init() {
	// VisitorSample in SQL, for the update of existing rows: folio_sample_hash for migration 0023;
	// folio_visit_sample is its name in migration 0022 (of a visit id then).
	hash := func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return int64(VisitorSample(v)), nil
		case []byte:
			return int64(VisitorSample(string(v))), nil
		default:
			return nil, fmt.Errorf("folio_sample_hash: want text, got %T", v)
		}
	}
	sqlite.MustRegisterDeterministicScalarFunction("folio_sample_hash", 1, hash)
	sqlite.MustRegisterDeterministicScalarFunction("folio_visit_sample", 1, hash)
}
