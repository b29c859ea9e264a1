// Package analyticstest holds a conformance suite that every analytics.Store (the SQL ones on
// both engines) must pass.
package analyticstest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
)

const (
	day1 = "2026-04-10"
	day2 = "2026-04-11"
)

func at(day string, h, m int) time.Time {
	t, _ := time.Parse(time.DateOnly, day)
	return t.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
}

var (
	direct = folio.VisitAttrs{Source: "Direct / None", Country: "DE", Device: "desktop", Browser: "Firefox", BrowserVersion: "128", OS: "Linux"}
	github = folio.VisitAttrs{Source: "GitHub", Referrer: "github.com", Country: "FR", Device: "mobile", Browser: "Safari", OS: "iOS", OSVersion: "17"}
)

// pageViews is the suite's traffic: visitor a views / and /blog in one visit, / again after the
// visit gap, and /blog on the next day; b arrives from GitHub on /.
func pageViews() []folio.AnalyticsPageView {
	pv := func(day string, h, m int, key, path, title, ref string, attrs folio.VisitAttrs) folio.AnalyticsPageView {
		return folio.AnalyticsPageView{At: at(day, h, m), Day: day, VisitorKey: key, Path: path, Title: title, Referrer: ref, Attrs: attrs}
	}
	return []folio.AnalyticsPageView{
		pv(day1, 9, 0, "a", "/", "Home", "", direct),
		pv(day1, 9, 5, "a", "/blog", "Blog", "", direct),
		pv(day1, 9, 10, "b", "/", "", "github.com", github),
		pv(day1, 11, 0, "a", "/", "", "", direct),
		pv(day2, 10, 0, "a", "/blog", "", "", direct),
	}
}

// events are the suite's events: two funnel steps of a, one of b, and a booking error each.
func events() []folio.AnalyticsEvent {
	ev := func(m int, key, name, group, step string) folio.AnalyticsEvent {
		return folio.AnalyticsEvent{At: at(day1, 9, m), Day: day1, VisitorKey: key, Name: name, Path: "/", Props: "{}", Group: group, Step: step}
	}
	return []folio.AnalyticsEvent{
		ev(1, "a", "modal_opened", "", ""),
		ev(2, "a", "modal_opened", "", ""),
		ev(11, "b", "modal_opened", "", ""),
		ev(3, "a", folio.FunnelErrorEvent, "abandonment", "date_selected"),
		ev(12, "b", folio.FunnelErrorEvent, "conflict", ""),
	}
}

// TestStore runs the suite; open returns an empty store, a new one at each call.
func TestStore(t *testing.T, open func(t *testing.T) analytics.Store) {
	t.Run("Empty", func(t *testing.T) { testEmpty(t, open(t)) })
	t.Run("Reports", func(t *testing.T) {
		s := open(t)
		pvs := pageViews()
		slices.Reverse(pvs) // the store orders a batch by time itself
		write(t, s, pvs, events())
		testReports(t, s)
	})
	t.Run("BatchesAddUp", func(t *testing.T) {
		// The same traffic in batches that cut visits in two counts the same.
		s := open(t)
		pvs, evs := pageViews(), events()
		for i := range pvs {
			write(t, s, pvs[i:i+1], nil)
		}
		write(t, s, nil, evs[:2])
		write(t, s, nil, evs[2:])
		testReports(t, s)
	})
	t.Run("Prune", func(t *testing.T) { testPrune(t, open(t)) })
	t.Run("Salt", func(t *testing.T) { testSalt(t, open(t)) })
	t.Run("Conversions", func(t *testing.T) { testConversions(t, open(t)) })
	t.Run("MailClaims", func(t *testing.T) { testMailClaims(t, open(t)) })
	t.Run("Hour", func(t *testing.T) { testHour(t, open(t)) })
	t.Run("Shares", func(t *testing.T) { testShares(t, open(t)) })
}

func write(t *testing.T, s analytics.Store, pvs []folio.AnalyticsPageView, evs []folio.AnalyticsEvent) {
	t.Helper()
	if err := s.WriteAnalytics(context.Background(), pvs, evs); err != nil {
		t.Fatal(err)
	}
}

