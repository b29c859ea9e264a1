package analyticsdb

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
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

// argList numbers query arguments as $n.
type argList []any

func (a *argList) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
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
func (s *Store) visitsCTE(args *argList, from, to string, filters map[string]string, dim string, sample int) string {
	var b strings.Builder
	fromArg, toArg := args.add(from), args.add(to)
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
			fmt.Fprintf(&pvWhere, ` AND %s = %s`, col, args.add(val))
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
		FROM pv GROUP BY visit_id)`, pvCols.String(), s.sampleSource("analytics_pageviews", "", sample), fromArg, args.add(nextDay(to)), pvWhere.String(), vCols.String())
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
			fmt.Fprintf(&b, ` AND v.visit_id IN (SELECT visit_id FROM pv WHERE path = %s)`, args.add(val))
		case "event":
			if sample > 0 {
				// A sample's few visits each look up their visitor's key by id, instead of
				// joining every visitor who sent the event to the visitors table (which
				// PostgreSQL, with nested loops off, does by reading the whole table). A
				// correlated subquery is not a join, so its index lookup stays. The sample's
				// visitors sent only the sample's events.
				fmt.Fprintf(&b, ` AND (SELECT a.visitor_key FROM analytics_visitors a WHERE a.id = v.visitor_id)
				IN (SELECT e.visitor_key FROM analytics_events e WHERE e.name = %s AND e.day >= %s AND e.day <= %s%s)`,
					args.add(val), fromArg, toArg, sampleCondition("e", sample))
				break
			}
			fmt.Fprintf(&b, ` AND v.visitor_id IN (SELECT a.id FROM analytics_events e JOIN analytics_visitors a ON a.visitor_key = e.visitor_key
				WHERE e.name = %s AND e.day >= %s AND e.day <= %s)`, args.add(val), fromArg, toArg)
		case "entry_page", "exit_page", "date":
			fmt.Fprintf(&b, ` AND %s = %s`, visitDimExpr[d], args.add(val))
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
// scan of the whole table when a filter keeps a large share (device=mobile: a third), which
// measured 74–158 ms against 21–23 ms for the index scan (90 days of the benchmark).
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
	var args argList
	var stmt string
	switch q.Dim {
	case "page":
		cte := s.visitsCTE(&args, q.From, q.To, q.Filters, q.Dim, q.Sample)
		from := `pv`
		if len(q.Filters) > 0 {
			from = `pv JOIN fv ON fv.visit_id = pv.visit_id`
		}
		stmt = cte + `SELECT pv.path, COUNT(DISTINCT pv.visitor_id) AS visitors, COUNT(*) AS views, COUNT(DISTINCT pv.visit_id) AS visits, 0, 0,
			COUNT(*) OVER () FROM ` + from + ` WHERE pv.day >= ` + args.add(q.From) + ` AND pv.day <= ` + args.add(q.To) + `
			GROUP BY pv.path ORDER BY visitors DESC, views DESC, pv.path`
	case "event":
		from, to := args.add(q.From), args.add(q.To)
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
	stmt += ` LIMIT ` + args.add(q.Limit) + ` OFFSET ` + args.add(q.Offset)
	var rows []folio.BreakdownCounts
	var total int
	err := s.rawAnalyticsQuery(ctx, func(q querier) error {
		var err error
		rows, total, err = scanBreakdown(q.QueryContext(ctx, stmt, args...))
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("analyticsdb.AnalyticsBreakdownRaw: %w", err)
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
	var args argList
	if q.Dim == "date" {
		// Every visit has exactly one device, so the device rows of a day sum to its visits.
		stmt := `SELECT day, 0, SUM(pageviews) AS views, SUM(visits) AS visits, SUM(bounces), 0, COUNT(*) OVER ()
			FROM analytics_daily_dims WHERE dim = 'device' AND day >= ` + args.add(q.From) + ` AND day <= ` + args.add(q.To) + `
			GROUP BY day HAVING SUM(visits) > 0 OR SUM(pageviews) > 0 ORDER BY visits DESC, views DESC, day
			LIMIT ` + args.add(q.Limit) + ` OFFSET ` + args.add(q.Offset)
		rows, total, err := scanBreakdown(s.db.R.QueryContext(ctx, stmt, args...))
		if err != nil {
			return nil, 0, fmt.Errorf("analyticsdb.AnalyticsBreakdownRollup: %w", err)
		}
		return rows, total, nil
	}
	if q.Dim == "event" {
		// Event rows: visits holds the day's distinct visitors, pageviews the events.
		stmt := `SELECT value, SUM(visits) AS visitors, 0, 0, 0, SUM(pageviews) AS events, COUNT(*) OVER ()
			FROM analytics_daily_dims WHERE dim = 'event' AND day >= ` + args.add(q.From) + ` AND day <= ` + args.add(q.To) + `
			GROUP BY value ORDER BY visitors DESC, events DESC, value
			LIMIT ` + args.add(q.Limit) + ` OFFSET ` + args.add(q.Offset)
		rows, total, err := scanBreakdown(s.db.R.QueryContext(ctx, stmt, args...))
		if err != nil {
			return nil, 0, fmt.Errorf("analyticsdb.AnalyticsBreakdownRollup: %w", err)
		}
		return rows, total, nil
	}
	stmt := `SELECT value, 0, SUM(pageviews) AS views, SUM(visits) AS visits, SUM(bounces), 0, COUNT(*) OVER ()
		FROM analytics_daily_dims WHERE dim = ` + args.add(q.Dim) + ` AND day >= ` + args.add(q.From) + ` AND day <= ` + args.add(q.To) + `
		GROUP BY value HAVING SUM(visits) > 0 OR SUM(pageviews) > 0 ORDER BY visits DESC, views DESC, value
		LIMIT ` + args.add(q.Limit) + ` OFFSET ` + args.add(q.Offset)
	rows, total, err := scanBreakdown(s.db.R.QueryContext(ctx, stmt, args...))
	if err != nil {
		return nil, 0, fmt.Errorf("analyticsdb.AnalyticsBreakdownRollup: %w", err)
	}
	return rows, total, nil
}

// visitAttrColumn is the column (or expression) of analytics_daily_visit_attrs of each dimension
// it can group or filter by: the visit attributes and date (the day visits start).
var visitAttrColumn = map[string]string{
	"source": "source", "referrer": "referrer", "utm_source": "utm_source", "utm_medium": "utm_medium",
	"utm_campaign": "utm_campaign", "country": "country", "device": "device", "browser": "browser",
	"browser_version": "CASE WHEN browser_version = '' THEN browser ELSE browser || ' ' || browser_version END",
	"os":              "os",
	"os_version":      "CASE WHEN os_version = '' THEN os ELSE os || ' ' || os_version END",
	"date":            "day",
}

// analyticsBreakdownVisitAttrs computes a filtered breakdown from the visit-attribute rollups:
// analytics_period_visit_attrs for the whole months and month parts of the range and
// analytics_daily_visit_attrs for its other days (see visitAttrCover), so it reads about a
// period's distinct attribute combinations per period, whatever the page views. A breakdown by
// date under one filter reads that filter's daily rows of analytics_daily_dims instead. Visits,
// page views and bounces are exact; visitors are not in the rollups and come back 0.
func (s *Store) analyticsBreakdownVisitAttrs(ctx context.Context, q folio.BreakdownQuery) ([]folio.BreakdownCounts, int, error) {
	if !folio.VisitAttrBreakdown(q.Dim, q.Filters) {
		return nil, 0, fmt.Errorf("analyticsdb.AnalyticsBreakdownRollup: %s filtered by %v is not in the rollup", q.Dim, q.Filters)
	}
	filters := q.Filters
	from, to := q.From, q.To
	if day, ok := filters["date"]; ok {
		// A date filter is a one-day range (the rows of a period have no day).
		if day < from || day > to {
			return []folio.BreakdownCounts{}, 0, nil
		}
		from, to = day, day
		filters = make(map[string]string, len(q.Filters))
		for k, v := range q.Filters {
			if k != "date" {
				filters[k] = v
			}
		}
	}
	var args argList
	var stmt string
	having := ` HAVING SUM(visits) > 0 OR SUM(pageviews) > 0`
	switch {
	case len(filters) == 0:
		// Only a date filter: the unfiltered rollup of that day.
		return s.AnalyticsBreakdownRollup(ctx, folio.BreakdownQuery{Dim: q.Dim, From: from, To: to, Limit: q.Limit, Offset: q.Offset})
	case q.Dim == "date" && len(filters) == 1:
		// The visits of one attribute value by the day they start are its rows of the
		// per-dimension rollup.
		for dim, val := range filters {
			stmt = `SELECT day AS value, 0, SUM(pageviews) AS views, SUM(visits) AS visits, SUM(bounces), 0, COUNT(*) OVER ()
				FROM analytics_daily_dims WHERE dim = ` + args.add(dim) + ` AND value = ` + args.add(val) + `
				AND day >= ` + args.add(from) + ` AND day <= ` + args.add(to) + ` GROUP BY day`
		}
	case q.Dim == "date":
		stmt = `SELECT day AS value, 0, SUM(pageviews) AS views, SUM(visits) AS visits, SUM(bounces), 0, COUNT(*) OVER ()
			FROM analytics_daily_visit_attrs WHERE day >= ` + args.add(from) + ` AND day <= ` + args.add(to) + visitAttrWhere(&args, filters) + `
			GROUP BY day`
	default:
		cover := visitAttrCover(from, to)
		expr := visitAttrColumn[q.Dim]
		var parts []string
		// Each table is grouped on its own first, so the union holds a few rows per value (a
		// quarter less time on SQLite than grouping the union's rows).
		for _, src := range []struct {
			table, col  string
			plus, minus []string
		}{
			{"analytics_daily_visit_attrs", "day", cover.days, cover.minusDays},
			{"analytics_period_visit_attrs", "period", cover.periods, nil},
		} {
			if len(src.plus)+len(src.minus) == 0 {
				continue
			}
			sign := `1`
			if len(src.minus) > 0 {
				sign = `CASE WHEN ` + src.col + ` IN (` + args.addList(src.minus) + `) THEN -1 ELSE 1 END`
			}
			parts = append(parts, `SELECT value, SUM(s * pageviews) AS pageviews, SUM(s * visits) AS visits, SUM(s * bounces) AS bounces
				FROM (SELECT `+expr+` AS value, `+sign+` AS s, visits, pageviews, bounces FROM `+src.table+`
				WHERE `+src.col+` IN (`+args.addList(append(slices.Clone(src.plus), src.minus...))+`)`+visitAttrWhere(&args, filters)+`) r
				GROUP BY value`)
		}
		stmt = `SELECT value, 0, SUM(pageviews) AS views, SUM(visits) AS visits, SUM(bounces), 0, COUNT(*) OVER ()
			FROM (` + strings.Join(parts, `
			UNION ALL `) + `) t GROUP BY value`
	}
	stmt += having + ` ORDER BY visits DESC, views DESC, value
		LIMIT ` + args.add(q.Limit) + ` OFFSET ` + args.add(q.Offset)
	var rows []folio.BreakdownCounts
	var total int
	err := s.visitAttrQuery(ctx, func(qr querier) error {
		var err error
		rows, total, err = scanBreakdown(qr.QueryContext(ctx, stmt, args...))
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("analyticsdb.AnalyticsBreakdownRollup: %w", err)
	}
	return rows, total, nil
}

// visitAttrWhere returns the conditions of filters on a visit-attribute rollup, in a fixed order
// (which keeps the statement text stable).
func visitAttrWhere(args *argList, filters map[string]string) string {
	var b strings.Builder
	for _, dim := range folio.BreakdownDims {
		if val, ok := filters[dim]; ok {
			fmt.Fprintf(&b, ` AND %s = %s`, visitAttrColumn[dim], args.add(val))
		}
	}
	return b.String()
}

// addList adds every value and returns their placeholders, comma-separated.
func (a *argList) addList(vs []string) string {
	ph := make([]string, len(vs))
	for i, v := range vs {
		ph[i] = a.add(v)
	}
	return strings.Join(ph, ", ")
}

// monthPeriod and partPeriod name the periods of analytics_period_visit_attrs a day belongs to:
// its month ("2026-04") and its part of the month ("2026-04-08": days 1–7, 8–14, 15–21, 22–end,
// each named by its first day).
func monthPeriod(day string) string { return day[:7] }

func partPeriod(day string) string {
	switch d := day[8:]; {
	case d < "08":
		return day[:8] + "01"
	case d < "15":
		return day[:8] + "08"
	case d < "22":
		return day[:8] + "15"
	default:
		return day[:8] + "22"
	}
}

// attrCover is how a day range is read from the visit-attribute rollups: the sum of the days
// and periods listed, minus the sum of the days in minusDays.
type attrCover struct {
	days, periods, minusDays []string
	cost                     float64
}

// Relative costs of reading one day, part or month of combinations: on traffic whose attribute
// combinations spread widely they saturate within days (the benchmark's 10 million page views:
// 13,747 combinations a day, about 22,830 a part, 22,880 a month), on light traffic every level
// is cheap.
const (
	dayCost   = 1.0
	partCost  = 1.6
	monthCost = 1.7
)

// maxCoverWiden is how many days past each end of a range a cover may reach to use a whole part
// or month, subtracting those days again. At 3, 5 April–25 June read 7 single days and 7 periods
// (255,675 rows of the benchmark); at 6 it reads April minus 1–4 April, May, and June minus
// 26–30 June (about 178,000 rows: the subtracted days cost what read days cost, and a month
// costs little more than a part), 80 ms instead of 104 ms on SQLite, 37 instead of 47 on
// PostgreSQL (browser under device=mobile). Only the cheapest cover is used, so a wider reach
// never reads more.
const maxCoverWiden = 6

// visitAttrCover returns the cheapest way to read the days from..to (YYYY-MM-DD) from the
// rollups: whole months, then whole parts, then single days, the range possibly widened by up to
// maxCoverWiden days at either end with those days subtracted (April 2–30 is April minus
// April 1).
func visitAttrCover(from, to string) attrCover {
	f, err1 := time.Parse(time.DateOnly, from)
	t, err2 := time.Parse(time.DateOnly, to)
	if err1 != nil || err2 != nil || t.Before(f) {
		return attrCover{}
	}
	var best attrCover
	found := false
	for l := 0; l <= maxCoverWiden; l++ {
		for r := 0; r <= maxCoverWiden; r++ {
			c := greedyCover(f.AddDate(0, 0, -l), t.AddDate(0, 0, r))
			for i := 1; i <= l; i++ {
				c.minusDays = append(c.minusDays, f.AddDate(0, 0, -i).Format(time.DateOnly))
			}
			for i := 1; i <= r; i++ {
				c.minusDays = append(c.minusDays, t.AddDate(0, 0, i).Format(time.DateOnly))
			}
			c.cost += float64(l+r) * dayCost
			// A subtracted day that the cover reads as a single day cancels out.
			c.days, c.minusDays = cancel(c.days, c.minusDays)
			if !found || c.cost < best.cost {
				best, found = c, true
			}
		}
	}
	return best
}

// greedyCover reads f..t as whole months where it can, else whole parts, else days.
func greedyCover(f, t time.Time) attrCover {
	var c attrCover
	for d := f; !d.After(t); {
		day := d.Format(time.DateOnly)
		monthEnd := time.Date(d.Year(), d.Month()+1, 0, 0, 0, 0, 0, time.UTC)
		partEnd := d.AddDate(0, 0, 6)
		if d.Day() == 22 {
			partEnd = monthEnd
		}
		switch {
		case d.Day() == 1 && !monthEnd.After(t):
			c.periods = append(c.periods, monthPeriod(day))
			c.cost += monthCost
			d = monthEnd.AddDate(0, 0, 1)
		case partPeriod(day) == day && !partEnd.After(t):
			c.periods = append(c.periods, day)
			c.cost += partCost
			d = partEnd.AddDate(0, 0, 1)
		default:
			c.days = append(c.days, day)
			c.cost += dayCost
			d = d.AddDate(0, 0, 1)
		}
	}
	return c
}

// cancel removes the days present in both lists from both.
func cancel(plus, minus []string) ([]string, []string) {
	var p, m []string
	for _, d := range plus {
		if !slices.Contains(minus, d) {
			p = append(p, d)
		}
	}
	for _, d := range minus {
		if !slices.Contains(plus, d) {
			m = append(m, d)
		}
	}
	if p == nil {
		p = []string{}
	}
	return p, m
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

// AnalyticsRealtime counts the visitors with a page view since the given time and the pages they
// are on (their latest page view), most visitors first, at most n pages. It reads the page views
// of those minutes by their time index.
func (s *Store) AnalyticsRealtime(ctx context.Context, since time.Time, n int) (int, []folio.RealtimePage, error) {
	var total int
	if err := s.db.R.QueryRowContext(ctx, `SELECT COUNT(DISTINCT visitor_id) FROM analytics_pageviews WHERE at >= $1`, s.db.TS(since)).Scan(&total); err != nil {
		return 0, nil, fmt.Errorf("analyticsdb.AnalyticsRealtime: %w", err)
	}
	rows, err := s.db.R.QueryContext(ctx, `SELECT path, COUNT(*) AS n FROM (SELECT path,
		ROW_NUMBER() OVER (PARTITION BY visitor_id ORDER BY at DESC, id DESC) AS rn FROM analytics_pageviews WHERE at >= $1) t
		WHERE rn = 1 GROUP BY path ORDER BY n DESC, path LIMIT $2`, s.db.TS(since), n)
	if err != nil {
		return 0, nil, fmt.Errorf("analyticsdb.AnalyticsRealtime: %w", err)
	}
	defer rows.Close()
	pages := []folio.RealtimePage{}
	for rows.Next() {
		var p folio.RealtimePage
		if err := rows.Scan(&p.Path, &p.Visitors); err != nil {
			return 0, nil, err
		}
		pages = append(pages, p)
	}
	return total, pages, rows.Err()
}
