package publishing

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/extblog"
)

func TestArticle(t *testing.T) {
	s := &Service{SiteURL: "https://owner.example/"}
	pub := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sched := time.Date(2026, 7, 1, 9, 0, 0, 0, time.FixedZone("", -4*3600))
	for _, tc := range []struct {
		name string
		post folio.Post
		want folio.ExtBlogArticle
	}{
		{"defaults", folio.Post{PostSummary: folio.PostSummary{Title: "T", Slug: "t", Tags: []string{}}, Content: "C"},
			folio.ExtBlogArticle{Title: "T", Slug: "t", ContentMarkdown: "C", CanonicalURL: "https://owner.example/blog/t",
				Settings: folio.ExtBlogSettings{EnableComments: true, EnableReactions: true}}},
		{"everything", folio.Post{PostSummary: folio.PostSummary{Title: "T", Slug: "t", Tags: []string{"Go", "C++", "日本"},
			Series: "s1", SEO: &folio.PostSEO{Title: "st", Description: "sd", Image: "https://cdn.example/i.png"},
			Settings: &folio.PostSettings{Newsletter: true}, PublishedAt: &pub, ScheduledAt: &sched}, Content: "C"},
			folio.ExtBlogArticle{Title: "T", Slug: "t", ContentMarkdown: "C", CanonicalURL: "https://owner.example/blog/t",
				Tags:     []folio.ExtBlogTag{{Name: "Go", Slug: "go"}, {Name: "C++", Slug: "c-plus-plus"}},
				SeriesID: "s1", SEO: folio.ExtBlogSEO{Title: "st", Description: "sd", Image: "https://cdn.example/i.png"},
				Settings: folio.ExtBlogSettings{Newsletter: true}, PublishedAt: sched}},
		{"published time without a schedule", folio.Post{PostSummary: folio.PostSummary{Title: "T", Slug: "t", PublishedAt: &pub}, Content: "C"},
			folio.ExtBlogArticle{Title: "T", Slug: "t", ContentMarkdown: "C", CanonicalURL: "https://owner.example/blog/t",
				Settings: folio.ExtBlogSettings{EnableComments: true, EnableReactions: true}, PublishedAt: pub}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := s.Article(&tc.post)
			if got.Title != tc.want.Title || got.Slug != tc.want.Slug || got.ContentMarkdown != tc.want.ContentMarkdown ||
				got.CanonicalURL != tc.want.CanonicalURL || got.SeriesID != tc.want.SeriesID || got.SEO != tc.want.SEO ||
				got.Settings != tc.want.Settings || !got.PublishedAt.Equal(tc.want.PublishedAt) || len(got.Tags) != len(tc.want.Tags) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
			for i := range got.Tags {
				if got.Tags[i] != tc.want.Tags[i] {
					t.Errorf("tag %d = %+v, want %+v", i, got.Tags[i], tc.want.Tags[i])
				}
			}
			if _, off := got.PublishedAt.Zone(); !got.PublishedAt.IsZero() && tc.post.ScheduledAt != nil && off != -4*3600 {
				t.Errorf("scheduled time lost its offset: %s", got.PublishedAt)
			}
		})
	}
}

func TestOurSlug(t *testing.T) {
	s := &Service{SiteURL: "https://owner.example"}
	for canonical, want := range map[string]string{
		"https://owner.example/blog/tide-tables":  "tide-tables",
		"https://owner.example/blog/tide-tables/": "tide-tables",
		"https://owner.example/blog/a/b":          "",
		"https://other.example/blog/tide-tables":  "",
		"":                                        "",
	} {
		if got := s.ourSlug(canonical); got != want {
			t.Errorf("ourSlug(%q) = %q, want %q", canonical, got, want)
		}
	}
	if got := (&Service{}).ourSlug("https://owner.example/blog/x"); got != "" {
		t.Errorf("without a site URL: %q", got)
	}
}

func TestUnconfigured(t *testing.T) {
	s := &Service{Missing: []string{"EXTBLOG_PUBLICATION_ID"}}
	ctx := context.Background()
	for name, err := range map[string]error{
		"publish":   second(s.Publish(ctx, "a")),
		"unpublish": s.Unpublish(ctx, "a"),
		"delete":    s.Delete(ctx, "a"),
		"article":   second(s.PublishArticle(ctx, &folio.Post{})),
		"webhook":   second(s.ApplyWebhook(ctx, extblog.WebhookEvent{Kind: extblog.EventPostUpdated, PostID: "p"})),
	} {
		if folio.ErrorCode(err) != folio.EUNAVAILABLE {
			t.Errorf("%s: %v, want SERVICE_UNAVAILABLE", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }
