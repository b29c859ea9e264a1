// Package publishing keeps dashboard articles (blog posts) and their copies on the external blog
// platform in step: it publishes, updates, unpublishes and deletes platform posts for the
// dashboard, and applies the platform's webhook events to the local records. It implements
// folio.ArticlePublisher for the publishing-options route and the scheduler.
package publishing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/extblog"
	"github.com/foliohq/folio/internal/slug"
)

// Service synchronises articles with the platform. Store and Posts are required; Blog nil means
// the platform is not configured (every call answers 503 naming Missing).
type Service struct {
	Store Store
	Posts Posts
	Blog  folio.ExtBlog
	// Missing names the unset variables for the 503 message when Blog is nil.
	Missing []string
	// SiteURL is FOLIO_SITE_URL; canonical URLs are SiteURL + ArticlePath + slug.
	SiteURL string
	// ArticlePath is the path of an article page on the site before its slug; "" means "/blog/".
	ArticlePath string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives one line per platform failure (never the token); nil discards.
	Logger *slog.Logger
	// LeaseFor bounds how long one article's platform publication may hold its lease; 0 means a
	// minute. PollEvery is how often a waiting publication retries it; 0 means 100 ms.
	LeaseFor  time.Duration
	PollEvery time.Duration
	// Published, when set, is called after PublishArticle changed the platform, so the cached
	// platform listing can be made stale (the publishing-options route and the scheduler call
	// PublishArticle outside the extblog routes).
	Published func(ctx context.Context)
}

var _ folio.ArticlePublisher = (*Service)(nil)

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Service) log() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

func (s *Service) unconfigured() error {
	missing := s.Missing
	if len(missing) == 0 {
		missing = []string{"EXTBLOG_API_TOKEN", "EXTBLOG_PUBLICATION_ID"}
	}
	return folio.Errorf(folio.EUNAVAILABLE, "The external blog platform is not configured: set %s.", strings.Join(missing, " and "))
}

// CanonicalURL is the address of the article on the owner's site, sent to the platform as the
// post's original URL.
func (s *Service) CanonicalURL(articleSlug string) string {
	if s.SiteURL == "" || articleSlug == "" {
		return ""
	}
	return strings.TrimRight(s.SiteURL, "/") + s.articlePath() + articleSlug
}

func (s *Service) articlePath() string {
	if s.ArticlePath == "" {
		return "/blog/"
	}
	return s.ArticlePath
}

// Article converts a post into what the platform receives: title, slug, Markdown content, tags
// with name and slug, series, SEO, settings, the publication time (the schedule when there is
// one, with its offset) and the canonical URL.
func (s *Service) Article(p *folio.Post) folio.ExtBlogArticle {
	a := folio.ExtBlogArticle{
		Title: p.Title, Slug: p.Slug, ContentMarkdown: p.Content, SeriesID: p.Series,
		CanonicalURL: s.CanonicalURL(p.Slug),
		Settings:     folio.ExtBlogSettings{EnableComments: true, EnableReactions: true},
	}
	for _, t := range p.Tags {
		ts := slug.Make(t, folio.MaxSlugLen)
		if ts == "" {
			continue // a tag without foldable letters has no platform slug
		}
		a.Tags = append(a.Tags, folio.ExtBlogTag{Name: t, Slug: ts})
	}
	if p.SEO != nil {
		a.SEO = folio.ExtBlogSEO{Title: p.SEO.Title, Description: p.SEO.Description, Image: s.absolute(p.SEO.Image)}
	}
	if p.Settings != nil {
		a.Settings = folio.ExtBlogSettings(*p.Settings)
	}
	switch {
	case p.ScheduledAt != nil:
		a.PublishedAt = *p.ScheduledAt
	case p.PublishedAt != nil:
		a.PublishedAt = *p.PublishedAt
	}
	return a
}

// absolute makes a site path (/media/…) an absolute URL on the site, as the platform needs.
func (s *Service) absolute(u string) string {
	if strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") && s.SiteURL != "" {
		return strings.TrimRight(s.SiteURL, "/") + u
	}
	return u
}

