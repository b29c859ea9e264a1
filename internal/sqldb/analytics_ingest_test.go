package sqldb_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
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
		at := time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC)
		view := func(db *sqldb.DB, visitor, path string, minutes int) {
			t.Helper()
			when := at.Add(time.Duration(minutes) * time.Minute)
			pv := sqldb.AnalyticsPageView{At: when, Day: when.Format(time.DateOnly), VisitorKey: visitor, Path: path,
				Attrs: sqldb.VisitAttrs{Source: "Direct / None", Device: "desktop", Browser: "Firefox"}}
			if err := db.WriteAnalytics(ctx, []sqldb.AnalyticsPageView{pv}, nil); err != nil {
				t.Fatal(err)
			}
		}
		entry := func(day, path string) (visits, views, bounces int) {
			t.Helper()
			err := a.R.QueryRowContext(ctx, `SELECT visits, pageviews, bounces FROM analytics_daily_dims
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
		if err := a.R.QueryRowContext(ctx, `SELECT visit_views FROM analytics_visitors WHERE visitor_key = 'v1'`).Scan(&views); err != nil || views != 3 {
			t.Errorf("visit_views = %d, %v; want 3", views, err)
		}

		// A prune that deletes the visitor: a's next batch must not update the deleted row.
		view(a, "v2", "/", 30)
		if _, err := b.PruneAnalytics(ctx, "2026-04-11"); err != nil {
			t.Fatal(err)
		}
		view(a, "v2", "/", 35)
		var n int
		if err := a.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM analytics_visitors WHERE visitor_key = 'v2'`).Scan(&n); err != nil || n != 1 {
			t.Errorf("visitor v2 rows after prune and a new page view = %d, %v; want 1", n, err)
		}
		if err := a.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM analytics_pageviews p
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

// TestVisitSample checks the sample hash of page views: the ingest batch's (in Go) equals the
// one migration 0022 computes in SQL for existing rows, is shared by a visit's page views, puts
// about one visit in eight in the 1/8 level, and a sampled statement reads its partial index.
func TestVisitSample(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		at := time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC)
		var pvs []sqldb.AnalyticsPageView
		for v := range 800 {
			for i := range 2 {
				when := at.Add(time.Duration(v)*time.Second + time.Duration(i)*time.Minute)
				pvs = append(pvs, sqldb.AnalyticsPageView{At: when, Day: when.Format(time.DateOnly), VisitorKey: fmt.Sprint("visitor-", v), Path: "/",
					Attrs: sqldb.VisitAttrs{Source: "Direct / None", Device: "desktop", Browser: "Firefox"}})
			}
		}
		if err := db.WriteAnalytics(ctx, pvs, nil); err != nil {
			t.Fatal(err)
		}
		// Migration 0022's update, run again over rows set to its default, gives each row the
		// hash the batch gave it.
		src, err := os.ReadFile("migrations/" + string(db.Dialect) + "/0022_analytics_visit_sample.sql")
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(string(src), "UPDATE analytics_pageviews")
		j := strings.Index(string(src[i:]), ";")
		if i < 0 || j < 0 {
			t.Fatal("no update in migration 0022")
		}
		if _, err := db.W.ExecContext(ctx, `CREATE TABLE sample_by_batch AS SELECT id, visit_sample FROM analytics_pageviews`); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{`UPDATE analytics_pageviews SET visit_sample = 65535`, string(src[i : i+j])} {
			if _, err := db.W.ExecContext(ctx, q); err != nil {
				t.Fatal(q, err)
			}
		}
		var rows, differ, visits, split, inEighth int
		err = db.R.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN p.visit_sample <> b.visit_sample THEN 1 ELSE 0 END), 0)
			FROM analytics_pageviews p JOIN sample_by_batch b ON b.id = p.id`).Scan(&rows, &differ)
		if err != nil || rows != len(pvs) || differ != 0 {
			t.Fatalf("%d rows, %d of them with another hash than migration 0022's, %v", rows, differ, err)
		}
		err = db.R.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN n > 1 THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN s < 8192 THEN 1 ELSE 0 END), 0)
			FROM (SELECT visit_id, COUNT(DISTINCT visit_sample) AS n, MIN(visit_sample) AS s FROM analytics_pageviews GROUP BY visit_id) v`).Scan(&visits, &split, &inEighth)
		if err != nil || visits != 800 || split != 0 || inEighth < 60 || inEighth > 140 {
			t.Errorf("%d visits, %d split across samples, %d in the 1/8 sample (want about 100), %v", visits, split, inEighth, err)
		}
		if db.Dialect != sqldb.Postgres {
			var plan strings.Builder
			rs, err := db.R.QueryContext(ctx, `EXPLAIN QUERY PLAN SELECT COUNT(*) FROM analytics_pageviews WHERE day >= $1 AND day <= $2 AND visit_sample < 128`, "2026-04-10", "2026-04-11")
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
			if !strings.Contains(plan.String(), "analytics_pageviews_sample512") {
				t.Errorf("the 1/512 sample is read without its index: %s", plan.String())
			}
		}
	})
}
