package httpapi

import (
	"net/http"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
)

// analyticsSharesAPI serves the read-only links to the analytics page (docs/api.md, "Shared
// dashboards"): the admin routes that make, list and revoke them, and the public routes a link
// opens — the report, the breakdown and realtime, nothing else.
type analyticsSharesAPI struct{ *Server }

// shareCookiePrefix names the cookie that proves a share's password was given
// (folio_share_<share id>).
const shareCookiePrefix = "folio_share_"

func (s analyticsSharesAPI) routes() []route {
	shared := func(method, suffix string, h handlerFunc, summary string, rt route) route {
		rt.Method, rt.Pattern, rt.Handle, rt.Needs, rt.Tag, rt.Summary = method, "/api/analytics/shared/{token}"+suffix, h, needAnalytics, "Analytics",
			summary+" (public: the token of a shared link opens it; a link with a password also needs the cookie of .../unlock)"
		rt.Errors = append(rt.Errors, 401, 404, 503)
		return rt
	}
	a := analyticsAPI(s)
	return []route{
		{Method: "POST", Pattern: "/api/analytics/shares", Handle: s.create, Needs: needAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "Make a read-only link to the analytics page, optionally with a password; the URL (with its token) is shown only here",
			Body: folio.AnalyticsShareInput{}, Status: http.StatusCreated, Resp: folio.AnalyticsShareInfo{}, Errors: []int{422, 503}},
		{Method: "GET", Pattern: "/api/analytics/shares", Handle: s.list, Needs: needAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "The read-only links (without their tokens)", Status: http.StatusOK, Resp: shareList{}, Errors: []int{503}},
		{Method: "DELETE", Pattern: "/api/analytics/shares/{id}", Handle: s.revoke, Needs: needAnalytics, Level: folio.LevelAdmin,
			Tag: "Analytics", Summary: "Revoke a read-only link; it stops working at once", Status: http.StatusNoContent, Errors: []int{404, 503}},
		shared("GET", "", s.gate(a.analyticsReport), "The site report of a shared link",
			route{Query: append(append([]param{}, rangeParams...), compareParam), Status: http.StatusOK, Resp: folio.Analytics{}, Errors: []int{422}}),
		shared("GET", "/breakdown", s.gate(a.analyticsBreakdown), "A breakdown of a shared link",
			route{Query: breakdownParams(), Status: http.StatusOK, Resp: folio.Breakdown{}, Errors: []int{422}}),
		shared("GET", "/realtime", s.gate(a.analyticsRealtime), "Realtime visitors of a shared link",
			route{Status: http.StatusOK, Resp: folio.Realtime{}}),
		shared("POST", "/unlock", s.unlock, "Give a shared link's password: 204 and a cookie that opens it in this browser",
			route{Limit: limitHelperIP, Audit: "-", Body: folio.AnalyticsShareUnlock{}, Status: http.StatusNoContent}),
	}
}

type shareList struct {
	Shares []folio.AnalyticsShareInfo `json:"shares"`
}

func (s analyticsSharesAPI) create(w http.ResponseWriter, r *http.Request) error {
	var in folio.AnalyticsShareInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	sh, token, err := s.Analytics.CreateShare(r.Context(), in)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusCreated, folio.AnalyticsShareInfo{ID: sh.ID, URL: s.siteURL() + "/share/" + token,
		Password: sh.PasswordHash != "", CreatedAt: sh.CreatedAt})
}

func (s analyticsSharesAPI) list(w http.ResponseWriter, r *http.Request) error {
	shs, err := s.Analytics.Shares(r.Context())
	if err != nil {
		return err
	}
	out := shareList{Shares: make([]folio.AnalyticsShareInfo, len(shs))}
	for i, sh := range shs {
		out.Shares[i] = folio.AnalyticsShareInfo{ID: sh.ID, Password: sh.PasswordHash != "", CreatedAt: sh.CreatedAt}
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s analyticsSharesAPI) revoke(w http.ResponseWriter, r *http.Request) error {
	if err := s.Analytics.DeleteShare(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// share returns the share of the request's token; a share with a password also needs the
// cookie its unlock set (401 otherwise, naming the password).
func (s analyticsSharesAPI) share(r *http.Request) (*folio.AnalyticsShare, error) {
	sh, err := s.Analytics.Share(r.Context(), r.PathValue("token"))
	if err != nil {
		return nil, err
	}
	proof := ""
	if c, err := r.Cookie(shareCookiePrefix + sh.ID); err == nil {
		proof = c.Value
	}
	if !analytics.ShareUnlocked(sh, proof) {
		return nil, &folio.Error{Code: folio.EUNAUTHORIZED, Message: "This link needs its password.",
			Details: []folio.FieldError{{Field: "password", Message: "is required"}}}
	}
	return sh, nil
}

// gate lets a shared link's request through to a report handler once its token (and password)
// are checked; the answer is never cached or indexed.
func (s analyticsSharesAPI) gate(next handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("X-Robots-Tag", "noindex, nofollow")
		w.Header().Set("Cache-Control", "no-store")
		if _, err := s.share(r); err != nil {
			return err
		}
		return next(w, r)
	}
}

func (s analyticsSharesAPI) unlock(w http.ResponseWriter, r *http.Request) error {
	var in folio.AnalyticsShareUnlock
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	sh, err := s.Analytics.Share(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	proof, err := analytics.UnlockShare(sh, in.Password)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: shareCookiePrefix + sh.ID, Value: proof, Path: "/", MaxAge: 30 * 24 * 3600,
		HttpOnly: true, Secure: r.TLS != nil || strings.HasPrefix(s.siteURL(), "https://"), SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// sharePage serves GET /share/{token}: the read-only analytics page of a link that exists (404
// otherwise), never indexed, never cached, and never sending its address on as a referrer.
func (s *Server) sharePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Robots-Tag", "noindex, nofollow")
	h.Set("Cache-Control", "no-store")
	if s.Analytics == nil {
		http.Error(w, "Analytics is not running.", http.StatusServiceUnavailable)
		return
	}
	if _, err := s.Analytics.Share(r.Context(), r.PathValue("token")); err != nil {
		if folio.IsNotFound(err) {
			http.Error(w, "This link does not exist or was revoked.", http.StatusNotFound)
			return
		}
		s.Logger.Error("share page", "error", err.Error())
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	s.UI.ServeHTTP(w, r)
}