// PublishArticle implements folio.ArticlePublisher: it creates the platform post when the
// article has no extblogId, and otherwise updates it, restoring it first when it was unpublished
// (removed). It never creates a second post for an article: publications of one article are
// serialised across instances by a lease on the article's row, and the article is read again
// once the lease is held. It returns the post id and stores it on the article.
func (s *Service) PublishArticle(ctx context.Context, p *folio.Post) (string, error) {
	if s.Blog == nil {
		return "", s.unconfigured()
	}
	release, err := s.lease(ctx, p.ID)
	if err != nil {
		return "", err
	}
	defer release()
	// Another publication may have finished while we waited.
	cur, err := s.Store.ExtblogState(ctx, p.ID)
	if err != nil {
		return "", err
	}
	a := s.Article(p)
	id := cur.ExtblogID
	switch {
	case id == "":
		post, err := s.Blog.Publish(ctx, a)
		if err != nil {
			return "", err
		}
		id = post.ID
	case cur.Unpublished():
		if err := s.restoreAndUpdate(ctx, id, a); err != nil {
			if !notFound(err) {
				return "", err
			}
			// The platform no longer has the post at all: a new one is not a duplicate.
			post, err := s.Blog.Publish(ctx, a)
			if err != nil {
				return "", err
			}
			id = post.ID
		}
	default:
		if _, err := s.Blog.Update(ctx, id, a); err != nil {
			if !notFound(err) {
				return "", err
			}
			// Removed on the platform since (by someone else): bring it back.
			if err := s.restoreAndUpdate(ctx, id, a); err != nil {
				if !notFound(err) {
					return "", err
				}
				post, err := s.Blog.Publish(ctx, a)
				if err != nil {
					return "", err
				}
				id = post.ID
			}
		}
	}
	if err := s.Store.SetExtblogPublished(ctx, p.ID, id); err != nil {
		return "", err
	}
	if s.Published != nil {
		s.Published(ctx)
	}
	return id, nil
}

func (s *Service) restoreAndUpdate(ctx context.Context, id string, a folio.ExtBlogArticle) error {
	if err := s.Blog.Restore(ctx, id); err != nil {
		return err
	}
	_, err := s.Blog.Update(ctx, id, a)
	return err
}

// lease takes the article's publication lease, waiting while another request (on any instance)
// holds it; the returned function gives it back.
func (s *Service) lease(ctx context.Context, postID string) (func(), error) {
	leaseFor, poll := s.LeaseFor, s.PollEvery
	if leaseFor <= 0 {
		leaseFor = time.Minute
	}
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	token := folio.NewID()
	for {
		ok, err := s.Store.AcquireExtblogLease(ctx, postID, token, s.now(), leaseFor)
		if err != nil {
			return nil, err
		}
		if ok {
			return func() {
				if err := s.Store.ReleaseExtblogLease(context.WithoutCancel(ctx), postID, token); err != nil {
					s.log().Warn("extblog: releasing the publication lease failed", "post_id", postID, "error", err.Error())
				}
			}, nil
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, folio.Errorf(folio.EUNAVAILABLE, "Another publication of this article is still running; try again.")
		case <-t.C:
		}
	}
}

// article loads the article a dashboard route names; an unknown id is 400 (docs/api.md,
// "External blog platform").
func (s *Service) article(ctx context.Context, articleID string) (*folio.Post, error) {
	p, err := s.Posts.Post(ctx, articleID)
	if folio.IsNotFound(err) {
		return nil, folio.BadRequest("articleId", "no article has this id")
	}
	return p, err
}

