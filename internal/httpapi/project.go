package httpapi

import (
	"net/http"
	"strings"

	"github.com/foliohq/folio"
)

const scopeProjects = folio.ScopeProjects

type projectList struct {
	Projects []folio.ProjectListItem `json:"projects"`
	Total    int                     `json:"total"`
	Page     int                     `json:"page"`
	Limit    int                     `json:"limit"`
}

// projectAPI serves the projects.
type projectAPI struct{ *Server }

func (s projectAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/projects", Handle: s.listProjects, Cache: scopeProjects,
			Tag: "Projects", Summary: "List projects (public callers see published ones; write+ sees all and may filter by status)",
			Query: []param{pageParam, limitParam,
				{Name: "status", Type: "string", Doc: "published, draft or archived (comma list); draft/archived need write access"},
				{Name: "technology", Type: "string", Doc: "exact technology, case-insensitive"},
				{Name: "q", Type: "string", Doc: "case-insensitive text in title or description"},
				{Name: "include", Type: "string", Doc: "`images`: each item also carries its images (the dashboard's thumbnails); anything else is 400"}},
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

func (s projectAPI) listProjects(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := folio.ProjectFilter{Page: page, Limit: limit, Technology: strings.TrimSpace(q.Get("technology")), Query: q.Get("q")}
	if len(f.Query) > 200 {
		return folio.BadRequest("q", "must be at most 200 characters")
	}
	if f.Statuses, err = listStatuses(r, "projects"); err != nil {
		return err
	}
	images := false
	switch q.Get("include") {
	case "":
	case "images":
		images = true
	default:
		return folio.BadRequest("include", "must be images (or absent)")
	}
	ps, total, err := s.Content.Projects(r.Context(), f)
	if err != nil {
		return err
	}
	out := projectList{Projects: make([]folio.ProjectListItem, 0, len(ps)), Total: total, Page: page, Limit: limit}
	for _, p := range ps {
		item := p.ListItem()
		if images {
			item.Images = p.Images
		}
		out.Projects = append(out.Projects, item)
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s projectAPI) getProject(w http.ResponseWriter, r *http.Request) error {
	p, err := s.Content.Project(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	// Drafts and archived projects do not exist for callers who may not see them.
	if p.Status != folio.ProjectPublished && !folio.ActorFrom(r.Context()).AtLeast(folio.LevelWrite) {
		return folio.Errorf(folio.ENOTFOUND, "Project %q was not found.", r.PathValue("id"))
	}
	return writeJSON(w, http.StatusOK, p)
}

func (s projectAPI) createProject(w http.ResponseWriter, r *http.Request) error {
	var in folio.ProjectInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	p, err := s.Content.CreateProject(r.Context(), &in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/projects/"+p.ID)
	return writeJSON(w, http.StatusCreated, p)
}

func (s projectAPI) updateProject(w http.ResponseWriter, r *http.Request) error {
	var in folio.ProjectInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	p, err := s.Content.UpdateProject(r.Context(), r.PathValue("id"), &in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, p)
}

func (s projectAPI) deleteProject(w http.ResponseWriter, r *http.Request) error {
	if err := s.Content.DeleteProject(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
