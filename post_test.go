package folio

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"Hello **world**, see [the docs](https://x.org).\n\nSecond paragraph.", 200, "Hello world, see the docs."},
		{"# Title\n\n![img](a.png)\n\nFirst `code` para\ncontinues here.\n\n## Next", 200, "First code para continues here."},
		{"```go\nfmt.Println()\n```\n\n> quoted text", 200, "quoted text"},
		{"one two three four five six", 13, "one two three…"},
		{"", 200, ""},
	} {
		if got := Excerpt(tc.in, tc.max); got != tc.want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestPublishingPlan(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		name      string
		in        PublishingOptionsInput
		publish   bool
		scheduled string
		err       string
	}{
		{"publish now", PublishingOptionsInput{ArticleID: "a", Status: "published"}, true, "", ""},
		{"empty schedule publishes now", PublishingOptionsInput{ArticleID: "a", Status: "published", ScheduledAt: s("")}, true, "", ""},
		{"past schedule publishes now", PublishingOptionsInput{ArticleID: "a", Status: "published", ScheduledAt: s("2026-05-01T11:59:59Z")}, true, "", ""},
		{"future schedule", PublishingOptionsInput{ArticleID: "a", Status: "published", ScheduledAt: s("2026-05-01T16:00:00+02:00")}, false, "2026-05-01T14:00:00Z", ""},
		{"future schedule with draft", PublishingOptionsInput{ArticleID: "a", Status: "draft", ScheduledAt: s("2026-06-01T00:00:00Z")}, false, "2026-06-01T00:00:00Z", ""},
		{"draft", PublishingOptionsInput{ArticleID: "a", Status: "draft"}, false, "", ""},
		{"missing both", PublishingOptionsInput{}, false, "", "400 articleId status"},
		{"bad status", PublishingOptionsInput{ArticleID: "a", Status: "gone"}, false, "", "422 status"},
		{"no offset", PublishingOptionsInput{ArticleID: "a", Status: "published", ScheduledAt: s("2026-06-01T00:00:00")}, false, "", "422 scheduledAt"},
		{"long series", PublishingOptionsInput{ArticleID: "a", Status: "draft", Series: s(strings.Repeat("s", 201))}, false, "", "422 series"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.in.Plan(now)
			if tc.err != "" {
				e, ok := err.(*Error)
				if !ok {
					t.Fatalf("err = %v, want %s", err, tc.err)
				}
				got := strings.TrimSpace(strings.Join(append([]string{strconv.Itoa(statusOf(e))}, fields(e)...), " "))
				if got != tc.err {
					t.Errorf("err = %q, want %q", got, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sched := ""
			if p.ScheduledAt != nil {
				sched = p.ScheduledAt.Format(time.RFC3339)
			}
			if p.Publish != tc.publish || sched != tc.scheduled {
				t.Errorf("plan: publish %v scheduled %q, want %v %q", p.Publish, sched, tc.publish, tc.scheduled)
			}
		})
	}
}

func fields(e *Error) []string {
	var out []string
	for _, d := range e.Details {
		out = append(out, d.Field)
	}
	return out
}

func TestValidSlug(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"a": true, "hello-world-2": true, "": false, "-a": false, "a-": false, "a--b": false,
		"A": false, "é": false, "a_b": false, strings.Repeat("a", 100): true, strings.Repeat("a", 101): false} {
		if ValidSlug(s) != want {
			t.Errorf("ValidSlug(%q) = %v", s, !want)
		}
	}
}

// FuzzExcerpt checks that any Markdown yields valid text within the length bound.
func FuzzExcerpt(f *testing.F) {
	f.Add("Hello **world**, see [docs](https://x.org).\n\nMore.", 20)
	f.Add("```\ncode\n", 5)
	f.Add("é é é é é é", 3)
	f.Fuzz(func(t *testing.T, md string, max int) {
		if max < 1 || max > 1000 {
			return
		}
		got := Excerpt(md, max)
		if !utf8.ValidString(got) && utf8.ValidString(md) {
			t.Fatalf("Excerpt(%q) = %q is not valid UTF-8", md, got)
		}
		if n := utf8.RuneCountInString(got); n > max+1 {
			t.Fatalf("Excerpt(%q, %d) has %d characters", md, max, n)
		}
	})
}

func TestPostTransition(t *testing.T) {
	p := &Post{}
	p.ID, p.Status = "p1", PostPublished
	if ev := p.Transition(PostDraft); len(ev) != 1 || ev[0].Type != EventPostPublished {
		t.Fatalf("draft→published = %v", ev)
	}
	if ev := p.Transition(PostPublished); len(ev) != 0 {
		t.Fatalf("published→published = %v", ev)
	}
	p.Status = PostDraft
	if ev := p.Transition(PostPublished); len(ev) != 1 || ev[0].Type != EventPostUnpublished {
		t.Fatalf("published→draft = %v", ev)
	}
	if ev := p.Transition(""); len(ev) != 0 {
		t.Fatalf("created as draft = %v", ev)
	}
}

func TestPostSearchDoc(t *testing.T) {
	p := &Post{}
	p.ID, p.Title, p.Status, p.Tags, p.Content = "p1", "Crème Brûlée", PostPublished, []string{"Cooking"}, "Custard."
	d := p.SearchDoc()
	if !d.Visible || d.Kind != SearchTypePost || d.Title != "Crème Brûlée" || !strings.Contains(d.Body, "Cooking") || !strings.Contains(d.Body, "Custard.") {
		t.Fatalf("doc = %+v", d)
	}
	p.ArchivedAt = &p.CreatedAt
	if p.SearchDoc().Visible {
		t.Fatal("an archived post is visible")
	}
}
