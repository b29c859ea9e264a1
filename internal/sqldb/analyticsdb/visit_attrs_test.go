package analyticsdb_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// TestVisitAttrRollupMatchesBackfill writes page views batch by batch (visits split across
// batches and days) and checks that the rollup the ingest batches built equals the one migration
// 0018 computes from the raw page views, and that it sums to the per-dimension rollup; and that
// the period rollup (migration 0019) is the daily one summed by part of month and by month, as
// migration 0019's backfill computes it.
func TestVisitAttrRollupMatchesBackfill(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		db = db.Analytics() // the raw rows are in the analytics file on SQLite
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(7, 7))
		countries := []string{"US", "FR", "", "DE"}
		devices := []string{"desktop", "mobile", "tablet"}
		sources := []string{"Google", "GitHub", "Direct / None"}
		at := time.Date(2026, 3, 31, 22, 0, 0, 0, time.UTC) // across a month (and part) boundary
		var pvs []folio.AnalyticsPageView
		for i := 0; i < 700; i++ {
			at = at.Add(time.Duration(rng.IntN(240)) * time.Second)
			v := rng.IntN(30)
			pvs = append(pvs, folio.AnalyticsPageView{At: at, Day: at.Format(time.DateOnly), VisitorKey: fmt.Sprintf("v%d", v),
				Path: fmt.Sprintf("/p%d", rng.IntN(5)), Attrs: folio.VisitAttrs{
					Source: sources[rng.IntN(len(sources))], Country: countries[v%len(countries)], Device: devices[v%len(devices)],
					Browser: "Firefox", BrowserVersion: fmt.Sprint(120 + v%3), OS: "Linux", UTMCampaign: []string{"", "spring"}[rng.IntN(2)]}})
		}
		store := analyticsdb.New(db)
		for len(pvs) > 0 {
			n := min(len(pvs), 1+rng.IntN(40))
			if err := store.WriteAnalytics(ctx, pvs[:n], nil); err != nil {
				t.Fatal(err)
			}
			pvs = pvs[n:]
		}
		read := func() string {
			t.Helper()
			rows, err := db.R.QueryContext(ctx, `SELECT day, source, referrer, utm_source, utm_medium, utm_campaign, country, device,
				browser, browser_version, os, os_version, visits, pageviews, bounces FROM analytics_daily_visit_attrs
				WHERE visits <> 0 OR pageviews <> 0 OR bounces <> 0
				ORDER BY day, source, utm_campaign, country, device, browser_version`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var b strings.Builder
			for rows.Next() {
				var f [12]string
				var visits, views, bounces int
				if err := rows.Scan(&f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11], &visits, &views, &bounces); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%v %d %d %d\n", f, visits, views, bounces)
			}
			return b.String()
		}
		ingested := read()
		if strings.Count(ingested, "\n") < 20 || !strings.Contains(ingested, "2026-04-01") {
			t.Fatalf("the stream does not exercise the rollup:\n%s", ingested)
		}

		// Per day, the combinations sum to the device rows of analytics_daily_dims.
		var mismatched int
		if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT day, SUM(visits) AS v, SUM(pageviews) AS p, SUM(bounces) AS b
			FROM analytics_daily_visit_attrs GROUP BY day) c FULL JOIN (SELECT day, SUM(visits) AS v, SUM(pageviews) AS p, SUM(bounces) AS b
			FROM analytics_daily_dims WHERE dim = 'device' GROUP BY day) d ON d.day = c.day
			WHERE c.v IS NULL OR d.v IS NULL OR c.v <> d.v OR c.p <> d.p OR c.b <> d.b`).Scan(&mismatched); err != nil {
			t.Fatal(err)
		}
		if mismatched != 0 {
			t.Errorf("%d days where the combinations do not sum to the device rollup", mismatched)
		}

		// The periods (migration 0019) the ingest batches kept are the daily rows summed by part
		// of month and by month, and migration 0019's backfill computes the same.
		readPeriods := func() string {
			t.Helper()
			rows, err := db.R.QueryContext(ctx, `SELECT period, source, country, device, browser_version, utm_campaign, visits, pageviews, bounces
				FROM analytics_period_visit_attrs WHERE visits <> 0 OR pageviews <> 0 OR bounces <> 0
				ORDER BY period, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser, browser_version, os, os_version`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var b strings.Builder
			for rows.Next() {
				var f [6]string
				var visits, views, bounces int
				if err := rows.Scan(&f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &visits, &views, &bounces); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%v %d %d %d\n", f, visits, views, bounces)
			}
			return b.String()
		}
		periods := readPeriods()
		for _, p := range []string{"2026-03", "2026-03-22", "2026-04", "2026-04-01"} {
			if !strings.Contains(periods, "["+p+" ") {
				t.Errorf("no rows of period %q:\n%s", p, periods)
			}
		}
		for _, level := range []struct{ name, expr string }{{"month", "substr(day, 1, 7)"},
			{"part", "substr(day, 1, 8) || CASE WHEN day < substr(day, 1, 8) || '08' THEN '01' WHEN day < substr(day, 1, 8) || '15' THEN '08' WHEN day < substr(day, 1, 8) || '22' THEN '15' ELSE '22' END"}} {
			var mismatched int
			if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT `+level.expr+` AS period, source, referrer, utm_source, utm_medium,
				utm_campaign, country, device, browser, browser_version, os, os_version, SUM(visits) AS v, SUM(pageviews) AS p, SUM(bounces) AS b
				FROM analytics_daily_visit_attrs GROUP BY 1, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser,
				browser_version, os, os_version) d FULL JOIN (SELECT * FROM analytics_period_visit_attrs WHERE length(period) = `+
				map[string]string{"month": "7", "part": "10"}[level.name]+`) p
				ON p.period = d.period AND p.source = d.source AND p.referrer = d.referrer AND p.utm_source = d.utm_source
				AND p.utm_medium = d.utm_medium AND p.utm_campaign = d.utm_campaign AND p.country = d.country AND p.device = d.device
				AND p.browser = d.browser AND p.browser_version = d.browser_version AND p.os = d.os AND p.os_version = d.os_version
				WHERE p.visits IS NULL OR d.v IS NULL OR p.visits <> d.v OR p.pageviews <> d.p OR p.bounces <> d.b`).Scan(&mismatched); err != nil {
				t.Fatal(err)
			}
			if mismatched != 0 {
				t.Errorf("%d %s rows differ from the daily rows summed", mismatched, level.name)
			}
		}
		src19, err := os.ReadFile("../migrations/" + string(db.Dialect) + "/0019_analytics_period_visit_attrs.sql")
		if err != nil {
			t.Fatal(err)
		}
		i19 := strings.Index(string(src19), "INSERT INTO analytics_period_visit_attrs")
		if i19 < 0 {
			t.Fatal("no backfill in migration 0019")
		}
		if _, err := db.W.ExecContext(ctx, `DELETE FROM analytics_period_visit_attrs`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.W.ExecContext(ctx, string(src19[i19:])); err != nil {
			t.Fatal(err)
		}
		if backfilled := readPeriods(); backfilled != periods {
			t.Errorf("migration 0019's backfill differs from ingest:\ningested:\n%s\nbackfilled:\n%s", periods, backfilled)
		}

		// Migration 0018's backfill computes the same rows from the raw page views.
		src, err := os.ReadFile("../migrations/" + string(db.Dialect) + "/0018_analytics_visit_attrs.sql")
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(string(src), "INSERT INTO analytics_daily_visit_attrs")
		if i < 0 {
			t.Fatal("no backfill in migration 0018")
		}
		if _, err := db.W.ExecContext(ctx, `DELETE FROM analytics_daily_visit_attrs`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.W.ExecContext(ctx, string(src[i:])); err != nil {
			t.Fatal(err)
		}
		if backfilled := read(); !reflect.DeepEqual(backfilled, ingested) {
			t.Errorf("backfill differs from ingest:\ningested:\n%s\nbackfilled:\n%s", ingested, backfilled)
		}
	})
}
