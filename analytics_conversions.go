package folio

import "time"

// The kinds of conversion: what a visitor did that the site exists for.
const (
	ConversionBooking      = "booking"
	ConversionContact      = "contact"
	ConversionSubscription = "subscription"
)

// ConversionBy lists the groupings of GET /api/analytics/conversions (?by=).
var ConversionBy = []string{"source", "entry_page", "post", "utm_campaign"}

// VisitHeader is the request header by which a booking, a contact message or a subscription names
// the tracker's anonymous visitor id (folio_vid), so the visit that led to it is found.
const VisitHeader = "X-Folio-Visitor"

// Visit is what the analytics store knows of a visitor's latest visit: visit level only, nothing
// that identifies the person. Pages are the paths viewed in it (at most 32).
type Visit struct {
	ID              string
	Start, LastSeen time.Time
	Entry           string
	Pages           []string
	Attrs           VisitAttrs
}

// Conversion is a booking, contact message or subscription with the visit that led to it:
// VisitID is "" when no recent visit was found (then the attributes are empty). Posts are the
// /blog/<slug> paths read in that visit.
type Conversion struct {
	ID, Kind, RefID string
	At              time.Time
	Day             string
	VisitID         string
	EntryPage       string
	Source          string
	Referrer        string
	UTMSource       string
	UTMMedium       string
	UTMCampaign     string
	Posts           []string
}

// ConversionRow is one value of a conversions report: the visits with that value in the range
// and the conversions those visits led to.
type ConversionRow struct {
	Value          string  `json:"value"`
	Visits         int     `json:"visits" doc:"visits with this value in the range (for post: visits that read the post)"`
	Bookings       int     `json:"bookings"`
	Contacts       int     `json:"contacts" doc:"contact messages"`
	Subscriptions  int     `json:"subscriptions"`
	ConversionRate float64 `json:"conversionRate" doc:"share of those visits that led to at least one booking, contact message or subscription (0–1)"`
}

// ConversionTotals counts conversions by kind.
type ConversionTotals struct {
	Bookings      int `json:"bookings"`
	Contacts      int `json:"contacts"`
	Subscriptions int `json:"subscriptions"`
}

// Conversions is the answer of GET /api/analytics/conversions.
type Conversions struct {
	By           string           `json:"by"`
	Rows         []ConversionRow  `json:"rows" doc:"values with at least one conversion, most conversions first"`
	Total        ConversionTotals `json:"total" doc:"every conversion of the range"`
	Unattributed ConversionTotals `json:"unattributed" doc:"conversions without a known visit (no tracker on the page, or no page view in the hour before)"`
	TimeRange    TimeRange        `json:"timeRange"`
}

// HourTraffic is the traffic of a stretch of time (the spike alert's hour): distinct visitors,
// and the most visited pages and sources with their visitors.
type HourTraffic struct {
	Visitors int
	Pages    []RealtimePage
	Sources  []RealtimePage // Path holds the source name
}

// AnalyticsShare is a read-only link to the analytics page (docs/api.md, "Shared dashboards"):
// only the SHA-256 of its token is kept, and the hash of its password when it has one.
type AnalyticsShare struct {
	ID           string
	TokenHash    string
	PasswordHash string
	CreatedAt    time.Time
}

// AnalyticsShareInfo describes a share in answers; URL is only known when it is created.
type AnalyticsShareInfo struct {
	ID        string    `json:"id"`
	URL       string    `json:"url,omitempty" doc:"the link, <FOLIO_SITE_URL>/share/<token>; shown once, at creation"`
	Password  bool      `json:"password" doc:"whether the link asks for a password"`
	CreatedAt time.Time `json:"createdAt"`
}

// AnalyticsShareInput is the body of POST /api/analytics/shares.
type AnalyticsShareInput struct {
	Password string `json:"password,omitempty" doc:"optional; 8–200 characters"`
}

// AnalyticsShareUnlock is the body of POST /api/analytics/shared/{token}/unlock.
type AnalyticsShareUnlock struct {
	Password string `json:"password"`
}
