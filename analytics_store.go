package folio

import "time"

// The records the analytics use case hands to its store and the figures the store returns: the
// store keeps page views, events and their rollups; the use case turns the figures into the
// reports of docs/api.md ("Analytics").

// AnalyticsPageView is one page view to store. Day is its date (YYYY-MM-DD) in the owner's time
// zone, computed by the caller; VisitorKey is already anonymous (a salted hash).
type AnalyticsPageView struct {
	At         time.Time
	Day        string
	VisitorKey string
	Path       string // without query
	Query      string // kept query parameters (utm_*, ref), encoded
	Title      string
	Referrer   string // domain, or ""
	// The attributes of the page view's visit (docs/api.md, "Breakdowns, realtime"). The store
	// keeps those of the visit's first page view for all its page views, so these matter only on
	// that one.
	Attrs VisitAttrs
}

// VisitAttrs are the attributes of a visit, taken from its first page view: where it came from
// and what the visitor used. Nothing here identifies a person.
type VisitAttrs struct {
	Source, Referrer                               string // source name ("GitHub"), referrer host
	UTMSource, UTMMedium, UTMCampaign              string
	Country                                        string // ISO 3166-1 alpha-2, ZZ unknown
	Device, Browser, BrowserVersion, OS, OSVersion string
}

// AnalyticsEvent is one named event to store. Props is its JSON-encoded properties; Group and
// Step are the booking-error group and funnel step pulled out of them for the funnel report.
type AnalyticsEvent struct {
	At         time.Time
	Day        string
	VisitorKey string
	Name       string
	Path       string
	Props      string
	Group      string
	Step       string
}

// AnalyticsTotals are the site-wide figures of a day range.
type AnalyticsTotals struct {
	Views, Visits, Unique, Returning int
}

// AnalyticsPathReport holds the figures of one page path over a day range.
type AnalyticsPathReport struct {
	Views, Unique int
	Daily         map[string]int // day → views, days without views absent
	Referrers     []Referrer
}

// AnalyticsFunnelCounts are the raw figures of the booking funnel over a day range.
type AnalyticsFunnelCounts struct {
	StepVisitors map[string]int // event name → distinct visitors
	ErrorCount   map[string]int // error group → events
	ErrorVisitor map[string]int // error group → distinct visitors
	Abandonment  []FunnelAbandonment
}

// BreakdownDims are the breakdown dimensions (docs/api.md, "Breakdowns, realtime"). Visit
// dimensions describe a visit (its attributes, entry and exit page); page is a property of each
// page view; event is a named event.
var BreakdownDims = []string{"page", "entry_page", "exit_page", "source", "referrer", "utm_source", "utm_medium",
	"utm_campaign", "country", "device", "browser", "browser_version", "os", "os_version", "event", "date"}

// SampleRates are the visitor sample levels a raw breakdown can read instead of every page view
// and event: 1 in 8, 32, 128 or 512 visitors.
var SampleRates = []int{8, 32, 128, 512}

// BreakdownQuery asks for one dimension's rows over the days From..To (inclusive), restricted
// to the visits matching every filter (dimension → value), Limit rows from Offset. Sample, one
// of SampleRates, makes a raw breakdown read only that share of the visitors, with their visits
// and events (its counts are then those of the sample, not scaled); 0 reads every visitor.
type BreakdownQuery struct {
	Dim           string
	From, To      string
	Filters       map[string]string
	Limit, Offset int
	Sample        int
}

// BreakdownCounts are the stored figures of one value of a dimension, from which the use case
// makes a BreakdownRow. Bounces counts visits of one page view (visit dimensions only); Events
// counts events (event only); Visitors is 0 from the rollup. Base, of a raw event breakdown
// with filters, is the distinct visitors of the visits matching them: the denominator of its
// conversion rates.
type BreakdownCounts struct {
	Value                                        string
	Visitors, PageViews, Visits, Bounces, Events int
	Base                                         int
}

// visitAttrDims are the dimensions the visit-attribute rollup keys: the visit attributes and
// date (the day visits start).
var visitAttrDims = map[string]bool{"source": true, "referrer": true, "utm_source": true, "utm_medium": true,
	"utm_campaign": true, "country": true, "device": true, "browser": true, "browser_version": true, "os": true,
	"os_version": true, "date": true}

// VisitAttrBreakdown reports whether the rollup answers a breakdown of dim filtered by filters:
// dim and every filter are visit attributes or date (not page, entry_page, exit_page or event,
// which the visit-attribute rollup does not key).
func VisitAttrBreakdown(dim string, filters map[string]string) bool {
	if !visitAttrDims[dim] {
		return false
	}
	for f := range filters {
		if !visitAttrDims[f] {
			return false
		}
	}
	return true
}
