package analyticsdb_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// TestIngestAcrossInstances writes one visit's page views through two instances of one database
// in turn, and prunes in between: each instance remembers the visitors of its own batches, and
// must read them again once the other instance (or a prune) has taken an ingest turn.
func TestIngestAcrossInstances(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, a *sqldb.DB) {
		ctx := context.Background()
		b, err := sqldb.Open(ctx, a.DSN, "")
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		// Each instance has its store, which remembers the visitors of its own batches.
		stores := map[*sqldb.DB]*analyticsdb.Store{a: analyticsdb.New(a), b: analyticsdb.New(b)}
		at := time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC)
		view := func(db *sqldb.DB, visitor, path string, minutes int) {
			t.Helper()
			when := at.Add(time.Duration(minutes) * time.Minute)
			pv := folio.AnalyticsPageView{At: when, Day: when.Format(time.DateOnly), VisitorKey: visitor, Path: path,
				Attrs: folio.VisitAttrs{Source: "Direct / None", Device: "desktop", Browser: "Firefox"}}
			if err := stores[db].WriteAnalytics(ctx, []folio.AnalyticsPageView{pv}, nil); err != nil {
				t.Fatal(err)
			}
		}
		entry := func(day, path string) (visits, views, bounces int) {
			t.Helper()
			err := a.Analytics().R.QueryRowContext(ctx, `SELECT visits, pageviews, bounces FROM analytics_daily_dims
				WHERE dim = 'entry_page' AND day = $1 AND value = $2`, day, path).Scan(&visits, &views, &bounces)
			if err != nil {
				t.Fatal(err)
			}
			return
		}

		// One visit of three page views, 10 minutes apart, through a, b and a again: a's
		// remembered state after its first batch (one view, a bounce) is stale by its second.
		view(a, "v1", "/", 0)
		view(b, "v1", "/about", 10)
		view(a, "v1", "/contact", 20)
		if v, p, bo := entry("2026-04-10", "/"); v != 1 || p != 3 || bo != 0 {
			t.Errorf("entry / = %d visits, %d views, %d bounces; want 1, 3, 0", v, p, bo)
		}
		var views int
		if err := a.Analytics().R.QueryRowContext(ctx, `SELECT visit_views FROM analytics_visitors WHERE visitor_key = 'v1'`).Scan(&views); err != nil || views != 3 {
			t.Errorf("visit_views = %d, %v; want 3", views, err)
		}

		// A prune that deletes the visitor: a's next batch must not update the deleted row.
		view(a, "v2", "/", 30)
		if _, err := stores[b].PruneAnalytics(ctx, "2026-04-11"); err != nil {
			t.Fatal(err)
		}
		view(a, "v2", "/", 35)
		var n int
		if err := a.Analytics().R.QueryRowContext(ctx, `SELECT COUNT(*) FROM analytics_visitors WHERE visitor_key = 'v2'`).Scan(&n); err != nil || n != 1 {
			t.Errorf("visitor v2 rows after prune and a new page view = %d, %v; want 1", n, err)
		}
		if err := a.Analytics().R.QueryRowContext(ctx, `SELECT COUNT(*) FROM analytics_pageviews p
			WHERE NOT EXISTS (SELECT 1 FROM analytics_visitors v WHERE v.id = p.visitor_id)`).Scan(&n); err != nil || n != 0 {
			t.Errorf("%d page views of no stored visitor, %v", n, err)
		}

		// The same visit through a alone: its remembered state carries it without reads. The
		// entry page / now has v1's visit, v2's two single-view visits (the prune forgot v2, so its
		// second page view started a visit) and v3's.
		view(a, "v3", "/", 40)
		view(a, "v3", "/about", 45)
		view(a, "v3", "/", 50)
		if v, p, bo := entry("2026-04-10", "/"); v != 4 || p != 8 || bo != 2 {
			t.Errorf("entry / = %d visits, %d views, %d bounces; want 4, 8, 2", v, p, bo)
		}
	})
}

