package analyticsdb

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

// writePageViews writes pvs and their rollups. states holds the current state of some
// visitors (the others are read); it is updated in place to the state after this batch. The
// rollups are computed from the batch alone (rollups.go) and added to their tables, one upsert
// per row.
func (s *Store) writePageViews(ctx context.Context, tx anTx, pvs []folio.AnalyticsPageView, states map[string]*visitorState) error {
	sort.SliceStable(pvs, func(i, j int) bool { return pvs[i].At.Before(pvs[j].At) })
	keys, err := s.readVisitors(ctx, tx, pvs, states)
	if err != nil {
		return err
	}
	steps := splitVisits(pvs, states)
	if err := s.saveVisitors(ctx, tx, keys, states); err != nil {
		return err
	}
	if err := tx.insertRows(ctx, "analytics_pageviews", pageViewColumns, s.pageViewRows(steps, states)); err != nil {
		return err
	}
	if err := s.upsertDims(ctx, tx, dimDeltas(steps)); err != nil {
		return err
	}
	combos := comboDeltas(steps)
	if err := s.upsertCombos(ctx, tx, "analytics_daily_visit_attrs", "day", combos); err != nil {
		return err
	}
	if err := s.upsertCombos(ctx, tx, "analytics_period_visit_attrs", "period", periodDeltas(combos)); err != nil {
		return err
	}
	if err := s.upsertPages(ctx, tx, pageDeltas(pvs)); err != nil {
		return err
	}
	if err := s.upsertReferrers(ctx, tx, referrerDeltas(pvs)); err != nil {
		return err
	}
	if err := s.upsertTotals(ctx, tx, dailyTotals(steps)); err != nil {
		return err
	}
	return s.upsertUniques(ctx, tx, uniqueDeltas(steps))
}

// pageViewColumns are the columns of analytics_pageviews an ingest batch writes.
var pageViewColumns = []string{"at", "day", "visitor_id", "visit_id", "is_new_visit", "path", "query", "title", "referrer",
	"source", "visit_referrer", "utm_source", "utm_medium", "utm_campaign", "country", "device", "browser", "browser_version", "os", "os_version",
	"visitor_sample"}

// pageViewRows are the rows of analytics_pageviews of the batch's views (their visitors saved,
// so with ids). A visit's id is its visitor's and its start time.
func (s *Store) pageViewRows(steps []viewStep, states map[string]*visitorState) [][]any {
	rows := make([][]any, len(steps))
	for i := range steps {
		pv := steps[i].pv
		st := states[pv.VisitorKey]
		visitID := strconv.FormatInt(st.id, 36) + "." + strconv.FormatInt(steps[i].visitStart.UnixMilli(), 36)
		a := pv.Attrs
		rows[i] = []any{s.db.TS(pv.At), pv.Day, st.id, visitID, steps[i].newVisit, pv.Path, pv.Query, pv.Title, pv.Referrer,
			a.Source, a.Referrer, a.UTMSource, a.UTMMedium, a.UTMCampaign, a.Country, a.Device, a.Browser, a.BrowserVersion, a.OS, a.OSVersion,
			st.sample}
	}
	return rows
}

