package analytics

import (
	"context"
	"math"
	"time"

	"github.com/foliohq/folio"
)

// DefaultRangeDays is the length of a report's default range, ending today.
const DefaultRangeDays = 30

// MaxRangeDays bounds a report's range (ten years).
const MaxRangeDays = 3660

// TopN is how many top pages and referrers a report lists.
const TopN = 10

// Range is a report's range of whole days in the owner's time zone: From and To inclusive
// (YYYY-MM-DD).
type Range struct {
	From, To string
	loc      *time.Location
}

// TimeRange renders the range as the half-open interval [midnight of From, midnight after To),
// RFC 3339 in the owner's zone.
func (r Range) TimeRange() folio.TimeRange {
	f, _ := time.Parse(time.DateOnly, r.From)
	t, _ := time.Parse(time.DateOnly, r.To)
	start := time.Date(f.Year(), f.Month(), f.Day(), 0, 0, 0, 0, r.loc)
	end := time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, r.loc)
	return folio.TimeRange{Start: start.Format(time.RFC3339), End: end.Format(time.RFC3339)}
}

// Days lists every day of the range.
func (r Range) Days() []string {
	f, _ := time.Parse(time.DateOnly, r.From)
	t, _ := time.Parse(time.DateOnly, r.To)
	var out []string
	for d := f; !d.After(t); d = d.AddDate(0, 0, 1) {
		out = append(out, d.Format(time.DateOnly))
	}
	return out
}

// ParseRange reads a report range from the start and end query values: YYYY-MM-DD days in the
// owner's zone (an RFC 3339 time stands for its day there), both inclusive. A missing end is
// today; a missing start is DefaultRangeDays-1 days before end. An unparseable value is 400; an
// end before start, or a range longer than MaxRangeDays, is 422.
func (s *Service) ParseRange(start, end string) (Range, error) {
	parse := func(field, v string) (time.Time, error) {
		if d, err := time.Parse(time.DateOnly, v); err == nil {
			return d, nil
		}
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			y, m, d := t.In(s.loc).Date()
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
		}
		return time.Time{}, folio.BadRequest(field, "must be a date (YYYY-MM-DD) or an RFC 3339 time")
	}
	y, m, d := s.now().In(s.loc).Date()
	to := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if end != "" {
		t, err := parse("end", end)
		if err != nil {
			return Range{}, err
		}
		to = t
	}
	from := to.AddDate(0, 0, -(DefaultRangeDays - 1))
	if start != "" {
		t, err := parse("start", start)
		if err != nil {
			return Range{}, err
		}
		from = t
	}
	var v folio.Validation
	if to.Before(from) {
		v.Invalid("end", "must not be before start")
	} else if to.Sub(from) >= MaxRangeDays*24*time.Hour {
		v.Invalid("start", "the range may span at most %d days", MaxRangeDays)
	}
	if err := v.Err(); err != nil {
		return Range{}, err
	}
	return Range{From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), loc: s.loc}, nil
}

// Report builds the site report of a range; with compare it adds the same figures over the
// preceding period of equal length.
func (s *Service) Report(ctx context.Context, r Range, compare ...bool) (*folio.Analytics, error) {
	rep, err := s.report(ctx, r)
	if err != nil || len(compare) == 0 || !compare[0] {
		return rep, err
	}
	prev, err := s.report(ctx, r.Previous())
	if err != nil {
		return nil, err
	}
	rep.Previous = &folio.AnalyticsComparison{Visitors: prev.Visitors, PageViews: prev.PageViews, TopPages: prev.TopPages,
		Referrers: prev.Referrers, Daily: prev.Daily, TimeRange: prev.TimeRange}
	return rep, nil
}

