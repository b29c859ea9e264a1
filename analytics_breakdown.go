package folio

// Breakdown is the answer of GET /api/analytics/breakdown (docs/api.md, "Breakdowns, realtime"):
// one dimension's values over a range, with the figures of the visits (or page views, or events)
// behind each.
type Breakdown struct {
	Dimension string            `json:"dimension"`
	Rows      []BreakdownRow    `json:"rows"`
	Total     int               `json:"total" doc:"how many values the dimension has in the range (after filters)"`
	Page      int               `json:"page"`
	Limit     int               `json:"limit"`
	Filters   map[string]string `json:"filters" doc:"the dimension filters applied (dimension → value)"`
	// VisitorsExact is false when visitors were estimated from a rollup or a sample (see
	// docs/api.md).
	VisitorsExact bool      `json:"visitorsExact" doc:"false when the visitors of each row are an estimate: breakdowns of ranges too large to read raw either scale each row's visits by the range's visitors per visit (from a rollup) or count the visitors of a sample (sampleRate)"`
	SampleRate    float64   `json:"sampleRate,omitempty" doc:"set when the figures were estimated from this share of the range's visitors, with all their visits and events (1/8, 1/32, 1/128 or 1/512): a filtered breakdown that involves page, entry_page, exit_page or event, over a range of more than 25,000 page views; visitors, visits, page views and events are the sample's times the inverse, conversion rates the sample's own"`
	TimeRange     TimeRange `json:"timeRange"`
	// ImportedDays and ImportedDaysLeftOut mark the imported days of the range (docs/api.md,
	// "Import"): counted in the rows when unfiltered, left out under a filter.
	ImportedDays        []string         `json:"importedDays,omitempty" doc:"days of the range whose figures come from an import (Plausible, Umami) and are counted in the rows (unfiltered breakdowns)"`
	ImportedDaysLeftOut []string         `json:"importedDaysLeftOut,omitempty" doc:"days of the range whose imported figures the rows leave out: an import has daily totals per value, no visits, so a filter cannot split them"`
	Previous            *BreakdownPeriod `json:"previous,omitempty" doc:"compare=previous: the same breakdown over the preceding period of equal length"`
}

// BreakdownPeriod is a breakdown of the comparison period.
type BreakdownPeriod struct {
	Rows          []BreakdownRow `json:"rows"`
	Total         int            `json:"total"`
	VisitorsExact bool           `json:"visitorsExact"`
	SampleRate    float64        `json:"sampleRate,omitempty"`
	TimeRange     TimeRange      `json:"timeRange"`
	// See Breakdown.
	ImportedDays        []string `json:"importedDays,omitempty"`
	ImportedDaysLeftOut []string `json:"importedDaysLeftOut,omitempty"`
}

// BreakdownRow is one value of a dimension. For visit dimensions (everything but page and
// event) visits are the visits with that value (a visit counts on its first day) and pageViews
// their page views; for page, the page's views and the visits that viewed it; for event,
// visitors who sent it and events counts them, and conversionRate is those visitors over all
// visitors of the range (after filters).
type BreakdownRow struct {
	Value          string   `json:"value"`
	Visitors       int      `json:"visitors"`
	PageViews      int      `json:"pageViews"`
	Visits         int      `json:"visits"`
	BounceRate     *float64 `json:"bounceRate,omitempty" doc:"visits of one page view / visits, 0..1 (visit dimensions)"`
	ConversionRate *float64 `json:"conversionRate,omitempty" doc:"event: visitors who sent it / visitors of the range, 0..1"`
	Events         *int     `json:"events,omitempty" doc:"event: how many times it was sent"`
}

// Realtime is the answer of GET /api/analytics/realtime.
type Realtime struct {
	Visitors int            `json:"visitors" doc:"visitors with a page view in the last 5 minutes"`
	Pages    []RealtimePage `json:"pages" doc:"the pages they are on (their latest page view), most visitors first, at most 10"`
}

// RealtimePage is one page of the realtime answer.
type RealtimePage struct {
	Path     string `json:"path"`
	Visitors int    `json:"visitors"`
}

// AnalyticsComparison is the report's compare=previous part: the same figures over the
// preceding period of equal length.
type AnalyticsComparison struct {
	Visitors  VisitorCounts  `json:"visitors"`
	PageViews PageViewCounts `json:"pageViews"`
	TopPages  []PageView     `json:"topPages"`
	Referrers []Referrer     `json:"referrers"`
	Daily     []DailyTotals  `json:"daily"`
	TimeRange TimeRange      `json:"timeRange"`
}
