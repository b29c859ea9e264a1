package extblog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/extblog"
	"github.com/foliohq/folio/internal/extblog/extblogfake"
)

// sleeper records the backoff delays instead of waiting.
type sleeper struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.delays...)
}

type env struct {
	fake   *extblogfake.Server
	srv    *httptest.Server
	client *extblog.Client
	sleep  *sleeper
	logs   *bytes.Buffer
}

// newEnv starts a fake platform and a client for it; mod adjusts the client's config.
func newEnv(t *testing.T, mod func(*extblog.Config)) *env {
	t.Helper()
	e := &env{fake: extblogfake.New(), sleep: &sleeper{}, logs: &bytes.Buffer{}}
	e.srv = httptest.NewServer(e.fake)
	t.Cleanup(e.srv.Close)
	cfg := extblog.Config{
		URL: e.srv.URL, Token: extblog.StaticToken(extblogfake.DefaultToken),
		PublicationID: extblogfake.DefaultPublicationID, PublicationHost: extblogfake.DefaultHost,
		Sleep: e.sleep.Sleep, Logger: slog.New(slog.NewTextHandler(e.logs, nil)),
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := extblog.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	e.client = c
	return e
}

func mustExtBlogError(t *testing.T, err error) *folio.ExtBlogError {
	t.Helper()
	var e *folio.ExtBlogError
	if !errors.As(err, &e) {
		t.Fatalf("got error %v (%T), want *folio.ExtBlogError", err, err)
	}
	return e
}

func fullArticle() folio.ExtBlogArticle {
	return folio.ExtBlogArticle{
		Title: "Building folio", Subtitle: "A portfolio backend", Slug: "building-folio",
		ContentMarkdown: "# Hello\n\nSome *markdown*.",
		Tags:            []folio.ExtBlogTag{{Name: "Go", Slug: "go"}, {Name: "Web Dev", Slug: "web-dev"}},
		SeriesID:        "64f0c0ffee0000000000beef",
		SEO:             folio.ExtBlogSEO{Title: "SEO title", Description: "SEO description", Image: "https://example.test/og.png"},
		Settings:        folio.ExtBlogSettings{EnableComments: false, EnableReactions: true, Newsletter: true},
		CoverImageURL:   "https://example.test/cover.png",
		CanonicalURL:    "https://owner.example.test/blog/building-folio",
		PublishedAt:     time.Date(2026, 3, 1, 9, 30, 0, 0, time.FixedZone("EST", -5*3600)),
	}
}

func TestPublishSendsEverySynchronisedField(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	a := fullArticle()
	got, err := e.client.Publish(t.Context(), a)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if got.ID == "" || got.Slug != "building-folio" || !strings.HasSuffix(got.URL, "/building-folio") {
		t.Fatalf("Publish returned %+v", got)
	}
	p, ok := e.fake.Post(got.ID)
	if !ok {
		t.Fatalf("post %s not stored on the platform", got.ID)
	}
	want := extblogfake.Post{
		ID: got.ID, PublicationID: extblogfake.DefaultPublicationID, Title: a.Title, Subtitle: a.Subtitle,
		Slug: a.Slug, ContentMarkdown: a.ContentMarkdown,
		Tags:     []extblogfake.Tag{{Name: "Go", Slug: "go"}, {Name: "Web Dev", Slug: "web-dev"}},
		SeriesID: a.SeriesID, MetaTitle: "SEO title", MetaDescription: "SEO description",
		MetaImage: "https://example.test/og.png", CoverImageURL: a.CoverImageURL,
		OriginalArticleURL: a.CanonicalURL, DisableComments: true, NewsletterActivated: true,
		PublishedAt: p.PublishedAt,
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("stored post\n got %+v\nwant %+v", p, want)
	}
	if !p.PublishedAt.Equal(a.PublishedAt) {
		t.Errorf("publishedAt = %v, want %v", p.PublishedAt, a.PublishedAt)
	}
	// The scheduled time is sent with the article's own offset.
	in := e.fake.Calls()[0].Variables["input"].(map[string]any)
	if in["publishedAt"] != "2026-03-01T09:30:00-05:00" {
		t.Errorf("publishedAt sent as %v, want the offset kept", in["publishedAt"])
	}
	if auth := e.fake.Calls()[0].Authorization; auth != extblogfake.DefaultToken {
		t.Errorf("Authorization = %q, want the raw token", auth)
	}
}

func TestPostLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := t.Context()
	a := fullArticle()
	pub, err := e.client.Publish(ctx, a)
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}

	got, err := e.client.GetPost(ctx, pub.ID)
	if err != nil {
		t.Fatalf("GetPost: %v", err)
	}
	if got.ContentMarkdown != a.ContentMarkdown || got.Title != a.Title || got.Subtitle != a.Subtitle ||
		got.SeriesID != a.SeriesID || got.SEO != a.SEO || got.CanonicalURL != a.CanonicalURL ||
		got.CoverImageURL != a.CoverImageURL || got.CommentsEnabled || !reflect.DeepEqual(got.Tags, a.Tags) ||
		!got.PublishedAt.Equal(a.PublishedAt) || got.Brief == "" {
		t.Errorf("GetPost = %+v", got)
	}

	a.Title, a.ContentMarkdown, a.Settings.EnableComments = "Building folio, again", "New body", true
	a.Tags = []folio.ExtBlogTag{{Name: "Go", Slug: "go"}}
	up, err := e.client.Update(ctx, pub.ID, a)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if up.ID != pub.ID || up.Title != a.Title {
		t.Errorf("Update returned %+v", up)
	}
	p, _ := e.fake.Post(pub.ID)
	if p.Title != a.Title || p.ContentMarkdown != "New body" || p.DisableComments || len(p.Tags) != 1 || p.UpdatedAt.IsZero() {
		t.Errorf("after Update the platform holds %+v", p)
	}
	if len(e.fake.Posts()) != 1 {
		t.Errorf("Update created a post: %d posts", len(e.fake.Posts()))
	}

	if err := e.client.Remove(ctx, pub.ID); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if page, err := e.client.ListPosts(ctx, 10, ""); err != nil || page.Total != 0 || len(page.Posts) != 0 {
		t.Errorf("after Remove ListPosts = %+v, %v; want no posts", page, err)
	}
	err = e.client.Remove(ctx, pub.ID)
	if ee := mustExtBlogError(t, err); !ee.NotFound || ee.Kind != folio.ExtBlogValidation || ee.Attempts != 1 {
		t.Errorf("second Remove: %+v, want NotFound VALIDATION_ERROR after one attempt", ee)
	}
	_, err = e.client.Update(ctx, pub.ID, a)
	if ee := mustExtBlogError(t, err); !ee.NotFound {
		t.Errorf("Update of a removed post: %v, want NotFound", err)
	}

	if err := e.client.Restore(ctx, pub.ID); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if page, err := e.client.ListPosts(ctx, 10, ""); err != nil || page.Total != 1 || page.Posts[0].ID != pub.ID {
		t.Errorf("after Restore ListPosts = %+v, %v", page, err)
	}

	for name, err := range map[string]error{
		"get":     func() error { _, err := e.client.GetPost(ctx, "65b24b924bf2eb3cffffffff"); return err }(),
		"restore": e.client.Restore(ctx, "65b24b924bf2eb3cffffffff"),
		"remove":  e.client.Remove(ctx, "65b24b924bf2eb3cffffffff"),
	} {
		if ee := mustExtBlogError(t, err); !ee.NotFound {
			t.Errorf("%s of an unknown id: %v, want NotFound", name, err)
		}
	}
}

func TestListPostsAndFetchPage(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, byHost := range []bool{true, false} {
		t.Run(fmt.Sprintf("byHost=%v", byHost), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(c *extblog.Config) {
				if !byHost {
					c.PublicationHost = ""
				}
			})
			var ids []string // newest first
			for i := range 7 {
				id := e.fake.AddPost(extblogfake.Post{Title: fmt.Sprintf("Post %d", i), Slug: fmt.Sprintf("post-%d", i),
					ContentMarkdown: "body", PublishedAt: base.Add(time.Duration(i) * time.Hour)})
				ids = append([]string{id}, ids...)
			}
			removed := e.fake.AddPost(extblogfake.Post{Title: "Gone", Slug: "gone", ContentMarkdown: "x", Removed: true})
			_ = removed

			page, err := e.client.ListPosts(t.Context(), 3, "")
			if err != nil {
				t.Fatalf("ListPosts: %v", err)
			}
			if page.Total != 7 || !page.HasNext || len(page.Posts) != 3 || page.Posts[0].ID != ids[0] ||
				page.Posts[0].Slug != "post-6" || page.Posts[0].Brief != "body" || page.Posts[0].PublishedAt.IsZero() {
				t.Fatalf("first window = %+v", page)
			}
			next, err := e.client.ListPosts(t.Context(), 3, page.EndCursor)
			if err != nil || next.Posts[0].ID != ids[3] {
				t.Fatalf("second window = %+v, %v", next, err)
			}
			if byHost {
				if v := e.fake.Calls()[0].Variables; v["host"] != extblogfake.DefaultHost || v["id"] != nil {
					t.Errorf("variables %v, want the host", v)
				}
			}

			for _, tc := range []struct {
				page, limit int
				wantIDs     []string
				wantMore    bool
			}{
				{1, 3, ids[0:3], true},
				{2, 3, ids[3:6], true},
				{3, 3, ids[6:7], false},
				{4, 3, nil, false},
				{1, 10, ids, false},
				{2, 2, ids[2:4], true},
			} {
				posts, total, more, err := extblog.FetchPage(t.Context(), e.client, tc.page, tc.limit)
				if err != nil {
					t.Fatalf("FetchPage(%d,%d): %v", tc.page, tc.limit, err)
				}
				var got []string
				for _, p := range posts {
					got = append(got, p.ID)
				}
				if !reflect.DeepEqual(got, tc.wantIDs) || total != 7 || more != tc.wantMore {
					t.Errorf("FetchPage(%d,%d) = %v, %d, %v; want %v, 7, %v", tc.page, tc.limit, got, total, more, tc.wantIDs, tc.wantMore)
				}
			}
		})
	}
}

