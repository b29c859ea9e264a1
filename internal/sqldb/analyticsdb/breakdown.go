package analyticsdb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

// visitDimExpr is the SQL of each visit dimension's value over the visits CTE (v).
var visitDimExpr = map[string]string{
	"source": "v.source", "referrer": "v.referrer", "utm_source": "v.utm_source", "utm_medium": "v.utm_medium",
	"utm_campaign": "v.utm_campaign", "country": "v.country", "device": "v.device", "browser": "v.browser",
	"browser_version": "CASE WHEN v.browser_version = '' THEN v.browser ELSE v.browser || ' ' || v.browser_version END",
	"os":              "v.os",
	"os_version":      "CASE WHEN v.os_version = '' THEN v.os ELSE v.os || ' ' || v.os_version END",
	"entry_page":      "v.entry_page", "exit_page": "x.exit_page",
	"date": "v.start_day",
}

func nextDay(day string) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	return t.AddDate(0, 0, 1).Format(time.DateOnly)
}

// visitsCTE returns the WITH clause defining pv (the page views of from..to and the day after,
// so visits begun on the last day keep their page views after midnight) and fv: the visits that
// start in from..to and match every filter, with visitor_id, views, start_day, entry_page, the
// page-view columns of dim's value (see visitDimColumns) and, for exit_page, exit_page; with a
// sample rate, of those visits' sample only. Only dim's columns are carried: every visit's other
// attributes cost a string comparison per page view.
func (s *Store) visitsCTE(args *sqldb.Args, from, to string, filters map[string]string, dim string, sample int) string {
	var b strings.Builder
	fromArg, toArg := args.Add(from), args.Add(to)
	// Every page view carries its visit's attributes, so filters on them select page views
	// directly (which the planners estimate well, unlike conditions on aggregates).
	var pvWhere strings.Builder
	pvWhere.WriteString(sampleCondition("", sample))
	for _, d := range folio.BreakdownDims { // a fixed order keeps the statement text stable
		val, ok := filters[d]
		if !ok {
			continue
		}
		if col, ok := pvAttrColumn[d]; ok {
			fmt.Fprintf(&pvWhere, ` AND %s = %s`, col, args.Add(val))
		}
	}
	var pvCols, vCols strings.Builder
	for _, col := range visitDimColumns[dim] {
		fmt.Fprintf(&pvCols, `, %s`, col)
		alias := col
		if col == "visit_referrer" {
			alias = "referrer"
		}
		fmt.Fprintf(&vCols, `, MAX(%s) AS %s`, col, alias)
	}
	fmt.Fprintf(&b, `WITH pv AS MATERIALIZED (SELECT id, at, day, visitor_id, visit_id, is_new_visit, path%s
		FROM %s WHERE day >= %s AND day <= %s%s),
	v AS (SELECT visit_id, MAX(visitor_id) AS visitor_id, COUNT(*) AS views,
		MAX(CASE WHEN is_new_visit THEN day END) AS start_day, MAX(CASE WHEN is_new_visit THEN path END) AS entry_page%s
		FROM pv GROUP BY visit_id)`, pvCols.String(), s.sampleSource("analytics_pageviews", "", sample), fromArg, args.Add(nextDay(to)), pvWhere.String(), vCols.String())
	needExit := dim == "exit_page"
	_, exitFilter := filters["exit_page"]
	if needExit || exitFilter {
		b.WriteString(`,
	x AS (SELECT visit_id, path AS exit_page FROM (SELECT visit_id, path,
		ROW_NUMBER() OVER (PARTITION BY visit_id ORDER BY at DESC, id DESC) AS rn FROM pv) t WHERE rn = 1)`)
	}
	b.WriteString(`,
	fv AS (SELECT v.*`)
	if needExit || exitFilter {
		b.WriteString(`, x.exit_page FROM v JOIN x ON x.visit_id = v.visit_id`)
	} else {
		b.WriteString(` FROM v`)
	}
	fmt.Fprintf(&b, ` WHERE v.start_day >= %s AND v.start_day <= %s`, fromArg, toArg)
	for _, d := range folio.BreakdownDims {
		val, ok := filters[d]
		if !ok {
			continue
		}
		switch d {
		case "page":
			fmt.Fprintf(&b, ` AND v.visit_id IN (SELECT visit_id FROM pv WHERE path = %s)`, args.Add(val))
		case "event":
			if sample > 0 {
				// A sample's few visits each look up their visitor's key by id, instead of
				// joining every visitor who sent the event to the visitors table (which
				// PostgreSQL, with nested loops off, does by reading the whole table). A
				// correlated subquery is not a join, so its index lookup stays. The sample's
				// visitors sent only the sample's events.
				fmt.Fprintf(&b, ` AND (SELECT a.visitor_key FROM analytics_visitors a WHERE a.id = v.visitor_id)
				IN (SELECT e.visitor_key FROM analytics_events e WHERE e.name = %s AND e.day >= %s AND e.day <= %s%s)`,
					args.Add(val), fromArg, toArg, sampleCondition("e", sample))
				break
			}
			fmt.Fprintf(&b, ` AND v.visitor_id IN (SELECT a.id FROM analytics_events e JOIN analytics_visitors a ON a.visitor_key = e.visitor_key
				WHERE e.name = %s AND e.day >= %s AND e.day <= %s)`, args.Add(val), fromArg, toArg)
		case "entry_page", "exit_page", "date":
			fmt.Fprintf(&b, ` AND %s = %s`, visitDimExpr[d], args.Add(val))
		}
	}
	b.WriteString(`) `)
	return b.String()
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// rawAnalyticsQuery runs f against the read pool; on PostgreSQL inside a read-only transaction
// with nested loops off: the planner cannot estimate how many visits match conditions on
// aggregates (it guesses one) and would join page views to them in a nested loop, which is
// quadratic; hash joins are right for every breakdown statement.
func (s *Store) rawAnalyticsQuery(ctx context.Context, f func(q querier) error) error {
	return s.analyticsQueryWith(ctx, []string{`SET LOCAL enable_nestloop = off`}, f)
}

// visitAttrQuery runs f against the read pool; on PostgreSQL inside a read-only transaction
// that reads the visit-attribute rollups by index, without parallel workers. Each of their
// statements selects the range's days or periods by the leading column of the primary key, so
// an index scan reads only those rows; once the planner has statistics it preferred a parallel
// scan of the whole table when a filter keeps a large share (device=mobile: a third), several
// times slower (docs/performance.md, "Storage").
func (s *Store) visitAttrQuery(ctx context.Context, f func(q querier) error) error {
	return s.analyticsQueryWith(ctx, []string{`SET LOCAL enable_seqscan = off`, `SET LOCAL max_parallel_workers_per_gather = 0`}, f)
}

func (s *Store) analyticsQueryWith(ctx context.Context, settings []string, f func(q querier) error) error {
	if s.db.Dialect != sqldb.Postgres {
		return f(s.db.R)
	}
	tx, err := s.db.R.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, set := range settings {
		if _, err := tx.ExecContext(ctx, set); err != nil {
			return err
		}
	}
	return f(tx)
}

// visitDimColumns are the page-view columns a visit dimension's value is made of.
var visitDimColumns = map[string][]string{
	"source": {"source"}, "referrer": {"visit_referrer"}, "utm_source": {"utm_source"}, "utm_medium": {"utm_medium"},
	"utm_campaign": {"utm_campaign"}, "country": {"country"}, "device": {"device"}, "browser": {"browser"},
	"browser_version": {"browser", "browser_version"}, "os": {"os"}, "os_version": {"os", "os_version"},
}

// pvAttrColumn is the page-view column (or expression) of each visit attribute dimension.
var pvAttrColumn = map[string]string{
	"source": "source", "referrer": "visit_referrer", "utm_source": "utm_source", "utm_medium": "utm_medium",
	"utm_campaign": "utm_campaign", "country": "country", "device": "device", "browser": "browser",
	"browser_version": "CASE WHEN browser_version = '' THEN browser ELSE browser || ' ' || browser_version END",
	"os":              "os",
	"os_version":      "CASE WHEN os_version = '' THEN os ELSE os || ' ' || os_version END",
}

// AnalyticsBreakdownRaw computes a breakdown from the raw page views and events: exact, with any
// filters, but it reads every page view of the range. It returns the rows and how many values
// the dimension has.
func (s *Store) AnalyticsBreakdownRaw(ctx context.Context, q folio.BreakdownQuery) ([]folio.BreakdownCounts, int, error) {
	var args sqldb.Args
	var stmt string
	switch q.Dim {
	case "page":
		cte := s.visitsCTE(&args, q.From, q.To, q.Filters, q.Dim, q.Sample)
		from := `pv`
		if len(q.Filters) > 0 {
			from = `pv JOIN fv ON fv.visit_id = pv.visit_id`
		}
		stmt = cte + `SELECT pv.path, COUNT(DISTINCT pv.visitor_id) AS visitors, COUNT(*) AS views, COUNT(DISTINCT pv.visit_id) AS visits, 0, 0,
			COUNT(*) OVER () FROM ` + from + ` WHERE pv.day >= ` + args.Add(q.From) + ` AND pv.day <= ` + args.Add(q.To) + `
			GROUP BY pv.path ORDER BY visitors DESC, views DESC, pv.path`
	case "event":
		from, to := args.Add(q.From), args.Add(q.To)
		where, base := sampleCondition("e", q.Sample), `0`
		if len(q.Filters) > 0 {
			// The events of the visitors of the matching visits (fvis), whose number is the base.
			stmt = s.visitsCTE(&args, q.From, q.To, q.Filters, q.Dim, q.Sample) + `,
			fvis AS MATERIALIZED (SELECT DISTINCT visitor_id FROM fv) `
			base = `(SELECT COUNT(*) FROM fvis)`
			if q.Sample > 0 {
				// A sample's few visitors look up their keys one by one (see the event filter in
				// visitsCTE).
				where += ` AND e.visitor_key IN (SELECT (SELECT a.visitor_key FROM analytics_visitors a WHERE a.id = fvis.visitor_id) FROM fvis)`
			} else {
				where += ` AND e.visitor_key IN (SELECT a.visitor_key FROM analytics_visitors a WHERE a.id IN (SELECT visitor_id FROM fvis))`
			}
		}
		stmt += `SELECT e.name, COUNT(DISTINCT e.visitor_key) AS visitors, 0, 0, 0, COUNT(*) AS events, COUNT(*) OVER (), ` + base + ` AS base
			FROM ` + s.sampleSource("analytics_events", "e", q.Sample) + ` WHERE e.day >= ` + from + ` AND e.day <= ` + to + where + `
			GROUP BY e.name ORDER BY visitors DESC, events DESC, e.name`
	default:
		expr, ok := visitDimExpr[q.Dim]
		if !ok {
			return nil, 0, fmt.Errorf("analyticsdb.AnalyticsBreakdownRaw: unknown dimension %q", q.Dim)
		}
		cte := s.visitsCTE(&args, q.From, q.To, q.Filters, q.Dim, q.Sample)
		expr = strings.ReplaceAll(strings.ReplaceAll(expr, "v.", "fv."), "x.", "fv.")
		stmt = cte + `SELECT ` + expr + ` AS value, COUNT(DISTINCT visitor_id) AS visitors, SUM(views) AS views, COUNT(*) AS visits,
			SUM(CASE WHEN views = 1 THEN 1 ELSE 0 END), 0, COUNT(*) OVER () FROM fv GROUP BY value ORDER BY visitors DESC, visits DESC, value`
	}
	stmt += ` LIMIT ` + args.Add(q.Limit) + ` OFFSET ` + args.Add(q.Offset)
	var rows []folio.BreakdownCounts
	var total int
	err := s.rawAnalyticsQuery(ctx, func(q querier) error {
		var err error
		rows, total, err = scanBreakdown(q.QueryContext(ctx, stmt, args...))
		return err
	})
	if err != nil {
		return nil, 0, wrap("AnalyticsBreakdownRaw", err)
	}
	return rows, total, nil
}

// scanBreakdown reads the rows of a breakdown statement: value, visitors, page views, visits,
// bounces, events and the count of values, then a column named base where the statement has
// one (the raw event statement: the denominator of its conversion rates).
func scanBreakdown(rows *sql.Rows, err error) ([]folio.BreakdownCounts, int, error) {
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []folio.BreakdownCounts{}
	total := 0
	cols, err := rows.Columns()
	if err != nil {
		return nil, 0, err
	}
	for rows.Next() {
		var r folio.BreakdownCounts
		var value sql.NullString
		dest := []any{&value, &r.Visitors, &r.PageViews, &r.Visits, &r.Bounces, &r.Events, &total}
		if len(cols) > len(dest) && cols[len(dest)] == "base" {
			dest = append(dest, &r.Base)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, 0, err
		}
		r.Value = value.String
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// AnalyticsBreakdownRollup computes an unfiltered breakdown of a page or visit dimension from
// the daily rollup: it reads at most days × values rows, whatever the traffic. Visitors are not
// in the rollup (they are not additive over days) and come back 0, except for events, whose rows
// carry the sum of each day's distinct visitors (an upper bound of the range's).
func (s *Store) AnalyticsBreakdownRollup(ctx context.Context, q folio.BreakdownQuery) ([]folio.BreakdownCounts, int, error) {
	if len(q.Filters) > 0 {
		return s.analyticsBreakdownVisitAttrs(ctx, q)
	}
	var args sqldb.Args
	if q.Dim == "date" {
		// Every visit has exactly one device, so the device rows of a day sum to its visits.
		stmt := `SELECT day, 0, SUM(pageviews) AS views, SUM(visits) AS visits, SUM(bounces), 0, COUNT(*) OVER ()
			FROM analytics_daily_dims WHERE dim = 'device' AND day >= ` + args.Add(q.From) + ` AND day <= ` + args.Add(q.To) + `
			GROUP BY day HAVING SUM(visits) > 0 OR SUM(pageviews) > 0 ORDER BY visits DESC, views DESC, day
			LIMIT ` + args.Add(q.Limit) + ` OFFSET ` + args.Add(q.Offset)
		rows, total, err := scanBreakdown(s.db.R.QueryContext(ctx, stmt, args...))
		if err != nil {
			return nil, 0, wrap("AnalyticsBreakdownRollup", err)
		}
		return rows, total, nil
	}
	if q.Dim == "event" {
		// Event rows: visits holds the day's distinct visitors, pageviews the events.
		stmt := `SELECT value, SUM(visits) AS visitors, 0, 0, 0, SUM(pageviews) AS events, COUNT(*) OVER ()
			FROM analytics_daily_dims WHERE dim = 'event' AND day >= ` + args.Add(q.From) + ` AND day <= ` + args.Add(q.To) + `
			GROUP BY value ORDER BY visitors DESC, events DESC, value
			LIMIT ` + args.Add(q.Limit) + ` OFFSET ` + args.Add(q.Offset)
		rows, total, err := scanBreakdown(s.db.R.QueryContext(ctx, stmt, args...))
		if err != nil {
			return nil, 0, wrap("AnalyticsBreakdownRollup", err)
		}
		return rows, total, nil
	}
	stmt := `SELECT value, 0, SUM(pageviews) AS views, SUM(visits) AS visits, SUM(bounces), 0, COUNT(*) OVER ()
		FROM analytics_daily_dims WHERE dim = ` + args.Add(q.Dim) + ` AND day >= ` + args.Add(q.From) + ` AND day <= ` + args.Add(q.To) + `
		GROUP BY value HAVING SUM(visits) > 0 OR SUM(pageviews) > 0 ORDER BY visits DESC, views DESC, value
		LIMIT ` + args.Add(q.Limit) + ` OFFSET ` + args.Add(q.Offset)
	rows, total, err := scanBreakdown(s.db.R.QueryContext(ctx, stmt, args...))
	if err != nil {
		return nil, 0, wrap("AnalyticsBreakdownRollup", err)
	}
	return rows, total, nil
}

// AnalyticsBreakdownCount counts the values of a breakdown (for a page past the last row, where
// the rows carry no count).
func (s *Store) AnalyticsBreakdownCount(ctx context.Context, q folio.BreakdownQuery, rollup bool) (int, error) {
	q.Offset, q.Limit = 0, 1
	var rows []folio.BreakdownCounts
	var total int
	var err error
	if rollup {
		rows, total, err = s.AnalyticsBreakdownRollup(ctx, q)
	} else {
		rows, total, err = s.AnalyticsBreakdownRaw(ctx, q)
	}
	if len(rows) == 0 {
		return 0, err
	}
	return total, err
}
