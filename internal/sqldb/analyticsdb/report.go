package analyticsdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/foliohq/folio"
)

// AnalyticsTotals sums the rollups over the days from..to (inclusive, YYYY-MM-DD). A visitor
// is unique in the range at their first active day in it (previous active day before from);
// returning when that previous day exists, or when it lies in the range and was their first day
// ever (so the row is their second active day, and both are in the range).
func (s *Store) AnalyticsTotals(ctx context.Context, from, to string) (folio.AnalyticsTotals, error) {
	var t folio.AnalyticsTotals
	err := s.db.R.QueryRowContext(ctx, `SELECT COALESCE(SUM(views), 0), COALESCE(SUM(visits), 0)
		FROM analytics_daily_totals WHERE day >= $1 AND day <= $2`, from, to).Scan(&t.Views, &t.Visits)
	if err != nil {
		return t, wrap("AnalyticsTotals", err)
	}
	err = s.db.R.QueryRowContext(ctx, `SELECT
		COALESCE(SUM(CASE WHEN prev_day < $1 THEN visitors ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN (prev_day <> '' AND prev_day < $1) OR (prev_day >= $1 AND prev_is_first) THEN visitors ELSE 0 END), 0)
		FROM analytics_daily_uniques WHERE day >= $1 AND day <= $2`, from, to).Scan(&t.Unique, &t.Returning)
	if err != nil {
		return t, wrap("AnalyticsTotals", err)
	}
	return t, nil
}

// AnalyticsDaily returns the figures of each day of the range that has any, keyed by day.
func (s *Store) AnalyticsDaily(ctx context.Context, from, to string) (map[string]folio.DailyTotals, error) {
	out := map[string]folio.DailyTotals{}
	rows, err := s.db.R.QueryContext(ctx, `SELECT day, views, visits FROM analytics_daily_totals WHERE day >= $1 AND day <= $2`, from, to)
	if err != nil {
		return nil, wrap("AnalyticsDaily", err)
	}
	for rows.Next() {
		var d folio.DailyTotals
		if err := rows.Scan(&d.Date, &d.PageViews, &d.Visits); err != nil {
			rows.Close()
			return nil, wrap("AnalyticsDaily", err)
		}
		out[d.Date] = d
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap("AnalyticsDaily", err)
	}
	// Every visitor active on a day has exactly one row for that day (keyed by their previous day).
	rows, err = s.db.R.QueryContext(ctx, `SELECT day, SUM(visitors) FROM analytics_daily_uniques WHERE day >= $1 AND day <= $2 GROUP BY day`, from, to)
	if err != nil {
		return nil, wrap("AnalyticsDaily", err)
	}
	defer rows.Close()
	for rows.Next() {
		var day string
		var n int
		if err := rows.Scan(&day, &n); err != nil {
			return nil, wrap("AnalyticsDaily", err)
		}
		d := out[day]
		d.Date, d.Visitors = day, n
		out[day] = d
	}
	return out, rows.Err()
}