func TestFetchPageWalksWindowsOfFifty(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	for i := range 120 {
		e.fake.AddPost(extblogfake.Post{Title: "P", Slug: fmt.Sprintf("p-%d", i), ContentMarkdown: "b",
			PublishedAt: time.Unix(int64(1_700_000_000+i), 0)})
	}
	posts, total, more, err := extblog.FetchPage(t.Context(), e.client, 11, 10)
	if err != nil || len(posts) != 10 || total != 120 || !more || posts[0].Slug != "p-19" {
		t.Fatalf("FetchPage(11,10) = %d posts (first %q), %d, %v, %v", len(posts), posts[0].Slug, total, more, err)
	}
	if n := e.fake.CallCount(extblog.OpListPosts); n != 3 {
		t.Errorf("made %d requests, want 3 windows (50+50+10)", n)
	}
}

func TestUnknownPublicationIsNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *extblog.Config) { c.PublicationHost = "other.example.test" })
	_, err := e.client.ListPosts(t.Context(), 5, "")
	if ee := mustExtBlogError(t, err); !ee.NotFound {
		t.Errorf("got %v, want NotFound", err)
	}
}

func TestErrorClassificationAndRetries(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		faults     []extblogfake.Fault
		wantKind   string // "" means success
		wantCode   string
		wantStatus int
		wantCalls  int
		wantDelays []time.Duration
		wantRetry  time.Duration
		notFound   bool
		conflict   bool
	}{
		{name: "429 with Retry-After seconds", faults: rep(3, extblogfake.RateLimited("2")),
			wantKind: folio.ExtBlogRateLimit, wantStatus: 429, wantCode: "TOO_MANY_REQUESTS", wantCalls: 3,
			wantDelays: secs(2, 2), wantRetry: 2 * time.Second},
		{name: "429 without Retry-After uses backoff", faults: rep(3, extblogfake.RateLimited("")),
			wantKind: folio.ExtBlogRateLimit, wantStatus: 429, wantCode: "TOO_MANY_REQUESTS", wantCalls: 3, wantDelays: secs(1, 2)},
		{name: "429 with HTTP-date Retry-After", faults: rep(3, extblogfake.RateLimited(now.Add(3*time.Second).Format(http.TimeFormat))),
			wantKind: folio.ExtBlogRateLimit, wantStatus: 429, wantCode: "TOO_MANY_REQUESTS", wantCalls: 3,
			wantDelays: secs(3, 3), wantRetry: 3 * time.Second},
		{name: "429 asking for more than the cap is not retried", faults: rep(1, extblogfake.RateLimited("60")),
			wantKind: folio.ExtBlogRateLimit, wantStatus: 429, wantCode: "TOO_MANY_REQUESTS", wantCalls: 1, wantRetry: time.Minute},
		{name: "429 then success", faults: rep(1, extblogfake.RateLimited("1")), wantCalls: 2, wantDelays: secs(1)},
		{name: "GraphQL rate-limit code", faults: rep(3, extblogfake.GraphQLError("TOO_MANY_REQUESTS", "slow down")),
			wantKind: folio.ExtBlogRateLimit, wantStatus: 200, wantCode: "TOO_MANY_REQUESTS", wantCalls: 3, wantDelays: secs(1, 2)},
		{name: "HTTP 401", faults: rep(3, extblogfake.Unauthorized()),
			wantKind: folio.ExtBlogAuth, wantStatus: 401, wantCode: "UNAUTHENTICATED", wantCalls: 1},
		{name: "HTTP 403", faults: rep(3, extblogfake.Fault{Status: 403, Body: "Forbidden"}),
			wantKind: folio.ExtBlogAuth, wantStatus: 403, wantCalls: 1},
		{name: "UNAUTHENTICATED code", faults: rep(3, extblogfake.GraphQLError("UNAUTHENTICATED", "bad token")),
			wantKind: folio.ExtBlogAuth, wantStatus: 200, wantCode: "UNAUTHENTICATED", wantCalls: 1},
		{name: "FORBIDDEN code", faults: rep(3, extblogfake.GraphQLError("FORBIDDEN", "not Pro")),
			wantKind: folio.ExtBlogAuth, wantStatus: 200, wantCode: "FORBIDDEN", wantCalls: 1},
		{name: "BAD_USER_INPUT code", faults: rep(3, extblogfake.GraphQLError("BAD_USER_INPUT", "title too short")),
			wantKind: folio.ExtBlogValidation, wantStatus: 200, wantCode: "BAD_USER_INPUT", wantCalls: 1},
		{name: "HTTP 400 validation failure", faults: rep(3, extblogfake.Fault{Status: 400, Code: "GRAPHQL_VALIDATION_FAILED", Message: "Cannot query field"}),
			wantKind: folio.ExtBlogValidation, wantStatus: 400, wantCode: "GRAPHQL_VALIDATION_FAILED", wantCalls: 1},
		{name: "HTTP 400 without JSON", faults: rep(3, extblogfake.Fault{Status: 400, Body: "Bad Request"}),
			wantKind: folio.ExtBlogValidation, wantStatus: 400, wantCalls: 1},
		{name: "NOT_FOUND code", faults: rep(3, extblogfake.GraphQLError("NOT_FOUND", "Post not found")),
			wantKind: folio.ExtBlogValidation, wantStatus: 200, wantCode: "NOT_FOUND", wantCalls: 1, notFound: true},
		{name: "CONFLICT code", faults: rep(3, extblogfake.GraphQLError("CONFLICT", "slug taken")),
			wantKind: folio.ExtBlogValidation, wantStatus: 200, wantCode: "CONFLICT", wantCalls: 1, conflict: true},
		{name: "unknown code", faults: rep(3, extblogfake.GraphQLError("INTERNAL_SERVER_ERROR", "boom")),
			wantKind: folio.ExtBlogUnknown, wantStatus: 200, wantCode: "INTERNAL_SERVER_ERROR", wantCalls: 1},
		{name: "HTTP 404", faults: rep(3, extblogfake.Fault{Status: 404, Body: "Not Found"}),
			wantKind: folio.ExtBlogUnknown, wantStatus: 404, wantCalls: 1},
		{name: "HTTP 500", faults: rep(3, extblogfake.ServerError()),
			wantKind: folio.ExtBlogNetwork, wantStatus: 500, wantCalls: 3, wantDelays: secs(1, 2)},
		{name: "HTTP 503 with Retry-After", faults: rep(3, extblogfake.Fault{Status: 503, RetryAfter: "4", Body: "down"}),
			wantKind: folio.ExtBlogNetwork, wantStatus: 503, wantCalls: 3, wantDelays: secs(4, 4), wantRetry: 4 * time.Second},
		{name: "malformed JSON", faults: rep(3, extblogfake.Malformed()),
			wantKind: folio.ExtBlogNetwork, wantStatus: 200, wantCalls: 3, wantDelays: secs(1, 2)},
		{name: "two 500s then success", faults: rep(2, extblogfake.ServerError()), wantCalls: 3, wantDelays: secs(1, 2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(c *extblog.Config) { c.Now = func() time.Time { return now } })
			id := e.fake.AddPost(extblogfake.Post{Title: "T", Slug: "t", ContentMarkdown: "c"})
			for _, f := range tc.faults {
				e.fake.FailNext(1, f)
			}
			post, err := e.client.GetPost(t.Context(), id)
			if got := len(e.fake.Calls()); got != tc.wantCalls {
				t.Errorf("made %d requests, want %d", got, tc.wantCalls)
			}
			if !reflect.DeepEqual(e.sleep.got(), tc.wantDelays) {
				t.Errorf("backoff delays %v, want %v", e.sleep.got(), tc.wantDelays)
			}
			if tc.wantKind == "" {
				if err != nil || post.ID != id {
					t.Fatalf("GetPost = %+v, %v; want success", post, err)
				}
				return
			}
			ee := mustExtBlogError(t, err)
			if ee.Kind != tc.wantKind || ee.Code != tc.wantCode || ee.Status != tc.wantStatus ||
				ee.Attempts != tc.wantCalls || ee.RetryAfter != tc.wantRetry || ee.NotFound != tc.notFound ||
				ee.Conflict != tc.conflict || ee.Op != extblog.OpGetPost {
				t.Errorf("got %+v", ee)
			}
			if ee.Retryable() != (tc.wantKind == folio.ExtBlogRateLimit || tc.wantKind == folio.ExtBlogNetwork) {
				t.Errorf("Retryable() = %v for %s", ee.Retryable(), ee.Kind)
			}
			if !strings.Contains(err.Error(), tc.wantKind) {
				t.Errorf("Error() = %q does not name the kind", err.Error())
			}
		})
	}
}