// Publish is POST /api/extblog/publish: it publishes the article (or updates its post) and
// returns the post id. Errors: 400 invalid articleId or an article the platform rejects, 502
// any other platform failure, 503 not configured.
func (s *Service) Publish(ctx context.Context, articleID string) (string, error) {
	if s.Blog == nil {
		return "", s.unconfigured()
	}
	p, err := s.article(ctx, articleID)
	if err != nil {
		return "", err
	}
	if err := s.Article(p).Validate(); err != nil {
		return "", folio.BadRequest("articleId", "the article cannot be published: it needs a title and content")
	}
	id, err := s.PublishArticle(ctx, p)
	if err != nil {
		return "", s.publishError(err)
	}
	return id, nil
}

func (s *Service) publishError(err error) error {
	var e *folio.ExtBlogError
	if !errors.As(err, &e) {
		return err
	}
	s.log().Warn("extblog publish failed", "error", e.Error())
	if e.Kind == folio.ExtBlogValidation && !e.NotFound {
		return folio.BadRequest("articleId", "the external blog platform rejected the article: %s", e.Message)
	}
	return folio.Errorf(folio.EUPSTREAM, "The external blog platform failed to publish the article (%s).", e.Kind)
}

// Unpublish is POST /api/extblog/unpublish: it removes the post on the platform (which can
// restore it) and marks the article unpublished, keeping its extblogId. Errors: 400 unknown
// article or no extblogId, 404 the platform has no such post, 503 platform rate-limiting or
// unreachable (or not configured), 502 other platform failures. Unpublishing an article already
// unpublished succeeds without calling the platform.
func (s *Service) Unpublish(ctx context.Context, articleID string) error {
	if s.Blog == nil {
		return s.unconfigured()
	}
	p, err := s.article(ctx, articleID)
	if err != nil {
		return err
	}
	st, err := s.Store.ExtblogState(ctx, p.ID)
	if err != nil {
		return err
	}
	if st.ExtblogID == "" {
		return folio.BadRequest("articleId", "the article has no extblogId: it was never published on the platform")
	}
	if st.Unpublished() {
		return nil
	}
	// The mark goes first: the platform's POST_DELETED echo of this removal may arrive before
	// Remove returns, and the mark tells it apart from a deletion on the platform.
	now := s.now()
	if err := s.Store.SetExtblogUnpublished(ctx, p.ID, st.ExtblogID, &now); err != nil {
		return err
	}
	if err := s.Blog.Remove(ctx, st.ExtblogID); err != nil {
		s.undoMark(ctx, p.ID, st)
		var e *folio.ExtBlogError
		if !errors.As(err, &e) {
			return err
		}
		s.log().Warn("extblog unpublish failed", "error", e.Error())
		switch {
		case e.NotFound:
			return folio.Errorf(folio.ENOTFOUND, "The external blog platform has no post %q.", st.ExtblogID)
		case e.Kind == folio.ExtBlogRateLimit || e.Kind == folio.ExtBlogNetwork:
			return folio.Errorf(folio.EUNAVAILABLE, "The external blog platform is temporarily unavailable; try again later.")
		}
		return folio.Errorf(folio.EUPSTREAM, "The external blog platform failed to unpublish the post (%s).", e.Kind)
	}
	return nil
}

// undoMark restores the unpublished mark an interrupted unpublish or delete set.
func (s *Service) undoMark(ctx context.Context, postID string, st folio.ExtblogState) {
	if err := s.Store.SetExtblogUnpublished(context.WithoutCancel(ctx), postID, st.ExtblogID, st.UnpublishedAt); err != nil {
		s.log().Warn("extblog: restoring the unpublished mark failed", "post_id", postID, "error", err.Error())
	}
}

