package analyticsdb

import (
	"context"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

func (s *Store) writeEvents(ctx context.Context, tx anTx, evs []folio.AnalyticsEvent) error {
	if len(evs) == 0 {
		return nil
	}
	// The event rollup: per day and name, the events and the visitors who sent it that day for
	// the first time (those already stored that day are looked up before the batch is written).
	type dayName struct{ day, name string }
	batchKeys := map[dayName]map[string]bool{}
	counts := map[dayName]int{}
	for _, e := range evs {
		k := dayName{e.Day, e.Name}
		if batchKeys[k] == nil {
			batchKeys[k] = map[string]bool{}
		}
		batchKeys[k][e.VisitorKey] = true
		counts[k]++
	}
	for k, keys := range batchKeys {
		list := anMapKeys(keys)
		for chunk := range anChunks(list, 500) {
			args := append([]any{k.name, k.day}, anAnySlice(chunk)...)
			q := `SELECT DISTINCT visitor_key FROM analytics_events WHERE name = $1 AND day = $2 AND visitor_key IN (` + anPlaceholders(3, len(chunk), 1) + `)`
			if s.db.Dialect == sqldb.SQLite {
				q = `SELECT DISTINCT visitor_key FROM analytics_events WHERE name = ? AND day = ? AND visitor_key IN (` + s.anBatchValues(len(chunk), 1) + `)`
			}
			rows, err := tx.query(ctx, q, args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var v string
				if err := rows.Scan(&v); err != nil {
					closeRows(rows)
					return err
				}
				delete(keys, v)
			}
			closeRows(rows)
			if err := rows.Err(); err != nil {
				return err
			}
		}
	}
	rows := make([][]any, len(evs))
	samples := map[string]int{} // sampleHash once per visitor of the batch
	for i, e := range evs {
		props := e.Props
		if props == "" {
			props = "{}"
		}
		sample, ok := samples[e.VisitorKey]
		if !ok {
			sample = sqldb.VisitorSample(e.VisitorKey)
			samples[e.VisitorKey] = sample
		}
		rows[i] = []any{s.db.TS(e.At), e.Day, e.VisitorKey, e.Name, e.Path, props, e.Group, e.Step, sample}
	}
	if err := tx.insertRows(ctx, "analytics_events", []string{"at", "day", "visitor_key", "name", "path", "props", "grp", "step", "visitor_sample"}, rows); err != nil {
		return err
	}
	dimKeys := anMapKeys(counts)
	for chunk := range anChunks(dimKeys, 300) {
		args := make([]any, 0, 6*len(chunk))
		for _, k := range chunk {
			args = append(args, "event", k.day, k.name, len(batchKeys[k]), counts[k], 0)
		}
		q := `INSERT INTO analytics_daily_dims (dim, day, value, visits, pageviews, bounces) VALUES ` + s.anBatchValues(len(chunk), 6) + `
			ON CONFLICT (dim, day, value) DO UPDATE SET visits = analytics_daily_dims.visits + excluded.visits,
			pageviews = analytics_daily_dims.pageviews + excluded.pageviews`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}