func testEmpty(t *testing.T, s analytics.Store) {
	ctx := context.Background()
	write(t, s, nil, nil)
	if tot, err := s.AnalyticsTotals(ctx, day1, day2); err != nil || tot != (folio.AnalyticsTotals{}) {
		t.Errorf("totals: %+v, %v", tot, err)
	}
	if d, err := s.AnalyticsDaily(ctx, day1, day2); err != nil || len(d) != 0 {
		t.Errorf("daily: %v, %v", d, err)
	}
	if p, err := s.AnalyticsTopPages(ctx, day1, day2, 10); err != nil || len(p) != 0 {
		t.Errorf("top pages: %v, %v", p, err)
	}
	if n, pages, err := s.AnalyticsRealtime(ctx, at(day1, 0, 0), 10); err != nil || n != 0 || pages == nil || len(pages) != 0 {
		t.Errorf("realtime: %d %v, %v; want 0 and no pages (not nil)", n, pages, err)
	}
	for _, rollup := range []bool{false, true} {
		rows, total := breakdown(t, s, folio.BreakdownQuery{Dim: "source", From: day1, To: day2, Limit: 10}, rollup)
		if len(rows) != 0 || total != 0 {
			t.Errorf("breakdown (rollup %v): %v, total %d", rollup, rows, total)
		}
	}
}

func breakdown(t *testing.T, s analytics.Store, q folio.BreakdownQuery, rollup bool) (map[string]folio.BreakdownCounts, int) {
	t.Helper()
	ctx := context.Background()
	read := s.AnalyticsBreakdownRaw
	if rollup {
		read = s.AnalyticsBreakdownRollup
	}
	rows, total, err := read(ctx, q)
	if err != nil {
		t.Fatalf("breakdown %+v (rollup %v): %v", q, rollup, err)
	}
	out := map[string]folio.BreakdownCounts{}
	for _, r := range rows {
		out[r.Value] = r
	}
	return out, total
}

func testReports(t *testing.T, s analytics.Store) {
	ctx := context.Background()
	tot, err := s.AnalyticsTotals(ctx, day1, day2)
	if want := (folio.AnalyticsTotals{Views: 5, Visits: 4, Unique: 2, Returning: 1}); err != nil || tot != want {
		t.Errorf("totals: %+v, %v; want %+v", tot, err, want)
	}
	tot, err = s.AnalyticsTotals(ctx, day2, day2)
	if want := (folio.AnalyticsTotals{Views: 1, Visits: 1, Unique: 1, Returning: 1}); err != nil || tot != want {
		t.Errorf("totals of %s: %+v, %v; want %+v", day2, tot, err, want)
	}
	daily, err := s.AnalyticsDaily(ctx, day1, day2)
	if want := map[string]folio.DailyTotals{day1: {Date: day1, Visitors: 2, Visits: 3, PageViews: 4}, day2: {Date: day2, Visitors: 1, Visits: 1, PageViews: 1}}; err != nil || len(daily) != 2 || daily[day1] != want[day1] || daily[day2] != want[day2] {
		t.Errorf("daily: %+v, %v; want %+v", daily, err, want)
	}
	pages, err := s.AnalyticsTopPages(ctx, day1, day2, 10)
	if want := []folio.PageView{{Path: "/", Views: 3, Title: "Home"}, {Path: "/blog", Views: 2, Title: "Blog"}}; err != nil || !slices.Equal(pages, want) {
		t.Errorf("top pages: %+v, %v; want %+v", pages, err, want)
	}
	if pages, err := s.AnalyticsTopPages(ctx, day1, day2, 1); err != nil || len(pages) != 1 {
		t.Errorf("top page: %+v, %v; want one", pages, err)
	}
	refs, err := s.AnalyticsReferrers(ctx, day1, day2, 10)
	if want := []folio.Referrer{{Domain: "github.com", Visits: 1}}; err != nil || !slices.Equal(refs, want) {
		t.Errorf("referrers: %+v, %v; want %+v", refs, err, want)
	}
	path, err := s.AnalyticsPath(ctx, "/", day1, day2, 10)
	if err != nil {
		t.Fatal(err)
	}
	if path.Views != 3 || path.Unique != 2 || len(path.Daily) != 1 || path.Daily[day1] != 3 || !slices.Equal(path.Referrers, []folio.Referrer{{Domain: "github.com", Visits: 1}}) {
		t.Errorf("path report of /: %+v", path)
	}

	funnel, err := s.AnalyticsFunnel(ctx, day1, day2, folio.FunnelSteps, folio.FunnelErrorEvent)
	if err != nil {
		t.Fatal(err)
	}
	if len(funnel.StepVisitors) != 1 || funnel.StepVisitors["modal_opened"] != 2 {
		t.Errorf("funnel steps: %v, want modal_opened by 2 visitors", funnel.StepVisitors)
	}
	if funnel.ErrorCount["abandonment"] != 1 || funnel.ErrorCount["conflict"] != 1 || funnel.ErrorVisitor["abandonment"] != 1 || funnel.ErrorVisitor["conflict"] != 1 {
		t.Errorf("funnel errors: %v by %v", funnel.ErrorCount, funnel.ErrorVisitor)
	}
	if want := []folio.FunnelAbandonment{{Step: "date_selected", Count: 1}}; !slices.Equal(funnel.Abandonment, want) {
		t.Errorf("abandonment: %+v, want %+v", funnel.Abandonment, want)
	}

	n, live, err := s.AnalyticsRealtime(ctx, at(day1, 0, 0), 10)
	if want := []folio.RealtimePage{{Path: "/", Visitors: 1}, {Path: "/blog", Visitors: 1}}; err != nil || n != 2 || !slices.Equal(live, want) {
		t.Errorf("realtime: %d %+v, %v; want 2 %+v (each visitor on their latest page)", n, live, err, want)
	}
	n, live, err = s.AnalyticsRealtime(ctx, at(day2, 9, 55), 10)
	if want := []folio.RealtimePage{{Path: "/blog", Visitors: 1}}; err != nil || n != 1 || !slices.Equal(live, want) {
		t.Errorf("realtime since %s 09:55: %d %+v, %v; want 1 %+v", day2, n, live, err, want)
	}

	testBreakdowns(t, s)
}

