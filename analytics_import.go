package folio

// ImportedCount is one value of an imported day (a page, a source, a referrer host).
type ImportedCount struct {
	Value                       string
	Visitors, Visits, PageViews int
	Bounces                     int
}

// ImportedDay is one day of figures imported from another analytics tool (docs/api.md,
// "Import"): the totals and, when the export has them, pages, sources and referrer hosts.
type ImportedDay struct {
	Day                         string
	Visitors, Visits, PageViews int
	Bounces                     int
	Pages, Sources, Referrers   []ImportedCount
}

// AnalyticsImportResult is the answer of POST /api/analytics/import.
type AnalyticsImportResult struct {
	Days        int      `json:"days" doc:"days imported"`
	PageViews   int      `json:"pageViews" doc:"page views of the days imported"`
	SkippedDays []string `json:"skippedDays" doc:"days of the file left out: they already have figures (tracked or imported before), or are today or later"`
}
