package analytics

import (
	"slices"
	"sync"

	"github.com/foliohq/folio"
)

// OtherValue stands for the values of a dimension past the day's cap (Options.MaxDailyValues).
const OtherValue = "(other)"

// DefaultMaxDailyValues is the most distinct values of one dimension a day keeps by default
// (ANALYTICS_MAX_DAILY_VALUES): far more pages, referrers or campaigns than a personal site sees
// in a day, and a bound on what a stranger's made-up values can add to the rollups.
const DefaultMaxDailyValues = 500

// maxStoredTitle bounds the stored title of a page (a title is shown, not searched).
const maxStoredTitle = 150

// valueCap folds the values a stranger chooses (page paths, referrers, campaign tags, browser
// and OS names and versions, event names) into OtherValue once a dimension has max distinct
// values on the current day, as Plausible does: every value is a row of the daily rollups, so
// without it each made-up value grows the database for good. It counts the values this process
// admitted (a value seen before that day stays itself), so the bound holds per instance and per
// process run: n instances, or a restart, admit up to n times max (docs/api.md).
type valueCap struct {
	max int // ≤ 0: no cap

	mu   sync.Mutex
	day  string
	seen map[string]map[string]struct{} // dimension → values admitted on day
}

// foldPageView folds pv's values in place (its path also stands for the entry and exit page; a
// folded path drops the title and query that belong to the real one).
func (c *valueCap) foldPageView(pv *folio.AnalyticsPageView) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.startDay(pv.Day)
	if pv.Path = c.fold("page", pv.Path); pv.Path == OtherValue {
		pv.Title, pv.Query = "", ""
	}
	a := &pv.Attrs
	pv.Referrer = c.fold("referrer", pv.Referrer)
	a.Referrer = pv.Referrer
	for _, f := range []struct {
		dim string
		v   *string
	}{{"source", &a.Source}, {"utm_source", &a.UTMSource}, {"utm_medium", &a.UTMMedium}, {"utm_campaign", &a.UTMCampaign},
		{"browser", &a.Browser}, {"browser_version", &a.BrowserVersion}, {"os", &a.OS}, {"os_version", &a.OSVersion}} {
		*f.v = c.fold(f.dim, *f.v)
	}
}

// foldEvent folds ev's name and path. The funnel's step and error names are never folded: the
// funnel report reads them by name.
func (c *valueCap) foldEvent(ev *folio.AnalyticsEvent) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.startDay(ev.Day)
	if ev.Name != folio.FunnelErrorEvent && !slices.Contains(folio.FunnelSteps, ev.Name) {
		ev.Name = c.fold("event", ev.Name)
	}
	ev.Path = c.fold("page", ev.Path)
}

// startDay forgets the values of an earlier day. Under mu.
func (c *valueCap) startDay(day string) {
	if day != c.day {
		c.day, c.seen = day, map[string]map[string]struct{}{}
	}
}

// fold returns v, or OtherValue when v is new and dim already has max values today. Under mu.
func (c *valueCap) fold(dim, v string) string {
	if v == "" {
		return v
	}
	vals := c.seen[dim]
	if _, ok := vals[v]; ok {
		return v
	}
	if len(vals) >= c.max {
		return OtherValue
	}
	if vals == nil {
		vals = map[string]struct{}{}
		c.seen[dim] = vals
	}
	vals[v] = struct{}{}
	return v
}
