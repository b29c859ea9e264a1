package content

import (
	"slices"
	"strings"
	"testing"

	"github.com/foliohq/folio"
)

// slugTable answers slug lookups from lists of live and former slugs.
func slugTable(live, former []string) SlugUse {
	return func(s string) (bool, bool, error) {
		return slices.Contains(live, s), slices.Contains(former, s), nil
	}
}

func newWrite(title string) *folio.PostWrite {
	p := &folio.Post{}
	p.ID, p.Title = folio.NewID(), title
	return &folio.PostWrite{Post: p}
}

func TestClaimSlug(t *testing.T) {
	t.Run("derived slugs avoid live and former slugs", func(t *testing.T) {
		w := newWrite("Hello World")
		if err := claimSlug(slugTable([]string{"hello-world"}, []string{"hello-world-2"}), w, ""); err != nil {
			t.Fatal(err)
		}
		if w.Post.Slug != "hello-world-3" || w.TakeSlug != "" {
			t.Fatalf("slug %q, take %q; want hello-world-3 and nothing taken", w.Post.Slug, w.TakeSlug)
		}
	})
	t.Run("a title without letters gives post", func(t *testing.T) {
		w := newWrite("¡¿!")
		if err := claimSlug(slugTable(nil, nil), w, ""); err != nil || w.Post.Slug != "post" {
			t.Fatalf("slug %q, %v; want post", w.Post.Slug, err)
		}
	})
	t.Run("a given former slug is taken over", func(t *testing.T) {
		w := newWrite("x")
		if err := claimSlug(slugTable(nil, []string{"old"}), w, "old"); err != nil {
			t.Fatal(err)
		}
		if w.Post.Slug != "old" || w.TakeSlug != "old" {
			t.Fatalf("slug %q, take %q; want old, old", w.Post.Slug, w.TakeSlug)
		}
	})
	t.Run("a given live slug is a conflict", func(t *testing.T) {
		err := claimSlug(slugTable([]string{"taken"}, nil), newWrite("x"), "taken")
		if folio.ErrorCode(err) != folio.ECONFLICT || !strings.Contains(err.Error(), `"taken" is already used`) {
			t.Fatalf("err = %v, want ECONFLICT naming the slug", err)
		}
	})
}

func TestPostTransition(t *testing.T) {
	p := &folio.Post{}
	p.ID, p.Status = "p1", folio.PostPublished
	if ev := PostTransition(folio.PostDraft, p); len(ev) != 1 || ev[0].Type != folio.EventPostPublished {
		t.Fatalf("draft→published = %v", ev)
	}
	if ev := PostTransition(folio.PostPublished, p); len(ev) != 0 {
		t.Fatalf("published→published = %v", ev)
	}
	p.Status = folio.PostDraft
	if ev := PostTransition(folio.PostPublished, p); len(ev) != 1 || ev[0].Type != folio.EventPostUnpublished {
		t.Fatalf("published→draft = %v", ev)
	}
	if ev := PostTransition("", p); len(ev) != 0 {
		t.Fatalf("created as draft = %v", ev)
	}
}

func TestPostSearchDoc(t *testing.T) {
	p := &folio.Post{}
	p.ID, p.Title, p.Status, p.Tags, p.Content = "p1", "Crème Brûlée", folio.PostPublished, []string{"Cooking"}, "Custard."
	d := PostSearchDoc(p)
	if !d.Visible || d.Kind != folio.SearchTypePost || d.Title != "creme brulee" || !strings.Contains(d.Body, "cooking") {
		t.Fatalf("doc = %+v", d)
	}
	p.ArchivedAt = &p.CreatedAt
	if PostSearchDoc(p).Visible {
		t.Fatal("an archived post is visible")
	}
}
