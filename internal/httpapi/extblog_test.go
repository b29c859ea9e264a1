package httpapi

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/cache"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/extblog"
	"github.com/foliohq/folio/internal/extblog/extblogfake"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/publishing"
	"github.com/foliohq/folio/internal/sqldb"
)

const (
	testWebhookSecret = "whsec-test-secret"
	// testPlatformToken is what the fake accepts; it must never show up in a response or a log.
	testPlatformToken = "tok-SECRET-0f9e8d7c6b5a"
)

// syncBuffer collects log output from concurrent requests.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// extblogEnv is a folio test server wired to a fake platform served over HTTP.
type extblogEnv struct {
	*testServer
	db    *sqldb.DB
	fake  *extblogfake.Server
	clock *foliotest.Clock
	svc   *publishing.Service
	logs  *syncBuffer
	// platformURL is the fake's address.
	platformURL string
	// bodies collects every response body, for the token check.
	bodies []string
}

var extblogEpoch = time.Date(2026, 5, 4, 9, 30, 0, 0, time.UTC)

func newExtblogEnv(t *testing.T, db *sqldb.DB, tweak ...func(*ExtBlog)) *extblogEnv {
	t.Helper()
	fake := extblogfake.New()
	fake.SetTokens(testPlatformToken)
	clock := foliotest.NewClock(extblogEpoch)
	fake.SetNow(clock.Now)
	hs := httptest.NewServer(fake)
	t.Cleanup(hs.Close)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	client, err := extblog.New(extblog.Config{URL: hs.URL, Token: extblog.StaticToken(testPlatformToken),
		PublicationID: extblogfake.DefaultPublicationID, PublicationHost: extblogfake.DefaultHost,
		Sleep: func(context.Context, time.Duration) error { return nil }, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	db.Now = clock.Now
	svc := &publishing.Service{Store: db.Extblog, Posts: db.Content, Blog: client, SiteURL: "https://owner.example", Now: clock.Now, Logger: logger,
		PollEvery: time.Millisecond}
	eb := &ExtBlog{Platform: client, Publisher: svc, Cache: cache.NewMemory(clock.Now, 0),
		WebhookSecret: testWebhookSecret, PublicationID: extblogfake.DefaultPublicationID}
	for _, f := range tweak {
		f(eb)
	}
	ts := newTestServer(t, db, func(s *Server) {
		s.Now, s.Logger, s.AccessLog, s.ExtBlog = clock.Now, logger, true, eb
	})
	env := &extblogEnv{testServer: ts, db: db, fake: fake, clock: clock, svc: svc, logs: logs, platformURL: hs.URL}
	t.Cleanup(func() {
		if strings.Contains(logs.String(), testPlatformToken) {
			t.Errorf("the platform token appears in the log")
		}
		for _, b := range env.bodies {
			if strings.Contains(b, testPlatformToken) {
				t.Errorf("the platform token appears in a response: %s", b)
			}
		}
	})
	return env
}

func (e *extblogEnv) call(method, path, token string, body any, headers ...string) response {
	e.t.Helper()
	res := e.do(method, path, token, body, headers...)
	e.bodies = append(e.bodies, string(res.Body))
	return res
}

// addPlatformPosts stores n posts on the fake, the newest last.
func (e *extblogEnv) addPlatformPosts(n int) {
	for i := 1; i <= n; i++ {
		e.fake.AddPost(extblogfake.Post{Title: fmt.Sprintf("Post %d", i), Slug: fmt.Sprintf("post-%d", i),
			ContentMarkdown: fmt.Sprintf("Body of post %d.", i), PublishedAt: extblogEpoch.Add(time.Duration(i) * time.Hour)})
	}
}

func TestExtblogPostsListing(t *testing.T) {
	e := newExtblogEnv(t, foliotest.MustOpenSQLite(t))
	v := newOpenAPIValidator(t, e.testServer)
	e.addPlatformPosts(5)

	res := e.call("GET", "/api/posts?page=1&limit=2", "", nil)
	v.check("GET", "/api/posts", res)
	if res.Status != 200 || res.Header.Get("X-Cache") != "MISS" {
		t.Fatalf("first read: %d X-Cache=%q %s", res.Status, res.Header.Get("X-Cache"), res.Body)
	}
	var list struct {
		Posts      []map[string]any `json:"posts"`
		Pagination struct {
			Page, Limit, Total int
			HasMore            bool
		} `json:"pagination"`
	}
	json.Unmarshal(res.Body, &list)
	if len(list.Posts) != 2 || list.Posts[0]["title"] != "Post 5" || list.Pagination.Total != 5 || !list.Pagination.HasMore ||
		list.Pagination.Page != 1 || list.Pagination.Limit != 2 {
		t.Fatalf("page 1: %s", res.Body)
	}
	got := keys(list.Posts[0])
	sort.Strings(got)
	if strings.Join(got, ",") != "brief,id,publishedAt,slug,title" {
		t.Errorf("item fields = %v", got)
	}
	if list.Posts[0]["publishedAt"] != extblogEpoch.Add(5*time.Hour).Format(time.RFC3339) {
		t.Errorf("publishedAt = %v", list.Posts[0]["publishedAt"])
	}

	if res := e.call("GET", "/api/posts?page=1&limit=2", "", nil); res.Header.Get("X-Cache") != "HIT" {
		t.Errorf("second read: X-Cache=%q, want HIT", res.Header.Get("X-Cache"))
	}
	if n := e.fake.CallCount(extblog.OpListPosts); n != 1 {
		t.Errorf("platform read %d times, want 1", n)
	}
	last := e.call("GET", "/api/posts?page=3&limit=2", "", nil)
	json.Unmarshal(last.Body, &list)
	if last.Header.Get("X-Cache") != "MISS" || len(list.Posts) != 1 || list.Pagination.HasMore {
		t.Errorf("page 3 (its own cache key): %s %s", last.Header.Get("X-Cache"), last.Body)
	}
	if res := e.call("GET", "/api/posts?page=9&limit=2", "", nil); res.Status != 200 || !strings.Contains(string(res.Body), `"posts":[]`) {
		t.Errorf("page past the end: %d %s", res.Status, res.Body)
	}
	for _, q := range []string{"page=0", "limit=0", "limit=101", "page=x"} {
		if res := e.call("GET", "/api/posts?"+q, "", nil); res.Status != 400 || res.errorCode(t) != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", q, res.Status, res.Body)
		}
	}

	// An hour later the copy is no longer fresh: refetched.
	e.clock.Advance(time.Hour)
	if res := e.call("GET", "/api/posts?page=1&limit=2", "", nil); res.Header.Get("X-Cache") != "MISS" {
		t.Errorf("after the TTL: X-Cache=%q, want MISS", res.Header.Get("X-Cache"))
	}

	// When the platform fails after the TTL, the old copy is served as STALE.
	e.fake.AddPost(extblogfake.Post{Title: "Post 6", Slug: "post-6", ContentMarkdown: "six", PublishedAt: extblogEpoch.Add(6 * time.Hour)})
	e.clock.Advance(2 * time.Hour)
	e.fake.FailNext(3, extblogfake.ServerError())
	stale := e.call("GET", "/api/posts?page=1&limit=2", "", nil)
	v.check("GET", "/api/posts", stale)
	if stale.Status != 200 || stale.Header.Get("X-Cache") != "STALE" || strings.Contains(string(stale.Body), "Post 6") {
		t.Errorf("platform down: %d X-Cache=%q %s", stale.Status, stale.Header.Get("X-Cache"), stale.Body)
	}
	// Without a copy, the failure is an error: 503 while the platform is down or limiting.
	e.fake.FailNext(3, extblogfake.RateLimited("1"))
	res = e.call("GET", "/api/posts?page=1&limit=7", "", nil)
	v.check("GET", "/api/posts", res)
	if res.Status != 503 || res.errorCode(t) != "SERVICE_UNAVAILABLE" {
		t.Errorf("platform down, nothing cached: %d %s", res.Status, res.Body)
	}
	e.fake.FailNext(1, extblogfake.Unauthorized())
	if res := e.call("GET", "/api/posts?page=1&limit=8", "", nil); res.Status != 502 || res.errorCode(t) != "UPSTREAM_ERROR" {
		t.Errorf("token refused: %d %s", res.Status, res.Body)
	}
	if res := e.call("GET", "/api/posts?page=1&limit=2", "", nil); res.Header.Get("X-Cache") != "MISS" || !strings.Contains(string(res.Body), "Post 6") {
		t.Errorf("platform back: %s %s", res.Header.Get("X-Cache"), res.Body)
	}

	// A webhook event invalidates the listing although it is still fresh.
	if res := e.call("GET", "/api/posts?page=1&limit=2", "", nil); res.Header.Get("X-Cache") != "HIT" {
		t.Fatalf("before the event: %s", res.Header.Get("X-Cache"))
	}
	id6 := e.fake.Posts()[5].ID
	e.webhook(t, nativeEvent("d-listing", extblogfake.DefaultPublicationID, id6, "post_updated"), "")
	if res := e.call("GET", "/api/posts?page=1&limit=2", "", nil); res.Header.Get("X-Cache") != "MISS" {
		t.Errorf("after a webhook event: X-Cache=%q, want MISS", res.Header.Get("X-Cache"))
	}
	// … and the invalidated copy still serves as a stale one when the platform then fails.
	e.webhook(t, nativeEvent("d-listing-2", extblogfake.DefaultPublicationID, id6, "post_updated"), "")
	e.fake.FailNext(3, extblogfake.ServerError())
	if res := e.call("GET", "/api/posts?page=1&limit=2", "", nil); res.Header.Get("X-Cache") != "STALE" {
		t.Errorf("invalidated copy with the platform down: X-Cache=%q, want STALE", res.Header.Get("X-Cache"))
	}
	// A platform that hangs does not hold a request that has a stale copy: it gets the copy
	// after staleWait while the fetch goes on.
	e.webhook(t, nativeEvent("d-listing-3", extblogfake.DefaultPublicationID, id6, "post_updated"), "")
	e.fake.FailNext(1, extblogfake.Slow(6*time.Second))
	if res := e.call("GET", "/api/posts?page=1&limit=2", "", nil); res.Status != 200 || res.Header.Get("X-Cache") != "STALE" {
		t.Errorf("platform hanging: %d X-Cache=%q", res.Status, res.Header.Get("X-Cache"))
	}
}

// TestExtblogPostsSingleFlight: 100 concurrent misses for one page cause one platform call.
func TestExtblogPostsSingleFlight(t *testing.T) {
	e := newExtblogEnv(t, foliotest.MustOpenSQLite(t))
	e.addPlatformPosts(3)
	// The first reply is slowed so that the requests overlap; the count holds either way,
	// because a flight reads the cache again before calling the platform.
	e.fake.FailNext(1, extblogfake.Slow(50*time.Millisecond))
	const n = 100
	var wg sync.WaitGroup
	statuses := make([]int, n)
	bodies := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("GET", e.URL+"/api/posts?page=1&limit=10", nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			var b bytes.Buffer
			b.ReadFrom(res.Body)
			statuses[i], bodies[i] = res.StatusCode, b.String()
		}()
	}
	wg.Wait()
	if got := e.fake.CallCount(extblog.OpListPosts); got != 1 {
		t.Errorf("%d concurrent misses made %d platform calls, want 1", n, got)
	}
	for i := range n {
		if statuses[i] != 200 || bodies[i] != bodies[0] {
			t.Fatalf("request %d: %d %s", i, statuses[i], bodies[i])
		}
	}
}

