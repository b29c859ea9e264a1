package sqldb_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

var author = folio.PostAuthor{ID: "u1", Name: "Ada Lovelace", Email: "ada@example.org"}

func mustCreatePost(t *testing.T, db *sqldb.DB, in folio.PostInput) *folio.Post {
	t.Helper()
	if in.Content == nil {
		in.Content = ptr("Some *content*.")
	}
	p, err := content.New(db.Content).CreatePost(context.Background(), &in, author)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPostsCRUDAndFilters(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 123456789, time.UTC))
		db.Now = clock.Now
		var changed []string
		db.Changed = func(scope string) { changed = append(changed, scope) }

		a := mustCreatePost(t, db, folio.PostInput{Title: ptr("Crème brûlée at scale"), Status: ptr("published"),
			Category: ptr("Engineering"), Tags: &[]string{"Go", "SQL"}, Content: ptr("First paragraph with a [link](https://x.org).\n\nSecond.")})
		clock.Advance(time.Minute)
		b := mustCreatePost(t, db, folio.PostInput{Title: ptr("Crème Brûlée at Scale!"), Category: ptr("engineering"), Tags: &[]string{"go"}})
		clock.Advance(time.Minute)
		c := mustCreatePost(t, db, folio.PostInput{Title: ptr("Notes"), Slug: ptr("my-notes"), Status: ptr("published"),
			SEO: &folio.PostSEO{Title: "SEO"}, Settings: &folio.PostSettings{EnableComments: true}, Series: ptr("Basics")})

		if a.Slug != "creme-brulee-at-scale" || b.Slug != "creme-brulee-at-scale-2" || c.Slug != "my-notes" {
			t.Errorf("slugs = %q %q %q", a.Slug, b.Slug, c.Slug)
		}
		if a.PublishedAt == nil || b.PublishedAt != nil {
			t.Errorf("publishedAt: published %v, draft %v", a.PublishedAt, b.PublishedAt)
		}
		if a.Excerpt != "First paragraph with a link." || a.Author != author || b.Status != "draft" {
			t.Errorf("derived fields: excerpt %q author %+v status %q", a.Excerpt, a.Author, b.Status)
		}
		got, err := db.Posts.Post(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, c)
		}
		if _, err := content.New(db.Content).CreatePost(ctx, &folio.PostInput{Title: ptr("x"), Content: ptr("y"), Slug: ptr("my-notes")}, author); folio.ErrorCode(err) != folio.ECONFLICT {
			t.Errorf("taken slug: %v", err)
		}

		for _, tc := range []struct {
			name string
			f    folio.PostFilter
			want []string
		}{
			{"all, newest first", folio.PostFilter{}, []string{c.ID, b.ID, a.ID}},
			{"published", folio.PostFilter{Statuses: []string{"published"}}, []string{c.ID, a.ID}},
			{"draft", folio.PostFilter{Statuses: []string{"draft"}}, []string{b.ID}},
			{"category case-insensitive", folio.PostFilter{Category: "ENGINEERING"}, []string{b.ID, a.ID}},
			{"tag", folio.PostFilter{Tag: "GO"}, []string{b.ID, a.ID}},
			{"tag and status", folio.PostFilter{Tag: "sql", Statuses: []string{"published"}}, []string{a.ID}},
			{"unknown tag", folio.PostFilter{Tag: "rust"}, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tc.f.Page, tc.f.Limit = 1, 10
				ps, total, err := db.Posts.Posts(ctx, tc.f)
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, p := range ps {
					ids = append(ids, p.ID)
					if p.Content != "" {
						t.Errorf("list item carries content")
					}
				}
				if !reflect.DeepEqual(ids, tc.want) || total != len(tc.want) {
					t.Errorf("got %v (total %d), want %v", ids, total, tc.want)
				}
			})
		}
		ps, total, _ := db.Posts.Posts(ctx, folio.PostFilter{Page: 2, Limit: 2})
		if len(ps) != 1 || total != 3 || ps[0].ID != a.ID {
			t.Errorf("page 2: %d items, total %d", len(ps), total)
		}

		// Update: absent fields stay, tags are replaced, publishing sets publishedAt once.
		clock.Advance(time.Minute)
		up, err := content.New(db.Content).UpdatePost(ctx, b.ID, &folio.PostInput{Status: ptr("published"), Tags: &[]string{"Rust"}})
		if err != nil {
			t.Fatal(err)
		}
		if up.Title != b.Title || up.PublishedAt == nil || !up.PublishedAt.Equal(clock.Now().Truncate(time.Microsecond)) || up.Slug != b.Slug {
			t.Errorf("after update: %+v", up.PostSummary)
		}
		first := *up.PublishedAt
		clock.Advance(time.Minute)
		if _, err := content.New(db.Content).UpdatePost(ctx, b.ID, &folio.PostInput{Status: ptr("draft")}); err != nil {
			t.Fatal(err)
		}
		up, _ = content.New(db.Content).UpdatePost(ctx, b.ID, &folio.PostInput{Status: ptr("published")})
		if !up.PublishedAt.Equal(first) {
			t.Errorf("publishedAt moved on republish: %v, first %v", up.PublishedAt, first)
		}
		if ps, _, _ := db.Posts.Posts(ctx, folio.PostFilter{Tag: "go", Page: 1, Limit: 10}); len(ps) != 1 {
			t.Errorf("old tag still matches: %d", len(ps))
		}
		if _, err := content.New(db.Content).UpdatePost(ctx, "nope", &folio.PostInput{}); !folio.IsNotFound(err) {
			t.Errorf("update unknown: %v", err)
		}

		// Renames keep old slugs answering; every old slug points at the post, not at a chain.
		if _, err := content.New(db.Content).UpdatePost(ctx, a.ID, &folio.PostInput{Slug: ptr("scale")}); err != nil {
			t.Fatal(err)
		}
		if _, err := content.New(db.Content).UpdatePost(ctx, a.ID, &folio.PostInput{Slug: ptr("scale-v2")}); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"creme-brulee-at-scale", "scale", "scale-v2"} {
			p, err := db.Posts.PostBySlug(ctx, s)
			if err != nil || p.ID != a.ID || p.Slug != "scale-v2" {
				t.Errorf("PostBySlug(%q) = %v, %v", s, p, err)
			}
		}
		// A new post with the same title avoids former slugs, so old links keep working.
		d := mustCreatePost(t, db, folio.PostInput{Title: ptr("Scale")})
		if d.Slug != "scale-2" {
			t.Errorf("new post took a former slug: %q", d.Slug)
		}
		// Asked for explicitly, a former slug is taken over by the live post.
		if _, err := content.New(db.Content).UpdatePost(ctx, d.ID, &folio.PostInput{Slug: ptr("scale")}); err != nil {
			t.Fatal(err)
		}
		if p, _ := db.Posts.PostBySlug(ctx, "scale"); p.ID != d.ID {
			t.Errorf("explicit slug did not take over the redirect")
		}
		// A slug given back to its post stops redirecting; an empty slug derives it from the title.
		if p, _ := content.New(db.Content).UpdatePost(ctx, a.ID, &folio.PostInput{Slug: ptr("creme-brulee-at-scale")}); p.Slug != "creme-brulee-at-scale" {
			t.Errorf("slug back: %q", p.Slug)
		}
		if p, _ := content.New(db.Content).UpdatePost(ctx, c.ID, &folio.PostInput{Title: ptr("Notes on Ærø"), Slug: ptr("")}); p.Slug != "notes-on-aero" {
			t.Errorf("derived again: %q", p.Slug)
		}
		if _, err := content.New(db.Content).UpdatePost(ctx, c.ID, &folio.PostInput{Slug: ptr("scale")}); folio.ErrorCode(err) != folio.ECONFLICT {
			t.Errorf("rename onto a live slug: %v", err)
		}
		if _, err := db.Posts.PostBySlug(ctx, "never-was"); !folio.IsNotFound(err) {
			t.Errorf("unknown slug: %v", err)
		}

		if err := content.New(db.Content).DeletePost(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Posts.PostBySlug(ctx, "scale-v2"); !folio.IsNotFound(err) {
			t.Errorf("redirect of a deleted post: %v", err)
		}
		if err := content.New(db.Content).DeletePost(ctx, a.ID); !folio.IsNotFound(err) {
			t.Errorf("delete twice: %v", err)
		}
		for _, s := range changed {
			if s != folio.ScopePosts {
				t.Errorf("changed scope %q", s)
			}
		}
		if len(changed) < 10 {
			t.Errorf("only %d change notifications", len(changed))
		}
	})
}

