package folio

import (
	"strings"
	"unicode/utf8"
)

// Analytics is the site report of GET /api/analytics (docs/api.md, "Analytics"). Definitions:
// Visitors.Total counts visits (a visitor's page views split wherever more than 30 minutes pass
// without one), Visitors.Unique counts distinct visitors, Visitors.Returning counts the unique
// visitors who, on some day of the range, had already been seen on an earlier day (inside or
// before the range), and PageViews.Average is page views per visit.
type Analytics struct {
	Visitors  VisitorCounts  `json:"visitors"`
	PageViews PageViewCounts `json:"pageViews"`
	TopPages  []PageView     `json:"topPages"`
	Referrers []Referrer     `json:"referrers"`
	TimeRange TimeRange      `json:"timeRange"`
	// Daily is one entry per day of the range, for charts (docs/api.md, "Analytics").
	Daily []DailyTotals `json:"daily"`
	// ImportedDays are the days of the range whose figures were imported (docs/api.md, "Import").
	ImportedDays []string `json:"importedDays,omitempty" doc:"days of the range whose figures come from an import (Plausible, Umami), not the tracker"`
	// Previous is present with compare=previous (docs/api.md, "Analytics").
	Previous *AnalyticsComparison `json:"previous,omitempty" doc:"compare=previous: the same figures over the preceding period of equal length"`
}

// DailyTotals are one day's figures of the site report.
type DailyTotals struct {
	Date      string `json:"date" doc:"YYYY-MM-DD in the owner's zone"`
	Visitors  int    `json:"visitors" doc:"distinct visitors that day"`
	Visits    int    `json:"visits"`
	PageViews int    `json:"pageViews"`
	Imported  bool   `json:"imported,omitempty" doc:"the day's figures come from an import"`
}

// VisitorCounts is the visitors part of the report.
type VisitorCounts struct {
	Total     int `json:"total" doc:"visits: a visitor's page views split by 30 minutes of inactivity"`
	Unique    int `json:"unique" doc:"distinct visitors"`
	Returning int `json:"returning" doc:"unique visitors who on some day of the range had already been seen on an earlier day"`
}

// PageViewCounts is the page-views part of the report.
type PageViewCounts struct {
	Total   int     `json:"total"`
	Average float64 `json:"average" doc:"page views per visit, rounded to two decimals"`
}

// PageView is one row of the top pages: the path without its query, its views in the range and
// the latest title reported for it.
type PageView struct {
	Path  string `json:"path"`
	Views int    `json:"views"`
	Title string `json:"title"`
}

// Referrer is one referring site: its domain (without "www.") and the page views that arrived
// from it.
type Referrer struct {
	Domain string `json:"domain"`
	Visits int    `json:"visits" doc:"page views that arrived with this referrer"`
}

// TimeRange is the half-open interval a report covers: Start is midnight of the first day and
// End midnight after the last day, both RFC 3339 in the owner's time zone.
type TimeRange struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// DailyViews is one day of a per-page report; Date is YYYY-MM-DD in the owner's time zone.
type DailyViews struct {
	Date  string `json:"date"`
	Views int    `json:"views"`
}

// ProjectAnalytics is the report of GET /api/analytics/projects/{id}: the page views of the
// project's page (path /projects/{id}).
type ProjectAnalytics struct {
	ProjectID      string       `json:"projectId"`
	Path           string       `json:"path" doc:"the page path the figures are for"`
	Views          int          `json:"views"`
	UniqueVisitors int          `json:"uniqueVisitors"`
	Daily          []DailyViews `json:"daily" doc:"every day of the range, zero-filled"`
	Referrers      []Referrer   `json:"referrers"`
	TimeRange      TimeRange    `json:"timeRange"`
}

// Booking funnel steps (docs/api.md, "Analytics": the funnel), in funnel order. The booking
// interface reports each as an event whose name is the step. The last three follow a completed
// booking (docs/api.md, "Booking lifecycle"): the visitor opened the manage link, then rescheduled
// or cancelled.
var FunnelSteps = []string{
	"modal_opened", "contact_info_submitted", "date_selected", "time_selected", "booking_confirmed", "booking_completed",
	"manage_opened", "booking_rescheduled", "booking_cancelled",
}

// FunnelErrorEvent is the event name of booking errors; its props.group is one of
// FunnelErrorGroups and props.step, optionally, the funnel step where it happened.
const FunnelErrorEvent = "booking_error"

// FunnelErrorGroups are the error groups of the funnel (docs/api.md, "Analytics").
var FunnelErrorGroups = []string{"conflict", "api_failure", "validation", "abandonment"}

// FunnelReport is the booking funnel of GET /api/analytics/funnel.
type FunnelReport struct {
	Steps       []FunnelStep        `json:"steps"`
	Errors      []FunnelErrorCount  `json:"errors"`
	Abandonment []FunnelAbandonment `json:"abandonment" doc:"abandonment errors by the step they were reported at"`
	TimeRange   TimeRange           `json:"timeRange"`
}

// FunnelStep is one step: distinct visitors who reported it, and conversion ratios (0..1, four
// decimals) from the previous step and from the first step.
type FunnelStep struct {
	Step                   string  `json:"step"`
	Visitors               int     `json:"visitors"`
	ConversionFromPrevious float64 `json:"conversionFromPrevious"`
	ConversionFromStart    float64 `json:"conversionFromStart"`
}

