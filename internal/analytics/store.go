package analytics

import (
	"context"
	"time"

	"github.com/foliohq/folio"
)

// Store is what the analytics use case needs of its storage: it stores batches of page views
// and events with their rollups in one transaction, keeps the visitor salts, and reads the
// figures the reports are made of. analyticstest.TestStore checks an implementation.
type Store interface {
	// WriteAnalytics stores a batch of page views and events and updates the rollups, all in one
	// transaction; it splits visits (a page view more than the visit gap after the visitor's
	// previous one starts a new visit) and may sort pvs in place.
	WriteAnalytics(ctx context.Context, pvs []folio.AnalyticsPageView, evs []folio.AnalyticsEvent) error
	// PruneAnalytics deletes the raw page views and events of days before day and returns how
	// many rows went; the rollups stay.
	PruneAnalytics(ctx context.Context, day string) (int64, error)
	// AnalyticsSalt returns the salt of a rotation window ("day:2026-01-05"), storing candidate
	// when the window has none yet, so every instance uses the first salt stored; it deletes the
	// salts of earlier windows and of other rotation kinds in the same transaction.
	AnalyticsSalt(ctx context.Context, windowKey, candidate string) (string, error)

	AnalyticsTotals(ctx context.Context, from, to string) (folio.AnalyticsTotals, error)
	AnalyticsDaily(ctx context.Context, from, to string) (map[string]folio.DailyTotals, error)
	AnalyticsTopPages(ctx context.Context, from, to string, n int) ([]folio.PageView, error)
	AnalyticsReferrers(ctx context.Context, from, to string, n int) ([]folio.Referrer, error)
	AnalyticsPath(ctx context.Context, path, from, to string, nRefs int) (*folio.AnalyticsPathReport, error)
	AnalyticsFunnel(ctx context.Context, from, to string, steps []string, errorEvent string) (*folio.AnalyticsFunnelCounts, error)

	// AnalyticsBreakdownRaw groups the raw page views and events (of a visitor sample when
	// q.Sample is set); AnalyticsBreakdownRollup reads the rollups (exact visits, page views,
	// bounces and events; no visitors). Both return one page of rows and the total of values.
	AnalyticsBreakdownRaw(ctx context.Context, q folio.BreakdownQuery) ([]folio.BreakdownCounts, int, error)
	AnalyticsBreakdownRollup(ctx context.Context, q folio.BreakdownQuery) ([]folio.BreakdownCounts, int, error)
	// AnalyticsBreakdownCount counts the values of a breakdown, for a page beyond the last.
	AnalyticsBreakdownCount(ctx context.Context, q folio.BreakdownQuery, rollup bool) (int, error)
	// AnalyticsRealtime counts the visitors with a page view since the given time and the pages
	// they are on, most visitors first, at most n pages.
	AnalyticsRealtime(ctx context.Context, since time.Time, n int) (int, []folio.RealtimePage, error)

	ConversionStore
	MailStore
	ShareStore
	MeasurementStore
	ImportStore
}

// Projects looks projects up: the project report is only for a project that exists.
type Projects interface {
	// Project returns the project with the given id, or a RESOURCE_NOT_FOUND error.
	Project(ctx context.Context, id string) (*folio.Project, error)
}

// ConversionStore is what conversions need of the analytics storage (part of Store).
type ConversionStore interface {
	// AnalyticsVisit returns the latest visit of a visitor key, or nil for an unknown visitor.
	AnalyticsVisit(ctx context.Context, visitorKey string) (*folio.Visit, error)
	// RecordConversion stores a conversion as given.
	RecordConversion(ctx context.Context, c folio.Conversion) error
	// AnalyticsConversions returns the conversions of days from..to, oldest first.
	AnalyticsConversions(ctx context.Context, from, to string) ([]folio.Conversion, error)
	// AnalyticsDimVisits returns the visits of each of values of a rollup dimension over days
	// from..to (values without visits are absent).
	AnalyticsDimVisits(ctx context.Context, dim, from, to string, values []string) (map[string]int, error)
}

// MailStore is what the mailed reports and the spike alert need (part of Store).
type MailStore interface {
	// ClaimAnalyticsMail claims period at now, once ever, or again after cooldown when it is
	// positive; it reports whether this call claimed it.
	ClaimAnalyticsMail(ctx context.Context, period string, now time.Time, cooldown time.Duration) (bool, error)
	// ReleaseAnalyticsMail undoes the claim of period made at at.
	ReleaseAnalyticsMail(ctx context.Context, period string, at time.Time) error
	// AnalyticsHour counts the visitors with a page view in [from, to) and the n pages and
	// sources with the most visitors.
	AnalyticsHour(ctx context.Context, from, to time.Time, n int) (folio.HourTraffic, error)
}

// ShareStore keeps the read-only links to the analytics page (part of Store).
type ShareStore interface {
	CreateAnalyticsShare(ctx context.Context, sh folio.AnalyticsShare) error
	// AnalyticsShareByToken returns the share of a token's hash, or RESOURCE_NOT_FOUND.
	AnalyticsShareByToken(ctx context.Context, tokenHash string) (*folio.AnalyticsShare, error)
	// AnalyticsShares lists the shares, newest first.
	AnalyticsShares(ctx context.Context) ([]folio.AnalyticsShare, error)
	// DeleteAnalyticsShare deletes a share, or answers RESOURCE_NOT_FOUND.
	DeleteAnalyticsShare(ctx context.Context, id string) error
}

// MeasurementStore reads the automatic measurements (part of Store).
type MeasurementStore interface {
	// AnalyticsMeasurement groups the events named name of days from..to by their subject
	// (the step column): distinct visitors and events, most events first, at most limit rows.
	AnalyticsMeasurement(ctx context.Context, name, from, to string, limit int) ([]folio.MeasurementRow, error)
}

// ImportStore adds imported days to the rollups (part of Store).
type ImportStore interface {
	// ImportAnalyticsDays adds the days that have no figures yet, marks them imported, and
	// returns the days it left out.
	ImportAnalyticsDays(ctx context.Context, days []folio.ImportedDay, source string, now time.Time) ([]string, error)
	// AnalyticsImportedDays lists the imported days of from..to.
	AnalyticsImportedDays(ctx context.Context, from, to string) ([]string, error)
	// AnalyticsImportSources lists the tools (ImportPlausible, ImportUmami) the imported days of
	// from..to came from, in name order.
	AnalyticsImportSources(ctx context.Context, from, to string) ([]string, error)
}
