package httpapi

import (
	"net/http"

	"github.com/foliohq/folio"
)

// routeTable is every /api route of folio in one place. Each row's Level, Perm, Limit, Cache and
// Needs are enforced by adapt; the same rows generate /api/openapi.json.
func (s *Server) routeTable() []route {
	var rs []route
	rs = append(rs, s.projectRoutes()...)
	rs = append(rs, docsAPI{s}.routes()...)
	rs = append(rs, s.identityRoutes()...)
	rs = append(rs, s.signInRoutes()...)
	rs = append(rs, auditAPI{s}.routes()...)
	rs = append(rs, mediaAPI{s}.routes()...)
	rs = append(rs, s.contactRoutes()...)
	rs = append(rs, extblogAPI{s}.routes()...)
	rs = append(rs, s.analyticsRoutes()...)
	rs = append(rs, s.bookingRoutes()...)
	rs = append(rs, s.bookingLifecycleRoutes()...)
	rs = append(rs, s.blogRoutes()...)
	rs = append(rs, dashboardAPI{s}.routes()...)
	rs = append(rs, s.searchRoutes()...)
	rs = append(rs, webhookAPI{s}.routes()...)
	rs = append(rs, exportAPI{s}.routes()...)
	return rs
}

func (s *Server) projectRoutes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/projects", Handle: s.listProjects, Cache: scopeProjects,
			Tag: "Projects", Summary: "List projects (public callers see published ones; write+ sees all and may filter by status)",
			Query: []param{pageParam, limitParam,
				{Name: "status", Type: "string", Doc: "published, draft or archived (comma list); draft/archived need write access"},
				{Name: "technology", Type: "string", Doc: "exact technology, case-insensitive"},
				{Name: "q", Type: "string", Doc: "case-insensitive text in title or description"}},
			Status: http.StatusOK, Resp: projectList{}, Errors: []int{401, 403}},
		{Method: "GET", Pattern: "/api/projects/{id}", Handle: s.getProject, Cache: scopeProjects,
			Tag: "Projects", Summary: "Get one project with every field", Status: http.StatusOK, Resp: folio.Project{}, Errors: []int{404}},
		{Method: "POST", Pattern: "/api/projects", Handle: s.createProject, Level: folio.LevelWrite,
			Tag: "Projects", Summary: "Create a project", Body: folio.ProjectInput{}, Status: http.StatusCreated, Resp: folio.Project{}, Errors: []int{413, 415, 422}},
		{Method: "PUT", Pattern: "/api/projects/{id}", Handle: s.updateProject, Level: folio.LevelWrite,
			Tag: "Projects", Summary: "Replace a project's fields (title and description required; other fields replaced when present)",
			Body: folio.ProjectInput{}, Status: http.StatusOK, Resp: folio.Project{}, Errors: []int{404, 413, 415, 422}},
		{Method: "DELETE", Pattern: "/api/projects/{id}", Handle: s.deleteProject, Level: folio.LevelWrite,
			Tag: "Projects", Summary: "Delete a project", Status: http.StatusNoContent, Errors: []int{404}},
	}
}

var (
	pageParam  = param{Name: "page", Type: "integer", Doc: "page number, ≥ 1 (default 1)"}
	limitParam = param{Name: "limit", Type: "integer", Doc: "items per page, 1–100 (default 10)"}
)