// FunnelErrorCount is one error group: events and distinct visitors.
type FunnelErrorCount struct {
	Group    string `json:"group"`
	Count    int    `json:"count"`
	Visitors int    `json:"visitors"`
}

// FunnelAbandonment counts abandonment errors at one step ("" when the client named none).
type FunnelAbandonment struct {
	Step  string `json:"step"`
	Count int    `json:"count"`
}

// Collect event types.
const (
	CollectPageView = "pageview"
	CollectEvent    = "event"
)

// CollectInput is the body of POST /api/analytics/collect. Path may be a path ("/a?b") or the
// page's absolute http(s) URL. VisitorID is the client's anonymous random id (1–64 of
// A–Z a–z 0–9 _ -); without it the visitor is a hash of a rotating salt, IP and User-Agent. Name
// (required for events) is the event name; Props are flat key → string/number/boolean values.
type CollectInput struct {
	Type      string         `json:"type" doc:"pageview or event"`
	Path      string         `json:"path"`
	Title     string         `json:"title,omitempty"`
	Referrer  string         `json:"referrer,omitempty"`
	VisitorID string         `json:"visitorId,omitempty"`
	Name      string         `json:"name,omitempty"`
	Props     map[string]any `json:"props,omitempty"`
}

// Collect input limits.
const (
	MaxCollectPath     = 1024
	MaxCollectTitle    = 300
	MaxCollectReferrer = 1024
	MaxVisitorID       = 64
	MaxEventName       = 64
	MaxEventProps      = 16
	MaxEventPropValue  = 256
)

// Validate checks the input: missing type, path or event name is 400; anything present that
// breaks a rule is 422.
func (in *CollectInput) Validate() error {
	var v Validation
	switch in.Type {
	case "":
		v.Missing("type")
	case CollectPageView, CollectEvent:
	default:
		v.Invalid("type", "must be pageview or event")
	}
	switch p := in.Path; {
	case strings.TrimSpace(p) == "":
		v.Missing("path")
	case len(p) > MaxCollectPath:
		v.Invalid("path", "must be at most %d bytes", MaxCollectPath)
	case !collectText(p, false):
		v.Invalid("path", "must not contain spaces or control characters")
	case !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "http://") && !strings.HasPrefix(p, "https://"):
		v.Invalid("path", "must start with / or be an http(s) URL")
	}
	if len(in.Title) > MaxCollectTitle*4 || utf8.RuneCountInString(in.Title) > MaxCollectTitle || !collectText(in.Title, true) {
		v.Invalid("title", "must be at most %d characters of text", MaxCollectTitle)
	}
	if len(in.Referrer) > MaxCollectReferrer || !collectText(in.Referrer, true) {
		v.Invalid("referrer", "must be a URL of at most %d bytes", MaxCollectReferrer)
	}
	if in.VisitorID != "" && !ValidVisitorID(in.VisitorID) {
		v.Invalid("visitorId", "must be 1-%d characters of A-Z, a-z, 0-9, _ and -", MaxVisitorID)
	}
	if in.Type == CollectEvent {
		switch {
		case in.Name == "":
			v.Missing("name")
		case !validEventName(in.Name):
			v.Invalid("name", "must be 1-%d characters of a-z, A-Z, 0-9, _ . : and -", MaxEventName)
		}
	}
	if len(in.Props) > MaxEventProps {
		v.Invalid("props", "must have at most %d keys", MaxEventProps)
	}
	for k, val := range in.Props {
		if !validEventName(k) {
			v.Invalid("props", "key %q must be 1-%d characters of a-z, A-Z, 0-9, _ . : and -", k, MaxEventName)
			continue
		}
		switch x := val.(type) {
		case string:
			if len(x) > MaxEventPropValue || !collectText(x, true) {
				v.Invalid("props."+k, "must be text of at most %d bytes", MaxEventPropValue)
			}
		case float64, bool, nil:
		default:
			v.Invalid("props."+k, "must be a string, number or boolean")
		}
	}
	if in.Type == CollectEvent && (in.Name == MeasureOutbound || in.Name == MeasureDownload) {
		if u, _ := in.Props["url"].(string); !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			v.Invalid("props.url", "must be the link's http(s) address")
		}
	}
	if in.Type == CollectEvent && in.Name == FunnelErrorEvent {
		g, _ := in.Props["group"].(string)
		if !inList(FunnelErrorGroups, g) {
			v.Invalid("props.group", "must be one of %s", strings.Join(FunnelErrorGroups, ", "))
		}
	}
	return v.Err()
}

// ValidVisitorID reports whether s is an acceptable anonymous visitor id.
func ValidVisitorID(s string) bool {
	if len(s) == 0 || len(s) > MaxVisitorID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func validEventName(s string) bool {
	if len(s) == 0 || len(s) > MaxEventName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// plainText reports whether s is valid UTF-8 without control characters (and, unless spaces
// is set, without white space).
func collectText(s string, spaces bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r == ' ' && !spaces) {
			return false
		}
	}
	return true
}

func inList(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
