package httpapi

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/cache"
	"github.com/foliohq/folio/internal/extblog"
)

// ExtBlog configures the external blog platform's routes: the cached GET /api/posts listing,
// the dashboard's publish/unpublish/delete and the inbound webhook. A nil Server.ExtBlog, or a
// nil Platform, answers 503 naming the missing variables.
type ExtBlog struct {
	// Platform is the platform client; nil when it is not configured.
	Platform folio.ExtBlog
	// Missing names the unset variables that keep the platform unconfigured, for the 503 message.
	Missing []string
	// Publisher publishes dashboard articles and applies webhook events.
	Publisher ExtBlogPublisher
	// Cache holds rendered listings (Redis when REDIS_URL is set); nil keeps a private in-memory one.
	Cache folio.Cache
	// CacheTTL is how long a listing is fresh (EXTBLOG_CACHE_SECONDS); 0 means an hour.
	CacheTTL time.Duration
	// StaleFor is how long past CacheTTL a listing is kept to be served when the platform fails;
	// 0 means 7 days.
	StaleFor time.Duration
	// WebhookSecret is EXTBLOG_WEBHOOK_SECRET; empty refuses every delivery (401).
	WebhookSecret string
	// WebhookTolerance is the accepted clock difference of signed timestamps (0: 300 s).
	WebhookTolerance time.Duration
	// PublicationID is EXTBLOG_PUBLICATION_ID: webhook events of other publications are ignored.
	PublicationID string

	flight    singleflight.Group
	cacheOnce sync.Once
}

// ExtBlogPublisher is what the routes need of the publishing service (internal/publishing).
// Its errors are *folio.Error values carrying the spec's statuses.
type ExtBlogPublisher interface {
	// Publish publishes (or updates) the article on the platform and returns the post id.
	Publish(ctx context.Context, articleID string) (extblogID string, err error)
	// Unpublish takes the article's post off the platform, keeping its extblogId.
	Unpublish(ctx context.Context, articleID string) error
	// Delete removes the article's post from the platform and clears its extblogId.
	Delete(ctx context.Context, articleID string) error
	// ApplyWebhook applies one verified event; applied is false for a duplicate delivery or an
	// event that changed nothing.
	ApplyWebhook(ctx context.Context, ev extblog.WebhookEvent) (applied bool, err error)
}

// scopeExtblogPosts is the cache generation scope of the GET /api/posts listing; every webhook
// event bumps it.
const scopeExtblogPosts = "extblog-posts"

// ScopeExtblogPosts is exported for internal/cli, which bumps the listing generation of a
// process-local cache when another instance reports a webhook event.
const ScopeExtblogPosts = scopeExtblogPosts

const (
	defaultExtblogTTL      = time.Hour
	defaultExtblogStaleFor = 7 * 24 * time.Hour
	// extblogFetchTimeout bounds one shared upstream fetch; it is detached from the request that
	// started it, since other requests wait for the same result.
	extblogFetchTimeout = 30 * time.Second
	maxWebhookBody      = 1 << 20
)

// extblogAPI serves the external blog platform's listing, the dashboard's publish routes and
// the inbound webhook.
type extblogAPI struct{ *Server }