// AnalyticsTopPages returns the n most viewed paths of the day range (views descending, then
// path), each with the latest non-empty title seen for it in the range.
func (s *Store) AnalyticsTopPages(ctx context.Context, from, to string, n int) ([]folio.PageView, error) {
	rows, err := s.db.R.QueryContext(ctx, `SELECT path, SUM(views) AS v FROM analytics_daily_pages
		WHERE day >= $1 AND day <= $2 GROUP BY path ORDER BY v DESC, path LIMIT $3`, from, to, n)
	if err != nil {
		return nil, wrap("AnalyticsTopPages", err)
	}
	out := []folio.PageView{}
	for rows.Next() {
		var p folio.PageView
		if err := rows.Scan(&p.Path, &p.Views); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, err
	}
	args := []any{from, to}
	for _, p := range out {
		args = append(args, p.Path)
	}
	titles := map[string]string{}
	rows, err = s.db.R.QueryContext(ctx, `SELECT path, title FROM analytics_daily_pages WHERE day >= $1 AND day <= $2
		AND title <> '' AND path IN (`+anPlaceholders(3, len(out), 1)+`) ORDER BY day`, args...)
	if err != nil {
		return nil, wrap("AnalyticsTopPages", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p, t string
		if err := rows.Scan(&p, &t); err != nil {
			return nil, err
		}
		titles[p] = t // later days override earlier ones
	}
	for i := range out {
		out[i].Title = titles[out[i].Path]
	}
	return out, rows.Err()
}

// AnalyticsReferrers returns the n referring domains of the day range with the most arrivals
// (descending, then domain).
func (s *Store) AnalyticsReferrers(ctx context.Context, from, to string, n int) ([]folio.Referrer, error) {
	return scanReferrers(s.db.R.QueryContext(ctx, `SELECT domain, SUM(visits) AS v FROM analytics_daily_referrers
		WHERE day >= $1 AND day <= $2 GROUP BY domain ORDER BY v DESC, domain LIMIT $3`, from, to, n))
}

func scanReferrers(rows *sql.Rows, err error) ([]folio.Referrer, error) {
	if err != nil {
		return nil, fmt.Errorf("analyticsdb: referrers: %w", err)
	}
	defer rows.Close()
	out := []folio.Referrer{}
	for rows.Next() {
		var r folio.Referrer
		if err := rows.Scan(&r.Domain, &r.Visits); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// AnalyticsPath reports one page path (exact match, query excluded) over the days from..to.
func (s *Store) AnalyticsPath(ctx context.Context, path, from, to string, nRefs int) (*folio.AnalyticsPathReport, error) {
	rep := &folio.AnalyticsPathReport{Daily: map[string]int{}}
	rows, err := s.db.R.QueryContext(ctx, `SELECT day, views FROM analytics_daily_pages WHERE path = $1 AND day >= $2 AND day <= $3`, path, from, to)
	if err != nil {
		return nil, wrap("AnalyticsPath", err)
	}
	for rows.Next() {
		var d string
		var v int
		if err := rows.Scan(&d, &v); err != nil {
			rows.Close()
			return nil, err
		}
		rep.Daily[d] = v
		rep.Views += v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := s.db.R.QueryRowContext(ctx, `SELECT COUNT(DISTINCT visitor_id) FROM analytics_pageviews WHERE path = $1 AND day >= $2 AND day <= $3`,
		path, from, to).Scan(&rep.Unique); err != nil {
		return nil, wrap("AnalyticsPath", err)
	}
	rep.Referrers, err = scanReferrers(s.db.R.QueryContext(ctx, `SELECT referrer, COUNT(*) AS v FROM analytics_pageviews
		WHERE path = $1 AND day >= $2 AND day <= $3 AND referrer <> '' GROUP BY referrer ORDER BY v DESC, referrer LIMIT $4`, path, from, to, nRefs))
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// AnalyticsFunnel counts, over the days from..to, the distinct visitors of each step event and
// the events named errorEvent by group, and abandonment errors by step.
func (s *Store) AnalyticsFunnel(ctx context.Context, from, to string, steps []string, errorEvent string) (*folio.AnalyticsFunnelCounts, error) {
	c := &folio.AnalyticsFunnelCounts{StepVisitors: map[string]int{}, ErrorCount: map[string]int{}, ErrorVisitor: map[string]int{}, Abandonment: []folio.FunnelAbandonment{}}
	args := []any{from, to}
	for _, s := range steps {
		args = append(args, s)
	}
	rows, err := s.db.R.QueryContext(ctx, `SELECT name, COUNT(DISTINCT visitor_key) FROM analytics_events
		WHERE day >= $1 AND day <= $2 AND name IN (`+anPlaceholders(3, len(steps), 1)+`) GROUP BY name`, args...)
	if err != nil {
		return nil, wrap("AnalyticsFunnel", err)
	}
	for rows.Next() {
		var n string
		var v int
		if err := rows.Scan(&n, &v); err != nil {
			rows.Close()
			return nil, err
		}
		c.StepVisitors[n] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = s.db.R.QueryContext(ctx, `SELECT grp, COUNT(*), COUNT(DISTINCT visitor_key) FROM analytics_events
		WHERE name = $1 AND day >= $2 AND day <= $3 GROUP BY grp`, errorEvent, from, to)
	if err != nil {
		return nil, wrap("AnalyticsFunnel", err)
	}
	for rows.Next() {
		var g string
		var n, v int
		if err := rows.Scan(&g, &n, &v); err != nil {
			rows.Close()
			return nil, err
		}
		c.ErrorCount[g], c.ErrorVisitor[g] = n, v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = s.db.R.QueryContext(ctx, `SELECT step, COUNT(*) AS n FROM analytics_events
		WHERE name = $1 AND grp = 'abandonment' AND day >= $2 AND day <= $3 GROUP BY step ORDER BY n DESC, step`, errorEvent, from, to)
	if err != nil {
		return nil, wrap("AnalyticsFunnel", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a folio.FunnelAbandonment
		if err := rows.Scan(&a.Step, &a.Count); err != nil {
			return nil, err
		}
		c.Abandonment = append(c.Abandonment, a)
	}
	return c, rows.Err()
}

// AnalyticsRealtime counts the visitors with a page view since the given time and the pages they
// are on (their latest page view), most visitors first, at most n pages. It reads the page views
// of those minutes by their time index.
func (s *Store) AnalyticsRealtime(ctx context.Context, since time.Time, n int) (int, []folio.RealtimePage, error) {
	var total int
	if err := s.db.R.QueryRowContext(ctx, `SELECT COUNT(DISTINCT visitor_id) FROM analytics_pageviews WHERE at >= $1`, s.db.TS(since)).Scan(&total); err != nil {
		return 0, nil, wrap("AnalyticsRealtime", err)
	}
	rows, err := s.db.R.QueryContext(ctx, `SELECT path, COUNT(*) AS n FROM (SELECT path,
		ROW_NUMBER() OVER (PARTITION BY visitor_id ORDER BY at DESC, id DESC) AS rn FROM analytics_pageviews WHERE at >= $1) t
		WHERE rn = 1 GROUP BY path ORDER BY n DESC, path LIMIT $2`, s.db.TS(since), n)
	if err != nil {
		return 0, nil, wrap("AnalyticsRealtime", err)
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
