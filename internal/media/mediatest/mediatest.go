// Package mediatest holds a conformance suite that every media.Store (the SQL ones on both
// engines) must pass.
package mediatest

import (
	"context"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/media"
)

// Stores are a fresh, empty media store and the content store of the same database (the posts
// and projects that use media).
type Stores struct {
	Media   media.Store
	Content content.Store
	// Changed collects the change scopes the stores announced.
	Changed *[]string
}

func ptr[T any](v T) *T { return &v }

// TestStore runs the conformance suite; open returns fresh stores for each subtest.
func TestStore(t *testing.T, open func(t *testing.T) Stores) {
	ctx := context.Background()
	const key = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0.png"
	obj := folio.MediaObject{Key: key, URL: "https://cdn.test/media/" + key, Filename: "shot.png", Size: 42,
		ContentType: "image/png", Width: 1000, Height: 500, Blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
		Variants: []folio.MediaVariant{{Width: 320, Height: 160, URL: "https://cdn.test/media/v320.jpg", Key: "v320.jpg"}}}

	t.Run("RecordAndRead", func(t *testing.T) {
		s := open(t).Media
		if err := s.RecordMedia(ctx, obj, "upload", "", "u1"); err != nil {
			t.Fatal(err)
		}
		got, err := s.MediaByKey(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if got.Key != key || got.URL != obj.URL || got.Size != 42 || got.Width != 1000 || got.Source != "upload" ||
			len(got.Variants) != 1 || got.Variants[0].Key != "v320.jpg" || got.Blurhash != obj.Blurhash || got.CreatedAt.IsZero() {
			t.Errorf("MediaByKey = %+v", got)
		}
		if _, err := s.MediaByKey(ctx, "missing.png"); folio.ErrorCode(err) != folio.ENOTFOUND {
			t.Errorf("MediaByKey(missing) = %v, want ENOTFOUND", err)
		}
		list, total, err := s.Media(ctx, folio.MediaFilter{Page: 1, Limit: 10})
		if err != nil || total != 1 || len(list) != 1 || list[0].Key != key {
			t.Errorf("Media = %v, %d, %v", list, total, err)
		}
	})

	t.Run("UsesByKeyOrURL", func(t *testing.T) {
		st := open(t)
		svc := content.New(st.Content)
		post := func(title, body string, seo *folio.PostSEO) *folio.Post {
			t.Helper()
			p, err := svc.CreatePost(ctx, &folio.PostInput{Title: ptr(title), Content: ptr(body), SEO: seo}, folio.PostAuthor{Name: "A"})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		project := func(title string, long string, images ...folio.ProjectImage) *folio.Project {
			t.Helper()
			p, err := svc.CreateProject(ctx, &folio.ProjectInput{Title: ptr(title), Description: ptr("d"), LongDescription: ptr(long), Images: &images})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		inContent := post("In the text", "Look: ![shot]("+obj.URL+")", nil)
		social := post("Social image", "No image here.", &folio.PostSEO{Image: "/media/" + key})
		post("Unrelated", "![other](https://cdn.test/media/other.png)", nil)
		viaVariant := project("Uses a variant", "", folio.ProjectImage{URL: "https://cdn.test/media/v320.jpg", Alt: "a", Type: "screenshot"})
		inLong := project("In the long description", "<img src=\"/media/"+key+"\">")
		project("Unrelated project", "", folio.ProjectImage{URL: "https://cdn.test/media/other.png", Alt: "a", Type: "logo"})

		uses, err := st.Media.MediaUses(ctx, []string{key, "v320.jpg"})
		if err != nil {
			t.Fatal(err)
		}
		want := []folio.MediaUse{
			{Type: "post", ID: inContent.ID, Title: "In the text"},
			{Type: "post", ID: social.ID, Title: "Social image"},
			{Type: "project", ID: inLong.ID, Title: "In the long description"},
			{Type: "project", ID: viaVariant.ID, Title: "Uses a variant"},
		}
		if len(uses) != len(want) {
			t.Fatalf("MediaUses = %+v, want %+v", uses, want)
		}
		for i := range want {
			if uses[i] != want[i] {
				t.Errorf("use %d = %+v, want %+v", i, uses[i], want[i])
			}
		}
		// LIKE's wildcards in a term are plain characters.
		if uses, err := st.Media.MediaUses(ctx, []string{"%", "_"}); err != nil || len(uses) != 0 {
			t.Errorf("MediaUses(wildcards) = %+v, %v; want none", uses, err)
		}
		if uses, err := st.Media.MediaUses(ctx, nil); err != nil || len(uses) != 0 {
			t.Errorf("MediaUses(nothing) = %+v, %v", uses, err)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		st := open(t)
		s := st.Media
		if err := s.RecordMedia(ctx, obj, "upload", "", "u1"); err != nil {
			t.Fatal(err)
		}
		*st.Changed = nil
		if err := s.DeleteMedia(ctx, key, []folio.MediaUse{{Type: "project", ID: "p1", Title: "P"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MediaByKey(ctx, key); folio.ErrorCode(err) != folio.ENOTFOUND {
			t.Errorf("after delete: %v, want ENOTFOUND", err)
		}
		if len(*st.Changed) != 1 || (*st.Changed)[0] != folio.ScopeProjects {
			t.Errorf("announced %v, want the projects scope (a project used it)", *st.Changed)
		}
		if err := s.DeleteMedia(ctx, key, nil); folio.ErrorCode(err) != folio.ENOTFOUND {
			t.Errorf("second delete: %v, want ENOTFOUND", err)
		}
		if _, total, _ := s.Media(ctx, folio.MediaFilter{Page: 1, Limit: 10}); total != 0 {
			t.Errorf("%d records left", total)
		}
	})

	t.Run("SearchAndByURL", func(t *testing.T) {
		s := open(t).Media
		other := obj
		other.Key, other.URL, other.Filename = "a1"+key[2:], "https://cdn.test/media/a1"+key[2:], "Harbour_50%_at dawn.jpg"
		if err := s.RecordMedia(ctx, obj, "upload", "", "u1"); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordMedia(ctx, other, "ai", "A LIGHTHOUSE in fog", "u1"); err != nil {
			t.Fatal(err)
		}
		for q, want := range map[string]string{"": "a1,0f", "SHOT": "0f", "harbour_50%": "a1", "lighthouse": "a1", "_at d": "a1",
			"50_": "", "%": "a1", "nothing": ""} {
			list, total, err := s.Media(ctx, folio.MediaFilter{Query: q, Page: 1, Limit: 10})
			var got []string
			for _, m := range list {
				got = append(got, m.Key[:2])
			}
			if err != nil || strings.Join(got, ",") != want || total != len(got) {
				t.Errorf("Media(q=%q) = %v (total %d), %v; want %q", q, got, total, err, want)
			}
		}
		if list, total, _ := s.Media(ctx, folio.MediaFilter{Page: 2, Limit: 1}); total != 2 || len(list) != 1 || list[0].Key != obj.Key {
			t.Errorf("second page = %v, %d", list, total)
		}

		byURL, err := s.MediaByURL(ctx, []string{obj.URL, "https://elsewhere.test/x.png", other.URL})
		if err != nil || len(byURL) != 2 {
			t.Fatalf("MediaByURL = %v, %v", byURL, err)
		}
		for _, m := range byURL {
			if m.URL == obj.URL && (m.Width != 1000 || len(m.Variants) != 1 || m.Variants[0].URL != obj.Variants[0].URL) {
				t.Errorf("MediaByURL record = %+v", m)
			}
		}
		if none, err := s.MediaByURL(ctx, nil); err != nil || len(none) != 0 {
			t.Errorf("MediaByURL(nil) = %v, %v", none, err)
		}
	})
}