// Delete is DELETE /api/extblog/delete: it removes the post on the platform and clears the
// article's extblogId. A post the platform no longer has counts as removed. Errors: 400 unknown
// article or no extblogId, 409 the platform reported a conflict, 500 anything else.
func (s *Service) Delete(ctx context.Context, articleID string) error {
	if s.Blog == nil {
		return s.unconfigured()
	}
	p, err := s.article(ctx, articleID)
	if err != nil {
		return err
	}
	st, err := s.Store.ExtblogState(ctx, p.ID)
	if err != nil {
		return err
	}
	if st.ExtblogID == "" {
		return folio.BadRequest("articleId", "the article has no extblogId: there is no platform post to delete")
	}
	// Marked first, as in Unpublish, so the POST_DELETED echo does not archive the article.
	if !st.Unpublished() {
		now := s.now()
		if err := s.Store.SetExtblogUnpublished(ctx, p.ID, st.ExtblogID, &now); err != nil {
			return err
		}
	}
	if err := s.Blog.Remove(ctx, st.ExtblogID); err != nil {
		var e *folio.ExtBlogError
		if !errors.As(err, &e) {
			s.undoMark(ctx, p.ID, st)
			return err
		}
		if !e.NotFound {
			s.undoMark(ctx, p.ID, st)
		}
		switch {
		case e.NotFound:
			// Already gone (unpublished before, or removed on the platform): nothing to undo.
		case e.Conflict:
			s.log().Warn("extblog delete refused", "error", e.Error())
			return folio.Errorf(folio.ECONFLICT, "The external blog platform refused to delete the post: %s", e.Message)
		default:
			s.log().Error("extblog delete failed", "error", e.Error())
			return folio.Errorf(folio.EINTERNAL, "The post could not be deleted from the external blog platform; try again.")
		}
	}
	return s.Store.ClearExtblogID(ctx, p.ID, st.ExtblogID)
}

// ApplyWebhook applies one verified platform event to the local records:
//
//   - POST_PUBLISHED and POST_UPDATED read the post from the platform and insert or refresh the
//     article linked to it (linked by extblogId, else by the canonical URL pointing at one of
//     our articles, else a new published article);
//   - POST_DELETED archives the linked article and clears its extblogId — unless the article is
//     marked unpublished, in which case the event is the echo of our own unpublish.
//
// Deliveries with a uuid are applied once. Deletion is final for a platform post id (a
// tombstone is kept) unless folio itself publishes the post again, so an out-of-order
// PUBLISHED/UPDATED after a DELETED changes nothing; PUBLISHED and UPDATED always read the
// post's current state, so their order does not matter either.
func (s *Service) ApplyWebhook(ctx context.Context, ev extblog.WebhookEvent) (bool, error) {
	if s.Blog == nil {
		return false, s.unconfigured()
	}
	if ev.DeliveryID != "" {
		fresh, err := s.Store.ClaimExtblogDelivery(ctx, ev.DeliveryID, ev.Kind, ev.PostID, s.now())
		if err != nil {
			return false, err
		}
		if !fresh {
			return false, nil
		}
	}
	applied, err := s.apply(ctx, ev)
	if err != nil && ev.DeliveryID != "" {
		// Not applied: let the platform's retry of this delivery through.
		if rerr := s.Store.ReleaseExtblogDelivery(context.WithoutCancel(ctx), ev.DeliveryID); rerr != nil {
			s.log().Warn("extblog: releasing a webhook delivery failed", "error", rerr.Error())
		}
	}
	return applied, err
}

func (s *Service) apply(ctx context.Context, ev extblog.WebhookEvent) (bool, error) {
	if ev.Kind == extblog.EventPostDeleted {
		return s.Store.ApplyExtblogDeleted(ctx, ev.PostID, s.now())
	}
	up, ok, err := s.mirrorOf(ctx, ev)
	if err != nil || !ok {
		return false, err
	}
	return s.Store.UpsertExtblogPost(ctx, up)
}

