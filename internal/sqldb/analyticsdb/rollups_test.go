package analyticsdb

import (
	"testing"
	"time"

	"github.com/foliohq/folio"
)

const rollupDay = "2026-04-10"

// rollupBatch is a batch of two visitors: a views / and /blog in one visit, then / again after
// the visit gap; b views / once, from GitHub, country unknown.
func rollupBatch() []folio.AnalyticsPageView {
	at := func(h, m int) time.Time { return time.Date(2026, 4, 10, h, m, 0, 0, time.UTC) }
	direct := folio.VisitAttrs{Source: "Direct / None", Country: "DE", Device: "desktop"}
	return []folio.AnalyticsPageView{
		{At: at(9, 0), Day: rollupDay, VisitorKey: "a", Path: "/", Title: "Home", Attrs: direct},
		{At: at(9, 5), Day: rollupDay, VisitorKey: "a", Path: "/blog", Referrer: "example.org"},
		{At: at(9, 10), Day: rollupDay, VisitorKey: "b", Path: "/", Referrer: "github.com", Attrs: folio.VisitAttrs{Source: "GitHub", Referrer: "github.com"}},
		{At: at(11, 0), Day: rollupDay, VisitorKey: "a", Path: "/", Attrs: direct},
	}
}

func TestSplitVisits(t *testing.T) {
	pvs := rollupBatch()
	states := map[string]*visitorState{}
	steps := splitVisits(pvs, states)
	type got struct {
		newVisit bool
		entry    string
		prevExit string
		views    int
		bounce   int
	}
	want := []got{{true, "/", "", 1, 0}, {false, "/", "/", 2, -1}, {true, "/", "", 1, 0}, {true, "/", "", 1, 0}}
	for i, s := range steps {
		if g := (got{s.newVisit, s.entry, s.prevExit, s.views, s.bounce()}); g != want[i] {
			t.Errorf("step %d: %+v, want %+v", i, g, want[i])
		}
	}
	if pvs[1].Attrs.Source != "Direct / None" {
		t.Errorf("a continued visit's view has attributes %+v, want its visit's", pvs[1].Attrs)
	}
	if pvs[2].Attrs.Country != "ZZ" {
		t.Errorf("unknown country stored as %q, want ZZ", pvs[2].Attrs.Country)
	}
	if a := states["a"]; a.visitViews != 1 || a.lastPath != "/" || !a.visitStart.Equal(pvs[3].At) || a.firstDay != rollupDay {
		t.Errorf("state of a after the batch: %+v", a)
	}
	if !steps[1].visitStart.Equal(pvs[0].At) {
		t.Errorf("the second view's visit starts at %v, want the first view's", steps[1].visitStart)
	}
}

func TestRollupsOfABatch(t *testing.T) {
	pvs := rollupBatch()
	steps := splitVisits(pvs, map[string]*visitorState{})

	if got := dailyTotals(steps); len(got) != 1 || *got[rollupDay] != (dayTotals{views: 4, visits: 3}) {
		t.Errorf("daily totals: %+v", got[rollupDay])
	}
	if got := uniqueDeltas(steps); len(got) != 1 || got[uniqueKey{day: rollupDay}] != 2 {
		t.Errorf("uniques: %v, want 2 first-time visitors", got)
	}
	dims := dimDeltas(steps)
	for k, want := range map[dimKey]dimDelta{
		{"entry_page", rollupDay, "/"}:         {3, 4, 2},
		{"exit_page", rollupDay, "/"}:          {2, 2, 2},
		{"exit_page", rollupDay, "/blog"}:      {1, 2, 0},
		{"page", rollupDay, "/"}:               {3, 3, 0},
		{"page", rollupDay, "/blog"}:           {1, 1, 0},
		{"source", rollupDay, "GitHub"}:        {1, 1, 1},
		{"source", rollupDay, "Direct / None"}: {2, 3, 1},
		{"country", rollupDay, "ZZ"}:           {1, 1, 1},
		{"country", rollupDay, "DE"}:           {2, 3, 1},
	} {
		if d := dims[k]; d == nil || *d != want {
			t.Errorf("%v: %+v, want %+v", k, d, want)
		}
	}
	combos := comboDeltas(steps)
	if len(combos) != 2 {
		t.Errorf("%d attribute combinations, want 2", len(combos))
	}
	if d := combos[comboKey{rollupDay, pvs[0].Attrs}]; d == nil || *d != (dimDelta{2, 3, 1}) {
		t.Errorf("combination of a: %+v", d)
	}
	periods := periodDeltas(combos)
	if len(periods) != 4 {
		t.Errorf("%d period rows, want 2 combinations × (month part, month)", len(periods))
	}
	for _, p := range []string{"2026-04-08", "2026-04"} {
		if d := periods[comboKey{p, pvs[0].Attrs}]; d == nil || *d != (dimDelta{2, 3, 1}) {
			t.Errorf("period %s of a: %+v", p, d)
		}
	}
	if got := pageDeltas(pvs); *got[dayPath{rollupDay, "/"}] != (pageDelta{views: 3, title: "Home"}) || got[dayPath{rollupDay, "/blog"}].views != 1 {
		t.Errorf("pages: %+v", got)
	}
	if got := referrerDeltas(pvs); len(got) != 2 || got[dayPath{rollupDay, "github.com"}] != 1 {
		t.Errorf("referrers: %v", got)
	}
}

// TestRollupsOfAResumedVisit: a visit begun before its attributes were kept counts as a visit
// from its next view on, on that view's day, without moving an exit page it never had.
func TestRollupsOfAResumedVisit(t *testing.T) {
	at := time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC)
	states := map[string]*visitorState{"a": {id: 7, firstDay: "2026-04-01", lastDay: rollupDay, lastSeen: at.Add(-5 * time.Minute),
		visitStart: at.Add(-10 * time.Minute), visitViews: 3}}
	pvs := []folio.AnalyticsPageView{{At: at, Day: rollupDay, VisitorKey: "a", Path: "/x"}}
	steps := splitVisits(pvs, states)
	if s := steps[0]; s.newVisit || !s.resumed || s.views != 4 || s.bounce() != 0 || s.newDay != nil {
		t.Fatalf("step: %+v", s)
	}
	dims := dimDeltas(steps)
	for k, want := range map[dimKey]dimDelta{
		{"entry_page", rollupDay, "/x"}: {1, 1, 0},
		{"exit_page", rollupDay, "/x"}:  {1, 4, 0},
		{"country", rollupDay, "ZZ"}:    {1, 1, 0},
	} {
		if d := dims[k]; d == nil || *d != want {
			t.Errorf("%v: %+v, want %+v", k, d, want)
		}
	}
	if got := dailyTotals(steps)[rollupDay]; *got != (dayTotals{views: 1}) {
		t.Errorf("daily totals: %+v, want the view and no new visit", got)
	}
}