func (s extblogAPI) routes() []route {
	perm := crossPublishPerm
	return []route{
		{Method: "GET", Pattern: "/api/posts", Handle: s.listExtblogPosts, Needs: needExtblog,
			Tag: "External blog", Summary: "List the posts of the external blog platform's publication (cached; X-Cache: HIT, MISS or STALE)",
			Query: []param{pageParam, limitParam}, Status: http.StatusOK, Resp: extblogPostList{}, Errors: []int{502, 503}},
		{Method: "POST", Pattern: "/api/extblog/publish", Handle: s.extblogPublish, Perm: perm, Needs: needExtblogPublishing,
			Tag: "External blog", Summary: "Publish an article on the platform, or update the post it already has (never a duplicate)",
			Body: extblogArticleRequest{}, Status: http.StatusOK, Resp: extblogPublishResult{}, Errors: []int{413, 502, 503}},
		{Method: "POST", Pattern: "/api/extblog/unpublish", Handle: s.extblogUnpublish, Perm: perm, Needs: needExtblogPublishing,
			Tag: "External blog", Summary: "Take an article's post off the platform (removePost; the article keeps its extblogId)",
			Body: extblogArticleRequest{}, Status: http.StatusOK, Resp: extblogResult{}, Errors: []int{404, 413, 502, 503}},
		{Method: "DELETE", Pattern: "/api/extblog/delete", Handle: s.extblogDelete, Perm: perm, Needs: needExtblogPublishing,
			Tag: "External blog", Summary: "Remove an article's post from the platform and clear its extblogId",
			Body: extblogArticleRequest{}, Status: http.StatusOK, Resp: extblogResult{}, Errors: []int{409, 413, 503}},
		{Method: "POST", Pattern: "/api/extblog/webhook", Handle: s.extblogWebhook, Limit: limitExempt,
			Tag: "External blog", Summary: "Inbound platform events (x-extblog-signature HMAC-SHA256; POST_PUBLISHED, POST_UPDATED, POST_DELETED)",
			Body: extblogWebhookDoc{}, Status: http.StatusNoContent, Errors: []int{401, 413, 502, 503}},
	}
}

// extblogPostSummary is the spec's cached post summary.
type extblogPostSummary struct {
	ID          string     `json:"id"`
	Title       string     `json:"title"`
	Slug        string     `json:"slug"`
	Brief       string     `json:"brief"`
	PublishedAt *time.Time `json:"publishedAt" nullable:"true"`
}

type extblogPagination struct {
	Page    int  `json:"page"`
	Limit   int  `json:"limit"`
	Total   int  `json:"total"`
	HasMore bool `json:"hasMore"`
}

type extblogPostList struct {
	Posts      []extblogPostSummary `json:"posts"`
	Pagination extblogPagination    `json:"pagination"`
}

// cachedListing is what the cache holds for one page: the rendered body and the generation it
// was rendered in, so an invalidated copy can still be served stale.
type cachedListing struct {
	Gen  uint64
	Body []byte
}

// encode lays the entry out as the 8-byte generation followed by the body: reading a HIT then
// costs no parsing of the (already valid) JSON body.
func (c cachedListing) encode() []byte {
	out := make([]byte, 8, 8+len(c.Body))
	binary.BigEndian.PutUint64(out, c.Gen)
	return append(out, c.Body...)
}

func decodeListing(b []byte) (cachedListing, bool) {
	if len(b) <= 8 {
		return cachedListing{}, false
	}
	return cachedListing{Gen: binary.BigEndian.Uint64(b[:8]), Body: b[8:]}, true
}

