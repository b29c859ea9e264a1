package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/cache"
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

// TestExtblogPostsListingRedis: the listing cache shared through Redis — two folio instances
// share one copy, and a webhook event on one makes the other's copy stale.
func TestExtblogPostsListingRedis(t *testing.T) {
	rdb := foliotest.RedisPool(t)
	prefix := "folio-test:" + folio.NewID() + ":"
	t.Cleanup(func() { foliotest.RedisDeletePrefix(t, rdb, prefix) })
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
