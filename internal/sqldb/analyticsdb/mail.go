package analyticsdb

import (
	"context"
	"database/sql"
	"time"

	"github.com/foliohq/folio"
)

// ClaimAnalyticsMail claims a mailed report or alert (analytics_mail_claims) for this instance at
// now: a period never claimed is claimed; with cooldown > 0 a period claimed at least cooldown
// before now is claimed again (the spike alert). It reports whether this call claimed it, so
// exactly one instance sends each mail.
func (s *Store) ClaimAnalyticsMail(ctx context.Context, period string, now time.Time, cooldown time.Duration) (bool, error) {
	var claimed bool
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO analytics_mail_claims (period, claimed_at) VALUES ($1, $2) ON CONFLICT (period) DO NOTHING`,
			period, s.db.TS(now))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n == 1 || cooldown <= 0 {
			claimed = n == 1
			return err
		}
		res, err = tx.ExecContext(ctx, `UPDATE analytics_mail_claims SET claimed_at = $2 WHERE period = $1 AND claimed_at <= $3`,
			period, s.db.TS(now), s.db.TS(now.Add(-cooldown)))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		claimed = n == 1
		return err
	})
	if err != nil {
		return false, wrap("ClaimAnalyticsMail", err)
	}
	return claimed, nil
}

// ReleaseAnalyticsMail gives up the claim made at "at" (its mail could not be queued), so a
// later run tries again.
func (s *Store) ReleaseAnalyticsMail(ctx context.Context, period string, at time.Time) error {
	_, err := s.db.W.ExecContext(ctx, `DELETE FROM analytics_mail_claims WHERE period = $1 AND claimed_at = $2`, period, s.db.TS(at))
	return wrapIf("ReleaseAnalyticsMail", err)
}

// AnalyticsHour counts the distinct visitors with a page view in [from, to), and the n pages and
// sources with the most of them.
func (s *Store) AnalyticsHour(ctx context.Context, from, to time.Time, n int) (folio.HourTraffic, error) {
	var h folio.HourTraffic
	f, t := s.db.TS(from), s.db.TS(to)
	if err := s.db.R.QueryRowContext(ctx, `SELECT COUNT(DISTINCT visitor_id) FROM analytics_pageviews WHERE at >= $1 AND at < $2`, f, t).Scan(&h.Visitors); err != nil {
		return h, wrap("AnalyticsHour", err)
	}
	top := func(col string) ([]folio.RealtimePage, error) {
		rows, err := s.db.R.QueryContext(ctx, `SELECT `+col+`, COUNT(DISTINCT visitor_id) AS v FROM analytics_pageviews
			WHERE at >= $1 AND at < $2 GROUP BY `+col+` ORDER BY v DESC, `+col+` LIMIT $3`, f, t, n)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := []folio.RealtimePage{}
		for rows.Next() {
			var p folio.RealtimePage
			if err := rows.Scan(&p.Path, &p.Visitors); err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		return out, rows.Err()
	}
	var err error
	if h.Pages, err = top("path"); err != nil {
		return h, wrap("AnalyticsHour", err)
	}
	if h.Sources, err = top("source"); err != nil {
		return h, wrap("AnalyticsHour", err)
	}
	return h, nil
}
