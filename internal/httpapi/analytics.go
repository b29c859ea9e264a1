package httpapi

import (
	"net/http"
	"strconv"

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

func (s *Server) analyticsRoutes() []route {
	return []route{
		{Method: "POST", Pattern: "/api/analytics/collect", Handle: s.collectAnalytics, Audit: "-",
			Tag: "Analytics", Summary: "Record a page view or a named event (no cookies; any origin; JSON sent as application/json or text/plain, at most 2 KiB). Bots and overflow are dropped silently, still 202.",
			Body: folio.CollectInput{}, Status: http.StatusAccepted, Errors: []int{413, 422, 503}},
		{Method: "GET", Pattern: "/api/analytics/script.js", Handle: s.analyticsScript,
			Tag: "Analytics", Summary: "The tracking script: page views, SPA navigations and window.folio.track(name, props) events, with an anonymous id in localStorage",
			Status: http.StatusOK, RespType: "text/javascript"},
		{Method: "GET", Pattern: "/api/analytics", Handle: s.analyticsReport, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "Site report over a range of days (default the last 30): visits, unique and returning visitors, page views, top pages and referrers",
			Query: rangeParams, Status: http.StatusOK, Resp: folio.Analytics{}, Errors: []int{422, 503}},
		{Method: "GET", Pattern: "/api/analytics/projects/{id}", Handle: s.projectAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "Page views of one project's page (/projects/{id}) over a range of days",
			Query: rangeParams, Status: http.StatusOK, Resp: folio.ProjectAnalytics{}, Errors: []int{404, 422, 503}},
		{Method: "GET", Pattern: "/api/analytics/funnel", Handle: s.funnelAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "Booking funnel over a range of days: visitors and conversion per step, error groups",
			Query: rangeParams, Status: http.StatusOK, Resp: folio.FunnelReport{}, Errors: []int{422, 503}},
	}
}

func (s *Server) analyticsService() (*analytics.Service, error) {
	if s.Analytics == nil {
		return nil, folio.Errorf(folio.EUNAVAILABLE, "Analytics is not running on this server.")
	}
	return s.Analytics, nil
}

// collectAnalytics answers 202 whether or not the event is kept (bots, a full queue): the
// beacon cannot act on the difference, and telling bots they were spotted helps nobody. It
// never reads or sets cookies; CORS for it is handled in cors.go.
func (s *Server) collectAnalytics(w http.ResponseWriter, r *http.Request) error {
	a, err := s.analyticsService()
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	r.Body = http.MaxBytesReader(w, r.Body, maxCollectBody)
	var in folio.CollectInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if _, err := a.Collect(r.Context(), &in, s.clientIP(r), r.UserAgent()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

func (s *Server) analyticsScript(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(analytics.Script)))
	h.Set("Cache-Control", "public, max-age=3600")
	// Pages on another origin load it with <script src>.
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(analytics.Script)
	return err
}

func (s *Server) analyticsRange(r *http.Request) (*analytics.Service, analytics.Range, error) {
	a, err := s.analyticsService()
	if err != nil {
		return nil, analytics.Range{}, err
	}
	q := r.URL.Query()
	rg, err := a.ParseRange(q.Get("start"), q.Get("end"))
	return a, rg, err
}

func (s *Server) analyticsReport(w http.ResponseWriter, r *http.Request) error {
	a, rg, err := s.analyticsRange(r)
	if err != nil {
		return err
	}
	rep, err := a.Report(r.Context(), rg)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rep)
}

func (s *Server) projectAnalytics(w http.ResponseWriter, r *http.Request) error {
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

func (s *Server) funnelAnalytics(w http.ResponseWriter, r *http.Request) error {
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
