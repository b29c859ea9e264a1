// Package contenttest holds a conformance suite that every content.Store (the SQL ones on both
// engines) must pass.
package contenttest

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
)

func ptr[T any](v T) *T { return &v }

// TestStore runs the conformance suite; open returns a fresh, empty store for each subtest.
func TestStore(t *testing.T, open func(t *testing.T) content.Store) {
	ctx := context.Background()
	newPost := func(t *testing.T, svc *content.Service, title, status string, slug *string, tags ...string) *folio.Post {
		t.Helper()
		p, err := svc.CreatePost(ctx, &folio.PostInput{Title: ptr(title), Content: ptr("Body of " + title + "."),
			Status: ptr(status), Slug: slug, Tags: &tags}, folio.PostAuthor{Name: "A"})
		if err != nil {
			t.Fatalf("CreatePost(%q): %v", title, err)
		}
		return p
	}
	code := func(err error) string {
		if err == nil {
			return ""
		}
		return folio.ErrorCode(err)
	}

	t.Run("PostRoundTrip", func(t *testing.T) {
		s := open(t)
		if s.Clock().IsZero() {
			t.Fatal("Clock is zero")
		}
		svc := content.New(s)
		p := newPost(t, svc, "Hello World", folio.PostPublished, nil, "Go", "SQL")
		got, err := s.Post(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Slug != "hello-world" || got.Title != p.Title || got.Content != p.Content || got.Excerpt != p.Excerpt ||
			got.Status != folio.PostPublished || got.PublishedAt == nil || !got.CreatedAt.Equal(p.CreatedAt) || len(got.Tags) != 2 {
			t.Fatalf("Post = %+v, want %+v", got, p)
		}
		if bs, err := s.PostBySlug(ctx, "hello-world"); err != nil || bs.ID != p.ID {
			t.Fatalf("PostBySlug = %v, %v", bs, err)
		}
		ps, total, err := s.Posts(ctx, folio.PostFilter{Statuses: []string{folio.PostPublished}, Page: 1, Limit: 10})
		if err != nil || total != 1 || len(ps) != 1 || ps[0].ID != p.ID {
			t.Fatalf("Posts = %v, %d, %v", ps, total, err)
		}
		tags, err := s.Tags(ctx)
		if err != nil || len(tags) != 2 || tags[0].Count != 1 {
			t.Fatalf("Tags = %v, %v", tags, err)
		}
		if _, err := s.Post(ctx, "missing"); code(err) != folio.ENOTFOUND {
			t.Fatalf("Post(missing) = %v, want ENOTFOUND", err)
		}
		if _, err := s.PostBySlug(ctx, "missing"); code(err) != folio.ENOTFOUND {
			t.Fatalf("PostBySlug(missing) = %v, want ENOTFOUND", err)
		}
	})

	t.Run("SlugLookups", func(t *testing.T) {
		s := open(t)
		svc := content.New(s)
		a := newPost(t, svc, "A", folio.PostDraft, ptr("alpha"))
		// Renamed: the old slug redirects.
		if _, err := svc.UpdatePost(ctx, a.ID, &folio.PostInput{Slug: ptr("alpha-2")}); err != nil {
			t.Fatal(err)
		}
		if p, err := s.PostBySlug(ctx, "alpha"); err != nil || p.ID != a.ID || p.Slug != "alpha-2" {
			t.Fatalf("PostBySlug(former) = %v, %v", p, err)
		}
		err := s.CreatePost(ctx, func(slugs content.SlugUse) (*folio.PostWrite, error) {
			for _, c := range []struct {
				slug         string
				live, former bool
			}{{"alpha-2", true, false}, {"alpha", false, true}, {"free", false, false}} {
				live, former, err := slugs(c.slug)
				if err != nil || live != c.live || former != c.former {
					t.Errorf("slugs(%q) = %v, %v, %v; want %v, %v", c.slug, live, former, err, c.live, c.former)
				}
			}
			return nil, folio.Errorf(folio.EINVALID, "stop")
		})
		if code(err) != folio.EINVALID {
			t.Fatalf("CreatePost with a refusing decide = %v, want its EINVALID", err)
		}
		// The post itself does not count as using its slugs.
		err = s.UpdatePost(ctx, a.ID, func(p *folio.Post, slugs content.SlugUse) (*folio.PostWrite, error) {
			for _, sl := range []string{"alpha", "alpha-2"} {
				if live, former, err := slugs(sl); err != nil || live || former {
					t.Errorf("own slugs(%q) = %v, %v, %v", sl, live, former, err)
				}
			}
			return nil, folio.Errorf(folio.ECONFLICT, "stop")
		})
		if code(err) != folio.ECONFLICT {
			t.Fatalf("UpdatePost with a refusing decide = %v, want its ECONFLICT", err)
		}
		// A new post takes the former slug over.
		b := newPost(t, svc, "B", folio.PostDraft, ptr("alpha"))
		if p, err := s.PostBySlug(ctx, "alpha"); err != nil || p.ID != b.ID || p.Slug != "alpha" {
			t.Fatalf("PostBySlug(taken over) = %v, %v", p, err)
		}
		// A slug another post holds is ECONFLICT, also when decide did not look.
		err = s.CreatePost(ctx, func(content.SlugUse) (*folio.PostWrite, error) {
			p := &folio.Post{}
			p.ID, p.Slug, p.Title, p.Status, p.Tags = folio.NewID(), "alpha", "C", folio.PostDraft, []string{}
			p.CreatedAt, p.UpdatedAt = s.Clock(), s.Clock()
			return &folio.PostWrite{Post: p, Search: p.SearchDoc()}, nil
		})
		if code(err) != folio.ECONFLICT {
			t.Fatalf("CreatePost(held slug) = %v, want ECONFLICT", err)
		}
		if err := s.UpdatePost(ctx, "missing", func(p *folio.Post, _ content.SlugUse) (*folio.PostWrite, error) {
			return &folio.PostWrite{Post: p}, nil
		}); code(err) != folio.ENOTFOUND {
			t.Fatalf("UpdatePost(missing) = %v, want ENOTFOUND", err)
		}
	})

	t.Run("PostSearchAndDelete", func(t *testing.T) {
		s := open(t)
		svc := content.New(s)
		pub := newPost(t, svc, "Quokka habits", folio.PostPublished, nil)
		draft := newPost(t, svc, "Quokka drafts", folio.PostDraft, nil)
		find := func(all bool) []string {
			t.Helper()
			res, _, err := s.Search(ctx, folio.SearchQuery{Q: "quokka", All: all, Page: 1, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range res {
				ids = append(ids, r.ID)
			}
			return ids
		}
		if ids := find(false); len(ids) != 1 || ids[0] != pub.ID {
			t.Fatalf("public search = %v, want [%s]", ids, pub.ID)
		}
		if ids := find(true); len(ids) != 2 {
			t.Fatalf("search with drafts = %v, want both", ids)
		}
		// The search entry follows the write: unpublished, the post is no longer found publicly.
		if _, err := svc.UpdatePost(ctx, pub.ID, &folio.PostInput{Status: ptr(folio.PostDraft)}); err != nil {
			t.Fatal(err)
		}
		if ids := find(false); len(ids) != 0 {
			t.Fatalf("public search after unpublishing = %v", ids)
		}
		if err := s.DeletePost(ctx, draft.ID, nil); err != nil {
			t.Fatal(err)
		}
		if ids := find(true); len(ids) != 1 || ids[0] != pub.ID {
			t.Fatalf("search after delete = %v", ids)
		}
		if _, err := s.Post(ctx, draft.ID); code(err) != folio.ENOTFOUND {
			t.Fatalf("Post(deleted) = %v", err)
		}
		if err := s.DeletePost(ctx, draft.ID, nil); code(err) != folio.ENOTFOUND {
			t.Fatalf("DeletePost(deleted) = %v, want ENOTFOUND", err)
		}
	})

	t.Run("Projects", func(t *testing.T) {
		s := open(t)
		svc := content.New(s)
		p, err := svc.CreateProject(ctx, &folio.ProjectInput{Title: ptr("Wombat tracker"), Description: ptr("Finds wombats"),
			Technologies: &[]string{"Go"}, Status: ptr(folio.ProjectPublished)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Project(ctx, p.ID)
		if err != nil || got.Title != p.Title || !got.CreatedAt.Equal(p.CreatedAt) || len(got.Technologies) != 1 {
			t.Fatalf("Project = %+v, %v; want %+v", got, err, p)
		}
		ps, total, err := s.Projects(ctx, folio.ProjectFilter{Technology: "go", Page: 1, Limit: 10})
		if err != nil || total != 1 || len(ps) != 1 {
			t.Fatalf("Projects(go) = %v, %d, %v", ps, total, err)
		}
		res, _, err := s.Search(ctx, folio.SearchQuery{Q: "wombat", Type: folio.SearchTypeProject, Page: 1, Limit: 10})
		if err != nil || len(res) != 1 || res[0].ID != p.ID {
			t.Fatalf("Search(wombat) = %v, %v", res, err)
		}
		if _, err := svc.UpdateProject(ctx, p.ID, &folio.ProjectInput{Title: ptr("Numbat tracker"), Description: ptr("Finds numbats")}); err != nil {
			t.Fatal(err)
		}
		if res, _, _ := s.Search(ctx, folio.SearchQuery{Q: "wombat", Page: 1, Limit: 10}); len(res) != 0 {
			t.Fatalf("Search(old title) = %v", res)
		}
		if _, err := svc.UpdateProject(ctx, "missing", &folio.ProjectInput{Title: ptr("x"), Description: ptr("y")}); code(err) != folio.ENOTFOUND {
			t.Fatalf("UpdateProject(missing) = %v", err)
		}
		if err := svc.DeleteProject(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Project(ctx, p.ID); code(err) != folio.ENOTFOUND {
			t.Fatalf("Project(deleted) = %v", err)
		}
		if res, _, _ := s.Search(ctx, folio.SearchQuery{Q: "numbat", All: true, Page: 1, Limit: 10}); len(res) != 0 {
			t.Fatalf("Search after delete = %v", res)
		}
		if err := svc.DeleteProject(ctx, p.ID); code(err) != folio.ENOTFOUND {
			t.Fatalf("DeleteProject(deleted) = %v", err)
		}
	})

	t.Run("PublishScheduledPost", func(t *testing.T) {
		s := open(t)
		svc := content.New(s)
		p := newPost(t, svc, "Later", folio.PostDraft, nil)
		at := s.Clock().Add(time.Hour).UTC().Truncate(time.Second)
		if _, err := svc.SavePublishingOptions(ctx, &folio.PublishingPlan{PostID: p.ID, ScheduledAt: &at}); err != nil {
			t.Fatal(err)
		}
		// The store publishes only while the post is a draft scheduled for at, whatever decide says.
		force := func(q *folio.Post) (*folio.PostWrite, error) {
			q.Status, q.PublishedAt = folio.PostPublished, &at
			return &folio.PostWrite{Post: q, Search: q.SearchDoc()}, nil
		}
		if ok, err := s.PublishScheduledPost(ctx, p.ID, at.Add(time.Minute), force); err != nil || ok {
			t.Fatalf("PublishScheduledPost(other time) = %v, %v; want not published", ok, err)
		}
		if q, _ := s.Post(ctx, p.ID); q.Status != folio.PostDraft {
			t.Fatalf("status after a stale publication = %q, want draft", q.Status)
		}
		if ok, err := s.PublishScheduledPost(ctx, p.ID, at, func(*folio.Post) (*folio.PostWrite, error) { return nil, nil }); err != nil || ok {
			t.Fatalf("PublishScheduledPost(nothing decided) = %v, %v", ok, err)
		}
		if ok, err := s.PublishScheduledPost(ctx, p.ID, at, force); err != nil || !ok {
			t.Fatalf("PublishScheduledPost = %v, %v; want published", ok, err)
		}
		if q, _ := s.Post(ctx, p.ID); q.Status != folio.PostPublished || q.PublishedAt == nil || !q.PublishedAt.Equal(at) {
			t.Fatalf("published post = %+v", q)
		}
		if ok, err := s.PublishScheduledPost(ctx, p.ID, at, force); err != nil || ok {
			t.Fatalf("second PublishScheduledPost = %v, %v; want not published", ok, err)
		}
		if _, err := s.PublishScheduledPost(ctx, "missing", at, force); code(err) != folio.ENOTFOUND {
			t.Fatalf("PublishScheduledPost(missing) = %v, want ENOTFOUND", err)
		}
	})
}
