package httpapi

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
)

// maxCollectBody bounds a collect body: a page address with campaign tags, a title and a
// referrer fit easily; anything larger is not a beacon.
const maxCollectBody = 2048

var rangeParams = []param{
	{Name: "start", Type: "string", Doc: "first day, YYYY-MM-DD in the owner's time zone (an RFC 3339 time means its day there); default: 29 days before end"},
	{Name: "end", Type: "string", Doc: "last day, inclusive, YYYY-MM-DD; default: today in the owner's time zone"},
}

var compareParam = param{Name: "compare", Type: "string", Doc: "`previous` adds the same figures over the preceding period of equal length (field `previous`)"}

// breakdownParams documents the breakdown query: the dimension, the range, paging, comparison,
// format and one filter per dimension.
func breakdownParams() []param {
	ps := []param{
		{Name: "dimension", Type: "string", Required: true, Doc: "one of " + strings.Join(analytics.Dimensions, ", ") + "; anything else is 400"},
	}
	ps = append(ps, rangeParams...)
	ps = append(ps, param{Name: "page", Type: "string", Doc: "page number, ≥ 1 (default 1); a value starting with `/` is the page filter instead (only visits that viewed that path), and both may be given (`page=2&page=/blog`)"},
		limitParam, compareParam,
		param{Name: "format", Type: "string", Doc: "`json` (default) or `csv`: text/csv with a header row (value, visitors, pageViews, visits, bounceRate, conversionRate, events)"},
		param{Name: "exact", Type: "boolean", Doc: "`true`: count every visit even where the breakdown would be estimated from a sample of the visitors (field `sampleRate`: a filtered page, entry_page, exit_page or event breakdown, or a page, entry_page, exit_page or event filter, over more than 25,000 page views); seconds over millions of page views"})
	for _, d := range analytics.Dimensions {
		if d != "page" { // documented with paging above
			ps = append(ps, param{Name: d, Type: "string", Doc: "filter: only visits whose " + d + " is this value"})
		}
	}
	return ps
}

// analyticsAPI serves /api/analytics: collection, the tracking script and the reports, over
// the analytics use case (Server.Analytics; every row but the script's needs it: needAnalytics).
type analyticsAPI struct{ *Server }

func (s analyticsAPI) routes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/analytics/collect", Handle: s.collectAnalytics, Needs: needAnalytics, Audit: "-",
			Tag: "Analytics", Summary: "Record a page view or a named event (no cookies; any origin; JSON sent as application/json or text/plain, at most 2 KiB). Bots and overflow are dropped silently, still 202.",
			Body: folio.CollectInput{}, Status: http.StatusAccepted, Errors: []int{413, 422, 503}},
		{Method: "GET", Pattern: "/api/analytics/script.js", Handle: s.analyticsScript,
			Tag: "Analytics", Summary: "The tracking script: page views, SPA navigations and window.folio.track(name, props) events; no cookies; " +
				"in storage mode local (default) one random id in localStorage (folio_vid), in mode none nothing on the device",
			Status: http.StatusOK, RespType: "text/javascript"},
		{Method: "GET", Pattern: "/api/analytics", Handle: s.analyticsReport, Needs: needAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "Site report over a range of days (default the last 30): visits, unique and returning visitors, page views, top pages and referrers",
			Query: append(append([]param{}, rangeParams...), compareParam), Status: http.StatusOK, Resp: folio.Analytics{}, Errors: []int{422, 503}},
		{Method: "GET", Pattern: "/api/analytics/breakdown", Handle: s.analyticsBreakdown, Needs: needAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "One dimension's values over a range of days (page, entry/exit page, source, referrer, UTM, country, device, browser, OS, event), filtered by any dimension; bounce and conversion rates; JSON or CSV",
			Query: breakdownParams(), Status: http.StatusOK, Resp: folio.Breakdown{}, Errors: []int{422, 503}},
		{Method: "GET", Pattern: "/api/analytics/realtime", Handle: s.analyticsRealtime, Needs: needAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "Visitors of the last 5 minutes and the pages they are on",
			Status: http.StatusOK, Resp: folio.Realtime{}, Errors: []int{503}},
		{Method: "GET", Pattern: "/api/analytics/projects/{id}", Handle: s.projectAnalytics, Needs: needAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "Page views of one project's page (/projects/{id}) over a range of days",
			Query: rangeParams, Status: http.StatusOK, Resp: folio.ProjectAnalytics{}, Errors: []int{404, 422, 503}},
		{Method: "GET", Pattern: "/api/analytics/funnel", Handle: s.funnelAnalytics, Needs: needAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "Booking funnel over a range of days: visitors and conversion per step, error groups",
			Query: rangeParams, Status: http.StatusOK, Resp: folio.FunnelReport{}, Errors: []int{422, 503}},
	}
}