// listExtblogPosts serves GET /api/posts from the cache: fresh copies (younger than CacheTTL and
// of the current generation) are a HIT; otherwise one shared fetch per page/limit refreshes the
// copy (MISS); when that fetch fails, an older copy is served (STALE) if one is kept.
func (s extblogAPI) listExtblogPosts(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	eb := s.ExtBlog // configured: the route needs it
	store := eb.cache()
	ctx := r.Context()
	key := fmt.Sprintf("extblog:posts:%d:%d", page, limit)
	// A cache that cannot answer (Redis down) degrades to fetching every time, never to an error.
	gen, genErr := store.Generation(ctx, scopeExtblogPosts)
	if genErr != nil {
		s.log(r).Warn("extblog cache unavailable", "error", genErr.Error())
	}
	stale, fresh := s.readListing(r, store, key, gen, genErr == nil)
	if fresh {
		return writeListing(w, "HIT", stale.Body)
	}
	ch := eb.flight.DoChan(fmt.Sprintf("%s:%d", key, gen), func() (any, error) {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), extblogFetchTimeout)
		defer cancel()
		// Another flight may have refreshed the copy between our read and this flight.
		if again, ok := s.readListing(r, store, key, gen, genErr == nil); ok {
			return listingResult{body: again.Body, hit: true}, nil
		}
		posts, total, hasMore, err := extblog.FetchPage(fctx, eb.Platform, page, limit)
		if err != nil {
			return nil, err
		}
		out := extblogPostList{Posts: make([]extblogPostSummary, 0, len(posts)),
			Pagination: extblogPagination{Page: page, Limit: limit, Total: total, HasMore: hasMore}}
		for _, p := range posts {
			item := extblogPostSummary{ID: p.ID, Title: p.Title, Slug: p.Slug, Brief: p.Brief}
			if !p.PublishedAt.IsZero() {
				t := p.PublishedAt.UTC()
				item.PublishedAt = &t
			}
			out.Posts = append(out.Posts, item)
		}
		body, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		if genErr == nil {
			if err := store.Set(fctx, key, cachedListing{Gen: gen, Body: body}.encode(), eb.ttl()+eb.staleFor()); err != nil {
				s.log(r).Warn("extblog cache store failed", "error", err.Error())
			}
		}
		return listingResult{body: body}, nil
	})
	// The fetch goes on for whoever else waits on it (and fills the cache), but this request
	// answers by its own deadline: with a stale copy after staleWait, else at the deadline.
	if stale != nil {
		t := time.NewTimer(staleWait)
		defer t.Stop()
		select {
		case out := <-ch:
			return s.listingAnswer(w, r, out.Val, out.Err, stale)
		case <-t.C:
			s.log(r).Warn("external blog platform is slow; serving the stale listing")
			return writeListing(w, "STALE", stale.Body)
		case <-ctx.Done():
			return writeListing(w, "STALE", stale.Body)
		}
	}
	select {
	case out := <-ch:
		return s.listingAnswer(w, r, out.Val, out.Err, nil)
	case <-ctx.Done():
		return folio.Errorf(folio.EUNAVAILABLE, "The external blog platform is not answering; please try again shortly.")
	}
}

// listingAnswer writes the outcome of a listing fetch: the fresh copy, else the stale one, else
// the platform's error.
func (s extblogAPI) listingAnswer(w http.ResponseWriter, r *http.Request, v any, err error, stale *cachedListing) error {
	if err != nil {
		if stale != nil {
			s.log(r).Warn("external blog platform failed; serving the stale listing", "error", err.Error())
			return writeListing(w, "STALE", stale.Body)
		}
		return listingError(err)
	}
	res := v.(listingResult)
	if res.hit {
		return writeListing(w, "HIT", res.body)
	}
	return writeListing(w, "MISS", res.body)
}

// listingResult is what one shared fetch of a listing page yields.
type listingResult struct {
	body []byte
	hit  bool
}

// staleWait is how long a request that holds a stale copy waits for a fresh one.
const staleWait = 3 * time.Second

// readListing returns the kept copy of key (nil when none) and whether it is fresh.
func (s extblogAPI) readListing(r *http.Request, store folio.Cache, key string, gen uint64, usable bool) (*cachedListing, bool) {
	if !usable {
		return nil, false
	}
	e, ok, err := store.Get(r.Context(), key)
	if err != nil {
		s.log(r).Warn("extblog cache unavailable", "error", err.Error())
		return nil, false
	}
	if !ok {
		return nil, false
	}
	c, ok := decodeListing(e.Value)
	if !ok {
		return nil, false
	}
	// Instances' clocks may disagree a little: a copy from "the future" is fresh, not stale.
	ttl := s.ExtBlog.ttl()
	age := s.now().Sub(e.StoredAt)
	return &c, c.Gen == gen && age > -ttl && age < ttl
}

// writeListing writes a rendered listing as it is (it was marshalled when it was fetched).
func writeListing(w http.ResponseWriter, cacheState string, body []byte) error {
	h := w.Header()
	h.Set("X-Cache", cacheState)
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(body)
	return err
}