func testBreakdowns(t *testing.T, s analytics.Store) {
	ctx := context.Background()
	q := folio.BreakdownQuery{Dim: "source", From: day1, To: day2, Limit: 10}
	raw, total := breakdown(t, s, q, false)
	want := map[string]folio.BreakdownCounts{
		"Direct / None": {Value: "Direct / None", Visitors: 1, PageViews: 4, Visits: 3, Bounces: 2},
		"GitHub":        {Value: "GitHub", Visitors: 1, PageViews: 1, Visits: 1, Bounces: 1},
	}
	if total != 2 || len(raw) != 2 || raw["Direct / None"] != want["Direct / None"] || raw["GitHub"] != want["GitHub"] {
		t.Errorf("raw source breakdown: %+v (total %d), want %+v", raw, total, want)
	}
	// The rollup has the same visits, page views and bounces of every dimension, not visitors.
	for _, dim := range []string{"source", "country", "browser_version", "os_version", "entry_page", "exit_page", "page", "date"} {
		q := folio.BreakdownQuery{Dim: dim, From: day1, To: day2, Limit: 10}
		raw, rawTotal := breakdown(t, s, q, false)
		roll, rollTotal := breakdown(t, s, q, true)
		if rawTotal != rollTotal || len(raw) != len(roll) {
			t.Errorf("%s: raw %+v (total %d), rollup %+v (total %d)", dim, raw, rawTotal, roll, rollTotal)
			continue
		}
		for v, r := range raw {
			o := roll[v]
			if o.Visits != r.Visits || o.PageViews != r.PageViews || o.Bounces != r.Bounces {
				t.Errorf("%s=%s: rollup %+v, raw %+v", dim, v, o, r)
			}
		}
		for _, rollup := range []bool{false, true} {
			if n, err := s.AnalyticsBreakdownCount(ctx, q, rollup); err != nil || n != rawTotal {
				t.Errorf("%s: count (rollup %v) %d, %v; want %d", dim, rollup, n, err, rawTotal)
			}
		}
	}
	if roll, _ := breakdown(t, s, folio.BreakdownQuery{Dim: "page", From: day1, To: day2, Limit: 10}, true); roll["/"].Visits != 3 {
		t.Errorf("page / in %d visits, want 3", roll["/"].Visits)
	}
	if raw, _ := breakdown(t, s, folio.BreakdownQuery{Dim: "exit_page", From: day1, To: day1, Limit: 10}, false); raw["/"].Visits != 2 || raw["/blog"].Visits != 1 {
		t.Errorf("exit pages of %s: %+v, want / twice and /blog once", day1, raw)
	}

	// Filtered: the visits from GitHub; the visit-attribute rollup answers it.
	q = folio.BreakdownQuery{Dim: "device", From: day1, To: day2, Filters: map[string]string{"source": "GitHub"}, Limit: 10}
	if !folio.VisitAttrBreakdown(q.Dim, q.Filters) {
		t.Fatal("a device breakdown filtered by source is a visit-attribute breakdown")
	}
	for _, rollup := range []bool{false, true} {
		rows, total := breakdown(t, s, q, rollup)
		if total != 1 || rows["mobile"].Visits != 1 || rows["mobile"].PageViews != 1 {
			t.Errorf("devices of the visits from GitHub (rollup %v): %+v (total %d)", rollup, rows, total)
		}
	}
	// Events: visitors who sent each and how many times.
	q = folio.BreakdownQuery{Dim: "event", From: day1, To: day1, Limit: 10}
	raw, total = breakdown(t, s, q, false)
	if total != 2 || raw["modal_opened"].Visitors != 2 || raw["modal_opened"].Events != 3 || raw[folio.FunnelErrorEvent].Events != 2 {
		t.Errorf("events: %+v (total %d)", raw, total)
	}
	roll, _ := breakdown(t, s, q, true)
	if roll["modal_opened"].Events != 3 || roll["modal_opened"].Visitors != 2 {
		t.Errorf("events from the rollup: %+v", roll)
	}
	// Paging: one row from the second.
	q = folio.BreakdownQuery{Dim: "page", From: day1, To: day2, Limit: 1, Offset: 1}
	if rows, total := breakdown(t, s, q, false); len(rows) != 1 || total != 2 {
		t.Errorf("second page of pages: %+v (total %d)", rows, total)
	}
	// A sample reads a share of the visitors, with all their visits: never more than everyone.
	for _, rate := range folio.SampleRates {
		q := folio.BreakdownQuery{Dim: "source", From: day1, To: day2, Limit: 10, Sample: rate}
		rows, _ := breakdown(t, s, q, false)
		full, _ := breakdown(t, s, folio.BreakdownQuery{Dim: "source", From: day1, To: day2, Limit: 10}, false)
		for v, r := range rows {
			if f := full[v]; r.Visits != 0 && r != f {
				t.Errorf("sample 1/%d of %s: %+v, want all of its visitor's visits %+v", rate, v, r, f)
			}
		}
	}
}

