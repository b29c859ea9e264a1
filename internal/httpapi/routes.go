package httpapi

// routeTable is every route of folio's API in one place (/api, and the fediverse's /ap and
// /.well-known/webfinger). Each row's Level, Perm, Limit, Cache and
// Needs are enforced by adapt; the same rows generate /api/openapi.json.
func (s *Server) routeTable() []route {
	var rs []route
	rs = append(rs, projectAPI{s}.routes()...)
	rs = append(rs, docsAPI{s}.routes()...)
	rs = append(rs, authAPI{s}.routes()...)
	rs = append(rs, passkeyAPI{s}.routes()...)
	rs = append(rs, signInLinkAPI{s}.routes()...)
	rs = append(rs, providersAPI{s}.routes()...)
	rs = append(rs, accountAPI{s}.routes()...)
	rs = append(rs, auditAPI{s}.routes()...)
	rs = append(rs, mediaAPI{s}.routes()...)
	rs = append(rs, contactAPI{s}.routes()...)
	rs = append(rs, extblogAPI{s}.routes()...)
	rs = append(rs, analyticsAPI{s}.routes()...)
	rs = append(rs, analyticsConversionsAPI{s}.routes()...)
	rs = append(rs, analyticsSharesAPI{s}.routes()...)
	rs = append(rs, analyticsMeasurementsAPI{s}.routes()...)
	rs = append(rs, analyticsImportAPI{s}.routes()...)
	rs = append(rs, bookingAPI{s}.routes()...)
	rs = append(rs, blogAPI{s}.routes()...)
	rs = append(rs, feedAPI{s}.routes()...)
	rs = append(rs, dashboardAPI{s}.routes()...)
	rs = append(rs, searchAPI{s}.routes()...)
	rs = append(rs, webhookAPI{s}.routes()...)
	rs = append(rs, exportAPI{s}.routes()...)
	rs = append(rs, settingsAPI{s}.routes()...)
	rs = append(rs, fediverseAPI{s}.routes()...)
	rs = append(rs, commentsAPI{s}.routes()...)
	rs = append(rs, webmentionAPI{s}.routes()...)
	rs = append(rs, subscriberAPI{s}.routes()...)
	rs = append(rs, newsletterAPI{s}.routes()...)
	return rs
}

var (
	pageParam  = param{Name: "page", Type: "integer", Doc: "page number, ≥ 1 (default 1)"}
	limitParam = param{Name: "limit", Type: "integer", Doc: "items per page, 1–100 (default 10)"}
)