// Ensure concurrent creates of one title all succeed with distinct slugs.
func TestConcurrentSlugs(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		var wg sync.WaitGroup
		slugs := make([]string, 8)
		errs := make([]error, 8)
		for i := range slugs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := content.New(db.Content).CreatePost(context.Background(), &folio.PostInput{Title: ptr("Same title"), Content: ptr("x")}, author)
				errs[i] = err
				if err == nil {
					slugs[i] = p.Slug
				}
			}()
		}
		wg.Wait()
		seen := map[string]bool{}
		for i, s := range slugs {
			if errs[i] != nil {
				t.Fatalf("create %d: %v", i, errs[i])
			}
			if seen[s] {
				t.Errorf("slug %q given twice", s)
			}
			seen[s] = true
		}
		for i := 1; i <= 8; i++ {
			want := "same-title"
			if i > 1 {
				want = fmt.Sprintf("same-title-%d", i)
			}
			if !seen[want] {
				t.Errorf("missing %q in %v", want, slugs)
			}
		}
	})
}

func TestPublishingOptionsAndSchedule(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
		db.Now = clock.Now
		p := mustCreatePost(t, db, folio.PostInput{Title: ptr("Later")})
		at := clock.Now().Add(2 * time.Hour)
		plan := func(in folio.PublishingOptionsInput) *folio.PublishingPlan {
			t.Helper()
			in.ArticleID = p.ID
			pl, err := in.Plan(clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			return pl
		}
		got, err := content.New(db.Content).SavePublishingOptions(ctx, plan(folio.PublishingOptionsInput{Status: "published", ScheduledAt: ptr(at.Format(time.RFC3339)),
			CrossPlatformPublishing: &folio.CrossPlatformPublishing{Extblog: true}, SEO: &folio.PostSEO{Description: "d"}, Series: ptr("S")}))
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != "draft" || got.ScheduledAt == nil || !got.ScheduledAt.Equal(at) || got.SEO.Description != "d" || got.Series != "S" ||
			!got.CrossPlatformPublishing.Extblog {
			t.Fatalf("scheduled: %+v", got.PostSummary)
		}
		// Saving the same schedule again keeps one job; a new time replaces it.
		content.New(db.Content).SavePublishingOptions(ctx, plan(folio.PublishingOptionsInput{Status: "published", ScheduledAt: ptr(at.Format(time.RFC3339))}))
		jobs, _ := db.Jobs.JobsOfKind(ctx, folio.JobPublishPost)
		if len(jobs) != 1 || !jobs[0].RunAt.Equal(at) {
			t.Fatalf("jobs after resave: %+v", jobs)
		}
		later := at.Add(time.Hour)
		content.New(db.Content).SavePublishingOptions(ctx, plan(folio.PublishingOptionsInput{Status: "draft", ScheduledAt: ptr(later.Format(time.RFC3339))}))
		jobs, _ = db.Jobs.JobsOfKind(ctx, folio.JobPublishPost)
		if len(jobs) != 1 || !jobs[0].RunAt.Equal(later) {
			t.Fatalf("jobs after reschedule: %+v", jobs)
		}
		// The stale time does nothing; the current one publishes, once, with publishedAt = the schedule.
		if q, pub, err := content.New(db.Content).PublishScheduled(ctx, p.ID, at); err != nil || pub || q.Status != "draft" {
			t.Errorf("stale publish: %v %v %v", pub, err, q.Status)
		}
		q, pub, err := content.New(db.Content).PublishScheduled(ctx, p.ID, later)
		if err != nil || !pub || q.Status != "published" || !q.PublishedAt.Equal(later) {
			t.Fatalf("publish: %v %v %+v", pub, err, q.PostSummary)
		}
		if _, pub, _ := content.New(db.Content).PublishScheduled(ctx, p.ID, later); pub {
			t.Error("published twice")
		}
		// Publishing now clears the schedule and keeps the first publishedAt; draft cancels pending jobs.
		clock.Advance(3 * time.Hour)
		got, _ = content.New(db.Content).SavePublishingOptions(ctx, plan(folio.PublishingOptionsInput{Status: "published"}))
		if got.ScheduledAt != nil || !got.PublishedAt.Equal(later) || got.SEO.Description != "d" {
			t.Errorf("publish now: %+v", got.PostSummary)
		}
		content.New(db.Content).SavePublishingOptions(ctx, plan(folio.PublishingOptionsInput{Status: "draft", ScheduledAt: ptr(clock.Now().Add(time.Hour).Format(time.RFC3339))}))
		content.New(db.Content).SavePublishingOptions(ctx, plan(folio.PublishingOptionsInput{Status: "draft", SEO: &folio.PostSEO{}}))
		jobs, _ = db.Jobs.JobsOfKind(ctx, folio.JobPublishPost)
		for _, j := range jobs {
			if j.Status == folio.JobPending {
				t.Errorf("pending job left after unscheduling: %+v", j)
			}
		}
		got, _ = db.Posts.Post(ctx, p.ID)
		if got.SEO != nil || got.Status != "draft" || got.ScheduledAt != nil {
			t.Errorf("after draft: %+v", got.PostSummary)
		}
		if _, err := content.New(db.Content).SavePublishingOptions(ctx, &folio.PublishingPlan{PostID: "nope"}); !folio.IsNotFound(err) {
			t.Errorf("unknown article: %v", err)
		}
	})
}

