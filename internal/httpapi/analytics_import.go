package httpapi

import (
	"errors"
	"io"
	"net/http"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
)

// analyticsImportAPI serves POST /api/analytics/import: the history of another analytics tool
// (docs/api.md, "Import").
type analyticsImportAPI struct{ *Server }

func (s analyticsImportAPI) routes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/analytics/import", Handle: s.importHistory, Needs: needAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "Import the daily figures of another tool: Plausible's CSV export (the zip of imported_*.csv) or Umami's CSV of website events, sent as the request body (at most 32 MiB; a zip may inflate to 256 MiB). Days that already have figures are skipped; imported days are marked in the report",
			Query:    []param{{Name: "format", Type: "string", Required: true, Doc: "plausible (a zip) or umami (a CSV)"}},
			BodyType: "application/octet-stream", Status: http.StatusOK, Resp: folio.AnalyticsImportResult{}, Errors: []int{413, 415, 422, 503}},
	}
}

func (s analyticsImportAPI) importHistory(w http.ResponseWriter, r *http.Request) error {
	format := r.URL.Query().Get("format")
	if format != analytics.ImportPlausible && format != analytics.ImportUmami {
		return folio.BadRequest("format", "must be plausible or umami")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, analytics.MaxImportBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return folio.Errorf(folio.ETOOLARGE, "The import is larger than %d MiB.", mbe.Limit>>20)
	}
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return folio.BadRequest("file", "the request body must be the export file")
	}
	if isZip := len(body) >= 4 && string(body[:4]) == "PK\x03\x04"; isZip != (format == analytics.ImportPlausible) {
		want := "a zip archive (Plausible's CSV export)"
		if format == analytics.ImportUmami {
			want = "a CSV file (Umami's export), not a zip"
		}
		return folio.Errorf(folio.EUNSUPPORTED, "The body must be %s.", want)
	}
	res, err := s.Analytics.Import(r.Context(), format, body)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}
