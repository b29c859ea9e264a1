package httpapi

// routeTable is every /api route of folio in one place. Each row's Level, Perm, Limit and Cache
// are enforced by adapt; the same rows generate /api/openapi.json.
func (s *Server) routeTable() []route {
	var rs []route
	rs = append(rs, projectAPI{s}.routes()...)
	rs = append(rs, s.docsRoutes()...)
	rs = append(rs, authAPI{s}.routes()...)
	rs = append(rs, accountAPI{s}.routes()...)
	rs = append(rs, s.auditRoutes()...)
	rs = append(rs, s.mediaRoutes()...)
	rs = append(rs, contactAPI{s}.routes()...)
	rs = append(rs, s.extblogRoutes()...)
	rs = append(rs, analyticsAPI{s}.routes()...)
	rs = append(rs, bookingAPI{s}.routes()...)
	rs = append(rs, blogAPI{s}.routes()...)
	rs = append(rs, feedAPI{s}.routes()...)
	rs = append(rs, s.dashboardRoutes()...)
	rs = append(rs, searchAPI{s}.routes()...)
	rs = append(rs, s.webhookRoutes()...)
	rs = append(rs, s.exportRoutes()...)
	return rs
}

var (
	pageParam  = param{Name: "page", Type: "integer", Doc: "page number, ≥ 1 (default 1)"}
	limitParam = param{Name: "limit", Type: "integer", Doc: "items per page, 1–100 (default 10)"}
)
