package analytics

import (
	"bytes"
	"context"
	"time"

	"github.com/foliohq/folio"
)

// The import formats of POST /api/analytics/import.
const (
	ImportPlausible = "plausible"
	ImportUmami     = "umami"
)

// Import reads an export of another analytics tool and adds its days before today (owner's
// zone) that have no figures yet to the rollups; the rest are reported as skipped.
func (s *Service) Import(ctx context.Context, format string, body []byte) (*folio.AnalyticsImportResult, error) {
	var days []folio.ImportedDay
	var err error
	switch format {
	case ImportPlausible:
		days, err = ParsePlausible(body)
	case ImportUmami:
		days, err = ParseUmami(bytes.NewReader(body), s.loc)
	default:
		return nil, folio.BadRequest("format", "must be plausible or umami")
	}
	if err != nil {
		return nil, err
	}
	now := s.now()
	today := now.In(s.loc).Format(time.DateOnly)
	res := &folio.AnalyticsImportResult{SkippedDays: []string{}}
	past := days[:0]
	for _, d := range days {
		if d.Day >= today {
			res.SkippedDays = append(res.SkippedDays, d.Day)
			continue
		}
		past = append(past, d)
	}
	skipped, err := s.store.ImportAnalyticsDays(ctx, past, format, now)
	if err != nil {
		return nil, err
	}
	left := map[string]bool{}
	for _, d := range skipped {
		left[d] = true
	}
	res.SkippedDays = append(append([]string{}, skipped...), res.SkippedDays...)
	for _, d := range past {
		if !left[d.Day] {
			res.Days++
			res.PageViews += d.PageViews
		}
	}
	return res, nil
}