func TestExtblogUnconfigured(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	for name, eb := range map[string]*ExtBlog{
		"not wired":      nil,
		"token missing":  {Missing: []string{"EXTBLOG_API_TOKEN"}},
		"both missing":   {Missing: []string{"EXTBLOG_API_TOKEN", "EXTBLOG_PUBLICATION_ID"}},
		"publication id": {Missing: []string{"EXTBLOG_PUBLICATION_ID"}},
	} {
		t.Run(name, func(t *testing.T) {
			ts := newTestServer(t, db, func(s *Server) { s.ExtBlog = eb })
			want := []string{"EXTBLOG_API_TOKEN", "EXTBLOG_PUBLICATION_ID"}
			if eb != nil {
				want = eb.Missing
			}
			for _, c := range []struct{ method, path, token string }{
				{"GET", "/api/posts", ""}, {"POST", "/api/extblog/publish", "admin"},
				{"POST", "/api/extblog/unpublish", "admin"}, {"DELETE", "/api/extblog/delete", "admin"},
			} {
				res := ts.do(c.method, c.path, c.token, map[string]any{"articleId": "a1"})
				if res.Status != 503 || res.errorCode(t) != "SERVICE_UNAVAILABLE" {
					t.Errorf("%s %s: %d %s", c.method, c.path, res.Status, res.Body)
					continue
				}
				for _, v := range want {
					if !strings.Contains(string(res.Body), v) {
						t.Errorf("%s %s: message does not name %s: %s", c.method, c.path, v, res.Body)
					}
				}
			}
		})
	}
}

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