// listingError maps a platform failure of the listing: a platform that is down or limiting us
// is 503, anything else it did wrong is 502.
func listingError(err error) error {
	var e *folio.ExtBlogError
	if errors.As(err, &e) {
		switch e.Kind {
		case folio.ExtBlogRateLimit, folio.ExtBlogNetwork:
			return folio.Errorf(folio.EUNAVAILABLE, "The external blog platform is temporarily unavailable; try again later.")
		case folio.ExtBlogAuth:
			return folio.Errorf(folio.EUPSTREAM, "The external blog platform refused the configured API token.")
		}
		return folio.Errorf(folio.EUPSTREAM, "The external blog platform failed to list the posts.")
	}
	return err
}

func (eb *ExtBlog) ttl() time.Duration {
	if eb.CacheTTL > 0 {
		return eb.CacheTTL
	}
	return defaultExtblogTTL
}

func (eb *ExtBlog) staleFor() time.Duration {
	if eb.StaleFor > 0 {
		return eb.StaleFor
	}
	return defaultExtblogStaleFor
}

func (eb *ExtBlog) cache() folio.Cache {
	eb.cacheOnce.Do(func() {
		if eb.Cache == nil {
			eb.Cache = cache.NewMemory(nil, 0)
		}
	})
	return eb.Cache
}

// readRawBody reads at most n bytes of the request body; more is a 413.
func readRawBody(w http.ResponseWriter, r *http.Request, n int64) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, n))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, folio.Errorf(folio.ETOOLARGE, "The request body is larger than %d bytes.", mbe.Limit)
		}
		return nil, folio.BadRequest("", "The request body could not be read.")
	}
	return b, nil
}

// extblogArticleRequest is the body of the three dashboard routes.
type extblogArticleRequest struct {
	ArticleID string `json:"articleId" doc:"id of the dashboard article (blog post)"`
}

type extblogPublishResult struct {
	Success   bool   `json:"success"`
	ExtblogID string `json:"extblogId"`
	Message   string `json:"message"`
}

type extblogResult struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// extblogWebhookDoc documents the spec's webhook payload; the platform's native shape
// {metadata:{uuid}, data:{publication:{id}, post:{id}, eventType}} is accepted too.
type extblogWebhookDoc struct {
	Event string `json:"event" doc:"POST_PUBLISHED, POST_UPDATED or POST_DELETED"`
	Data  struct {
		PostID      string    `json:"postId"`
		Slug        string    `json:"slug,omitempty"`
		Title       string    `json:"title,omitempty"`
		PublishedAt time.Time `json:"publishedAt,omitempty"`
	} `json:"data"`
}

// articleID decodes the body of a dashboard route and returns its articleId.
func articleID(w http.ResponseWriter, r *http.Request) (string, error) {
	var in extblogArticleRequest
	if err := decodeJSON(w, r, &in); err != nil {
		return "", err
	}
	id := strings.TrimSpace(in.ArticleID)
	if id == "" {
		return "", folio.BadRequest("articleId", "is required")
	}
	if len(id) > 200 {
		return "", folio.BadRequest("articleId", "is not a valid article id")
	}
	return id, nil
}

func (s extblogAPI) extblogPublish(w http.ResponseWriter, r *http.Request) error {
	id, err := articleID(w, r)
	if err != nil {
		return err
	}
	postID, err := s.ExtBlog.Publisher.Publish(r.Context(), id)
	if err != nil {
		return err
	}
	s.invalidateExtblogListing(r)
	return writeJSON(w, http.StatusOK, extblogPublishResult{Success: true, ExtblogID: postID,
		Message: "The article is published on the external blog platform."})
}

