package folio

// ImportedCount is one value of an imported day (a page, a source, a device…). For an event,
// Visitors are those who sent it and Events how many times.
type ImportedCount struct {
	Value                       string
	Visitors, Visits, PageViews int
	Bounces                     int
	Events                      int
}

// ImportedDay is one day of figures imported from another analytics tool (docs/api.md,
// "Import"): the totals and, when the export has them, pages, referrer hosts, the breakdown
// dimensions and the custom events.
type ImportedDay struct {
	Day                         string
	Visitors, Visits, PageViews int
	Bounces                     int
	// Pages are the day's pages (analytics_daily_pages and the page dimension); Referrers the
	// referring hosts of its visits (analytics_daily_referrers).
	Pages, Referrers []ImportedCount
	// Dims are the visits, page views and bounces of each value of the visit dimensions the
	// export has (ImportedDims), as the tracker's rollup keeps them.
	Dims map[string][]ImportedCount
	// Events are the custom events of the day.
	Events []ImportedCount
}

// ImportedDims are the visit dimensions an import can feed: every visit dimension of the
// breakdowns (BreakdownDims but page, event and date). Under a filter imported days cannot be
// split, having no visit-level data.
var ImportedDims = []string{"source", "referrer", "utm_source", "utm_medium", "utm_campaign", "country", "device",
	"browser", "browser_version", "os", "os_version", "entry_page", "exit_page"}

// AnalyticsImportResult is the answer of POST /api/analytics/import.
type AnalyticsImportResult struct {
	Days        int      `json:"days" doc:"days imported"`
	PageViews   int      `json:"pageViews" doc:"page views of the days imported"`
	SkippedDays []string `json:"skippedDays" doc:"days of the file left out: they already have figures (tracked or imported before), or are today or later"`
}
