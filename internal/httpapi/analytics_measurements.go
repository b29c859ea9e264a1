package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
)

// analyticsMeasurementsAPI serves the breakdowns of the tracker's automatic measurements:
// outbound links, file downloads and missing pages (docs/api.md, "Automatic measurements").
type analyticsMeasurementsAPI struct{ *Server }

func (s analyticsMeasurementsAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/analytics/measure.js", Handle: s.measureScript,
			Tag: "Analytics", Summary: "The automatic measurements' script, to add after script.js: data-outbound, data-downloads[=\"pdf,zip\"] and data-404 on its tag turn on outbound link clicks, file downloads and 404 pages",
			Status: http.StatusOK, RespType: "text/javascript"},
		{Method: "GET", Pattern: "/api/analytics/measurements", Handle: s.measurement, Needs: needAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "Outbound link clicks, file downloads or 404 pages over a range of days, by link or path: visitors and events",
			Query: append(append([]param{}, rangeParams...),
				param{Name: "kind", Type: "string", Required: true, Doc: "one of " + strings.Join(folio.Measurements, ", ") + "; anything else is 400"},
				param{Name: "limit", Type: "integer", Doc: "rows, 1–1000 (default 100)"}),
			Status: http.StatusOK, Resp: folio.MeasurementBreakdown{}, Errors: []int{422, 503}},
	}
}

func (s analyticsMeasurementsAPI) measurement(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	kind := q.Get("kind")
	switch {
	case kind == "":
		return folio.BadRequest("kind", "is required: one of %s", strings.Join(folio.Measurements, ", "))
	case !analytics.ValidMeasurement(kind):
		return folio.BadRequest("kind", "must be one of %s", strings.Join(folio.Measurements, ", "))
	}
	limit := 100
	if v := q.Get("limit"); v != "" || q.Has("limit") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return folio.BadRequest("limit", "must be a whole number from 1 to 1000")
		}
		limit = n
	}
	a, rg, err := analyticsAPI(s).analyticsRange(r)
	if err != nil {
		return err
	}
	m, err := a.Measurement(r.Context(), kind, rg, limit)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, m)
}

// measureScript serves analytics.MeasureScript, cached and loadable from any origin like the
// tracker.
func (s analyticsMeasurementsAPI) measureScript(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(analytics.MeasureScript)))
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(analytics.MeasureScript)
	return err
}