// nativeEvent is a delivery in the platform's own shape.
func nativeEvent(uuid, publicationID, postID, eventType string) []byte {
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"uuid": uuid},
		"data": map[string]any{"publication": map[string]any{"id": publicationID}, "post": map[string]any{"id": postID}, "eventType": eventType}})
	return b
}

// specEvent is a delivery in the spec's shape.
func specEvent(event, postID, slug, title string) []byte {
	b, _ := json.Marshal(map[string]any{"event": event,
		"data": map[string]any{"postId": postID, "slug": slug, "title": title, "publishedAt": "2026-05-04T09:30:00Z"}})
	return b
}

// webhook delivers body signed as the platform signs (t in milliseconds) unless sig is given.
func (e *extblogEnv) webhook(t *testing.T, body []byte, sig string) response {
	t.Helper()
	if sig == "" {
		sig = extblog.SignWebhook(testWebhookSecret, body, e.clock.Now())
	}
	res := e.call("POST", "/api/extblog/webhook", "", body, "X-Extblog-Signature", sig)
	if res.Status != 204 && sig == extblog.SignWebhook(testWebhookSecret, body, e.clock.Now()) {
		t.Errorf("webhook: %d %s", res.Status, res.Body)
	}
	return res
}

func hexMAC(secret string, parts ...[]byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	for _, p := range parts {
		m.Write(p)
	}
	return hex.EncodeToString(m.Sum(nil))
}

