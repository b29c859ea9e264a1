package analytics

import (
	"context"
	"math"
	"net/url"
	"slices"
	"time"

	"github.com/foliohq/folio"
)

// Dimensions are the breakdown dimensions of docs/api.md ("Breakdowns, realtime"), plus
// browser_version and os_version ("Firefox 128") and date (the day a visit starts, for charts of a
// filtered view). Each is also a filter parameter.
var Dimensions = folio.BreakdownDims

// DefaultRawLimit is the most page views in a range that an unfiltered breakdown reads raw
// (exact visitors); above it the daily rollup answers (see Options.RawLimit).
const DefaultRawLimit = 25_000

// DefaultSampleTarget is about the most page views a sampled breakdown reads: on the shared
// 2-core machine about 60 ms of SQLite's time (bench/analytics).
const DefaultSampleTarget = 30_000

// RealtimeWindow is how far back "on the site now" reaches.
const RealtimeWindow = 5 * time.Minute

// maxFilterValue bounds a filter value (longer than any stored value).
const maxFilterValue = 1024

// BreakdownParams is a parsed breakdown request.
type BreakdownParams struct {
	Dimension   string
	Range       Range
	Filters     map[string]string
	Page, Limit int
	Compare     bool
	// Exact counts every visit where the breakdown would read a sample of the visitors.
	Exact bool
}

// ParseFilters reads the dimension filters of a query: every parameter named like a dimension
// (country=FR&device=mobile). A filter given twice or longer than 1024 bytes is 400.
func ParseFilters(q url.Values) (map[string]string, error) {
	f := map[string]string{}
	for _, d := range Dimensions {
		vs, ok := q[d]
		if !ok {
			continue
		}
		if len(vs) > 1 {
			return nil, folio.BadRequest(d, "may be given once")
		}
		if len(vs[0]) > maxFilterValue {
			return nil, folio.BadRequest(d, "must be at most %d bytes", maxFilterValue)
		}
		f[d] = vs[0]
	}
	return f, nil
}

// ValidDimension reports whether d names a breakdown dimension.
func ValidDimension(d string) bool { return slices.Contains(Dimensions, d) }

// Previous is the period of equal length just before r.
func (r Range) Previous() Range {
	f, _ := time.Parse(time.DateOnly, r.From)
	t, _ := time.Parse(time.DateOnly, r.To)
	n := int(t.Sub(f).Hours()/24+0.5) + 1
	pt := f.AddDate(0, 0, -1)
	pf := pt.AddDate(0, 0, -(n - 1))
	return Range{From: pf.Format(time.DateOnly), To: pt.Format(time.DateOnly), loc: r.loc}
}

// Breakdown builds GET /api/analytics/breakdown.
func (s *Service) Breakdown(ctx context.Context, p BreakdownParams) (*folio.Breakdown, error) {
	if !ValidDimension(p.Dimension) {
		return nil, folio.BadRequest("dimension", "must be one of %v", Dimensions)
	}
	cur, err := s.breakdownPeriod(ctx, p, p.Range)
	if err != nil {
		return nil, err
	}
	out := &folio.Breakdown{Dimension: p.Dimension, Rows: cur.Rows, Total: cur.Total, Page: p.Page, Limit: p.Limit,
		Filters: p.Filters, VisitorsExact: cur.VisitorsExact, SampleRate: cur.SampleRate, TimeRange: cur.TimeRange,
		ImportedDays: cur.ImportedDays, ImportedDaysLeftOut: cur.ImportedDaysLeftOut}
	if out.Filters == nil {
		out.Filters = map[string]string{}
	}
	if p.Compare {
		prev, err := s.breakdownPeriod(ctx, p, p.Range.Previous())
		if err != nil {
			return nil, err
		}
		out.Previous = prev
	}
	return out, nil
}

