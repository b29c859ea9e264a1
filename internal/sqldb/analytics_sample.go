package sqldb

import (
	"crypto/md5"
	"database/sql/driver"
	"fmt"
	"strings"

	"modernc.org/sqlite"
)

// sampleBound is the bound of visitor_sample of each level of folio.SampleRates (migrations 0022
// and 0023: each level a partial index of the page views and one of the events), written into
// the statement as a literal: a partial index is used only for a query whose condition is the
// index's own.
var sampleBound = map[int]int{8: 8192, 32: 2048, 128: 512, 512: 128}

// sampleHash hashes a visitor key to 0–65535, uniform over visitors, so a visitor's page views
// and events are all in a sample or all out. MD5 is not used for security here: it is the hash
// both engines can compute in SQL, which migration 0023 needs for existing rows.
func sampleHash(visitorKey string) int {
	h := md5.Sum([]byte(visitorKey))
	return int(h[0])<<8 | int(h[1])
}

// sampleCondition is the condition on the visitor_sample column of a sample level (1: every
// row), qualified by alias when given.
func sampleCondition(alias string, rate int) string {
	bound, ok := sampleBound[rate]
	if !ok {
		return ""
	}
	if alias != "" {
		alias += "."
	}
	return fmt.Sprintf(` AND %svisitor_sample < %d`, alias, bound)
}

// sampleSource is table (analytics_pageviews or analytics_events), with its alias, as the FROM
// item of a statement that reads a sample level. On SQLite it names the level's index, which
// holds every column such a statement reads: with statistics of the day index only (ANALYZE),
// SQLite's planner chose that one for short ranges and read a table row per page view of the
// range (1 day at 1/8 of 10M page views: 43 ms against 5 ms from the sample's index).
func (db *DB) sampleSource(table, alias string, rate int) string {
	from := strings.TrimSpace(table + " " + alias)
	if _, ok := sampleBound[rate]; ok && db.Dialect == SQLite {
		from += fmt.Sprintf(" INDEXED BY %s_sample%d", table, rate)
	}
	return from
}

func init() {
	// sampleHash in SQL, for the update of existing rows: folio_sample_hash for migration 0023;
	// folio_visit_sample is its name in migration 0022 (of a visit id then).
	hash := func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return int64(sampleHash(v)), nil
		case []byte:
			return int64(sampleHash(string(v))), nil
		default:
			return nil, fmt.Errorf("folio_sample_hash: want text, got %T", v)
		}
	}
	sqlite.MustRegisterDeterministicScalarFunction("folio_sample_hash", 1, hash)
	sqlite.MustRegisterDeterministicScalarFunction("folio_visit_sample", 1, hash)
}
