package analytics

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// TestRetentionPrunesRawRowsAndKeepsTotals ingests five days, prunes with a two-day retention and
// checks that exactly the old raw rows went while the site report still counts every day.
func TestRetentionPrunesRawRowsAndKeepsTotals(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		clock := foliotest.NewClock(start)
		s, err := newTestService(db, Options{Now: clock.Now, RetentionDays: 2})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		// Day d (May 1–5): visitor "old" only on May 1, visitor "kept" every day; one event a day.
		for d := range 5 {
			if d == 0 {
				if _, err := s.Collect(ctx, &folio.CollectInput{Type: folio.CollectPageView, Path: "/", VisitorID: "old"}, "192.0.2.1", browserUA); err != nil {
					t.Fatal(err)
				}
			}
			for _, in := range []folio.CollectInput{
				{Type: folio.CollectPageView, Path: "/about", VisitorID: "kept"},
				{Type: folio.CollectEvent, Path: "/contact", Name: folio.FunnelSteps[0], VisitorID: "kept"},
			} {
				if _, err := s.Collect(ctx, &in, "192.0.2.2", browserUA); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			clock.Advance(24 * time.Hour)
		}
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		rg, err := s.ParseRange("2026-05-01", "2026-05-05")
		if err != nil {
			t.Fatal(err)
		}
		before, err := s.Report(ctx, rg)
		if err != nil {
			t.Fatal(err)
		}
		if before.PageViews.Total != 6 {
			t.Fatalf("before pruning: %d page views, want 6", before.PageViews.Total)
		}

		// Now is May 6: a two-day retention keeps May 4 onwards.
		n, err := s.Prune(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Page views May 1–3 (4), events May 1–3 (3), visitor "old" (1).
		if n != 8 {
			t.Errorf("pruned %d rows, want 8", n)
		}
		if got := countRows(t, db, "analytics_pageviews"); got != 2 {
			t.Errorf("%d page views left, want 2 (May 4 and 5)", got)
		}
		if got := countRows(t, db, "analytics_events"); got != 2 {
			t.Errorf("%d events left, want 2", got)
		}
		if got := countRows(t, db, "analytics_visitors"); got != 1 {
			t.Errorf("%d visitors left, want 1 (the one seen on May 5)", got)
		}
		after, err := s.Report(ctx, rg)
		if err != nil {
			t.Fatal(err)
		}
		if after.PageViews != before.PageViews || after.Visitors != before.Visitors {
			t.Errorf("site report changed by pruning: before %+v %+v, after %+v %+v",
				before.PageViews, before.Visitors, after.PageViews, after.Visitors)
		}
		if n, err := s.Prune(ctx); err != nil || n != 0 {
			t.Errorf("second prune = %d, %v; want 0, nil", n, err)
		}

		keepAll, err := newTestService(db, Options{Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(365 * 24 * time.Hour)
		if n, err := keepAll.Prune(ctx); err != nil || n != 0 {
			t.Errorf("prune without a retention = %d, %v; want 0, nil", n, err)
		}
		// The owner sets a retention while the service runs: the next prune applies it.
		keepAll.SetRetentionDays(30)
		if n, err := keepAll.Prune(ctx); err != nil || n == 0 || countRows(t, db, "analytics_pageviews") != 0 {
			t.Errorf("prune after SetRetentionDays(30) = %d, %v; %d page views left", n, err, countRows(t, db, "analytics_pageviews"))
		}
	})
}