func (s *Service) breakdownPeriod(ctx context.Context, p BreakdownParams, r Range) (*folio.BreakdownPeriod, error) {
	q := folio.BreakdownQuery{Dim: p.Dimension, From: r.From, To: r.To, Filters: p.Filters, Limit: p.Limit, Offset: (p.Page - 1) * p.Limit}
	totals, err := s.store.AnalyticsTotals(ctx, r.From, r.To)
	if err != nil {
		return nil, err
	}
	// Imported days exist only in the daily rollup, per dimension: an unfiltered breakdown counts
	// them, a filtered one cannot split them and says it leaves them out.
	imported, err := s.store.AnalyticsImportedDays(ctx, r.From, r.To)
	if err != nil {
		return nil, err
	}
	// Unfiltered breakdowns, and those of a visit attribute filtered by visit attributes, have a
	// rollup; the others (a page, entry/exit page or event involved) read the raw rows, of a
	// sample of the visitors when the range holds too many page views to group them all.
	rollup := false
	if len(p.Filters) == 0 {
		// A range without page views (the period before the data, say) has nothing to group:
		// the rollup answers it at once.
		rollup = totals.Views > s.rawLimit || totals.Views == 0 && p.Dimension != "event" || len(imported) > 0
	} else if folio.VisitAttrBreakdown(p.Dimension, p.Filters) {
		rollup = totals.Views > s.rawLimit || totals.Views == 0
	} else if !p.Exact {
		q.Sample = sampleRate(totals.Views, s.rawLimit, s.sampleTo)
	}
	var rows []folio.BreakdownCounts
	var total int
	if rollup {
		rows, total, err = s.store.AnalyticsBreakdownRollup(ctx, q)
	} else {
		rows, total, err = s.store.AnalyticsBreakdownRaw(ctx, q)
	}
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 && q.Offset > 0 {
		if total, err = s.store.AnalyticsBreakdownCount(ctx, q, rollup); err != nil {
			return nil, err
		}
	}
	// The denominators: visitors of the range (conversion; under filters those of the matching
	// visits, of the sample's visitors when sampled, which the raw rows carry), visitors per
	// visit (estimates from the rollup).
	visitors, visits := totals.Unique, totals.Visits
	if len(p.Filters) > 0 && p.Dimension == "event" && len(rows) > 0 {
		visitors = rows[0].Base
	}
	scale := max(1, q.Sample)
	out := &folio.BreakdownPeriod{Rows: make([]folio.BreakdownRow, 0, len(rows)), Total: total,
		VisitorsExact: !rollup && scale == 1 || totals.Views == 0, TimeRange: r.TimeRange()}
	if len(p.Filters) == 0 {
		out.ImportedDays = imported
	} else {
		out.ImportedDaysLeftOut = imported
	}
	if scale > 1 {
		out.SampleRate = 1 / float64(scale)
	}
	for _, row := range rows {
		// A sample holds 1/scale of the visitors with all their page views and events: its
		// counts, distinct visitors included, scale up as they are.
		br := folio.BreakdownRow{Value: row.Value, Visitors: row.Visitors * scale, PageViews: row.PageViews * scale, Visits: row.Visits * scale}
		switch {
		case rollup && p.Dimension == "event":
			// The sum of daily distinct visitors counts a visitor once a day; never more than all.
			br.Visitors = min(row.Visitors, visitors)
		case rollup:
			br.Visitors = estimateVisitors(row.Visits, visits, visitors)
		case scale > 1:
			br.Visitors = min(br.Visitors, totals.Unique)
		}
		switch p.Dimension {
		case "page":
		case "event":
			n := row.Events * scale
			br.Events = &n
			c := ratio(row.Visitors, visitors, 4)
			br.ConversionRate = &c
		default:
			b := ratio(row.Bounces, row.Visits, 4)
			br.BounceRate = &b
		}
		out.Rows = append(out.Rows, br)
	}
	return out, nil
}

// sampleRate is the visitor sample a raw breakdown reads for a range of views page views: none
// (0) up to rawLimit, else the finest of folio.SampleRates whose share stays within target (the
// coarsest beyond that).
func sampleRate(views, rawLimit, target int) int {
	if views <= rawLimit {
		return 0
	}
	for _, r := range folio.SampleRates {
		if views/r <= target {
			return r
		}
	}
	return folio.SampleRates[len(folio.SampleRates)-1]
}

// estimateVisitors scales a row's visits by the range's visitors per visit: the rollup keeps
// visits per day, and distinct visitors do not add up over days.
func estimateVisitors(rowVisits, visits, visitors int) int {
	if rowVisits <= 0 || visits <= 0 {
		return 0
	}
	v := int(math.Round(float64(rowVisits) * float64(visitors) / float64(visits)))
	return max(1, min(v, rowVisits, visitors))
}

// Realtime counts the visitors of the last RealtimeWindow and the pages they are on.
func (s *Service) Realtime(ctx context.Context) (*folio.Realtime, error) {
	n, pages, err := s.store.AnalyticsRealtime(ctx, s.now().Add(-RealtimeWindow), 10)
	if err != nil {
		return nil, err
	}
	return &folio.Realtime{Visitors: n, Pages: pages}, nil
}
