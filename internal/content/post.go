package content

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/slug"
)

// slugInUse is the message of a slug another post holds.
func slugInUse(s string) error {
	return folio.Errorf(folio.ECONFLICT, "The slug %q is already used by another post.", s)
}

// CreatePost stores a new post built from in (already validated) by author. Without a given slug
// one is made from the title and made unique with -2, -3…; a given slug that another post uses
// is ECONFLICT. A post created as published gets publishedAt now.
func (s *Service) CreatePost(ctx context.Context, in *folio.PostInput, author folio.PostAuthor) (*folio.Post, error) {
	p := &folio.Post{}
	p.ID = folio.NewID()
	in.Apply(p)
	p.Author = author
	if p.Excerpt == "" {
		p.Excerpt = folio.Excerpt(p.Content, folio.AutoExcerptLen)
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	p.CreatedAt, p.UpdatedAt = now, now
	if p.Status == folio.PostPublished {
		p.PublishedAt = &now
	}
	given := ""
	if in.Slug != nil {
		given = *in.Slug
	}
	var err error
	// A concurrent create may take the slug chosen here between the check and the insert; the
	// store reports that as ECONFLICT and a fresh attempt picks the next free suffix.
	for attempt := 0; attempt < 20; attempt++ {
		err = s.Store.CreatePost(ctx, func(slugs SlugUse) (*folio.PostWrite, error) {
			w := &folio.PostWrite{Post: p}
			if err := claimSlug(slugs, w, given); err != nil {
				return nil, err
			}
			w.Search = p.SearchDoc()
			w.Events = p.Transition("")
			return w, nil
		})
		if folio.ErrorCode(err) != folio.ECONFLICT || given != "" {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// UpdatePost applies in to the post with the given id, or returns ENOTFOUND. A present slug
// renames the post (the old slug keeps answering with a redirect); an empty one derives it again
// from the title; an absent one keeps it, also when the title changes, so links stay stable.
func (s *Service) UpdatePost(ctx context.Context, id string, in *folio.PostInput) (*folio.Post, error) {
	var out *folio.Post
	err := s.Store.UpdatePost(ctx, id, func(p *folio.Post, slugs SlugUse) (*folio.PostWrite, error) {
		out = p
		before := p.Status
		in.Apply(p)
		if p.Excerpt == "" {
			p.Excerpt = folio.Excerpt(p.Content, folio.AutoExcerptLen)
		}
		now := s.now().UTC().Truncate(time.Microsecond)
		p.UpdatedAt = now
		if p.Status == folio.PostPublished && p.PublishedAt == nil {
			p.PublishedAt = &now
		}
		w := &folio.PostWrite{Post: p}
		if in.Slug != nil && *in.Slug != p.Slug {
			old := p.Slug
			if err := claimSlug(slugs, w, *in.Slug); err != nil {
				return nil, err
			}
			if p.Slug != old {
				w.Redirect = old
			}
		}
		w.Search = p.SearchDoc()
		// An edit of a published post reaches the fediverse as an Update (no webhook event).
		w.Events = append(p.Transition(before), p.Revision(before)...)
		return w, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeletePost removes a post, its former slugs and its pending jobs, or returns ENOTFOUND. It emits
// no webhook event; a published post's deletion reaches the fediverse as a Delete (post.deleted).
func (s *Service) DeletePost(ctx context.Context, id string) error {
	p, err := s.Store.Post(ctx, id)
	if err != nil {
		return err
	}
	return s.Store.DeletePost(ctx, id, p.Deletion())
}

// claimSlug sets w.Post.Slug: the given slug when no other post uses it (it may be a former slug
// of any post: the live post takes it over), else ECONFLICT; without one, a free slug made from
// the title (which also avoids former slugs, so old links keep working).
func claimSlug(slugs SlugUse, w *folio.PostWrite, given string) error {
	p := w.Post
	if given != "" {
		live, _, err := slugs(given)
		if err != nil {
			return err
		}
		if live {
			return slugInUse(given)
		}
		p.Slug, w.TakeSlug = given, given
		return nil
	}
	base := slug.Make(p.Title, folio.MaxSlugLen)
	if base == "" {
		base = "post"
	}
	for n := 1; n <= 1000; n++ {
		cand := base
		if n > 1 {
			suffix := "-" + strconv.Itoa(n)
			cand = slug.Cut(base, folio.MaxSlugLen-len(suffix)) + suffix
		}
		live, former, err := slugs(cand)
		if err != nil {
			return err
		}
		if !live && !former {
			p.Slug = cand
			return nil
		}
	}
	// A thousand posts with one title: fall back to a suffix that cannot collide.
	p.Slug = slug.Cut(base, folio.MaxSlugLen-13) + "-" + strings.ReplaceAll(p.ID, "-", "")[20:32]
	return nil
}
