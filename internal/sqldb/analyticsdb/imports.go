package analyticsdb

import (
	"context"
	"database/sql"
	"time"

	"github.com/foliohq/folio"
)

// ImportAnalyticsDays adds imported days to the daily rollups — totals, unique visitors (each
// day's visitors as new ones: an import has no identities), pages, referrers, the page and visit
// dimensions (folio.ImportedDims) and the events — and marks them in analytics_imported_days, in
// one transaction. The visit-attribute rollups are left alone: an import has no combinations. A day
// that already has totals (tracked, or imported before) is left out and returned in skipped.
func (s *Store) ImportAnalyticsDays(ctx context.Context, days []folio.ImportedDay, source string, now time.Time) (skipped []string, err error) {
	err = s.db.Tx(ctx, func(tx *sql.Tx) error {
		skipped = skipped[:0]
		exec := func(q string, args ...any) error {
			_, err := tx.ExecContext(ctx, q, args...)
			return err
		}
		dim := func(d, day, value string, visits, views, bounces int) error {
			return exec(`INSERT INTO analytics_daily_dims (dim, day, value, visits, pageviews, bounces) VALUES ($1, $2, $3, $4, $5, $6)
				ON CONFLICT (dim, day, value) DO UPDATE SET visits = analytics_daily_dims.visits + excluded.visits,
				pageviews = analytics_daily_dims.pageviews + excluded.pageviews, bounces = analytics_daily_dims.bounces + excluded.bounces`,
				d, day, value, visits, views, bounces)
		}
		for _, d := range days {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM analytics_daily_totals WHERE day = $1`, d.Day).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				skipped = append(skipped, d.Day)
				continue
			}
			if err := exec(`INSERT INTO analytics_daily_totals (day, views, visits) VALUES ($1, $2, $3)`, d.Day, d.PageViews, d.Visits); err != nil {
				return err
			}
			if err := exec(`INSERT INTO analytics_daily_uniques (day, prev_day, prev_is_first, visitors) VALUES ($1, '', $2, $3)
				ON CONFLICT (day, prev_day, prev_is_first) DO UPDATE SET visitors = analytics_daily_uniques.visitors + excluded.visitors`,
				d.Day, false, d.Visitors); err != nil {
				return err
			}
			for _, p := range d.Pages {
				if err := exec(`INSERT INTO analytics_daily_pages (day, path, views, title) VALUES ($1, $2, $3, '')
					ON CONFLICT (day, path) DO UPDATE SET views = analytics_daily_pages.views + excluded.views`, d.Day, p.Value, p.PageViews); err != nil {
					return err
				}
				if err := dim("page", d.Day, p.Value, max(p.Visits, p.Visitors), p.PageViews, 0); err != nil {
					return err
				}
			}
			for _, r := range d.Referrers {
				if err := exec(`INSERT INTO analytics_daily_referrers (day, domain, visits) VALUES ($1, $2, $3)
					ON CONFLICT (day, domain) DO UPDATE SET visits = analytics_daily_referrers.visits + excluded.visits`, d.Day, r.Value, r.Visits); err != nil {
					return err
				}
			}
			for _, name := range folio.ImportedDims {
				for _, c := range d.Dims[name] {
					if err := dim(name, d.Day, c.Value, c.Visits, c.PageViews, c.Bounces); err != nil {
						return err
					}
				}
			}
			// Event rows of the rollup: visits holds the day's visitors who sent it, pageviews
			// how many times.
			for _, e := range d.Events {
				if err := dim("event", d.Day, e.Value, e.Visitors, e.Events, 0); err != nil {
					return err
				}
			}
			if err := exec(`INSERT INTO analytics_imported_days (day, source, pageviews, visitors, visits, imported_at) VALUES ($1, $2, $3, $4, $5, $6)`,
				d.Day, source, d.PageViews, d.Visitors, d.Visits, s.db.TS(now)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, wrap("ImportAnalyticsDays", err)
	}
	return skipped, nil
}

// AnalyticsImportedDays lists the imported days of from..to, in order.
func (s *Store) AnalyticsImportedDays(ctx context.Context, from, to string) ([]string, error) {
	return s.texts(ctx, "AnalyticsImportedDays", `SELECT day FROM analytics_imported_days WHERE day >= $1 AND day <= $2 ORDER BY day`, from, to)
}

// AnalyticsImportSources lists the tools the imported days of from..to came from, in name order.
func (s *Store) AnalyticsImportSources(ctx context.Context, from, to string) ([]string, error) {
	return s.texts(ctx, "AnalyticsImportSources", `SELECT DISTINCT source FROM analytics_imported_days WHERE day >= $1 AND day <= $2 ORDER BY source`, from, to)
}

// texts runs query, whose rows are one text column, and returns its values; op names the
// caller in errors.
func (s *Store) texts(ctx context.Context, op, query string, args ...any) ([]string, error) {
	rows, err := s.db.R.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrap(op, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, wrap(op, err)
		}
		out = append(out, v)
	}
	return out, wrapIf(op, rows.Err())
}
