package folio

import (
	"context"
	"fmt"
	"time"
)

// ExtBlogTag is a tag of a post on the external blog platform. The platform creates a tag it
// does not know from its name and slug.
type ExtBlogTag struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// ExtBlogSEO is the SEO metadata of a post ("metaTags" on the platform).
type ExtBlogSEO struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Image       string `json:"image,omitempty"`
}

// IsZero reports whether no SEO field is set.
func (s ExtBlogSEO) IsZero() bool { return s == ExtBlogSEO{} }

// ExtBlogSettings are the content settings of an article that are synchronised.
//
// NB: the platform has no per-post reactions switch, so EnableReactions is kept locally only;
// Newsletter is honoured when a post is first published (the platform has no newsletter flag on
// update).
type ExtBlogSettings struct {
	EnableComments  bool `json:"enableComments"`
	EnableReactions bool `json:"enableReactions"`
	Newsletter      bool `json:"newsletter"`
}

// ExtBlogArticle is what folio sends to the platform when it publishes or updates a post.
type ExtBlogArticle struct {
	Title           string // required
	Subtitle        string
	Slug            string // empty: the platform derives one from the title
	ContentMarkdown string // required
	Tags            []ExtBlogTag
	SeriesID        string // platform series id; empty: no series
	SEO             ExtBlogSEO
	Settings        ExtBlogSettings
	CoverImageURL   string
	// CanonicalURL points at the article on the owner's site (the platform's originalArticleURL).
	CanonicalURL string
	// PublishedAt is the publication time sent to the platform with its offset kept (zero: now).
	PublishedAt time.Time
}

// Validate checks what the platform requires before anything is sent; it returns a
// VALIDATION_ERROR naming the missing fields.
func (a ExtBlogArticle) Validate() error {
	var v Validation
	if a.Title == "" {
		v.Missing("title")
	}
	if a.ContentMarkdown == "" {
		v.Missing("content")
	}
	for i, t := range a.Tags {
		if t.Name == "" || t.Slug == "" {
			v.Invalid(fmt.Sprintf("tags[%d]", i), "needs a name and a slug")
		}
	}
	return v.Err()
}

// ExtBlogPost is a post as the platform reports it. List results carry the summary fields only
// (ID, Title, Slug, Brief, URL, PublishedAt); GetPost fills the rest.
type ExtBlogPost struct {
	ID              string
	Title           string
	Subtitle        string
	Slug            string
	Brief           string
	URL             string
	ContentMarkdown string
	PublishedAt     time.Time
	UpdatedAt       time.Time // zero when never updated
	Tags            []ExtBlogTag
	SeriesID        string
	SEO             ExtBlogSEO
	CanonicalURL    string
	CoverImageURL   string
	CommentsEnabled bool
}

// ExtBlogPage is one window of a publication's posts, newest first.
type ExtBlogPage struct {
	Posts []ExtBlogPost
	// Total is the number of published posts of the publication.
	Total     int
	HasNext   bool
	EndCursor string // pass as after to read the next window
}

// ExtBlog is the external blog platform (Hashnode). Every method may return an *ExtBlogError;
// implementations retry RATE_LIMIT and NETWORK_ERROR themselves, so an error that reaches the
// caller is final. All methods are safe for concurrent use.
type ExtBlog interface {
	// ListPosts returns up to first (1..50) published posts of the configured publication after
	// the cursor after ("" for the start).
	ListPosts(ctx context.Context, first int, after string) (ExtBlogPage, error)
	// GetPost returns one post with its content; an unknown id is an *ExtBlogError with NotFound.
	GetPost(ctx context.Context, id string) (ExtBlogPost, error)
	// Publish creates a post on the configured publication and returns it (ID, Slug, URL at
	// least). It never creates a second post when a retried attempt had in fact succeeded.
	Publish(ctx context.Context, a ExtBlogArticle) (ExtBlogPost, error)
	// Update replaces the post's synchronised fields with a's.
	Update(ctx context.Context, id string, a ExtBlogArticle) (ExtBlogPost, error)
	// Remove soft-deletes the post (the platform can restore it). NotFound when there is no
	// active post with that id.
	Remove(ctx context.Context, id string) error
	// Restore brings back a removed post.
	Restore(ctx context.Context, id string) error
}

// Kinds of ExtBlogError: whether the platform client retries a failure depends on its kind.
const (
	ExtBlogRateLimit  = "RATE_LIMIT"       // retried; RetryAfter set when the platform said
	ExtBlogAuth       = "AUTH_ERROR"       // never retried; the token must be checked
	ExtBlogValidation = "VALIDATION_ERROR" // never retried; the input (or the id) is wrong
	ExtBlogNetwork    = "NETWORK_ERROR"    // retried; transport failure, 5xx, unreadable reply
	ExtBlogUnknown    = "UNKNOWN_ERROR"    // never retried
)

// ExtBlogError is a failure talking to the platform. It never contains the API token: messages
// taken from the platform are scrubbed of it before they are stored.
type ExtBlogError struct {
	Kind string
	// Op is the GraphQL operation name, e.g. "PublishPost".
	Op string
	// Message is a short description, possibly the platform's own message.
	Message string
	// Status is the HTTP status of the last reply (0 when there was none).
	Status int
	// Code is the GraphQL error extension code of the platform, when it sent one.
	Code string
	// RetryAfter is how long the platform asked us to wait (0 when it did not say).
	RetryAfter time.Duration
	// NotFound is set when the platform has no such post or publication.
	NotFound bool
	// Conflict is set when the platform refused the change as conflicting.
	Conflict bool
	// Attempts is how many requests were made.
	Attempts int
	// Err is the underlying cause (a transport or context error), if any.
	Err error
}

func (e *ExtBlogError) Error() string {
	s := "extblog: " + e.Op + ": " + e.Kind
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause, so errors.Is(err, context.DeadlineExceeded) works.
func (e *ExtBlogError) Unwrap() error { return e.Err }

// Retryable reports whether the failure may go away by itself: RATE_LIMIT and NETWORK_ERROR.
func (e *ExtBlogError) Retryable() bool {
	return e.Kind == ExtBlogRateLimit || e.Kind == ExtBlogNetwork
}

// ExtblogState is an article's link to its platform post.
type ExtblogState struct {
	ExtblogID string
	// UnpublishedAt is set while the platform post is removed (restorable).
	UnpublishedAt *time.Time
}

// Unpublished reports whether the article's platform post is unpublished.
func (s ExtblogState) Unpublished() bool { return s.UnpublishedAt != nil }

// ExtblogUpsert is a platform post's metadata to mirror locally (POST_PUBLISHED/POST_UPDATED).
type ExtblogUpsert struct {
	ExtblogID   string
	Title       string
	Slug        string
	Content     string
	Excerpt     string
	Tags        []string
	PublishedAt *time.Time
	// LinkSlug is the slug of one of our articles the post's canonical URL points at: an article
	// with that slug and no platform link yet is linked instead of a new one being created.
	LinkSlug string
	Now      time.Time
}
