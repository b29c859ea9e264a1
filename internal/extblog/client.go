// Package extblog is folio's client of the external blog platform (Hashnode's GraphQL API):
// typed documents validated against the platform's schema, error classification, retries with
// backoff, token rotation, and the inbound webhook's signature check and payload decoder.
package extblog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// DefaultURL is the platform's GraphQL endpoint (EXTBLOG_API_URL's default).
const DefaultURL = "https://gql.hashnode.com"

// MaxFirst is the largest window the platform serves in one posts query.
const MaxFirst = 50

// Defaults of Config (docs/api.md, "External blog platform").
const (
	DefaultMaxAttempts    = 3
	DefaultInitialBackoff = time.Second
	DefaultMaxBackoff     = 10 * time.Second
	DefaultAttemptTimeout = 15 * time.Second
)

// maxReplyBytes bounds what is read of one reply; a post's markdown is far smaller.
const maxReplyBytes = 8 << 20

// Config configures a Client. Token and PublicationID are required.
type Config struct {
	// URL is the GraphQL endpoint; empty means DefaultURL.
	URL string
	// Token supplies the API token for every request (sent as the raw Authorization header, as
	// the platform expects).
	Token TokenSource
	// PublicationID is the publication posts are published to (EXTBLOG_PUBLICATION_ID).
	PublicationID string
	// PublicationHost selects the publication for reads (EXTBLOG_PUBLICATION_HOST); empty means
	// reads use PublicationID.
	PublicationHost string
	// HTTPClient sends the requests; nil means a client without a global timeout (each attempt
	// gets AttemptTimeout through its context).
	HTTPClient *http.Client
	// AttemptTimeout bounds one request; 0 means DefaultAttemptTimeout.
	AttemptTimeout time.Duration
	// MaxAttempts is the number of requests per operation, first one included; 0 means 3.
	MaxAttempts int
	// InitialBackoff is the wait before the second attempt; it doubles per attempt up to
	// MaxBackoff. 0 means 1 s and 10 s.
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// Sleep waits between attempts; nil means a timer that stops early when ctx ends. Tests
	// inject one that records the delays and returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used to read an HTTP-date Retry-After; nil means time.Now.
	Now func() time.Time
	// Logger receives one line per retry (operation, attempt, kind, delay; never the token).
	// nil means no logging.
	Logger *slog.Logger
}

// Client talks to the platform. It implements folio.ExtBlog and is safe for concurrent use.
type Client struct {
	cfg  Config
	http *http.Client
}

var _ folio.ExtBlog = (*Client)(nil) // compile-time check

