package sqldb

import (
	"crypto/md5"
	"database/sql/driver"
	"fmt"

	"modernc.org/sqlite"
)

// SampleRates are the visit sample levels a raw breakdown can read instead of every page view
// (migration 0022): 1 in 8, 32, 128 or 512 visits, each level a partial index of the page views
// whose visit_sample is below visitSampleBound.
var SampleRates = []int{8, 32, 128, 512}

// visitSampleBound is the bound of visit_sample of each level, written into the statement as a
// literal: a partial index is used only for a query whose condition is the index's own.
var visitSampleBound = map[int]int{8: 8192, 32: 2048, 128: 512, 512: 128}

// visitSample hashes a visit id to 0–65535, uniform over visits, so a visit's page views are
// all in a sample or all out. MD5 is not used for security here: it is the hash both engines can
// compute in SQL, which migration 0022 needs for existing rows.
func visitSample(visitID string) int {
	h := md5.Sum([]byte(visitID))
	return int(h[0])<<8 | int(h[1])
}

// sampleCondition is the condition on analytics_pageviews of a sample level (1: every page view).
func sampleCondition(rate int) string {
	bound, ok := visitSampleBound[rate]
	if !ok {
		return ""
	}
	return fmt.Sprintf(` AND visit_sample < %d`, bound)
}

func init() {
	// folio_visit_sample is visitSample in SQL, for migration 0022's update of existing rows.
	sqlite.MustRegisterDeterministicScalarFunction("folio_visit_sample", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return int64(visitSample(v)), nil
		case []byte:
			return int64(visitSample(string(v))), nil
		default:
			return nil, fmt.Errorf("folio_visit_sample: want text, got %T", v)
		}
	})
}
