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