func TestExtblogWebhookSignatures(t *testing.T) {
	e := newExtblogEnv(t, foliotest.MustOpenSQLite(t))
	v := newOpenAPIValidator(t, e.testServer)
	id := e.fake.AddPost(extblogfake.Post{Title: "Signed", Slug: "signed", ContentMarkdown: "Signed body."})
	body := nativeEvent("sig-1", extblogfake.DefaultPublicationID, id, "post_updated")
	now := e.clock.Now()
	ms, s := strconv.FormatInt(now.UnixMilli(), 10), strconv.FormatInt(now.Unix(), 10)
	old := strconv.FormatInt(now.Add(-10*time.Minute).UnixMilli(), 10)
	for _, tc := range []struct {
		name, sig string
		body      []byte
		status    int
		code      string
	}{
		{"t in milliseconds", "t=" + ms + ",v1=" + hexMAC(testWebhookSecret, []byte(ms+"."), body), body, 204, ""},
		{"t in seconds", "t=" + s + ",v1=" + hexMAC(testWebhookSecret, []byte(s+"."), body), body, 204, ""},
		{"plain hex of the body", hexMAC(testWebhookSecret, body), body, 204, ""},
		{"sha256= prefixed", "sha256=" + hexMAC(testWebhookSecret, body), body, 204, ""},
		{"expired timestamp", "t=" + old + ",v1=" + hexMAC(testWebhookSecret, []byte(old+"."), body), body, 401, "AUTHENTICATION_REQUIRED"},
		{"forged with another secret", "t=" + ms + ",v1=" + hexMAC("guess", []byte(ms+"."), body), body, 401, "AUTHENTICATION_REQUIRED"},
		{"signature of another body", hexMAC(testWebhookSecret, []byte("{}")), body, 401, "AUTHENTICATION_REQUIRED"},
		{"missing signature", "", body, 401, "AUTHENTICATION_REQUIRED"},
		{"malformed signature", "t=abc,v1=zz", body, 400, "VALIDATION_ERROR"},
		{"bad JSON", hexMAC(testWebhookSecret, []byte(`{"event":`)), []byte(`{"event":`), 400, "VALIDATION_ERROR"},
		{"unknown event", hexMAC(testWebhookSecret, specEvent("POST_LIKED", id, "", "")), specEvent("POST_LIKED", id, "", ""), 400, "VALIDATION_ERROR"},
		{"no post id", hexMAC(testWebhookSecret, []byte(`{"event":"POST_UPDATED","data":{}}`)), []byte(`{"event":"POST_UPDATED","data":{}}`), 400, "VALIDATION_ERROR"},
		{"static page event is ignored", hexMAC(testWebhookSecret, nativeEvent("sp", extblogfake.DefaultPublicationID, id, "static_page_edited")),
			nativeEvent("sp", extblogfake.DefaultPublicationID, id, "static_page_edited"), 204, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res response
			if tc.sig == "" {
				res = e.call("POST", "/api/extblog/webhook", "", tc.body)
			} else {
				res = e.call("POST", "/api/extblog/webhook", "", tc.body, "X-Extblog-Signature", tc.sig)
			}
			v.check("POST", "/api/extblog/webhook", res)
			if res.Status != tc.status {
				t.Fatalf("got %d %s, want %d", res.Status, res.Body, tc.status)
			}
			if tc.code != "" && res.errorCode(t) != tc.code {
				t.Errorf("code %s, want %s", res.errorCode(t), tc.code)
			}
		})
	}
	big := append([]byte(`{"event":"POST_UPDATED","data":{"postId":"x","title":"`), bytes.Repeat([]byte("a"), 1<<20)...)
	if res := e.call("POST", "/api/extblog/webhook", "", big, "X-Extblog-Signature", hexMAC(testWebhookSecret, big)); res.Status != 413 {
		t.Errorf("1 MiB body: %d", res.Status)
	}
	if strings.Contains(e.logs.String(), testWebhookSecret) {
		t.Error("the webhook secret appears in the log")
	}
}