func (s *Service) report(ctx context.Context, r Range) (*folio.Analytics, error) {
	t, err := s.store.AnalyticsTotals(ctx, r.From, r.To)
	if err != nil {
		return nil, err
	}
	pages, err := s.store.AnalyticsTopPages(ctx, r.From, r.To, TopN)
	if err != nil {
		return nil, err
	}
	refs, err := s.store.AnalyticsReferrers(ctx, r.From, r.To, TopN)
	if err != nil {
		return nil, err
	}
	byDay, err := s.store.AnalyticsDaily(ctx, r.From, r.To)
	if err != nil {
		return nil, err
	}
	imported, err := s.store.AnalyticsImportedDays(ctx, r.From, r.To)
	if err != nil {
		return nil, err
	}
	isImported := map[string]bool{}
	for _, d := range imported {
		isImported[d] = true
	}
	days := r.Days()
	daily := make([]folio.DailyTotals, len(days))
	for i, d := range days {
		daily[i] = byDay[d]
		daily[i].Date, daily[i].Imported = d, isImported[d]
	}
	return &folio.Analytics{
		Daily:        daily,
		Visitors:     folio.VisitorCounts{Total: t.Visits, Unique: t.Unique, Returning: t.Returning},
		PageViews:    folio.PageViewCounts{Total: t.Views, Average: ratio(t.Views, t.Visits, 2)},
		TopPages:     pages,
		Referrers:    refs,
		TimeRange:    r.TimeRange(),
		ImportedDays: imported,
	}, nil
}

// ProjectPath is the page path of a project whose figures the project report shows.
func ProjectPath(projectID string) string { return "/projects/" + projectID }

// ProjectReport builds the report of one project's page. It returns RESOURCE_NOT_FOUND for an
// unknown project.
func (s *Service) ProjectReport(ctx context.Context, projectID string, r Range) (*folio.ProjectAnalytics, error) {
	if _, err := s.projects.Project(ctx, projectID); err != nil {
		return nil, err
	}
	path := ProjectPath(projectID)
	rep, err := s.store.AnalyticsPath(ctx, path, r.From, r.To, TopN)
	if err != nil {
		return nil, err
	}
	days := r.Days()
	daily := make([]folio.DailyViews, len(days))
	for i, d := range days {
		daily[i] = folio.DailyViews{Date: d, Views: rep.Daily[d]}
	}
	return &folio.ProjectAnalytics{ProjectID: projectID, Path: path, Views: rep.Views, UniqueVisitors: rep.Unique,
		Daily: daily, Referrers: rep.Referrers, TimeRange: r.TimeRange()}, nil
}

// Funnel builds the booking funnel of a range: distinct visitors per step (folio.FunnelSteps),
// conversion from the previous and from the first step, and the error groups.
func (s *Service) Funnel(ctx context.Context, r Range) (*folio.FunnelReport, error) {
	c, err := s.store.AnalyticsFunnel(ctx, r.From, r.To, folio.FunnelSteps, folio.FunnelErrorEvent)
	if err != nil {
		return nil, err
	}
	out := &folio.FunnelReport{TimeRange: r.TimeRange(), Abandonment: c.Abandonment}
	first, prev := 0, 0
	for i, step := range folio.FunnelSteps {
		n := c.StepVisitors[step]
		fs := folio.FunnelStep{Step: step, Visitors: n}
		if i == 0 {
			first = n
			fs.ConversionFromPrevious = ratio(n, n, 4)
		} else {
			fs.ConversionFromPrevious = ratio(n, prev, 4)
		}
		fs.ConversionFromStart = ratio(n, first, 4)
		prev = n
		out.Steps = append(out.Steps, fs)
	}
	for _, g := range folio.FunnelErrorGroups {
		out.Errors = append(out.Errors, folio.FunnelErrorCount{Group: g, Count: c.ErrorCount[g], Visitors: c.ErrorVisitor[g]})
	}
	return out, nil
}

// ratio is a/b rounded to the given decimals, 0 when b is 0.
func ratio(a, b, decimals int) float64 {
	if b == 0 {
		return 0
	}
	p := math.Pow10(decimals)
	return math.Round(float64(a)/float64(b)*p) / p
}
