// Package content is the use case of posts and projects: it decides their rules (slugs and the
// redirects of former slugs, the excerpt, what the search index holds, which webhook events a
// write emits, when a post is published and which publish job it waits for) and hands each
// write, fully decided, to its Store.
package content

import (
	"context"
	"time"

	"github.com/foliohq/folio"
)

// SlugUse tells whether a slug is taken by another post, live or former (folio.SlugUse).
type SlugUse = folio.SlugUse

// Store is what content needs of storage.
type Store interface {
	// Clock is the time writes are stamped with (tests pin it).
	Clock() time.Time

	Post(ctx context.Context, id string) (*folio.Post, error)
	// PostBySlug also finds a post by a former slug; its Slug then differs from slug.
	PostBySlug(ctx context.Context, slug string) (*folio.Post, error)
	Posts(ctx context.Context, f folio.PostFilter) ([]*folio.Post, int, error)
	// CreatePost stores the write decide returns, in one transaction with the slug lookups decide
	// makes. A slug another post holds (the unique index) is ECONFLICT.
	CreatePost(ctx context.Context, decide func(slugs SlugUse) (*folio.PostWrite, error)) error
	// UpdatePost reads post id (ENOTFOUND when missing) and stores the write decide makes of it,
	// in one transaction.
	UpdatePost(ctx context.Context, id string, decide func(p *folio.Post, slugs SlugUse) (*folio.PostWrite, error)) error
	// DeletePost removes a post, its former slugs, its search entry and its pending jobs, and
	// emits events; ENOTFOUND when missing.
	DeletePost(ctx context.Context, id string, events []folio.Event) error
	// PublishScheduledPost reads post id (ENOTFOUND when missing) and stores the publication
	// decide makes of it (nil: none), in one transaction, only while the post is still a draft
	// scheduled for at: of two racing callers one publishes. It reports whether this call did.
	PublishScheduledPost(ctx context.Context, id string, at time.Time, decide func(p *folio.Post) (*folio.PostWrite, error)) (bool, error)
	// SetPostExtblogID records the post's id on the external blog platform.
	SetPostExtblogID(ctx context.Context, id, extblogID string) error

	Project(ctx context.Context, id string) (*folio.Project, error)
	Projects(ctx context.Context, f folio.ProjectFilter) ([]*folio.Project, int, error)
	CreateProject(ctx context.Context, w *folio.ProjectWrite) error
	UpdateProject(ctx context.Context, id string, decide func(p *folio.Project) (*folio.ProjectWrite, error)) error
	DeleteProject(ctx context.Context, id string, events []folio.Event) error

	Search(ctx context.Context, q folio.SearchQuery) ([]folio.SearchResult, int, error)
	Tags(ctx context.Context) ([]folio.TagCount, error)
}

// Service applies content's rules over a Store.
type Service struct {
	Store Store
}

// New returns the content use case over store.
func New(store Store) *Service { return &Service{Store: store} }

func (s *Service) now() time.Time { return s.Store.Clock() }

// Post returns the post with the given id, or ENOTFOUND.
func (s *Service) Post(ctx context.Context, id string) (*folio.Post, error) {
	return s.Store.Post(ctx, id)
}

// PostBySlug returns the post with the given slug or former slug, or ENOTFOUND.
func (s *Service) PostBySlug(ctx context.Context, slug string) (*folio.Post, error) {
	return s.Store.PostBySlug(ctx, slug)
}

// Posts returns one page of posts and the total count.
func (s *Service) Posts(ctx context.Context, f folio.PostFilter) ([]*folio.Post, int, error) {
	return s.Store.Posts(ctx, f)
}

// Project returns the project with the given id, or ENOTFOUND.
func (s *Service) Project(ctx context.Context, id string) (*folio.Project, error) {
	return s.Store.Project(ctx, id)
}

// Projects returns one page of projects and the total count.
func (s *Service) Projects(ctx context.Context, f folio.ProjectFilter) ([]*folio.Project, int, error) {
	return s.Store.Projects(ctx, f)
}

// Search runs a full-text search over posts and projects.
func (s *Service) Search(ctx context.Context, q folio.SearchQuery) ([]folio.SearchResult, int, error) {
	return s.Store.Search(ctx, q)
}

// Tags lists the tags of published posts with their counts, most used first.
func (s *Service) Tags(ctx context.Context) ([]folio.TagCount, error) { return s.Store.Tags(ctx) }

// SetPostExtblogID records the post's id on the external blog platform ("" clears it).
func (s *Service) SetPostExtblogID(ctx context.Context, id, extblogID string) error {
	return s.Store.SetPostExtblogID(ctx, id, extblogID)
}