// TestExtblogWebhookEvents covers the webhook rows of the synchronisation table, duplicate and
// out-of-order deliveries, and other publications.
func TestExtblogWebhookEvents(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		e := newExtblogEnv(t, db)
		ctx := context.Background()
		pid := e.fake.AddPost(extblogfake.Post{Title: "Written on the platform", Slug: "written-on-the-platform",
			ContentMarkdown: "First version.", Tags: []extblogfake.Tag{{Name: "Go", Slug: "go"}}})

		// POST_PUBLISHED inserts local metadata, with the content read from the platform.
		e.webhook(t, nativeEvent("d1", extblogfake.DefaultPublicationID, pid, "post_published"), "")
		p, err := db.Content.PostBySlug(ctx, "written-on-the-platform")
		if err != nil {
			t.Fatalf("no local article after POST_PUBLISHED: %v", err)
		}
		if p.ExtblogID != pid || p.Content != "First version." || p.Status != folio.PostPublished || p.Title != "Written on the platform" ||
			len(p.Tags) != 1 || p.Tags[0] != "Go" {
			t.Errorf("inserted article: %+v", p.PostSummary)
		}
		// The same delivery again is acknowledged and not applied twice.
		gets := e.fake.CallCount(extblog.OpGetPost)
		e.webhook(t, nativeEvent("d1", extblogfake.DefaultPublicationID, pid, "post_published"), "")
		if e.fake.CallCount(extblog.OpGetPost) != gets {
			t.Error("a duplicate delivery was applied again")
		}
		// A repeated event under a new delivery id (or the spec's shape) converges to the same state.
		e.webhook(t, specEvent("POST_PUBLISHED", pid, "written-on-the-platform", "Written on the platform"), "")
		if list, total, _ := db.Content.Posts(ctx, folio.PostFilter{Page: 1, Limit: 10}); total != 1 || len(list) != 1 {
			t.Errorf("%d articles after a repeated POST_PUBLISHED, want 1", total)
		}

		// POST_UPDATED refreshes the content.
		edit := `{"query":"mutation UpdatePost($input: UpdatePostInput!) { updatePost(input: $input) { post { id } } }",` +
			`"variables":{"input":{"id":"` + pid + `","title":"Rewritten","contentMarkdown":"Second version."}}}`
		req, _ := http.NewRequest("POST", e.platformURL, strings.NewReader(edit))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", testPlatformToken)
		if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 200 {
			t.Fatalf("editing on the fake: %v", err)
		}
		e.webhook(t, specEvent("POST_UPDATED", pid, "", ""), "")
		if p := mustPost(t, db, p.ID); p.Content != "Second version." || p.Title != "Rewritten" {
			t.Errorf("after POST_UPDATED: %q %q", p.Title, p.Content)
		}

		// Another publication's events are ignored.
		e.webhook(t, nativeEvent("d-other", "64f0c0ffee0000000000ffff", pid, "post_deleted"), "")
		if p := mustPost(t, db, p.ID); p.ArchivedAt != nil {
			t.Error("an event of another publication was applied")
		}

		// POST_DELETED archives the article and clears extblogId.
		e.webhook(t, nativeEvent("d2", extblogfake.DefaultPublicationID, pid, "post_deleted"), "")
		p = mustPost(t, db, p.ID)
		if p.ArchivedAt == nil || p.ExtblogID != "" {
			t.Errorf("after POST_DELETED: archivedAt %v extblogId %q", p.ArchivedAt, p.ExtblogID)
		}
		// Late deliveries of earlier events change nothing and create nothing.
		e.webhook(t, nativeEvent("d0", extblogfake.DefaultPublicationID, pid, "post_updated"), "")
		e.webhook(t, specEvent("POST_PUBLISHED", pid, "written-on-the-platform", "Written on the platform"), "")
		e.webhook(t, nativeEvent("d2", extblogfake.DefaultPublicationID, pid, "post_deleted"), "")
		if _, total, _ := db.Content.Posts(ctx, folio.PostFilter{Page: 1, Limit: 10}); total != 1 {
			t.Errorf("%d articles after late deliveries, want 1", total)
		}
		if p2 := mustPost(t, db, p.ID); p2.ArchivedAt == nil || p2.ExtblogID != "" || p2.Content != "Second version." {
			t.Errorf("late deliveries changed the archived article: %+v", p2.PostSummary)
		}

		// Out of order from the start: UPDATED before PUBLISHED ends where PUBLISHED then UPDATED ends.
		qid := e.fake.AddPost(extblogfake.Post{Title: "Second", Slug: "second", ContentMarkdown: "Two."})
		e.webhook(t, nativeEvent("q2", extblogfake.DefaultPublicationID, qid, "post_updated"), "")
		e.webhook(t, nativeEvent("q1", extblogfake.DefaultPublicationID, qid, "post_published"), "")
		if q, err := db.Content.PostBySlug(ctx, "second"); err != nil || q.ExtblogID != qid || q.Content != "Two." {
			t.Errorf("out-of-order UPDATED/PUBLISHED: %v %+v", err, q)
		}

		// A post whose POST_DELETED overtakes its POST_PUBLISHED is never created locally,
		// although the platform still serves a removed post by id.
		gid := e.fake.AddPost(extblogfake.Post{Title: "Gone", Slug: "gone", ContentMarkdown: "Gone.", Removed: true})
		e.webhook(t, nativeEvent("g2", extblogfake.DefaultPublicationID, gid, "post_deleted"), "")
		e.webhook(t, nativeEvent("g1", extblogfake.DefaultPublicationID, gid, "post_published"), "")
		if _, err := db.Content.PostBySlug(ctx, "gone"); !folio.IsNotFound(err) {
			t.Errorf("a deleted post was created by its late POST_PUBLISHED: %v", err)
		}

		// An unknown post id on the platform is acknowledged without a change.
		e.webhook(t, nativeEvent("u1", extblogfake.DefaultPublicationID, "65b24b924bf2eb3c0000beef", "post_updated"), "")

		// A platform failure while reading the post is a 503, and the delivery is not consumed.
		rid := e.fake.AddPost(extblogfake.Post{Title: "Third", Slug: "third", ContentMarkdown: "Three."})
		e.fake.FailNext(3, extblogfake.ServerError())
		body := nativeEvent("retry-me", extblogfake.DefaultPublicationID, rid, "post_published")
		res := e.call("POST", "/api/extblog/webhook", "", body, "X-Extblog-Signature", extblog.SignWebhook(testWebhookSecret, body, e.clock.Now()))
		if res.Status != 503 {
			t.Errorf("platform down during a webhook: %d %s", res.Status, res.Body)
		}
		e.webhook(t, body, "")
		if _, err := db.Content.PostBySlug(ctx, "third"); err != nil {
			t.Errorf("the retried delivery was not applied: %v", err)
		}
	})
}