func rep(n int, f extblogfake.Fault) []extblogfake.Fault {
	out := make([]extblogfake.Fault, n)
	for i := range out {
		out[i] = f
	}
	return out
}

func secs(s ...int) []time.Duration {
	out := make([]time.Duration, len(s))
	for i, v := range s {
		out[i] = time.Duration(v) * time.Second
	}
	return out
}

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *extblog.Config) { c.MaxAttempts = 7 })
	e.fake.FailNext(7, extblogfake.ServerError())
	_, err := e.client.GetPost(t.Context(), "x")
	if ee := mustExtBlogError(t, err); ee.Attempts != 7 || ee.Kind != folio.ExtBlogNetwork {
		t.Fatalf("got %+v", ee)
	}
	if want := secs(1, 2, 4, 8, 10, 10); !reflect.DeepEqual(e.sleep.got(), want) {
		t.Errorf("delays %v, want %v", e.sleep.got(), want)
	}
	if !strings.Contains(e.logs.String(), "extblog retry") {
		t.Errorf("retries were not logged: %q", e.logs.String())
	}
}

func TestSlowReplyIsRetriedAfterTheAttemptTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *extblog.Config) { c.AttemptTimeout = 50 * time.Millisecond })
	id := e.fake.AddPost(extblogfake.Post{Title: "T", Slug: "t", ContentMarkdown: "c"})
	e.fake.FailNext(1, extblogfake.Slow(time.Hour))
	post, err := e.client.GetPost(t.Context(), id)
	if err != nil || post.ID != id {
		t.Fatalf("GetPost = %+v, %v", post, err)
	}
	if n := len(e.fake.Calls()); n != 2 {
		t.Errorf("made %d requests, want 2", n)
	}

	e.fake.FailNext(3, extblogfake.Slow(time.Hour))
	_, err = e.client.GetPost(t.Context(), id)
	ee := mustExtBlogError(t, err)
	if ee.Kind != folio.ExtBlogNetwork || ee.Attempts != 3 || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %+v (%v), want NETWORK_ERROR wrapping the deadline after 3 attempts", ee, err)
	}
}