// collectAnalytics answers 202 whether or not the event is kept (bots, a full queue): the
// beacon cannot act on the difference, and telling bots they were spotted helps nobody. It
// never reads or sets cookies; CORS for it is handled in cors.go.
func (s analyticsAPI) collectAnalytics(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	r.Body = http.MaxBytesReader(w, r.Body, maxCollectBody)
	var in folio.CollectInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if _, err := s.Analytics.Collect(r.Context(), &in, s.clientIP(r), r.UserAgent()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// analyticsScript serves the tracking script of the storage mode in force (the plain one
// without the analytics service).
func (s analyticsAPI) analyticsScript(w http.ResponseWriter, r *http.Request) error {
	script := analytics.Script
	if s.Analytics != nil {
		script = s.Analytics.TrackingScript()
	}
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(script)))
	h.Set("Cache-Control", "public, max-age=3600")
	// Pages on another origin load it with <script src>.
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(script)
	return err
}

// analyticsReader is the service for a report: it first writes the events still queued, so
// a report read right after a collect (202) already counts it. Reports are admin-only and
// rare, so forcing the batch out early costs the ingest path nothing measurable.
func (s analyticsAPI) analyticsReader(r *http.Request) (*analytics.Service, error) {
	if err := s.Analytics.Flush(r.Context()); err != nil {
		return nil, err
	}
	return s.Analytics, nil
}

func (s analyticsAPI) analyticsRange(r *http.Request) (*analytics.Service, analytics.Range, error) {
	a, err := s.analyticsReader(r)
	if err != nil {
		return nil, analytics.Range{}, err
	}
	q := r.URL.Query()
	rg, err := a.ParseRange(q.Get("start"), q.Get("end"))
	return a, rg, err
}

func (s analyticsAPI) analyticsReport(w http.ResponseWriter, r *http.Request) error {
	a, rg, err := s.analyticsRange(r)
	if err != nil {
		return err
	}
	compare, err := compareFlag(r)
	if err != nil {
		return err
	}
	rep, err := a.Report(r.Context(), rg, compare)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rep)
}

func compareFlag(r *http.Request) (bool, error) {
	q := r.URL.Query()
	switch v := q.Get("compare"); {
	case v == "previous":
		return true, nil
	case v == "" && !q.Has("compare"):
		return false, nil
	default:
		return false, folio.BadRequest("compare", "must be previous")
	}
}

func (s analyticsAPI) analyticsBreakdown(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	dim := q.Get("dimension")
	switch {
	case dim == "":
		return folio.BadRequest("dimension", "is required: one of %s", strings.Join(analytics.Dimensions, ", "))
	case !analytics.ValidDimension(dim):
		return folio.BadRequest("dimension", "must be one of %s", strings.Join(analytics.Dimensions, ", "))
	}
	format := q.Get("format")
	if format != "" && format != "json" && format != "csv" {
		return folio.BadRequest("format", "must be json or csv")
	}
	a, rg, err := s.analyticsRange(r)
	if err != nil {
		return err
	}
	// page is both the paging parameter and the page dimension's filter (docs/api.md, "Analytics"
	// and "Breakdowns, realtime"): a value starting with "/" (as every stored path does) filters,
	// any other is the page number.
	filterQ, pagingQ := maps.Clone(q), url.Values{}
	if vs, ok := q["limit"]; ok {
		pagingQ["limit"] = vs
	}
	delete(filterQ, "page")
	for _, v := range q["page"] {
		if strings.HasPrefix(v, "/") {
			filterQ["page"] = append(filterQ["page"], v)
		} else {
			pagingQ["page"] = append(pagingQ["page"], v)
		}
	}
	if len(pagingQ["page"]) > 1 {
		return folio.BadRequest("page", "may be given once as a page number (and once as a path, to filter)")
	}
	page, limit, err := pageValues(pagingQ)
	if err != nil {
		return err
	}
	compare, err := compareFlag(r)
	if err != nil {
		return err
	}
	filters, err := analytics.ParseFilters(filterQ)
	if err != nil {
		return err
	}
	exact, err := boolQuery(q, "exact")
	if err != nil {
		return err
	}
	b, err := a.Breakdown(r.Context(), analytics.BreakdownParams{Dimension: dim, Range: rg, Filters: filters, Page: page, Limit: limit, Compare: compare, Exact: exact})
	if err != nil {
		return err
	}
	if format != "csv" {
		return writeJSON(w, http.StatusOK, b)
	}
	body := breakdownCSV(b)
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+breakdownFilename(b, rg.From, rg.To)+`"`)
	if b.SampleRate > 0 {
		h.Set("X-Sample-Rate", strconv.FormatFloat(b.SampleRate, 'g', -1, 64))
	}
	if len(b.ImportedDaysLeftOut) > 0 {
		h.Set("X-Imported-Days-Left-Out", strings.Join(b.ImportedDaysLeftOut, ","))
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(body)
	return err
}

