package httpapi

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/extblog"
	"github.com/foliohq/folio/internal/extblog/extblogfake"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// createArticle stores a dashboard article with every synchronised piece set.
func createArticle(t *testing.T, db *sqldb.DB, title string) *folio.Post {
	t.Helper()
	body := "# " + title + "\n\nThe body of " + title + "."
	tags := []string{"Go", "Web Development", "Ünïcode"}
	status := folio.PostPublished
	series := "64f0c0ffee0000000000a001"
	in := &folio.PostInput{Title: &title, Content: &body, Tags: &tags, Status: &status, Series: &series,
		SEO:      &folio.PostSEO{Title: "SEO " + title, Description: "About " + title, Image: "/media/cover.png"},
		Settings: &folio.PostSettings{EnableComments: false, EnableReactions: true, Newsletter: true}}
	p, err := content.New(db.Content).CreatePost(context.Background(), in, folio.PostAuthor{ID: "u1", Name: "Owner", Email: "owner@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustPost(t *testing.T, db *sqldb.DB, id string) *folio.Post {
	t.Helper()
	p, err := db.Content.Post(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustState(t *testing.T, db *sqldb.DB, id string) folio.ExtblogState {
	t.Helper()
	st, err := db.Extblog.ExtblogState(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestExtblogSyncTable walks the spec's synchronisation table (publish, publish again,
// unpublish, publish again, delete) against the fake platform.
func TestExtblogSyncTable(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		e := newExtblogEnv(t, db)
		v := newOpenAPIValidator(t, e.testServer)
		a := createArticle(t, db, "Tide Tables")
		body := map[string]any{"articleId": a.ID}

		// article without extblogId --publish--> post on the platform, id stored.
		res := e.call("POST", "/api/extblog/publish", "editor", body)
		v.check("POST", "/api/extblog/publish", res)
		if res.Status != 200 {
			t.Fatalf("publish: %d %s", res.Status, res.Body)
		}
		out := res.json(t)
		if len(out) != 3 || out["success"] != true || out["message"] == "" {
			t.Errorf("publish body = %s, want exactly success, extblogId, message", res.Body)
		}
		id, _ := out["extblogId"].(string)
		if id == "" || mustPost(t, db, a.ID).ExtblogID != id {
			t.Fatalf("extblogId %q not stored on the article (%q)", id, mustPost(t, db, a.ID).ExtblogID)
		}
		fp, ok := e.fake.Post(id)
		if !ok {
			t.Fatalf("no platform post %s", id)
		}
		wantTags := []extblogfake.Tag{{Name: "Go", Slug: "go"}, {Name: "Web Development", Slug: "web-development"}, {Name: "Ünïcode", Slug: "unicode"}}
		for _, c := range []struct {
			field     string
			got, want any
		}{
			{"title", fp.Title, a.Title},
			{"slug", fp.Slug, a.Slug},
			{"content", fp.ContentMarkdown, a.Content},
			{"tags", fmt.Sprint(fp.Tags), fmt.Sprint(wantTags)},
			{"series", fp.SeriesID, "64f0c0ffee0000000000a001"},
			{"seo title", fp.MetaTitle, "SEO Tide Tables"},
			{"seo description", fp.MetaDescription, "About Tide Tables"},
			{"seo image", fp.MetaImage, "https://owner.example/media/cover.png"},
			{"comments", fp.DisableComments, true},
			{"newsletter", fp.NewsletterActivated, true},
			{"canonical URL", fp.OriginalArticleURL, "https://owner.example/blog/" + a.Slug},
			{"publishedAt", fp.PublishedAt.UTC(), a.PublishedAt.UTC().Truncate(time.Second)},
			{"removed", fp.Removed, false},
		} {
			if c.got != c.want {
				t.Errorf("platform %s = %v, want %v", c.field, c.got, c.want)
			}
		}

		// Publishing again updates the same post: never a duplicate.
		newTitle := "Tide Tables, revised"
		if _, err := content.New(db.Content).UpdatePost(context.Background(), a.ID, &folio.PostInput{Title: &newTitle}); err != nil {
			t.Fatal(err)
		}
		res = e.call("POST", "/api/extblog/publish", "admin", body)
		if res.Status != 200 || res.json(t)["extblogId"] != id {
			t.Fatalf("publish again: %d %s", res.Status, res.Body)
		}
		if n := len(e.fake.Posts()); n != 1 {
			t.Errorf("platform has %d posts after two publications, want 1", n)
		}
		if fp, _ := e.fake.Post(id); fp.Title != newTitle {
			t.Errorf("platform title = %q after the update", fp.Title)
		}

		// article with extblogId, published --unpublish--> removed on the platform, id kept.
		res = e.call("POST", "/api/extblog/unpublish", "editor", body)
		v.check("POST", "/api/extblog/unpublish", res)
		if res.Status != 200 || len(res.json(t)) != 2 || res.json(t)["success"] != true {
			t.Fatalf("unpublish: %d %s", res.Status, res.Body)
		}
		if fp, _ := e.fake.Post(id); !fp.Removed {
			t.Error("platform post not removed by unpublish")
		}
		if st := mustState(t, db, a.ID); st.ExtblogID != id || !st.Unpublished() {
			t.Errorf("after unpublish: %+v, want the id kept and marked unpublished", st)
		}
		// The platform's echo of the removal leaves the article alone.
		e.webhook(t, nativeEvent("echo-1", extblogfake.DefaultPublicationID, id, "post_deleted"), "")
		if p := mustPost(t, db, a.ID); p.ExtblogID != id || p.ArchivedAt != nil {
			t.Errorf("echo of our unpublish changed the article: extblogId %q archivedAt %v", p.ExtblogID, p.ArchivedAt)
		}
		// Unpublishing again is a no-op success.
		if res := e.call("POST", "/api/extblog/unpublish", "editor", body); res.Status != 200 {
			t.Errorf("second unpublish: %d %s", res.Status, res.Body)
		}

		// Publishing an unpublished article restores and updates the same post.
		res = e.call("POST", "/api/extblog/publish", "editor", body)
		if res.Status != 200 || res.json(t)["extblogId"] != id {
			t.Fatalf("republish: %d %s", res.Status, res.Body)
		}
		if fp, _ := e.fake.Post(id); fp.Removed || len(e.fake.Posts()) != 1 {
			t.Errorf("republish: removed=%t, %d platform posts", fp.Removed, len(e.fake.Posts()))
		}
		if e.fake.CallCount(extblog.OpRestorePost) != 1 {
			t.Errorf("restorePost calls = %d, want 1", e.fake.CallCount(extblog.OpRestorePost))
		}
		if mustState(t, db, a.ID).Unpublished() {
			t.Error("still marked unpublished after republishing")
		}

		// article with extblogId --delete--> removed on the platform, id cleared.
		res = e.call("DELETE", "/api/extblog/delete", "editor", body)
		v.check("DELETE", "/api/extblog/delete", res)
		if res.Status != 200 || len(res.json(t)) != 2 {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		if fp, _ := e.fake.Post(id); !fp.Removed {
			t.Error("platform post not removed by delete")
		}
		if p := mustPost(t, db, a.ID); p.ExtblogID != "" || p.ArchivedAt != nil {
			t.Errorf("after delete: extblogId %q archivedAt %v, want cleared and not archived", p.ExtblogID, p.ArchivedAt)
		}
		e.webhook(t, nativeEvent("echo-2", extblogfake.DefaultPublicationID, id, "post_deleted"), "")
		if p := mustPost(t, db, a.ID); p.ArchivedAt != nil {
			t.Error("echo of our delete archived the article")
		}
		// Publishing after a delete makes a new post.
		res = e.call("POST", "/api/extblog/publish", "editor", body)
		if res.Status != 200 || res.json(t)["extblogId"] == id {
			t.Errorf("publish after delete: %d %s, want a new post id", res.Status, res.Body)
		}
	})
}

// TestExtblogErrorStatuses covers every error status of the three dashboard routes.
func TestExtblogErrorStatuses(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		e := newExtblogEnv(t, db)
		v := newOpenAPIValidator(t, e.testServer)
		published := createArticle(t, db, "Published one")
		if res := e.call("POST", "/api/extblog/publish", "admin", map[string]any{"articleId": published.ID}); res.Status != 200 {
			t.Fatalf("setup publish: %d %s", res.Status, res.Body)
		}
		plain := createArticle(t, db, "Never published")
		pub := func(id string) map[string]any { return map[string]any{"articleId": id} }

		for _, tc := range []struct {
			name, method, path, token string
			body                      any
			fault                     func()
			status                    int
			code                      string
		}{
			{"publish without credentials", "POST", "/api/extblog/publish", "", pub(plain.ID), nil, 401, "AUTHENTICATION_REQUIRED"},
			{"publish with a read key", "POST", "/api/extblog/publish", "read", pub(plain.ID), nil, 403, "PERMISSION_DENIED"},
			{"publish with a write key", "POST", "/api/extblog/publish", "write", pub(plain.ID), nil, 403, "PERMISSION_DENIED"},
			{"unpublish with a write key", "POST", "/api/extblog/unpublish", "write", pub(published.ID), nil, 403, "PERMISSION_DENIED"},
			{"delete with a write key", "DELETE", "/api/extblog/delete", "write", pub(published.ID), nil, 403, "PERMISSION_DENIED"},
			{"publish without articleId", "POST", "/api/extblog/publish", "editor", map[string]any{}, nil, 400, "VALIDATION_ERROR"},
			{"publish with a blank articleId", "POST", "/api/extblog/publish", "editor", pub("  "), nil, 400, "VALIDATION_ERROR"},
			{"publish with a number articleId", "POST", "/api/extblog/publish", "editor", `{"articleId": 7}`, nil, 400, "VALIDATION_ERROR"},
			{"publish an unknown article", "POST", "/api/extblog/publish", "editor", pub("nope"), nil, 400, "VALIDATION_ERROR"},
			{"publish malformed JSON", "POST", "/api/extblog/publish", "editor", `{"articleId":`, nil, 400, "VALIDATION_ERROR"},
			{"platform rejects the article", "POST", "/api/extblog/publish", "editor", pub(plain.ID),
				func() { e.fake.FailNext(1, extblogfake.GraphQLError("BAD_USER_INPUT", "Title is too long.")) }, 400, "VALIDATION_ERROR"},
			{"platform fails on publish", "POST", "/api/extblog/publish", "editor", pub(plain.ID),
				func() { e.fake.FailNext(3, extblogfake.ServerError()) }, 502, "UPSTREAM_ERROR"},
			{"platform refuses the token on publish", "POST", "/api/extblog/publish", "editor", pub(plain.ID),
				func() { e.fake.FailNext(1, extblogfake.Unauthorized()) }, 502, "UPSTREAM_ERROR"},
			{"unpublish an article without extblogId", "POST", "/api/extblog/unpublish", "editor", pub(plain.ID), nil, 400, "VALIDATION_ERROR"},
			{"unpublish an unknown article", "POST", "/api/extblog/unpublish", "editor", pub("nope"), nil, 400, "VALIDATION_ERROR"},
			{"unpublish while the platform rate-limits", "POST", "/api/extblog/unpublish", "editor", pub(published.ID),
				func() { e.fake.FailNext(3, extblogfake.RateLimited("1")) }, 503, "SERVICE_UNAVAILABLE"},
			{"unpublish while the platform is down", "POST", "/api/extblog/unpublish", "editor", pub(published.ID),
				func() { e.fake.FailNext(3, extblogfake.ServerError()) }, 503, "SERVICE_UNAVAILABLE"},
			{"unpublish with the token refused", "POST", "/api/extblog/unpublish", "editor", pub(published.ID),
				func() { e.fake.FailNext(1, extblogfake.Unauthorized()) }, 502, "UPSTREAM_ERROR"},
			{"delete an article without extblogId", "DELETE", "/api/extblog/delete", "editor", pub(plain.ID), nil, 400, "VALIDATION_ERROR"},
			{"delete without articleId", "DELETE", "/api/extblog/delete", "editor", map[string]any{}, nil, 400, "VALIDATION_ERROR"},
			{"delete refused as a conflict", "DELETE", "/api/extblog/delete", "editor", pub(published.ID),
				func() { e.fake.FailNext(1, extblogfake.GraphQLError("CONFLICT", "The post is pinned.")) }, 409, "CONFLICT"},
			{"delete fails unexpectedly", "DELETE", "/api/extblog/delete", "editor", pub(published.ID),
				func() { e.fake.FailNext(1, extblogfake.Unauthorized()) }, 500, "SERVER_ERROR"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.fault != nil {
					tc.fault()
				}
				res := e.call(tc.method, tc.path, tc.token, tc.body)
				v.check(tc.method, tc.path, res)
				if res.Status != tc.status || res.errorCode(t) != tc.code {
					t.Errorf("got %d %s, want %d %s", res.Status, res.Body, tc.status, tc.code)
				}
			})
		}
		// Failed calls changed nothing locally.
		if st := mustState(t, db, published.ID); st.ExtblogID == "" || st.Unpublished() {
			t.Errorf("failed unpublish/delete left %+v", st)
		}
		if p := mustPost(t, db, plain.ID); p.ExtblogID != "" {
			t.Errorf("failed publishes stored extblogId %q", p.ExtblogID)
		}

		// unpublish: the post is gone on the platform → 404.
		st := mustState(t, db, published.ID)
		if err := e.svc.Blog.Remove(context.Background(), st.ExtblogID); err != nil {
			t.Fatal(err)
		}
		res := e.call("POST", "/api/extblog/unpublish", "editor", pub(published.ID))
		v.check("POST", "/api/extblog/unpublish", res)
		if res.Status != 404 || res.errorCode(t) != "RESOURCE_NOT_FOUND" {
			t.Errorf("unpublish of a post gone on the platform: %d %s", res.Status, res.Body)
		}
		// delete: a post already gone on the platform is deleted all the same.
		if res := e.call("DELETE", "/api/extblog/delete", "editor", pub(published.ID)); res.Status != 200 {
			t.Errorf("delete of a post gone on the platform: %d %s", res.Status, res.Body)
		}
	})
}

// TestExtblogPublishConcurrent: concurrent publications of one article create one platform post.
func TestExtblogPublishConcurrent(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		e := newExtblogEnv(t, db)
		a := createArticle(t, db, "Raced")
		var wg sync.WaitGroup
		ids := make([]string, 8)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ids[i], _ = e.svc.Publish(context.Background(), a.ID)
			}()
		}
		wg.Wait()
		if n := len(e.fake.Posts()); n != 1 {
			t.Errorf("%d concurrent publications made %d platform posts, want 1", len(ids), n)
		}
		for _, id := range ids {
			if id == "" || id != ids[0] {
				t.Fatalf("ids = %v", ids)
			}
		}
	})
}