func (s extblogAPI) extblogUnpublish(w http.ResponseWriter, r *http.Request) error {
	id, err := articleID(w, r)
	if err != nil {
		return err
	}
	if err := s.ExtBlog.Publisher.Unpublish(r.Context(), id); err != nil {
		return err
	}
	s.invalidateExtblogListing(r)
	return writeJSON(w, http.StatusOK, extblogResult{Success: true,
		Message: "The article is unpublished from the external blog platform."})
}

func (s extblogAPI) extblogDelete(w http.ResponseWriter, r *http.Request) error {
	id, err := articleID(w, r)
	if err != nil {
		return err
	}
	if err := s.ExtBlog.Publisher.Delete(r.Context(), id); err != nil {
		return err
	}
	s.invalidateExtblogListing(r)
	return writeJSON(w, http.StatusOK, extblogResult{Success: true,
		Message: "The post is deleted from the external blog platform."})
}

// extblogWebhook verifies, decodes and applies one platform event. The signature is checked
// over the raw bytes before anything is parsed.
func (s extblogAPI) extblogWebhook(w http.ResponseWriter, r *http.Request) error {
	raw, err := readRawBody(w, r, maxWebhookBody)
	if err != nil {
		return err
	}
	eb := s.ExtBlog
	// Without a secret nothing can be verified, so nothing is applied: an unsigned delivery is
	// anyone's delivery. This holds in every environment (development included).
	if eb == nil || eb.WebhookSecret == "" {
		s.log(r).Warn("extblog webhook refused: EXTBLOG_WEBHOOK_SECRET is not set")
		return folio.Errorf(folio.EUNAUTHORIZED, "Webhook deliveries are refused: EXTBLOG_WEBHOOK_SECRET is not set on this server.")
	}
	err = extblog.VerifySignature(r.Header.Get(extblog.SignatureHeader), raw, eb.WebhookSecret, s.now(), eb.WebhookTolerance)
	switch {
	case errors.Is(err, extblog.ErrSignatureMalformed):
		return folio.BadRequest("x-extblog-signature", "is not a valid signature header")
	case err != nil:
		s.log(r).Warn("extblog webhook rejected", "reason", err.Error())
		return folio.Errorf(folio.EUNAUTHORIZED, "Webhook signature verification failed.")
	}
	ev, err := extblog.DecodeWebhook(raw)
	if errors.Is(err, extblog.ErrIgnoredEvent) {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if err != nil {
		return folio.BadRequest("", "Invalid webhook payload: %s.", strings.TrimPrefix(err.Error(), "extblog: "))
	}
	if ev.PublicationID != "" && eb.PublicationID != "" && ev.PublicationID != eb.PublicationID {
		s.log(r).Info("extblog webhook for another publication ignored", "event", ev.Kind)
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	// The route has no Needs: a delivery is verified before anything else is answered, so an
	// unconfigured platform is a 503 only for a correctly signed delivery.
	if err := needExtblogPublishing.missing(s.Server); err != nil {
		return err
	}
	applied, err := eb.Publisher.ApplyWebhook(r.Context(), ev)
	if err != nil {
		return err
	}
	s.invalidateExtblogListing(r)
	s.log(r).Info("extblog webhook", "event", ev.Kind, "post_id", ev.PostID, "delivery_id", ev.DeliveryID, "applied", applied)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// invalidateExtblogListing makes every instance's GET /api/posts copies stale: the generation
// bump reaches all instances at once through a shared (Redis) cache, and the notification
// reaches instances with process-local caches.
func (s *Server) invalidateExtblogListing(r *http.Request) {
	if s.ExtBlog == nil {
		return
	}
	ctx := context.WithoutCancel(r.Context())
	if _, err := s.ExtBlog.cache().Bump(ctx, scopeExtblogPosts); err != nil {
		s.log(r).Warn("extblog cache invalidation failed", "error", err.Error())
	}
	if s.Notifier != nil {
		if err := s.Notifier.Notify(ctx, scopeExtblogPosts); err != nil {
			s.log(r).Warn("extblog cache invalidation notify failed", "error", err.Error())
		}
	}
}
