package sqldb_test

import (
	"context"
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
