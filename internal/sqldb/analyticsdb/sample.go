package analyticsdb

import (
	"fmt"
	"strings"

	"github.com/foliohq/folio/internal/sqldb"
)

// sampleBound is the bound of visitor_sample of each level of folio.SampleRates (migrations 0022
// and 0023: each level a partial index of the page views and one of the events), written into
// the statement as a literal: a partial index is used only for a query whose condition is the
// index's own.
var sampleBound = map[int]int{8: 8192, 32: 2048, 128: 512, 512: 128}

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
// range.
func (s *Store) sampleSource(table, alias string, rate int) string {
	from := strings.TrimSpace(table + " " + alias)
	if _, ok := sampleBound[rate]; ok && s.db.Dialect == sqldb.SQLite {
		from += fmt.Sprintf(" INDEXED BY %s_sample%d", table, rate)
	}
	return from
}