// TestExtblogWebhookEchoOfPublish: the POST_PUBLISHED of our own publication links to our
// article through its canonical URL instead of creating a second article.
func TestExtblogWebhookEchoOfPublish(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	e := newExtblogEnv(t, db)
	a := createArticle(t, db, "Echoed")
	// Publish on the platform without recording the id, as when the echo overtakes the reply.
	post, err := e.svc.Blog.Publish(context.Background(), e.svc.Article(a))
	if err != nil {
		t.Fatal(err)
	}
	e.webhook(t, nativeEvent("echo", extblogfake.DefaultPublicationID, post.ID, "post_published"), "")
	if p := mustPost(t, db, a.ID); p.ExtblogID != post.ID {
		t.Errorf("echo did not link our article: extblogId %q", p.ExtblogID)
	}
	if _, total, _ := db.Content.Posts(context.Background(), folio.PostFilter{Page: 1, Limit: 10}); total != 1 {
		t.Errorf("%d articles, want 1", total)
	}
}

// TestExtblogWebhookWithoutSecret: without EXTBLOG_WEBHOOK_SECRET nothing can be verified, so
// every delivery is refused with 401 — unsigned or signed with any key — and nothing is applied.
func TestExtblogWebhookWithoutSecret(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		e := newExtblogEnv(t, db, func(eb *ExtBlog) { eb.WebhookSecret = "" })
		id := e.fake.AddPost(extblogfake.Post{Title: "Open", Slug: "open", ContentMarkdown: "Open."})
		body := specEvent("POST_PUBLISHED", id, "open", "Open")
		v := newOpenAPIValidator(t, e.testServer)
		remaining := ""
		for name, headers := range map[string][]string{
			"unsigned":          nil,
			"signed with a key": {"X-Extblog-Signature", extblog.SignWebhook("guessed", body, e.clock.Now())},
			"empty-key HMAC":    {"X-Extblog-Signature", hexMAC("", body)},
			"malformed header":  {"X-Extblog-Signature", "t=,v1="},
		} {
			res := e.call("POST", "/api/extblog/webhook", "", body, headers...)
			v.check("POST", "/api/extblog/webhook", res)
			if res.Status != 401 || res.errorCode(t) != "AUTHENTICATION_REQUIRED" || !strings.Contains(string(res.Body), "EXTBLOG_WEBHOOK_SECRET") {
				t.Errorf("%s delivery without a secret: %d %s", name, res.Status, res.Body)
			}
			// Exempt from the limits, yet it carries the headers every /api response has
			// (contract §3), and deliveries spend nothing of the caller's budget.
			rem := res.Header.Get("X-RateLimit-Remaining")
			if res.Header.Get("X-RateLimit-Limit") == "" || rem == "" || res.Header.Get("X-RateLimit-Reset") == "" {
				t.Errorf("%s delivery: no X-RateLimit-* headers: %v", name, res.Header)
			}
			if remaining == "" {
				remaining = rem
			} else if rem != remaining {
				t.Errorf("%s delivery: X-RateLimit-Remaining %s after %s: a delivery spent the budget", name, rem, remaining)
			}
		}
		if _, total, _ := db.Content.Posts(context.Background(), folio.PostFilter{Page: 1, Limit: 10}); total != 0 {
			t.Errorf("a refused delivery was applied: %d articles", total)
		}
	})
}

