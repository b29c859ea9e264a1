package httpapi

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
)

// analyticsConversionsAPI serves GET /api/analytics/conversions, and attributes bookings,
// contact messages and subscriptions to the visit that led to them (recordConversion).
type analyticsConversionsAPI struct{ *Server }

func (s analyticsConversionsAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/analytics/conversions", Handle: s.conversions, Needs: needAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "What led here: bookings, contact messages and subscriptions over a range of days by the source, entry page, campaign or posts of the visit that led to them, with each value's visits and conversion rate; JSON or CSV (format=csv)",
			Query: append(append([]param{}, rangeParams...),
				param{Name: "by", Type: "string", Doc: "one of " + strings.Join(folio.ConversionBy, ", ") + " (default source); anything else is 400"},
				param{Name: "format", Type: "string", Doc: "csv for text/csv with a header row"}),
			Status: http.StatusOK, Resp: folio.Conversions{}, Errors: []int{400, 422, 503}},
	}
}

func (s analyticsConversionsAPI) conversions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	by := q.Get("by")
	if by == "" && !q.Has("by") {
		by = "source"
	}
	if !analytics.ValidConversionBy(by) {
		return folio.BadRequest("by", "must be one of %s", strings.Join(folio.ConversionBy, ", "))
	}
	format := q.Get("format")
	if format != "" && format != "json" && format != "csv" {
		return folio.BadRequest("format", "must be json or csv")
	}
	a, rg, err := analyticsAPI(s).analyticsRange(r)
	if err != nil {
		return err
	}
	c, err := a.Conversions(r.Context(), rg, by)
	if err != nil {
		return err
	}
	if format != "csv" {
		return writeJSON(w, http.StatusOK, c)
	}
	body := conversionsCSV(c)
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="analytics-conversions-`+by+"-"+rg.From+"-"+rg.To+`.csv"`)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(body)
	return err
}

// conversionsCSV renders a conversions report with a header row; values come from visitors, so
// they are kept from being read as formulas (csvSafe).
func conversionsCSV(c *folio.Conversions) []byte {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.Write([]string{"value", "visits", "bookings", "contacts", "subscriptions", "conversionRate"})
	for _, r := range c.Rows {
		cw.Write([]string{csvSafe(r.Value), strconv.Itoa(r.Visits), strconv.Itoa(r.Bookings), strconv.Itoa(r.Contacts),
			strconv.Itoa(r.Subscriptions), strconv.FormatFloat(r.ConversionRate, 'f', -1, 64)})
	}
	cw.Flush()
	return buf.Bytes()
}

// recordConversion attributes a booking, contact message or subscription to the visit that led
// to it (docs/api.md, "Conversions"): the page names the tracker's visitor id in VisitHeader, or
// the visitor is found by the hash of address and agent. A failure here never fails the request
// it follows; it is logged.
func (s *Server) recordConversion(r *http.Request, kind, refID string) {
	if s.Analytics == nil {
		return
	}
	in := analytics.ConversionInput{Kind: kind, RefID: refID, VisitorID: r.Header.Get(folio.VisitHeader), ClientIP: s.clientIP(r), UserAgent: r.UserAgent()}
	if err := s.Analytics.RecordConversion(r.Context(), in); err != nil {
		s.log(r).Warn("conversion not recorded", "kind", kind, "error", err.Error())
	}
}