func TestJobClaims(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		kinds := []string{"k"}
		if err := db.Jobs.EnqueueJob(ctx, "k", "k:1", `{}`, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		db.Jobs.EnqueueJob(ctx, "k", "k:1", `{}`, t0) // same key: no second job
		db.Jobs.EnqueueJob(ctx, "other", "o:1", `{}`, t0)
		if _, ok, _ := db.Jobs.ClaimJob(ctx, "w1", kinds, t0, t0.Add(time.Minute)); ok {
			t.Fatal("claimed a job before it was due")
		}
		j, ok, err := db.Jobs.ClaimJob(ctx, "w1", kinds, t0.Add(time.Minute), t0.Add(2*time.Minute))
		if err != nil || !ok || j.Key != "k:1" || j.Attempts != 1 || j.LeaseOwner != "w1" {
			t.Fatalf("claim: %+v %v %v", j, ok, err)
		}
		if _, ok, _ := db.Jobs.ClaimJob(ctx, "w2", kinds, t0.Add(90*time.Second), t0.Add(3*time.Minute)); ok {
			t.Fatal("claimed a leased job")
		}
		// The lease lapses: w2 takes over, and w1 can no longer record an outcome.
		j2, ok, _ := db.Jobs.ClaimJob(ctx, "w2", kinds, t0.Add(3*time.Minute), t0.Add(4*time.Minute))
		if !ok || j2.ID != j.ID || j2.Attempts != 2 {
			t.Fatalf("takeover: %+v %v", j2, ok)
		}
		if held, _ := db.Jobs.FinishJob(ctx, j.ID, "w1", t0, "", time.Time{}); held {
			t.Error("former owner finished the job")
		}
		if held, _ := db.Jobs.FinishJob(ctx, j.ID, "w2", t0.Add(3*time.Minute), "boom", t0.Add(10*time.Minute)); !held {
			t.Error("owner could not record a retry")
		}
		got, _ := db.Jobs.JobByKey(ctx, "k:1")
		if got.Status != folio.JobPending || got.LastError != "boom" || !got.RunAt.Equal(t0.Add(10*time.Minute)) {
			t.Errorf("after retry: %+v", got)
		}
		j3, ok, _ := db.Jobs.ClaimJob(ctx, "w3", kinds, t0.Add(10*time.Minute), t0.Add(11*time.Minute))
		if !ok {
			t.Fatal("retry not claimable")
		}
		db.Jobs.FinishJob(ctx, j3.ID, "w3", t0.Add(10*time.Minute), "", time.Time{})
		got, _ = db.Jobs.JobByKey(ctx, "k:1")
		if got.Status != folio.JobDone || got.DoneAt.IsZero() || got.Attempts != 3 {
			t.Errorf("done: %+v", got)
		}
		// A done key may be armed again.
		db.Jobs.EnqueueJob(ctx, "k", "k:1", `{"again":true}`, t0.Add(time.Hour))
		if got, _ = db.Jobs.JobByKey(ctx, "k:1"); got.Status != folio.JobPending || got.Attempts != 0 {
			t.Errorf("re-armed: %+v", got)
		}
		if _, err := db.Jobs.JobByKey(ctx, "none"); !folio.IsNotFound(err) {
			t.Errorf("unknown key: %v", err)
		}
	})
}

