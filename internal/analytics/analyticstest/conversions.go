package analyticstest

import (
	"context"
	"slices"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
)

// testConversions checks the visit lookup, the stored conversions and the visits of rollup
// values, over the suite's traffic.
func testConversions(t *testing.T, s analytics.Store) {
	ctx := context.Background()
	write(t, s, pageViews(), nil)
	if v, err := s.AnalyticsVisit(ctx, "nobody"); err != nil || v != nil {
		t.Fatalf("unknown visitor: %+v, %v", v, err)
	}
	b, err := s.AnalyticsVisit(ctx, "b")
	if err != nil || b == nil {
		t.Fatalf("visit of b: %+v, %v", b, err)
	}
	if b.Entry != "/" || b.Attrs.Source != "GitHub" || b.Attrs.Referrer != "github.com" || !slices.Equal(b.Pages, []string{"/"}) ||
		!b.LastSeen.Equal(at(day1, 9, 10)) || b.ID == "" {
		t.Errorf("visit of b: %+v", b)
	}
	a, err := s.AnalyticsVisit(ctx, "a")
	if err != nil || a == nil || a.Entry != "/blog" || !a.Start.Equal(at(day2, 10, 0)) || a.ID == b.ID {
		t.Errorf("latest visit of a: %+v, %v", a, err)
	}
	cs := []folio.Conversion{
		{ID: "c1", Kind: folio.ConversionBooking, RefID: "bk1", At: at(day1, 9, 20), Day: day1, VisitID: b.ID, EntryPage: "/",
			Source: "GitHub", Referrer: "github.com", UTMCampaign: "launch", Posts: []string{"/blog/one", "/blog/two"}},
		{ID: "c2", Kind: folio.ConversionContact, At: at(day2, 10, 5), Day: day2},
	}
	for _, c := range cs {
		if err := s.RecordConversion(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.AnalyticsConversions(ctx, day1, day2)
	if err != nil || len(got) != 2 {
		t.Fatalf("conversions: %+v, %v", got, err)
	}
	if g := got[0]; g.ID != "c1" || g.RefID != "bk1" || !g.At.Equal(cs[0].At) || g.VisitID != b.ID || g.Source != "GitHub" ||
		g.UTMCampaign != "launch" || !slices.Equal(g.Posts, cs[0].Posts) {
		t.Errorf("first conversion: %+v", g)
	}
	if g := got[1]; g.Kind != folio.ConversionContact || g.VisitID != "" || g.Posts != nil {
		t.Errorf("second conversion: %+v", g)
	}
	if got, err := s.AnalyticsConversions(ctx, day2, day2); err != nil || len(got) != 1 || got[0].ID != "c2" {
		t.Errorf("conversions of %s: %+v, %v", day2, got, err)
	}
	visits, err := s.AnalyticsDimVisits(ctx, "source", day1, day2, []string{"GitHub", "Direct / None", "Nowhere"})
	if want := map[string]int{"GitHub": 1, "Direct / None": 3}; err != nil || !mapsEqual(visits, want) {
		t.Errorf("source visits: %v, %v; want %v", visits, err, want)
	}
	visits, err = s.AnalyticsDimVisits(ctx, "page", day1, day1, []string{"/blog"})
	if want := map[string]int{"/blog": 1}; err != nil || !mapsEqual(visits, want) {
		t.Errorf("page visits: %v, %v; want %v", visits, err, want)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