func TestCallerCancellationStopsRetries(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	e.fake.FailNext(1, extblogfake.Slow(time.Hour))
	go func() {
		for len(e.fake.Calls()) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := e.client.GetPost(ctx, "x")
	ee := mustExtBlogError(t, err)
	if ee.Kind != folio.ExtBlogNetwork || ee.Attempts != 1 || !errors.Is(err, context.Canceled) {
		t.Errorf("got %+v (%v), want one attempt ending in context.Canceled", ee, err)
	}
}

func TestNoRetryPastTheCallersDeadline(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.fake.FailNext(3, extblogfake.ServerError())
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond) // shorter than the 1 s backoff
	defer cancel()
	_, err := e.client.GetPost(ctx, "x")
	if ee := mustExtBlogError(t, err); ee.Attempts != 1 || len(e.sleep.got()) != 0 {
		t.Errorf("got %+v after %v delays, want one attempt and no wait", ee, e.sleep.got())
	}
}

func TestTransportFailureIsNetworkError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	s := &sleeper{}
	c, err := extblog.New(extblog.Config{URL: url, Token: extblog.StaticToken("tok"), PublicationID: "p", Sleep: s.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetPost(t.Context(), "x")
	if ee := mustExtBlogError(t, err); ee.Kind != folio.ExtBlogNetwork || ee.Attempts != 3 || ee.Err == nil {
		t.Errorf("got %+v", ee)
	}
}

func TestPublishNeverDuplicatesAfterALostReply(t *testing.T) {
	t.Parallel()
	t.Run("reply lost after the post was created", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, nil)
		e.fake.FailNext(1, extblogfake.LostReply())
		got, err := e.client.Publish(t.Context(), fullArticle())
		if err != nil {
			t.Fatalf("Publish: %v", err)
		}
		posts := e.fake.Posts()
		if len(posts) != 1 || posts[0].ID != got.ID {
			t.Fatalf("platform holds %d posts (returned %s), want exactly the one", len(posts), got.ID)
		}
		if e.fake.CallCount(extblog.OpPublishPost) != 1 || e.fake.CallCount(extblog.OpFindPostBySlug) != 1 {
			t.Errorf("calls: %d publish, %d lookups; want 1 and 1", e.fake.CallCount(extblog.OpPublishPost),
				e.fake.CallCount(extblog.OpFindPostBySlug))
		}
	})
	t.Run("server error before anything was created", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, nil)
		e.fake.FailNext(1, extblogfake.ServerError())
		if _, err := e.client.Publish(t.Context(), fullArticle()); err != nil {
			t.Fatalf("Publish: %v", err)
		}
		if n := len(e.fake.Posts()); n != 1 {
			t.Errorf("platform holds %d posts, want 1", n)
		}
	})
	t.Run("the lookup fails too", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, func(c *extblog.Config) { c.MaxAttempts = 4 })
		e.fake.FailNext(1, extblogfake.LostReply())
		e.fake.FailNext(1, extblogfake.ServerError()) // the slug lookup
		got, err := e.client.Publish(t.Context(), fullArticle())
		if err != nil {
			t.Fatalf("Publish: %v", err)
		}
		if posts := e.fake.Posts(); len(posts) != 1 || posts[0].ID != got.ID {
			t.Errorf("platform holds %d posts, want 1", len(posts))
		}
	})
	t.Run("without a slug an ambiguous failure is not retried", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, nil)
		e.fake.FailNext(1, extblogfake.LostReply())
		a := fullArticle()
		a.Slug = ""
		_, err := e.client.Publish(t.Context(), a)
		if ee := mustExtBlogError(t, err); ee.Kind != folio.ExtBlogNetwork || ee.Attempts != 1 {
			t.Errorf("got %+v, want NETWORK_ERROR after one attempt", ee)
		}
		if n := len(e.fake.Posts()); n != 1 {
			t.Errorf("platform holds %d posts, want the 1 the lost attempt made", n)
		}
	})
	t.Run("a rate limit is retried without a lookup", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, nil)
		e.fake.FailNext(1, extblogfake.RateLimited("1"))
		if _, err := e.client.Publish(t.Context(), fullArticle()); err != nil {
			t.Fatalf("Publish: %v", err)
		}
		if n := e.fake.CallCount(extblog.OpFindPostBySlug); n != 0 {
			t.Errorf("made %d lookups, want 0", n)
		}
	})
}

