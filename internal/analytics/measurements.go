package analytics

import (
	"context"
	_ "embed"
	"net/url"
	"slices"
	"strings"

	"github.com/foliohq/folio"
)

// MeasureScript is the script of the automatic measurements, served at
// /api/analytics/measure.js: added after the tracker, it sends outbound link clicks, file
// downloads and "not found" pages, each when its attribute is on its tag. It is apart from the
// tracker so that the tracker stays under 1.5 KB for the sites that do not want them.
//
//go:embed measure.js
var MeasureScript []byte

// measureTarget is the subject kept with a measurement event (in the event's step column, which
// only booking-error events use otherwise): for a measurement, the link's host and path without query or fragment
// (they may hold tokens), or the missing page's path; the step of other events is unchanged.
func measureTarget(name, path string, props map[string]any) string {
	var t string
	switch name {
	case folio.MeasureOutbound, folio.MeasureDownload:
		raw, _ := props["url"].(string)
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return ""
		}
		t = strings.ToLower(u.Host) + u.EscapedPath()
	case folio.MeasureNotFound:
		t = path
	default:
		return ""
	}
	return truncateUTF8(t, folio.MaxMeasureTarget)
}

// ValidMeasurement reports whether kind names a measurement.
func ValidMeasurement(kind string) bool { return slices.Contains(folio.Measurements, kind) }

// Measurement breaks a measurement down by its subject over a range: visitors and events, most
// events first, at most limit rows.
func (s *Service) Measurement(ctx context.Context, kind string, rg Range, limit int) (*folio.MeasurementBreakdown, error) {
	if !ValidMeasurement(kind) {
		return nil, folio.BadRequest("kind", "must be one of %s", strings.Join(folio.Measurements, ", "))
	}
	rows, err := s.store.AnalyticsMeasurement(ctx, kind, rg.From, rg.To, limit)
	if err != nil {
		return nil, err
	}
	return &folio.MeasurementBreakdown{Kind: kind, Rows: rows, TimeRange: rg.TimeRange()}, nil
}