func testPrune(t *testing.T, s analytics.Store) {
	ctx := context.Background()
	write(t, s, pageViews(), events())
	before, err := s.AnalyticsTotals(ctx, day1, day2)
	if err != nil {
		t.Fatal(err)
	}
	// The page views (4) and events (5) of day1, and b, last seen then.
	n, err := s.PruneAnalytics(ctx, day2)
	if err != nil || n != 10 {
		t.Errorf("prune: %d rows, %v; want 10", n, err)
	}
	if n, err := s.PruneAnalytics(ctx, day2); err != nil || n != 0 {
		t.Errorf("prune again: %d rows, %v; want 0", n, err)
	}
	if after, err := s.AnalyticsTotals(ctx, day1, day2); err != nil || after != before {
		t.Errorf("totals after the prune: %+v, %v; want the rollups' %+v", after, err, before)
	}
	if path, err := s.AnalyticsPath(ctx, "/", day1, day2, 10); err != nil || path.Views != 3 || path.Unique != 0 || len(path.Referrers) != 0 {
		t.Errorf("path report after the prune: %+v, %v; want the views of the rollup only", path, err)
	}
	if f, err := s.AnalyticsFunnel(ctx, day1, day2, folio.FunnelSteps, folio.FunnelErrorEvent); err != nil || len(f.StepVisitors) != 0 {
		t.Errorf("funnel after the prune: %+v, %v", f, err)
	}
	// a, still known, continues; b, forgotten, comes back as a new visitor.
	write(t, s, []folio.AnalyticsPageView{
		{At: at(day2, 10, 5), Day: day2, VisitorKey: "a", Path: "/"},
		{At: at(day2, 12, 0), Day: day2, VisitorKey: "b", Path: "/", Attrs: github},
	}, nil)
	if tot, err := s.AnalyticsTotals(ctx, day2, day2); err != nil || tot.Views != 3 || tot.Visits != 2 || tot.Unique != 2 {
		t.Errorf("totals of %s: %+v, %v; want 3 views, 2 visits, 2 visitors", day2, tot, err)
	}
}

func testSalt(t *testing.T, s analytics.Store) {
	ctx := context.Background()
	salt := func(window, candidate, want string) {
		t.Helper()
		if got, err := s.AnalyticsSalt(ctx, window, candidate); err != nil || got != want {
			t.Errorf("salt of %s: %q, %v; want %q", window, got, err, want)
		}
	}
	salt("day:"+day1, "s1", "s1")
	salt("day:"+day1, "s2", "s1") // the first salt stored wins
	salt("day:"+day2, "s3", "s3")
	salt("day:"+day2, "s4", "s3")
}