func TestRemoveAfterALostReplySucceeds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	id := e.fake.AddPost(extblogfake.Post{Title: "T", Slug: "t", ContentMarkdown: "c"})
	e.fake.FailNext(1, extblogfake.LostReply())
	if err := e.client.Remove(t.Context(), id); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if p, _ := e.fake.Post(id); !p.Removed {
		t.Error("post not removed")
	}
}

func TestInvalidInputNeverReachesThePlatform(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := t.Context()
	bad := fullArticle()
	bad.Title = ""
	bad.Tags = append(bad.Tags, folio.ExtBlogTag{Name: "no slug"})
	_, err := e.client.Publish(ctx, bad)
	ee := mustExtBlogError(t, err)
	var fe *folio.Error
	if ee.Kind != folio.ExtBlogValidation || !errors.As(err, &fe) || len(fe.Details) != 2 {
		t.Errorf("Publish(invalid) = %v, want VALIDATION_ERROR wrapping the field errors", err)
	}
	_, err = e.client.Update(ctx, "", fullArticle())
	if ee := mustExtBlogError(t, err); ee.Kind != folio.ExtBlogValidation {
		t.Errorf("Update without id: %v", err)
	}
	for _, first := range []int{0, 51} {
		_, err = e.client.ListPosts(ctx, first, "")
		if ee := mustExtBlogError(t, err); ee.Kind != folio.ExtBlogValidation {
			t.Errorf("ListPosts(first=%d): %v", first, err)
		}
	}
	if n := len(e.fake.Calls()); n != 0 {
		t.Errorf("made %d requests, want 0", n)
	}
}

func TestPlatformRejectsInvalidInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	_, err := e.client.Update(t.Context(), "65b24b924bf2eb3cffffffff", fullArticle())
	if ee := mustExtBlogError(t, err); !ee.NotFound || ee.Attempts != 1 {
		t.Errorf("got %+v", ee)
	}
	e2 := newEnv(t, func(c *extblog.Config) { c.PublicationID = "64f0c0ffee0000000000ffff" })
	_, err = e2.client.Publish(t.Context(), fullArticle())
	if ee := mustExtBlogError(t, err); !ee.NotFound || ee.Kind != folio.ExtBlogValidation {
		t.Errorf("publish to an unknown publication: %+v", ee)
	}
}

func TestNewRejectsIncompleteConfig(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]extblog.Config{
		"no token":          {PublicationID: "p"},
		"no publication id": {Token: extblog.StaticToken("t")},
		"relative URL":      {URL: "gql.example.test", Token: extblog.StaticToken("t"), PublicationID: "p"},
		"ftp URL":           {URL: "ftp://gql.example.test", Token: extblog.StaticToken("t"), PublicationID: "p"},
	} {
		if _, err := extblog.New(cfg); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
	c, err := extblog.New(extblog.Config{Token: extblog.StaticToken("t"), PublicationID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Backoff(1) != time.Second || c.Backoff(3) != 4*time.Second || c.Backoff(10) != 10*time.Second {
		t.Errorf("default backoff: %v %v %v", c.Backoff(1), c.Backoff(3), c.Backoff(10))
	}
}