// breakdownFilename names a breakdown's CSV download. An estimate from a sample says so in the
// name, which is all a spreadsheet keeps of the response (API clients have X-Sample-Rate too).
func breakdownFilename(b *folio.Breakdown, from, to string) string {
	name := "analytics-" + b.Dimension + "-" + from + "-" + to
	if b.SampleRate > 0 {
		name += fmt.Sprintf("-sample-1-in-%.0f", 1/b.SampleRate)
	}
	if len(b.ImportedDaysLeftOut) > 0 {
		// A filter cannot split imported days: the file counts tracked visits only.
		name += "-without-imported-days"
	}
	return name + ".csv"
}

// breakdownCSV renders a breakdown as CSV with a header row; with a comparison, the previous
// period's rows follow with period "previous". Values a spreadsheet would run as a formula
// (starting with = + - @) are prefixed with a quote, since values come from visitors.
func breakdownCSV(b *folio.Breakdown) []byte {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	header := []string{"value", "visitors", "pageViews", "visits", "bounceRate", "conversionRate", "events"}
	if b.Previous != nil {
		header = append(header, "period")
	}
	cw.Write(header)
	write := func(rows []folio.BreakdownRow, period string) {
		for _, row := range rows {
			rec := []string{csvSafe(row.Value), strconv.Itoa(row.Visitors), strconv.Itoa(row.PageViews), strconv.Itoa(row.Visits), "", "", ""}
			if row.BounceRate != nil {
				rec[4] = strconv.FormatFloat(*row.BounceRate, 'f', -1, 64)
			}
			if row.ConversionRate != nil {
				rec[5] = strconv.FormatFloat(*row.ConversionRate, 'f', -1, 64)
			}
			if row.Events != nil {
				rec[6] = strconv.Itoa(*row.Events)
			}
			if period != "" {
				rec = append(rec, period)
			}
			cw.Write(rec)
		}
	}
	if b.Previous != nil {
		write(b.Rows, "current")
		write(b.Previous.Rows, "previous")
	} else {
		write(b.Rows, "")
	}
	cw.Flush()
	return buf.Bytes()
}

// csvSafe keeps a cell from being read as a formula by a spreadsheet: a value that starts with
// one of the characters that open a formula (=, +, -, @, |, %, ;, a tab or line break) — after
// NFKC folding, which spreadsheets apply too, so a full-width ＝ counts — gets a leading '.
func csvSafe(v string) string {
	if v == "" {
		return v
	}
	const opens = "=+-@|%;\t\r\n"
	raw, _ := utf8.DecodeRuneInString(v)
	// Folding may also compose the first character with the next ("=" and U+0338 make "≠"):
	// both the raw and the folded first character are checked.
	folded, _ := utf8.DecodeRuneInString(norm.NFKC.String(v[:min(len(v), 16)]))
	if strings.ContainsRune(opens, raw) || strings.ContainsRune(opens, folded) {
		return "'" + v
	}
	return v
}

func (s analyticsAPI) analyticsRealtime(w http.ResponseWriter, r *http.Request) error {
	a, err := s.analyticsReader(r)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	rt, err := a.Realtime(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rt)
}

func (s analyticsAPI) projectAnalytics(w http.ResponseWriter, r *http.Request) error {
	a, rg, err := s.analyticsRange(r)
	if err != nil {
		return err
	}
	rep, err := a.ProjectReport(r.Context(), r.PathValue("id"), rg)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rep)
}

func (s analyticsAPI) funnelAnalytics(w http.ResponseWriter, r *http.Request) error {
	a, rg, err := s.analyticsRange(r)
	if err != nil {
		return err
	}
	rep, err := a.Funnel(r.Context(), rg)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rep)
}
