package analyticsdb

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

// AnalyticsVisit returns the latest visit of the visitor with the given key, from its row in
// analytics_visitors (migration 0015), or nil when the visitor is unknown. Its id is the visit_id
// its page views carry.
func (s *Store) AnalyticsVisit(ctx context.Context, visitorKey string) (*folio.Visit, error) {
	var id int64
	var last, start sqldb.Time
	var pages, attrs string
	v := &folio.Visit{}
	err := s.db.R.QueryRowContext(ctx, `SELECT id, last_seen, visit_start, visit_entry, visit_pages, visit_attrs
		FROM analytics_visitors WHERE visitor_key = $1`, visitorKey).Scan(&id, &last, &start, &v.Entry, &pages, &attrs)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap("AnalyticsVisit", err)
	}
	v.ID = strconv.FormatInt(id, 36) + "." + strconv.FormatInt(start.Time.UnixMilli(), 36)
	v.Start, v.LastSeen, v.Attrs = start.Time, last.Time, decodeVisitAttrs(attrs)
	if pages != "" {
		v.Pages = strings.Split(pages, "\n")
	}
	return v, nil
}

// RecordConversion stores a conversion with the visit attributes the use case chose.
func (s *Store) RecordConversion(ctx context.Context, c folio.Conversion) error {
	_, err := s.db.W.ExecContext(ctx, `INSERT INTO analytics_conversions (id, kind, ref_id, at, day, visit_id, entry_page, source, referrer,
		utm_source, utm_medium, utm_campaign, posts) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		c.ID, c.Kind, c.RefID, s.db.TS(c.At), c.Day, c.VisitID, c.EntryPage, c.Source, c.Referrer, c.UTMSource, c.UTMMedium,
		c.UTMCampaign, strings.Join(c.Posts, "\n"))
	return wrapIf("RecordConversion", err)
}

// maxConversionRows bounds the conversions one report reads (a site with more in its range sees
// the first ones by time).
const maxConversionRows = 100_000

// AnalyticsConversions returns the conversions of days from..to, oldest first.
func (s *Store) AnalyticsConversions(ctx context.Context, from, to string) ([]folio.Conversion, error) {
	rows, err := s.db.R.QueryContext(ctx, `SELECT id, kind, ref_id, at, day, visit_id, entry_page, source, referrer, utm_source, utm_medium,
		utm_campaign, posts FROM analytics_conversions WHERE day >= $1 AND day <= $2 ORDER BY at, id LIMIT `+strconv.Itoa(maxConversionRows), from, to)
	if err != nil {
		return nil, wrap("AnalyticsConversions", err)
	}
	defer rows.Close()
	var out []folio.Conversion
	for rows.Next() {
		var c folio.Conversion
		var at sqldb.Time
		var posts string
		if err := rows.Scan(&c.ID, &c.Kind, &c.RefID, &at, &c.Day, &c.VisitID, &c.EntryPage, &c.Source, &c.Referrer, &c.UTMSource,
			&c.UTMMedium, &c.UTMCampaign, &posts); err != nil {
			return nil, wrap("AnalyticsConversions", err)
		}
		c.At = at.Time
		if posts != "" {
			c.Posts = strings.Split(posts, "\n")
		}
		out = append(out, c)
	}
	return out, wrapIf("AnalyticsConversions", rows.Err())
}

// AnalyticsDimVisits returns the visits of each of values of a rollup dimension (source,
// entry_page, utm_campaign, page…) over days from..to, from analytics_daily_dims.
func (s *Store) AnalyticsDimVisits(ctx context.Context, dim, from, to string, values []string) (map[string]int, error) {
	out := make(map[string]int, len(values))
	for chunk := range anChunks(values, 500) {
		args := append([]any{dim, from, to}, anAnySlice(chunk)...)
		rows, err := s.db.R.QueryContext(ctx, `SELECT value, SUM(visits) FROM analytics_daily_dims WHERE dim = $1 AND day >= $2 AND day <= $3
			AND value IN (`+anPlaceholders(4, len(chunk), 1)+`) GROUP BY value`, args...)
		if err != nil {
			return nil, wrap("AnalyticsDimVisits", err)
		}
		for rows.Next() {
			var v string
			var n int64
			if err := rows.Scan(&v, &n); err != nil {
				rows.Close()
				return nil, wrap("AnalyticsDimVisits", err)
			}
			out[v] = int(n)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, wrap("AnalyticsDimVisits", err)
		}
	}
	return out, nil
}

func wrapIf(method string, err error) error {
	if err == nil {
		return nil
	}
	return wrap(method, err)
}

// AnalyticsMeasurement groups the events named name of days from..to by their subject (the step
// column; see analytics.measureTarget), over the (name, day, visitor_key) index.
func (s *Store) AnalyticsMeasurement(ctx context.Context, name, from, to string, limit int) ([]folio.MeasurementRow, error) {
	rows, err := s.db.R.QueryContext(ctx, `SELECT step, COUNT(DISTINCT visitor_key), COUNT(*) AS n FROM analytics_events
		WHERE name = $1 AND day >= $2 AND day <= $3 GROUP BY step ORDER BY n DESC, step LIMIT $4`, name, from, to, limit)
	if err != nil {
		return nil, wrap("AnalyticsMeasurement", err)
	}
	defer rows.Close()
	out := []folio.MeasurementRow{}
	for rows.Next() {
		var r folio.MeasurementRow
		if err := rows.Scan(&r.Value, &r.Visitors, &r.Events); err != nil {
			return nil, wrap("AnalyticsMeasurement", err)
		}
		out = append(out, r)
	}
	return out, wrapIf("AnalyticsMeasurement", rows.Err())
}