// upsertDims adds deltas to analytics_daily_dims.
func (s *Store) upsertDims(ctx context.Context, tx anTx, dims map[dimKey]*dimDelta) error {
	for chunk := range anChunks(anMapKeys(dims), 300) {
		args := make([]any, 0, 6*len(chunk))
		n := 0
		for _, k := range chunk {
			d := dims[k]
			if d.zero() {
				continue
			}
			args = append(args, k.dim, k.day, k.value, d.visits, d.pageviews, d.bounces)
			n++
		}
		if n == 0 {
			continue
		}
		q := `INSERT INTO analytics_daily_dims (dim, day, value, visits, pageviews, bounces) VALUES ` + s.anBatchValues(n, 6) + `
			ON CONFLICT (dim, day, value) DO UPDATE SET visits = analytics_daily_dims.visits + excluded.visits,
			pageviews = analytics_daily_dims.pageviews + excluded.pageviews, bounces = analytics_daily_dims.bounces + excluded.bounces`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// upsertPages adds deltas to analytics_daily_pages.
func (s *Store) upsertPages(ctx context.Context, tx anTx, pages map[dayPath]*pageDelta) error {
	for chunk := range anChunks(anMapKeys(pages), 500) {
		args := make([]any, 0, 4*len(chunk))
		for _, k := range chunk {
			args = append(args, k.day, k.path, pages[k].views, pages[k].title)
		}
		q := `INSERT INTO analytics_daily_pages (day, path, views, title) VALUES ` + s.anBatchValues(len(chunk), 4) + `
			ON CONFLICT (day, path) DO UPDATE SET views = analytics_daily_pages.views + excluded.views,
			title = CASE WHEN excluded.title <> '' THEN excluded.title ELSE analytics_daily_pages.title END`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// upsertReferrers adds deltas to analytics_daily_referrers.
func (s *Store) upsertReferrers(ctx context.Context, tx anTx, refs map[dayPath]int) error {
	for chunk := range anChunks(anMapKeys(refs), 500) {
		args := make([]any, 0, 3*len(chunk))
		for _, k := range chunk {
			args = append(args, k.day, k.path, refs[k])
		}
		q := `INSERT INTO analytics_daily_referrers (day, domain, visits) VALUES ` + s.anBatchValues(len(chunk), 3) + `
			ON CONFLICT (day, domain) DO UPDATE SET visits = analytics_daily_referrers.visits + excluded.visits`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// upsertTotals adds deltas to analytics_daily_totals.
func (s *Store) upsertTotals(ctx context.Context, tx anTx, daily map[string]*dayTotals) error {
	for chunk := range anChunks(anMapKeys(daily), 500) {
		args := make([]any, 0, 3*len(chunk))
		for _, d := range chunk {
			args = append(args, d, daily[d].views, daily[d].visits)
		}
		q := `INSERT INTO analytics_daily_totals (day, views, visits) VALUES ` + s.anBatchValues(len(chunk), 3) + `
			ON CONFLICT (day) DO UPDATE SET views = analytics_daily_totals.views + excluded.views,
			visits = analytics_daily_totals.visits + excluded.visits`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// upsertUniques adds deltas to analytics_daily_uniques.
func (s *Store) upsertUniques(ctx context.Context, tx anTx, uniques map[uniqueKey]int) error {
	for chunk := range anChunks(anMapKeys(uniques), 500) {
		args := make([]any, 0, 4*len(chunk))
		for _, k := range chunk {
			args = append(args, k.day, k.prevDay, k.prevIsFirst, uniques[k])
		}
		q := `INSERT INTO analytics_daily_uniques (day, prev_day, prev_is_first, visitors) VALUES ` + s.anBatchValues(len(chunk), 4) + `
			ON CONFLICT (day, prev_day, prev_is_first) DO UPDATE SET visitors = analytics_daily_uniques.visitors + excluded.visitors`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// upsertCombos adds deltas to a visit-attribute rollup: table, keyed by col (a day or a period)
// and the attributes.
func (s *Store) upsertCombos(ctx context.Context, tx anTx, table, col string, combos map[comboKey]*dimDelta) error {
	const conflict = `, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser, browser_version, os, os_version)
		DO UPDATE SET visits = %[1]s.visits + excluded.visits,
		pageviews = %[1]s.pageviews + excluded.pageviews, bounces = %[1]s.bounces + excluded.bounces`
	if s.db.Dialect == sqldb.Postgres {
		// One statement whatever the rows, a column array each, rather than chunks of 300 rows ×
		// 15 parameters (4,500 to parse and bind a statement).
		var cols [12][]string
		var visits, views, bounces []int64
		for k, d := range combos {
			if d.visits == 0 && d.pageviews == 0 && d.bounces == 0 {
				continue
			}
			a := k.attrs
			for i, v := range [12]string{k.day, a.Source, a.Referrer, a.UTMSource, a.UTMMedium, a.UTMCampaign, a.Country, a.Device,
				a.Browser, a.BrowserVersion, a.OS, a.OSVersion} {
				cols[i] = append(cols[i], v)
			}
			visits, views, bounces = append(visits, int64(d.visits)), append(views, int64(d.pageviews)), append(bounces, int64(d.bounces))
		}
		if len(visits) == 0 {
			return nil
		}
		args := make([]any, 0, 15)
		for _, c := range cols {
			args = append(args, c)
		}
		args = append(args, visits, views, bounces)
		q := `INSERT INTO ` + table + ` (` + col + `, source, referrer, utm_source, utm_medium, utm_campaign, country, device,
			browser, browser_version, os, os_version, visits, pageviews, bounces)
			SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
			$9::text[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::bigint[], $15::bigint[])
			ON CONFLICT (` + col + fmt.Sprintf(conflict, table)
		return tx.exec(ctx, q, args...)
	}
	keys := anMapKeys(combos)
	for chunk := range anChunks(keys, 300) {
		args := make([]any, 0, 15*len(chunk))
		n := 0
		for _, k := range chunk {
			d := combos[k]
			if d.visits == 0 && d.pageviews == 0 && d.bounces == 0 {
				continue
			}
			a := k.attrs
			args = append(args, k.day, a.Source, a.Referrer, a.UTMSource, a.UTMMedium, a.UTMCampaign, a.Country, a.Device,
				a.Browser, a.BrowserVersion, a.OS, a.OSVersion, d.visits, d.pageviews, d.bounces)
			n++
		}
		if n == 0 {
			continue
		}
		q := `INSERT INTO ` + table + ` (` + col + `, source, referrer, utm_source, utm_medium, utm_campaign, country, device,
			browser, browser_version, os, os_version, visits, pageviews, bounces) VALUES ` + s.anBatchValues(n, 15) + `
			ON CONFLICT (` + col + fmt.Sprintf(conflict, table)
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}