// mirrorOf reads the platform post of a published/updated event and returns what to store
// locally; ok is false when there is nothing to store (tombstoned, gone, or without content).
func (s *Service) mirrorOf(ctx context.Context, ev extblog.WebhookEvent) (up folio.ExtblogUpsert, ok bool, err error) {
	if gone, err := s.Store.ExtblogTombstoned(ctx, ev.PostID); err != nil || gone {
		return up, false, err
	}
	post, err := s.Blog.GetPost(ctx, ev.PostID)
	if err != nil {
		var e *folio.ExtBlogError
		if errors.As(err, &e) {
			if e.NotFound {
				return up, false, nil // nothing left to mirror
			}
			s.log().Warn("extblog webhook: reading the post failed", "error", e.Error())
			if e.Kind == folio.ExtBlogRateLimit || e.Kind == folio.ExtBlogNetwork {
				return up, false, folio.Errorf(folio.EUNAVAILABLE, "The external blog platform is temporarily unavailable; deliver the event again later.")
			}
			return up, false, folio.Errorf(folio.EUPSTREAM, "The external blog platform failed to return the post (%s).", e.Kind)
		}
		return up, false, err
	}
	up = folio.ExtblogUpsert{
		ExtblogID: post.ID, Title: post.Title, Slug: post.Slug, Content: post.ContentMarkdown,
		Excerpt: post.Brief, LinkSlug: s.ourSlug(post.CanonicalURL), Now: s.now(),
	}
	if up.Title == "" {
		up.Title = ev.Title
	}
	if !post.PublishedAt.IsZero() {
		t := post.PublishedAt
		up.PublishedAt = &t
	} else if ev.PublishedAt != nil {
		up.PublishedAt = ev.PublishedAt
	}
	for _, t := range post.Tags {
		up.Tags = append(up.Tags, t.Name)
	}
	if post.ContentMarkdown == "" {
		return up, false, nil // nothing to store: a post always has content on the platform
	}
	return up, true, nil
}

// ourSlug returns the slug of one of our articles when canonical points at it.
func (s *Service) ourSlug(canonical string) string {
	if s.SiteURL == "" {
		return ""
	}
	prefix := strings.TrimRight(s.SiteURL, "/") + s.articlePath()
	if !strings.HasPrefix(canonical, prefix) {
		return ""
	}
	rest := strings.TrimSuffix(canonical[len(prefix):], "/")
	if !folio.ValidSlug(rest) {
		return ""
	}
	return rest
}

func notFound(err error) bool {
	var e *folio.ExtBlogError
	return errors.As(err, &e) && e.NotFound
}

// ImportSummary counts what ImportAll did.
type ImportSummary struct {
	Seen, Changed int
}

// ImportAll copies every published post of the configured publication into local posts (folio
// extblog import): page by page through the platform's cursor, each post read whole and mirrored
// as a platform webhook would — linked by its platform id, so running it again changes nothing;
// a post whose canonical URL names one of our articles is linked to that article instead of
// duplicated. Posts the platform reported deleted (tombstoned) are not brought back.
func (s *Service) ImportAll(ctx context.Context) (ImportSummary, error) {
	var sum ImportSummary
	if s.Blog == nil {
		return sum, folio.Errorf(folio.EUNAVAILABLE, "The external blog is not configured (set %s).", strings.Join(s.Missing, ", "))
	}
	after := ""
	for {
		page, err := s.Blog.ListPosts(ctx, extblog.MaxFirst, after)
		if err != nil {
			return sum, err
		}
		for _, p := range page.Posts {
			sum.Seen++
			up, ok, err := s.mirrorOf(ctx, extblog.WebhookEvent{Kind: extblog.EventPostPublished, PostID: p.ID, Title: p.Title})
			if err != nil {
				return sum, fmt.Errorf("post %s: %w", p.ID, err)
			}
			changed := false
			// Twice: a post linked to one of our articles by its canonical URL is linked by the
			// first upsert and mirrored by the second, so a later run finds nothing to change.
			for i := 0; ok && i < 2; i++ {
				c, err := s.Store.UpsertExtblogPost(ctx, up)
				if err != nil {
					return sum, fmt.Errorf("post %s: %w", p.ID, err)
				}
				changed = changed || c
			}
			if changed {
				sum.Changed++
			}
		}
		if !page.HasNext || page.EndCursor == "" || page.EndCursor == after {
			return sum, nil
		}
		after = page.EndCursor
	}
}