// TestVisitorSample checks the sample hash of page views and events: the ingest batch's (in Go)
// equals the one migration 0023 computes in SQL for existing rows, is shared by a visitor's page
// views and events, puts about one visitor in eight in the 1/8 level, and a sampled statement
// reads its partial index alone (SQLite).
func TestVisitorSample(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		db = db.Analytics() // the raw rows are in the analytics file on SQLite
		ctx := context.Background()
		at := time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC)
		var pvs []folio.AnalyticsPageView
		var evs []folio.AnalyticsEvent
		for v := range 800 {
			key := fmt.Sprint("visitor-", v)
			// Two visits of two page views each, an hour apart, and an event.
			for i := range 4 {
				when := at.Add(time.Duration(v)*time.Second + time.Duration(i/2)*time.Hour + time.Duration(i%2)*time.Minute)
				pvs = append(pvs, folio.AnalyticsPageView{At: when, Day: when.Format(time.DateOnly), VisitorKey: key, Path: "/",
					Attrs: folio.VisitAttrs{Source: "Direct / None", Device: "desktop", Browser: "Firefox"}})
			}
			when := at.Add(time.Duration(v)*time.Second + 2*time.Minute)
			evs = append(evs, folio.AnalyticsEvent{At: when, Day: when.Format(time.DateOnly), VisitorKey: key, Name: "signup", Path: "/"})
		}
		if err := analyticsdb.New(db).WriteAnalytics(ctx, pvs, evs); err != nil {
			t.Fatal(err)
		}
		// Migration 0023's updates, run again over rows set to the default, give each row the
		// hash the batch gave it.
		src, err := os.ReadFile("../migrations/" + string(db.Dialect) + "/0023_analytics_visitor_sample.sql")
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"analytics_pageviews", "analytics_events"} {
			i := strings.Index(string(src), "UPDATE "+table)
			j := strings.Index(string(src[max(i, 0):]), ";")
			if i < 0 || j < 0 {
				t.Fatalf("no update of %s in migration 0023", table)
			}
			if _, err := db.W.ExecContext(ctx, `CREATE TABLE sample_by_batch AS SELECT id, visitor_sample FROM `+table); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{`UPDATE ` + table + ` SET visitor_sample = 65535`, string(src[i : i+j])} {
				if _, err := db.W.ExecContext(ctx, q); err != nil {
					t.Fatal(q, err)
				}
			}
			var rows, differ int
			err = db.R.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN p.visitor_sample <> b.visitor_sample THEN 1 ELSE 0 END), 0)
				FROM `+table+` p JOIN sample_by_batch b ON b.id = p.id`).Scan(&rows, &differ)
			if err != nil || rows == 0 || differ != 0 {
				t.Fatalf("%s: %d rows, %d of them with another hash than migration 0023's, %v", table, rows, differ, err)
			}
			if _, err := db.W.ExecContext(ctx, `DROP TABLE sample_by_batch`); err != nil {
				t.Fatal(err)
			}
		}
		var visitors, visits, split, inEighth int
		err = db.R.QueryRowContext(ctx, `SELECT COUNT(*), SUM(visits), COALESCE(SUM(CASE WHEN n > 1 THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN s < 8192 THEN 1 ELSE 0 END), 0)
			FROM (SELECT a.visitor_key, COUNT(DISTINCT p.visit_id) AS visits, COUNT(DISTINCT p.visitor_sample) - 1
					+ SUM(CASE WHEN e.visitor_sample <> p.visitor_sample THEN 1 ELSE 0 END) AS n,
				MIN(p.visitor_sample) AS s
				FROM analytics_pageviews p JOIN analytics_visitors a ON a.id = p.visitor_id JOIN analytics_events e ON e.visitor_key = a.visitor_key
				GROUP BY a.visitor_key) v`).Scan(&visitors, &visits, &split, &inEighth)
		if err != nil || visitors != 800 || visits != 1600 || split != 0 || inEighth < 60 || inEighth > 140 {
			t.Errorf("%d visitors of %d visits, %d split across samples, %d in the 1/8 sample (want about 100), %v", visitors, visits, split, inEighth, err)
		}
		if db.Dialect != sqldb.Postgres {
			// The columns of a sampled breakdown's page views (visitsCTE) and events come from
			// the level's index alone.
			for _, c := range []struct{ stmt, index string }{
				{`SELECT id, at, day, visitor_id, visit_id, is_new_visit, path, os, os_version FROM analytics_pageviews
					WHERE day >= $1 AND day <= $2 AND visitor_sample < 128 AND country = 'US' AND browser = 'Firefox'`, "COVERING INDEX analytics_pageviews_sample512"},
				{`SELECT e.name, COUNT(DISTINCT e.visitor_key) FROM analytics_events e WHERE e.day >= $1 AND e.day <= $2 AND e.visitor_sample < 128
					GROUP BY e.name`, "COVERING INDEX analytics_events_sample512"},
			} {
				var plan strings.Builder
				rs, err := db.R.QueryContext(ctx, `EXPLAIN QUERY PLAN `+c.stmt, "2026-04-10", "2026-04-11")
				if err != nil {
					t.Fatal(err)
				}
				for rs.Next() {
					var id, parent, unused int
					var detail string
					if err := rs.Scan(&id, &parent, &unused, &detail); err != nil {
						t.Fatal(err)
					}
					plan.WriteString(detail)
				}
				rs.Close()
				if !strings.Contains(plan.String(), c.index) {
					t.Errorf("the 1/512 sample is read without its %s: %s", c.index, plan.String())
				}
			}
		}
	})
}