// TestExtblogPostsListingRedis: the listing cache shared through Redis — two folio instances
// share one copy, and a webhook event on one makes the other's copy stale.
func TestExtblogPostsListingRedis(t *testing.T) {
	url := foliotest.RedisURL()
	if url == "" {
		t.Skip("Redis tests skipped: set FOLIO_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379/0)")
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	prefix := "folio-test:" + folio.NewID() + ":"
	t.Cleanup(func() {
		keys, _ := rdb.Keys(context.Background(), prefix+"*").Result()
		if len(keys) > 0 {
			rdb.Del(context.Background(), keys...)
		}
	})
	db := foliotest.MustOpenSQLite(t)
	a := newExtblogEnv(t, db)
	a.ExtBlog.Cache = cache.NewRedis(rdb, prefix, a.clock.Now) // before any request reads it
	a.addPlatformPosts(2)
	// Instance b talks to the same platform and the same Redis.
	b := newTestServer(t, db, func(s *Server) {
		s.Now = a.clock.Now
		s.ExtBlog = &ExtBlog{Platform: a.ExtBlog.Platform, Publisher: a.svc, Cache: cache.NewRedis(rdb, prefix, a.clock.Now),
			WebhookSecret: testWebhookSecret, PublicationID: extblogfake.DefaultPublicationID}
	})
	if res := a.call("GET", "/api/posts", "", nil); res.Status != 200 || res.Header.Get("X-Cache") != "MISS" {
		t.Fatalf("instance a: %d %s", res.Status, res.Header.Get("X-Cache"))
	}
	if res := b.do("GET", "/api/posts", "", nil); res.Header.Get("X-Cache") != "HIT" {
		t.Errorf("instance b after a's fetch: X-Cache=%q, want HIT (shared copy)", res.Header.Get("X-Cache"))
	}
	body := nativeEvent("redis-1", extblogfake.DefaultPublicationID, a.fake.Posts()[0].ID, "post_updated")
	if res := b.do("POST", "/api/extblog/webhook", "", body, "X-Extblog-Signature", extblog.SignWebhook(testWebhookSecret, body, a.clock.Now())); res.Status != 204 {
		t.Fatalf("webhook on b: %d %s", res.Status, res.Body)
	}
	if res := a.call("GET", "/api/posts", "", nil); res.Header.Get("X-Cache") != "MISS" {
		t.Errorf("instance a after b's webhook: X-Cache=%q, want MISS", res.Header.Get("X-Cache"))
	}
	if n := a.fake.CallCount(extblog.OpListPosts); n != 2 {
		t.Errorf("platform reads = %d, want 2", n)
	}
}
