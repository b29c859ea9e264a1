package httpapi

import (
	"net/http"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

const scopeProjects = sqldb.ScopeProjects

type projectList struct {
	Projects []folio.ProjectListItem `json:"projects"`
	Total    int                     `json:"total"`
	Page     int                     `json:"page"`
	Limit    int                     `json:"limit"`
}

func (s *Server) listProjects(w http.ResponseWriter, r *http.Request) error {
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
	ps, total, err := s.DB.Content.Projects(r.Context(), f)
	if err != nil {
		return err
	}
	out := projectList{Projects: make([]folio.ProjectListItem, 0, len(ps)), Total: total, Page: page, Limit: limit}
	for _, p := range ps {
		out.Projects = append(out.Projects, p.ListItem())
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) getProject(w http.ResponseWriter, r *http.Request) error {
	p, err := s.DB.Content.Project(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	// Drafts and archived projects do not exist for callers who may not see them.
	if p.Status != folio.ProjectPublished && !folio.ActorFrom(r.Context()).AtLeast(folio.LevelWrite) {
		return folio.Errorf(folio.ENOTFOUND, "Project %q was not found.", r.PathValue("id"))
	}
	return writeJSON(w, http.StatusOK, p)
}

func (s *Server) createProject(w http.ResponseWriter, r *http.Request) error {
	var in folio.ProjectInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	p, err := s.DB.Content.CreateProject(r.Context(), &in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/projects/"+p.ID)
	return writeJSON(w, http.StatusCreated, p)
}

func (s *Server) updateProject(w http.ResponseWriter, r *http.Request) error {
	var in folio.ProjectInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	p, err := s.DB.Content.UpdateProject(r.Context(), r.PathValue("id"), &in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, p)
}

func (s *Server) deleteProject(w http.ResponseWriter, r *http.Request) error {
	if err := s.DB.Content.DeleteProject(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
