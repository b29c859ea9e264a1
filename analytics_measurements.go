package folio

// The automatic measurements of the tracker (opt-in attributes on its script tag; docs/api.md,
// "Automatic measurements"): events with these names, whose subject — the link's address without
// its query, or the missing page's path — is kept beside the event and broken down by
// GET /api/analytics/measurements.
const (
	MeasureOutbound = "outbound_link"
	MeasureDownload = "file_download"
	MeasureNotFound = "not_found"
)

// Measurements lists the measurement event names.
var Measurements = []string{MeasureOutbound, MeasureDownload, MeasureNotFound}

// MaxMeasureTarget bounds the stored subject of a measurement.
const MaxMeasureTarget = 512

// MeasurementRow is one subject of a measurement: the visitors who sent it and how many times.
type MeasurementRow struct {
	Value    string `json:"value" doc:"outbound_link and file_download: the link's host and path; not_found: the missing page's path"`
	Visitors int    `json:"visitors"`
	Events   int    `json:"events"`
}

// MeasurementBreakdown is the answer of GET /api/analytics/measurements.
type MeasurementBreakdown struct {
	Kind      string           `json:"kind"`
	Rows      []MeasurementRow `json:"rows"`
	TimeRange TimeRange        `json:"timeRange"`
}
