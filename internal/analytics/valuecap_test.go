package analytics

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// Ensure what made-up values can add to the rollups is bounded: past the day's cap of distinct
// values of a dimension, new values are stored as "(other)" — in the raw rows and every rollup
// alike, so the figures still add up — while values seen before the cap keep counting as
// themselves, the funnel's events keep their names, and the next day starts afresh. Long titles
// are cut.
func TestDailyValuesCapped(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		const limit = 20
		now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		s, err := newTestService(db, Options{MaxDailyValues: limit, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		ctx := context.Background()
		collect := func(in *folio.CollectInput, ua string) {
			t.Helper()
			if _, err := s.Collect(ctx, in, "192.0.2.1", ua); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 3 * limit {
			collect(&folio.CollectInput{Type: folio.CollectPageView, Path: fmt.Sprintf("/junk/%d?utm_source=s%d&utm_medium=m%d&utm_campaign=%s", i, i, i, strings.Repeat("c", 90)+fmt.Sprint(i)),
				Title: strings.Repeat("T", 300), Referrer: fmt.Sprintf("https://ref%d.example/", i), VisitorID: fmt.Sprintf("v%d", i)},
				fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0", i+1, i+1))
			collect(&folio.CollectInput{Type: folio.CollectEvent, Path: "/junk", Name: fmt.Sprintf("made_up_%d", i), VisitorID: "e"}, browserUA)
		}
		collect(&folio.CollectInput{Type: folio.CollectPageView, Path: "/junk/3", VisitorID: "late"}, browserUA) // seen before the cap
		collect(&folio.CollectInput{Type: folio.CollectEvent, Path: "/book", Name: folio.FunnelSteps[0], VisitorID: "late"}, browserUA)
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		for _, dim := range []string{"page", "entry_page", "referrer", "source", "utm_source", "utm_medium", "utm_campaign", "browser_version"} {
			var n, other int
			if err := db.Analytics().R.QueryRow(`SELECT COUNT(CASE WHEN value NOT LIKE '%(other)' AND value <> '' THEN 1 END),
				COALESCE(SUM(CASE WHEN value LIKE '%(other)' THEN pageviews END), 0)
				FROM analytics_daily_dims WHERE dim = $1 AND day = '2026-06-01'`, dim).Scan(&n, &other); err != nil {
				t.Fatal(err)
			}
			if n > limit || other < 2*limit-1 {
				t.Errorf("%s: %d values, %d page views as (other); want at most %d values and the rest folded", dim, n, other, limit)
			}
		}
		var views, pages, long int
		db.Analytics().R.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT path), COALESCE(MAX(LENGTH(title)), 0) FROM analytics_pageviews`).Scan(&views, &pages, &long)
		if views != 3*limit+1 || pages > limit+1 || long > maxStoredTitle {
			t.Errorf("raw page views: %d rows, %d paths, longest title %d; want %d, ≤ %d, ≤ %d", views, pages, long, 3*limit+1, limit+1, maxStoredTitle)
		}
		var junk3, events, funnel int
		db.Analytics().R.QueryRow(`SELECT SUM(pageviews) FROM analytics_daily_dims WHERE dim = 'page' AND value = '/junk/3'`).Scan(&junk3)
		db.Analytics().R.QueryRow(`SELECT COUNT(DISTINCT name) FROM analytics_events`).Scan(&events)
		db.Analytics().R.QueryRow(`SELECT COUNT(*) FROM analytics_events WHERE name = $1`, folio.FunnelSteps[0]).Scan(&funnel)
		if junk3 != 2 || events > limit+2 || funnel != 1 {
			t.Errorf("/junk/3 has %d views (want 2), %d event names (want ≤ %d), %d funnel events (want 1)", junk3, events, limit+2, funnel)
		}
		// A new day admits new values again.
		now = now.Add(24 * time.Hour)
		collect(&folio.CollectInput{Type: folio.CollectPageView, Path: "/junk/999", VisitorID: "next"}, browserUA)
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		var next int
		db.Analytics().R.QueryRow(`SELECT COUNT(*) FROM analytics_daily_pages WHERE day = '2026-06-02' AND path = '/junk/999'`).Scan(&next)
		if next != 1 {
			t.Error("the next day's new page was folded")
		}
	})
}
