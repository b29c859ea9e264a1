package content

import (
	"context"

	"github.com/foliohq/folio"
)

// CreateProject stores a new project built from in (already validated) and emits
// project.created.
func (s *Service) CreateProject(ctx context.Context, in *folio.ProjectInput) (*folio.Project, error) {
	p := &folio.Project{ID: folio.NewID()}
	in.Apply(p)
	now := s.now().UTC().Truncate(0)
	p.CreatedAt, p.UpdatedAt = now, now
	w := &folio.ProjectWrite{Project: p, Search: p.SearchDoc(),
		Events: []folio.Event{{Type: folio.EventProjectCreated, Data: p}}}
	if err := s.Store.CreateProject(ctx, w); err != nil {
		return nil, err
	}
	return roundTimes(p), nil
}

// UpdateProject applies in to the project with the given id, or returns ENOTFOUND, and emits
// project.updated.
func (s *Service) UpdateProject(ctx context.Context, id string, in *folio.ProjectInput) (*folio.Project, error) {
	var out *folio.Project
	err := s.Store.UpdateProject(ctx, id, func(p *folio.Project) (*folio.ProjectWrite, error) {
		out = p
		in.Apply(p)
		p.UpdatedAt = s.now().UTC()
		return &folio.ProjectWrite{Project: p, Search: p.SearchDoc(),
			Events: []folio.Event{{Type: folio.EventProjectUpdated, Data: p}}}, nil
	})
	if err != nil {
		return nil, err
	}
	return roundTimes(out), nil
}

// DeleteProject removes a project, or returns ENOTFOUND, and emits project.deleted.
func (s *Service) DeleteProject(ctx context.Context, id string) error {
	return s.Store.DeleteProject(ctx, id, []folio.Event{{Type: folio.EventProjectDeleted, Data: map[string]string{"id": id}}})
}

// roundTimes makes returned times equal what a later read returns (microseconds, UTC).
func roundTimes(p *folio.Project) *folio.Project {
	p.CreatedAt = p.CreatedAt.UTC().Truncate(1000)
	p.UpdatedAt = p.UpdatedAt.UTC().Truncate(1000)
	return p
}