// TestEachPublishedPost: the sitemap's scans list published, non-archived posts (oldest
// publication first) and published projects (oldest first), with their last change, and stop at
// the callback's error.
func TestEachPublishedPost(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
		db.Now = clock.Now
		var want []string
		for i := 1; i <= 4; i++ {
			clock.Advance(time.Minute)
			p := mustCreatePost(t, db, folio.PostInput{Title: ptr(fmt.Sprintf("Post %d", i)), Status: ptr(folio.PostPublished)})
			want = append(want, p.Slug)
		}
		mustCreatePost(t, db, folio.PostInput{Title: ptr("Draft")})
		gone := mustCreatePost(t, db, folio.PostInput{Title: ptr("Gone"), Status: ptr(folio.PostPublished)})
		if _, err := db.W.ExecContext(ctx, `UPDATE posts SET archived_at = updated_at WHERE id = $1`, gone.ID); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
		if _, err := content.New(db.Content).UpdatePost(ctx, mustPostID(t, db, want[0]), &folio.PostInput{Excerpt: ptr("edited")}); err != nil {
			t.Fatal(err)
		}
		var got []string
		var first time.Time
		err := db.Posts.EachPublishedPost(ctx, func(slug string, updated time.Time) error {
			if len(got) == 0 {
				first = updated
			}
			got = append(got, slug)
			return nil
		})
		if err != nil || !reflect.DeepEqual(got, want) || !first.Equal(clock.Now()) {
			t.Fatalf("posts %v (first updated %v), err %v; want %v updated %v", got, first, err, want, clock.Now())
		}
		stop := fmt.Errorf("stop")
		n := 0
		if err := db.Posts.EachPublishedPost(ctx, func(string, time.Time) error { n++; return stop }); err != stop || n != 1 {
			t.Errorf("early stop: %v after %d", err, n)
		}

		pub := folio.ProjectPublished
		var projects []string
		for _, title := range []string{"A", "B"} {
			clock.Advance(time.Minute)
			p, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: ptr(title), Description: ptr("d"), Status: &pub})
			if err != nil {
				t.Fatal(err)
			}
			projects = append(projects, p.ID)
		}
		if _, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: ptr("C"), Description: ptr("d")}); err != nil {
			t.Fatal(err)
		}
		got = nil
		if err := db.Projects.EachPublishedProject(ctx, func(id string, _ time.Time) error { got = append(got, id); return nil }); err != nil || !reflect.DeepEqual(got, projects) {
			t.Errorf("projects %v, err %v; want %v", got, err, projects)
		}
	})
}

func mustPostID(t *testing.T, db *sqldb.DB, slug string) string {
	t.Helper()
	p, err := db.Posts.PostBySlug(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}