// New returns a Client for cfg, filling in defaults. It fails when the URL is not an absolute
// http(s) URL or when Token or PublicationID is missing.
func New(cfg Config) (*Client, error) {
	if cfg.URL == "" {
		cfg.URL = DefaultURL
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("extblog: API URL %q is not an absolute http(s) URL", cfg.URL)
	}
	if cfg.Token == nil {
		return nil, errors.New("extblog: no API token configured")
	}
	if cfg.PublicationID == "" {
		return nil, errors.New("extblog: no publication id configured")
	}
	if cfg.AttemptTimeout <= 0 {
		cfg.AttemptTimeout = DefaultAttemptTimeout
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	if cfg.InitialBackoff <= 0 {
		cfg.InitialBackoff = DefaultInitialBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.MaxBackoff < cfg.InitialBackoff {
		cfg.MaxBackoff = cfg.InitialBackoff
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleepContext
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{cfg: cfg, http: hc}, nil
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Backoff returns the wait after failed attempt n (1-based): InitialBackoff doubled n-1 times,
// capped at MaxBackoff.
func (c *Client) Backoff(n int) time.Duration {
	d := c.cfg.InitialBackoff
	for i := 1; i < n; i++ {
		d *= 2
		if d >= c.cfg.MaxBackoff {
			return c.cfg.MaxBackoff
		}
	}
	return min(d, c.cfg.MaxBackoff)
}

// ListPosts implements folio.ExtBlog.
func (c *Client) ListPosts(ctx context.Context, first int, after string) (folio.ExtBlogPage, error) {
	if first < 1 || first > MaxFirst {
		return folio.ExtBlogPage{}, localInvalid(OpListPosts, fmt.Sprintf("first must be 1..%d", MaxFirst))
	}
	vars := map[string]any{"first": first, "after": nil, "host": nil, "id": nil}
	if after != "" {
		vars["after"] = after
	}
	if c.cfg.PublicationHost != "" {
		vars["host"] = c.cfg.PublicationHost
	} else {
		vars["id"] = c.cfg.PublicationID
	}
	var data listPostsData
	if err := c.run(ctx, OpListPosts, vars, &data, nil); err != nil {
		return folio.ExtBlogPage{}, err
	}
	if data.Publication == nil {
		return folio.ExtBlogPage{}, &folio.ExtBlogError{Kind: folio.ExtBlogValidation, Op: OpListPosts,
			Message: "publication not found", NotFound: true, Attempts: 1}
	}
	p := data.Publication.Posts
	page := folio.ExtBlogPage{Total: p.TotalDocuments, Posts: make([]folio.ExtBlogPost, 0, len(p.Edges))}
	for _, e := range p.Edges {
		n := e.Node
		page.Posts = append(page.Posts, folio.ExtBlogPost{ID: n.ID, Title: n.Title, Slug: n.Slug,
			Brief: n.Brief, URL: n.URL, PublishedAt: n.PublishedAt})
	}
	if p.PageInfo.HasNextPage != nil {
		page.HasNext = *p.PageInfo.HasNextPage
	}
	if p.PageInfo.EndCursor != nil {
		page.EndCursor = *p.PageInfo.EndCursor
	}
	return page, nil
}

// GetPost implements folio.ExtBlog.
func (c *Client) GetPost(ctx context.Context, id string) (folio.ExtBlogPost, error) {
	if id == "" {
		return folio.ExtBlogPost{}, localInvalid(OpGetPost, "post id is required")
	}
	var data getPostData
	if err := c.run(ctx, OpGetPost, map[string]any{"id": id}, &data, nil); err != nil {
		return folio.ExtBlogPost{}, err
	}
	if data.Post == nil {
		return folio.ExtBlogPost{}, &folio.ExtBlogError{Kind: folio.ExtBlogValidation, Op: OpGetPost,
			Message: "post not found", NotFound: true, Attempts: 1}
	}
	return data.Post.domain(), nil
}

func (p *fullPost) domain() folio.ExtBlogPost {
	out := folio.ExtBlogPost{ID: p.ID, Title: p.Title, Slug: p.Slug, Brief: p.Brief, URL: p.URL,
		PublishedAt: p.PublishedAt, ContentMarkdown: p.Content.Markdown,
		CommentsEnabled: !p.Preferences.DisableComments}
	out.Subtitle = deref(p.Subtitle)
	out.CanonicalURL = deref(p.CanonicalURL)
	if p.UpdatedAt != nil {
		out.UpdatedAt = *p.UpdatedAt
	}
	for _, t := range p.Tags {
		out.Tags = append(out.Tags, folio.ExtBlogTag{Name: t.Name, Slug: t.Slug})
	}
	if p.Series != nil {
		out.SeriesID = p.Series.ID
	}
	if p.SEO != nil {
		out.SEO.Title, out.SEO.Description = deref(p.SEO.Title), deref(p.SEO.Description)
	}
	if p.OGMetaData != nil {
		out.SEO.Image = deref(p.OGMetaData.Image)
	}
	if p.CoverImage != nil {
		out.CoverImageURL = p.CoverImage.URL
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func tagInputs(tags []folio.ExtBlogTag) []tagInput {
	out := make([]tagInput, 0, len(tags))
	for _, t := range tags {
		out = append(out, tagInput(t))
	}
	return out
}

func metaTags(s folio.ExtBlogSEO) *metaTagsInput {
	if s.IsZero() {
		return nil
	}
	return &metaTagsInput{Title: s.Title, Description: s.Description, Image: s.Image}
}

func coverImage(u string) *coverImageOptionsInput {
	if u == "" {
		return nil
	}
	return &coverImageOptionsInput{CoverImageURL: u}
}

func publishedAt(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339) // keeps the article's offset
}

// Publish implements folio.ExtBlog. When an attempt fails in a way that leaves open whether the
// platform created the post (a lost reply, a 5xx), the next attempt first looks the slug up in
// the publication and returns the post it finds instead of publishing a second one. Without a
// slug such failures are not retried.
func (c *Client) Publish(ctx context.Context, a folio.ExtBlogArticle) (folio.ExtBlogPost, error) {
	if err := a.Validate(); err != nil {
		return folio.ExtBlogPost{}, &folio.ExtBlogError{Kind: folio.ExtBlogValidation, Op: OpPublishPost,
			Message: "invalid article", Err: err}
	}
	in := publishPostInput{
		PublicationID: c.cfg.PublicationID, Title: a.Title, Subtitle: a.Subtitle, Slug: a.Slug,
		ContentMarkdown: a.ContentMarkdown, Tags: tagInputs(a.Tags), SeriesID: a.SeriesID,
		MetaTags: metaTags(a.SEO), CoverImageOptions: coverImage(a.CoverImageURL),
		OriginalArticleURL: a.CanonicalURL, DisableComments: !a.Settings.EnableComments,
		PublishedAt: publishedAt(a.PublishedAt),
		Settings:    &publishPostSettingsInput{IsNewsletterActivated: a.Settings.Newsletter},
	}
	body, err := encodeRequest(OpPublishPost, map[string]any{"input": in})
	if err != nil {
		return folio.ExtBlogPost{}, err
	}
	var (
		data       publishPostData
		found      *postSummary
		checkFirst bool // the last attempt may have created the post
	)
	attempt := func(ctx context.Context) *folio.ExtBlogError {
		if checkFirst {
			p, e := c.findBySlug(ctx, a.Slug)
			if e != nil {
				return e // keep checkFirst: never publish blind after an ambiguous failure
			}
			checkFirst = false
			if p != nil {
				found = p
				return nil
			}
		}
		e := c.attempt(ctx, OpPublishPost, body, &data)
		if e != nil && e.Kind == folio.ExtBlogNetwork {
			checkFirst = true
		}
		return e
	}
	canRetry := func(e *folio.ExtBlogError) bool { return !(checkFirst && a.Slug == "") }
	if err := c.retry(ctx, OpPublishPost, attempt, canRetry); err != nil {
		return folio.ExtBlogPost{}, err
	}
	if found != nil {
		return folio.ExtBlogPost{ID: found.ID, Title: found.Title, Slug: found.Slug, URL: found.URL,
			PublishedAt: found.PublishedAt}, nil
	}
	return mutationPost(OpPublishPost, data.PublishPost)
}

func (c *Client) findBySlug(ctx context.Context, slug string) (*postSummary, *folio.ExtBlogError) {
	body, err := encodeRequest(OpFindPostBySlug, map[string]any{"id": c.cfg.PublicationID, "slug": slug})
	if err != nil {
		return nil, err.(*folio.ExtBlogError)
	}
	var data findPostBySlugData
	if e := c.attempt(ctx, OpFindPostBySlug, body, &data); e != nil {
		return nil, e
	}
	if data.Publication == nil {
		return nil, nil
	}
	return data.Publication.Post, nil
}

func mutationPost(op string, d mutationPostData) (folio.ExtBlogPost, error) {
	if d.Post == nil || d.Post.ID == "" {
		return folio.ExtBlogPost{}, &folio.ExtBlogError{Kind: folio.ExtBlogUnknown, Op: op,
			Message: "reply carries no post", Attempts: 1}
	}
	p := d.Post
	return folio.ExtBlogPost{ID: p.ID, Title: p.Title, Slug: p.Slug, URL: p.URL, PublishedAt: p.PublishedAt}, nil
}

// Update implements folio.ExtBlog. Tags, SEO and the comments setting replace the platform's.
func (c *Client) Update(ctx context.Context, id string, a folio.ExtBlogArticle) (folio.ExtBlogPost, error) {
	if id == "" {
		return folio.ExtBlogPost{}, localInvalid(OpUpdatePost, "post id is required")
	}
	if err := a.Validate(); err != nil {
		return folio.ExtBlogPost{}, &folio.ExtBlogError{Kind: folio.ExtBlogValidation, Op: OpUpdatePost,
			Message: "invalid article", Err: err}
	}
	in := updatePostInput{
		ID: id, Title: a.Title, Subtitle: a.Subtitle, Slug: a.Slug, ContentMarkdown: a.ContentMarkdown,
		Tags: tagInputs(a.Tags), SeriesID: a.SeriesID, MetaTags: metaTags(a.SEO),
		CoverImageOptions: coverImage(a.CoverImageURL), OriginalArticleURL: a.CanonicalURL,
		PublishedAt: publishedAt(a.PublishedAt),
		Settings:    &updatePostSettingsInput{DisableComments: !a.Settings.EnableComments},
	}
	var data updatePostData
	if err := c.run(ctx, OpUpdatePost, map[string]any{"input": in}, &data, nil); err != nil {
		return folio.ExtBlogPost{}, err
	}
	return mutationPost(OpUpdatePost, data.UpdatePost)
}

// Remove implements folio.ExtBlog. A NOT_FOUND that follows a failed attempt whose reply was lost
// counts as success: that attempt removed the post.
func (c *Client) Remove(ctx context.Context, id string) error {
	if id == "" {
		return localInvalid(OpRemovePost, "post id is required")
	}
	var data removePostData
	err := c.run(ctx, OpRemovePost, map[string]any{"input": idInput{ID: id}}, &data, nil)
	var e *folio.ExtBlogError
	if errors.As(err, &e) && e.NotFound && e.Attempts > 1 {
		return nil
	}
	return err
}

// Restore implements folio.ExtBlog.
func (c *Client) Restore(ctx context.Context, id string) error {
	if id == "" {
		return localInvalid(OpRestorePost, "post id is required")
	}
	var data restorePostData
	return c.run(ctx, OpRestorePost, map[string]any{"input": idInput{ID: id}}, &data, nil)
}

func localInvalid(op, msg string) *folio.ExtBlogError {
	return &folio.ExtBlogError{Kind: folio.ExtBlogValidation, Op: op, Message: msg}
}

type gqlRequest struct {
	Query         string `json:"query"`
	Variables     any    `json:"variables"`
	OperationName string `json:"operationName"`
}

func encodeRequest(op string, vars any) ([]byte, error) {
	b, err := json.Marshal(gqlRequest{Query: document(op), Variables: vars, OperationName: op})
	if err != nil {
		return nil, &folio.ExtBlogError{Kind: folio.ExtBlogValidation, Op: op, Message: "cannot encode request", Err: err}
	}
	return b, nil
}

// run sends one operation with retries and decodes its data into out.
func (c *Client) run(ctx context.Context, op string, vars any, out any, canRetry func(*folio.ExtBlogError) bool) error {
	body, err := encodeRequest(op, vars)
	if err != nil {
		return err
	}
	return c.retry(ctx, op, func(ctx context.Context) *folio.ExtBlogError {
		return c.attempt(ctx, op, body, out)
	}, canRetry)
}

// retry calls attempt until it succeeds, fails for good, or MaxAttempts is reached (docs/api.md, "External blog platform"):
// only RATE_LIMIT and NETWORK_ERROR are retried, after Backoff(n) or the platform's
// Retry-After when that is longer. A Retry-After beyond MaxBackoff, or a wait that would pass
// ctx's deadline, ends the retries at once so the caller can answer quickly.
func (c *Client) retry(ctx context.Context, op string, attempt func(context.Context) *folio.ExtBlogError,
	canRetry func(*folio.ExtBlogError) bool) error {
	for n := 1; ; n++ {
		e := attempt(ctx)
		if e == nil {
			return nil
		}
		e.Attempts = n
		if ctx.Err() != nil {
			if e.Err == nil {
				e.Err = ctx.Err()
			}
			return e
		}
		if !e.Retryable() || n >= c.cfg.MaxAttempts || (canRetry != nil && !canRetry(e)) {
			return e
		}
		delay := c.Backoff(n)
		if e.RetryAfter > c.cfg.MaxBackoff {
			return e
		}
		delay = max(delay, e.RetryAfter)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < delay {
			return e
		}
		if c.cfg.Logger != nil {
			c.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "extblog retry", slog.String("op", op),
				slog.Int("attempt", n), slog.String("kind", e.Kind), slog.String("code", e.Code),
				slog.Int("status", e.Status), slog.Duration("delay", delay))
		}
		if err := c.cfg.Sleep(ctx, delay); err != nil {
			if e.Err == nil {
				e.Err = err
			}
			return e
		}
	}
}

// attempt makes one request. The token is read for every attempt (so a rotation takes effect
// at once) and scrubbed from everything that goes into the returned error.
func (c *Client) attempt(ctx context.Context, op string, body []byte, out any) *folio.ExtBlogError {
	tok, err := c.cfg.Token.Token()
	if err != nil {
		return &folio.ExtBlogError{Kind: folio.ExtBlogAuth, Op: op, Message: "API token unavailable", Err: err}
	}
	if strings.TrimSpace(tok) == "" {
		return &folio.ExtBlogError{Kind: folio.ExtBlogAuth, Op: op, Message: "API token is empty"}
	}
	actx, cancel := context.WithTimeout(ctx, c.cfg.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return &folio.ExtBlogError{Kind: folio.ExtBlogUnknown, Op: op, Message: "cannot build request", Err: scrubErr(err, tok)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", tok)
	req.Header.Set("User-Agent", "folio/"+folio.Version)
	resp, err := c.http.Do(req)
	if err != nil {
		msg := "request failed"
		if actx.Err() != nil && ctx.Err() == nil {
			msg = "request timed out"
		}
		return &folio.ExtBlogError{Kind: folio.ExtBlogNetwork, Op: op, Message: msg, Err: scrubErr(err, tok)}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes+1))
	if err != nil {
		return &folio.ExtBlogError{Kind: folio.ExtBlogNetwork, Op: op, Status: resp.StatusCode,
			Message: "reading reply failed", Err: scrubErr(err, tok)}
	}
	if len(raw) > maxReplyBytes {
		return &folio.ExtBlogError{Kind: folio.ExtBlogUnknown, Op: op, Status: resp.StatusCode, Message: "reply too large"}
	}
	e := classify(op, resp.StatusCode, resp.Header, raw, out, c.cfg.Now())
	if e != nil {
		e.Message = redact(e.Message, tok)
		e.Code = redact(e.Code, tok)
	}
	return e
}

func redact(s, tok string) string {
	if tok == "" || !strings.Contains(s, tok) {
		return s
	}
	return strings.ReplaceAll(s, tok, "[redacted]")
}

func scrubErr(err error, tok string) error {
	if err == nil || !strings.Contains(err.Error(), tok) {
		return err
	}
	// NB: the original chain is dropped, as any of its errors may print the token.
	return errors.New(redact(err.Error(), tok))
}