// TestExtblogArticlePublisher: the content routes' ArticlePublisher stores the id and never
// duplicates either.
func TestExtblogArticlePublisher(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	e := newExtblogEnv(t, db)
	a := createArticle(t, db, "Scheduled one")
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	a.ScheduledAt = &at
	e.svc.Published = func(ctx context.Context) { e.ExtBlog.Cache.Bump(ctx, ScopeExtblogPosts) }
	if res := e.call("GET", "/api/posts", "", nil); res.Header.Get("X-Cache") != "MISS" {
		t.Fatalf("listing: %s", res.Header.Get("X-Cache"))
	}
	var pub folio.ArticlePublisher = e.svc
	id, err := pub.PublishArticle(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if mustPost(t, db, a.ID).ExtblogID != id {
		t.Error("PublishArticle did not store the id")
	}
	if res := e.call("GET", "/api/posts", "", nil); res.Header.Get("X-Cache") != "MISS" || !strings.Contains(string(res.Body), "Scheduled one") {
		t.Errorf("listing after a publication outside the extblog routes: %s %s", res.Header.Get("X-Cache"), res.Body)
	}
	fp, _ := e.fake.Post(id)
	if !fp.PublishedAt.Equal(at) {
		t.Errorf("platform publishedAt = %s, want the scheduled time %s", fp.PublishedAt, at)
	}
	a.ExtblogID = "" // a stale copy of the article must not cause a second post
	if id2, err := pub.PublishArticle(context.Background(), a); err != nil || id2 != id || len(e.fake.Posts()) != 1 {
		t.Errorf("second PublishArticle: %q %v, %d posts", id2, err, len(e.fake.Posts()))
	}
}
