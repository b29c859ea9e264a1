package folio

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Post statuses. A post is archived when ArchivedAt is set, whatever its status.
const (
	PostPublished = "published"
	PostDraft     = "draft"
)

// PostAuthor is the user who created a post, copied onto the post when it is created so the
// post stays readable after the account changes or goes away.
type PostAuthor struct {
	ID    string `json:"-"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// PostSEO is a post's search-engine metadata (synchronised to the external platform).
type PostSEO struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Image       string `json:"image,omitempty"`
}

// PostSettings are a post's content settings (synchronised to the external platform).
type PostSettings struct {
	EnableComments  bool `json:"enableComments"`
	EnableReactions bool `json:"enableReactions"`
	Newsletter      bool `json:"newsletter"`
}

// CrossPlatformPublishing says where else a post is published when it is published here.
type CrossPlatformPublishing struct {
	Extblog bool `json:"extblog"`
}

// PostSummary is a post without its content: the items of GET /api/blog. The sync pieces
// (extblogId … archivedAt) are omitted when empty.
type PostSummary struct {
	ID          string     `json:"id"`
	Slug        string     `json:"slug"`
	Title       string     `json:"title"`
	Excerpt     string     `json:"excerpt"`
	Category    string     `json:"category"`
	Tags        []string   `json:"tags"`
	Status      string     `json:"status" doc:"published or draft"`
	PublishedAt *time.Time `json:"publishedAt,omitempty" doc:"set when the post is first published"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	Author      PostAuthor `json:"author"`

	ExtblogID               string                   `json:"extblogId,omitempty" doc:"the post's id on the external blog platform"`
	Series                  string                   `json:"series,omitempty"`
	SEO                     *PostSEO                 `json:"seo,omitempty"`
	Settings                *PostSettings            `json:"settings,omitempty"`
	ScheduledAt             *time.Time               `json:"scheduledAt,omitempty" doc:"when the post is (or was) published by the scheduler"`
	CrossPlatformPublishing *CrossPlatformPublishing `json:"crossPlatformPublishing,omitempty"`
	ArchivedAt              *time.Time               `json:"archivedAt,omitempty" doc:"set when the post was removed from the platform; archived posts are hidden from the public"`
}

// Post is a blog post (the dashboard's "article"): one record for /api/blog and /api/posts.
type Post struct {
	PostSummary
	// Content is Markdown, stored as given.
	Content string `json:"content" doc:"Markdown"`
	// ContentHTML is Content rendered and sanitized; it is computed for responses, never stored.
	ContentHTML string `json:"contentHtml,omitempty" doc:"content rendered to sanitized HTML"`
	// CommentCount is the number of approved comments, computed for the single-post responses
	// when comments are served.
	CommentCount *int `json:"commentCount,omitempty" doc:"approved comments (replies from the fediverse, Webmentions)"`
	// Newsletter is the post's newsletter option, kept beside the post (post_newsletters) and
	// shown in the publishing-options answer.
	Newsletter *PostNewsletter `json:"newsletter,omitempty" doc:"the newsletter option (publishing-options answer)"`
}

// Archived reports whether the post is archived.
func (p *Post) Archived() bool { return p.ArchivedAt != nil }

// Public reports whether anonymous callers may see the post.
func (p *Post) Public() bool { return p.Status == PostPublished && p.ArchivedAt == nil }

// Limits of post fields.
const (
	MaxPostTitleLen    = 200
	MaxPostContentLen  = 500_000
	MaxPostExcerptLen  = 1000
	MaxPostCategoryLen = 100
	MaxPostTags        = 20
	MaxPostTagLen      = 50
	MaxSlugLen         = 100
	MaxSeriesLen       = 200
	MaxSEOTitleLen     = 200
	MaxSEODescLen      = 500
	// AutoExcerptLen is the length of the excerpt made from the content when none is given.
	AutoExcerptLen = 200
)

var slugRule = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidSlug reports whether s is a well-formed slug: lowercase ASCII letters and digits in
// groups joined by single hyphens, at most MaxSlugLen characters.
func ValidSlug(s string) bool { return len(s) <= MaxSlugLen && slugRule.MatchString(s) }

// PostInput creates (POST) or changes (PUT) a post. Pointer fields tell "absent" from "empty":
// on PUT absent fields keep their value and present ones replace it.
type PostInput struct {
	Title    *string       `json:"title" doc:"required on create"`
	Slug     *string       `json:"slug" doc:"lowercase letters, digits and single hyphens, ≤ 100; derived from the title when absent"`
	Content  *string       `json:"content" doc:"Markdown; required on create"`
	Excerpt  *string       `json:"excerpt" doc:"derived from the content when absent on create"`
	Category *string       `json:"category"`
	Tags     *[]string     `json:"tags"`
	Status   *string       `json:"status" doc:"draft (default) or published"`
	Series   *string       `json:"series"`
	SEO      *PostSEO      `json:"seo"`
	Settings *PostSettings `json:"settings"`
}

// Validate checks the input. On create (creating true) title and content are required; on
// update a present title or content must not be blank. A missing field is a 400, a broken rule
// a 422.
func (in *PostInput) Validate(creating bool) error {
	var v Validation
	if creating || in.Title != nil {
		requiredText(&v, "title", in.Title, MaxPostTitleLen)
	}
	if creating || in.Content != nil {
		if in.Content == nil || strings.TrimSpace(*in.Content) == "" {
			v.Missing("content")
		} else if utf8.RuneCountInString(*in.Content) > MaxPostContentLen {
			v.Invalid("content", "must be at most %d characters", MaxPostContentLen)
		}
	}
	if in.Slug != nil && *in.Slug != "" && !ValidSlug(*in.Slug) {
		v.Invalid("slug", "must be lowercase letters and digits joined by single hyphens, at most %d characters", MaxSlugLen)
	}
	maxText(&v, "excerpt", in.Excerpt, MaxPostExcerptLen)
	maxText(&v, "category", in.Category, MaxPostCategoryLen)
	maxText(&v, "series", in.Series, MaxSeriesLen)
	if in.Status != nil {
		switch *in.Status {
		case PostPublished, PostDraft:
		default:
			v.Invalid("status", "must be published or draft")
		}
	}
	if in.Tags != nil {
		validateTags(&v, *in.Tags)
	}
	if in.SEO != nil {
		validateSEO(&v, *in.SEO)
	}
	return v.Err()
}

func validateTags(v *Validation, tags []string) {
	if len(tags) > MaxPostTags {
		v.Invalid("tags", "must list at most %d tags", MaxPostTags)
	}
	seen := map[string]bool{}
	for i, t := range tags {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
			v.Invalid(indexed("tags", i), "must not be empty")
		case utf8.RuneCountInString(t) > MaxPostTagLen:
			v.Invalid(indexed("tags", i), "must be at most %d characters", MaxPostTagLen)
		case seen[strings.ToLower(t)]:
			v.Invalid(indexed("tags", i), "is listed twice")
		}
		seen[strings.ToLower(t)] = true
	}
}

func validateSEO(v *Validation, s PostSEO) {
	if utf8.RuneCountInString(s.Title) > MaxSEOTitleLen {
		v.Invalid("seo.title", "must be at most %d characters", MaxSEOTitleLen)
	}
	if utf8.RuneCountInString(s.Description) > MaxSEODescLen {
		v.Invalid("seo.description", "must be at most %d characters", MaxSEODescLen)
	}
	if img := strings.TrimSpace(s.Image); img != "" {
		if len(img) > MaxURLLen {
			v.Invalid("seo.image", "must be at most %d characters", MaxURLLen)
		} else if !isHTTPURL(img) && !(strings.HasPrefix(img, "/") && !strings.HasPrefix(img, "//")) {
			v.Invalid("seo.image", "must be an http(s) URL or a path on this site")
		}
	}
}

func maxText(v *Validation, field string, s *string, max int) {
	if s != nil && utf8.RuneCountInString(strings.TrimSpace(*s)) > max {
		v.Invalid(field, "must be at most %d characters", max)
	}
}

// Apply copies the present fields of in onto p, trimming text and normalising lists. It does not
// touch the slug (the store owns slugs) nor publishedAt (set by the store on first publish).
func (in *PostInput) Apply(p *Post) {
	if in.Title != nil {
		p.Title = strings.TrimSpace(*in.Title)
	}
	if in.Content != nil {
		p.Content = *in.Content
	}
	if in.Excerpt != nil {
		p.Excerpt = strings.TrimSpace(*in.Excerpt)
	}
	if in.Category != nil {
		p.Category = strings.TrimSpace(*in.Category)
	}
	if in.Tags != nil {
		p.Tags = make([]string, 0, len(*in.Tags))
		for _, t := range *in.Tags {
			p.Tags = append(p.Tags, strings.TrimSpace(t))
		}
	}
	if in.Status != nil {
		p.Status = *in.Status
	}
	if in.Series != nil {
		p.Series = strings.TrimSpace(*in.Series)
	}
	if in.SEO != nil {
		p.SEO = normSEO(*in.SEO)
	}
	if in.Settings != nil {
		s := *in.Settings
		p.Settings = &s
	}
	if p.Tags == nil {
		p.Tags = []string{}
	}
	if p.Status == "" {
		p.Status = PostDraft
	}
}

func normSEO(s PostSEO) *PostSEO {
	s = PostSEO{Title: strings.TrimSpace(s.Title), Description: strings.TrimSpace(s.Description), Image: strings.TrimSpace(s.Image)}
	if s == (PostSEO{}) {
		return nil
	}
	return &s
}

// Excerpt returns a plain-text excerpt of Markdown: the first paragraph of prose, without
// Markdown punctuation, cut at a word boundary to at most max characters (with "…").
func Excerpt(markdown string, max int) string {
	var words []string
	inFence := false
	for _, line := range strings.Split(markdown, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || t == "" && len(words) == 0 {
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") && len(words) > 0 {
			break
		}
		if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "![") || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "|") {
			continue
		}
		t = strings.TrimLeft(t, ">-*+ ")
		t = mdLink.ReplaceAllString(t, "$1")
		t = strings.NewReplacer("**", "", "__", "", "`", "", "*", "", "~~", "").Replace(t)
		words = append(words, strings.Fields(t)...)
	}
	out := strings.Join(words, " ")
	if utf8.RuneCountInString(out) <= max {
		return out
	}
	r := []rune(out)
	cut := string(r[:max])
	// Cut at the last word boundary unless the cut already ends a word.
	if i := strings.LastIndexByte(cut, ' '); r[max] != ' ' && i > max/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}

var mdLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// PostFilter selects posts for a list.
type PostFilter struct {
	// Statuses holds published, draft and/or archived; empty selects every post. published and
	// draft select non-archived posts of that status; archived selects archived posts.
	Statuses []string
	Category string // case-insensitive exact category
	Tag      string // case-insensitive exact tag
	Page     int
	Limit    int
	// WithContent loads Content too (lists leave it empty).
	WithContent bool
}

// PostStatusArchived is the list filter value that selects archived posts.
const PostStatusArchived = "archived"

// PublishingOptionsInput is the body of POST /api/articles/publishing-options.
type PublishingOptionsInput struct {
	ArticleID string `json:"articleId" doc:"the post's id"`
	Status    string `json:"status" doc:"published or draft"`
	// ScheduledAt is an RFC 3339 time with offset; a future time schedules the publication, a
	// past one (or none) with status published publishes now.
	ScheduledAt             *string                  `json:"scheduledAt" doc:"RFC 3339 with offset; in the future: published by the scheduler at that time"`
	CrossPlatformPublishing *CrossPlatformPublishing `json:"crossPlatformPublishing"`
	SEO                     *PostSEO                 `json:"seo"`
	Series                  *string                  `json:"series"`
	Settings                *PostSettings            `json:"settings"`
	Newsletter              *PostNewsletter          `json:"newsletter" doc:"newsletter.send mails the post to the subscribers when it becomes published (now, by PUT, or at scheduledAt), once"`
}

// PublishingPlan is a validated PublishingOptionsInput, resolved against the clock.
type PublishingPlan struct {
	PostID string
	// Publish is true when the post is published now.
	Publish bool
	// ScheduledAt is set when the post is to be published by the scheduler at that (future) time.
	ScheduledAt             *time.Time
	CrossPlatformPublishing *CrossPlatformPublishing
	SEO                     *PostSEO
	SEOSet                  bool
	Series                  *string
	Settings                *PostSettings
	Newsletter              *PostNewsletter
}

// Plan validates the input and resolves it against now: status published without a future
// scheduledAt publishes now; a future scheduledAt schedules the publication (the post stays a
// draft until then) whatever the status says; status draft without one unpublishes nothing but
// cancels any schedule.
func (in *PublishingOptionsInput) Plan(now time.Time) (*PublishingPlan, error) {
	var v Validation
	if strings.TrimSpace(in.ArticleID) == "" {
		v.Missing("articleId")
	}
	switch in.Status {
	case PostPublished, PostDraft:
	case "":
		v.Missing("status")
	default:
		v.Invalid("status", "must be published or draft")
	}
	plan := &PublishingPlan{PostID: strings.TrimSpace(in.ArticleID), CrossPlatformPublishing: in.CrossPlatformPublishing,
		Settings: in.Settings, Newsletter: in.Newsletter}
	if in.ScheduledAt != nil && strings.TrimSpace(*in.ScheduledAt) != "" {
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(*in.ScheduledAt))
		switch {
		case err != nil:
			v.Invalid("scheduledAt", "must be an RFC 3339 time with an offset, e.g. 2030-01-02T09:00:00+01:00")
		case t.After(now):
			t = t.UTC().Truncate(time.Microsecond)
			plan.ScheduledAt = &t
		}
	}
	if in.Series != nil {
		s := strings.TrimSpace(*in.Series)
		plan.Series = &s
		maxText(&v, "series", &s, MaxSeriesLen)
	}
	if in.SEO != nil {
		validateSEO(&v, *in.SEO)
		plan.SEO, plan.SEOSet = normSEO(*in.SEO), true
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	plan.Publish = in.Status == PostPublished && plan.ScheduledAt == nil
	return plan, nil
}

// Platform outcomes of a publishing-options save.
const (
	PlatformPublished = "published" // the platform accepted the post (created or updated)
	PlatformFailed    = "failed"    // the platform call failed; the local save stands
	PlatformSkipped   = "skipped"   // nothing was sent (flag off, not publishing, or not configured)
	PlatformScheduled = "scheduled" // sent by the scheduler at scheduledAt
)

// PlatformOutcome reports what happened on the external platform.
type PlatformOutcome struct {
	Status    string `json:"status" doc:"published, failed, skipped or scheduled"`
	ExtblogID string `json:"extblogId,omitempty"`
	Error     string `json:"error,omitempty"`
}

// ArticlePublisher publishes a post on the external blog platform. It creates the post when
// p.ExtblogID is empty and updates (restoring when removed) the platform post otherwise, and
// returns the platform's post id. Errors are *ExtBlogError (never containing the API token) or
// an *Error with EUNAVAILABLE when the platform is not configured.
type ArticlePublisher interface {
	PublishArticle(ctx context.Context, p *Post) (extblogID string, err error)
}

// Data scopes: a write names the scope it changes, so cached responses of that scope are dropped.
const (
	ScopePosts    = "posts"
	ScopeProjects = "projects"
)

// SlugUse tells whether slug is the slug of a post other than the one being written (live) or a
// former slug of another post (former). A store answers it inside the write's transaction.
type SlugUse = func(slug string) (live, former bool, err error)

// PostWrite is one write of a post as the content use case decided it; a store stores all of it
// in one transaction.
type PostWrite struct {
	// Post is the whole row as it is to be stored (its Slug already chosen).
	Post *Post
	// TakeSlug, when set, is a former slug of some post that Post now takes over: its redirect goes.
	TakeSlug string
	// Redirect, when set, is Post's former slug, which from now on redirects to it.
	Redirect string
	// Search is the post's entry in the search index.
	Search SearchDoc
	// Events are the webhook events the write emits.
	Events []Event
	// Jobs, when set, changes the post's pending publish jobs; nil leaves them alone.
	Jobs *PostJobs
	// NewsletterSend, when set, is the post's newsletter.send, stored before Events are
	// emitted (a publication in the same write is mailed when it is on).
	NewsletterSend *bool
}

// PostJobs is what a post write does to the post's pending publish jobs.
type PostJobs struct {
	// Enqueue, when set, is a job to enqueue; a pending job with its key stays as it is.
	Enqueue *Job
	// Keep is the key of the one pending publish job of the post to keep ("": none); the others
	// are dropped. A job already running is left alone: it re-reads the post and does nothing
	// when the schedule it was made for is gone.
	Keep string
}

// PublishJob is the job that publishes p at the time at. Its key names the post and the time, so
// a schedule is enqueued once, and starts with PublishJobKeys(p.ID).
func (p *Post) PublishJob(at time.Time) Job {
	payload, _ := json.Marshal(PublishJobPayload{PostID: p.ID, ScheduledAt: at})
	return Job{Kind: JobPublishPost, Key: PublishJobKeys(p.ID) + at.UTC().Format(time.RFC3339Nano),
		Payload: string(payload), RunAt: at}
}

// PublishJobKeys is the prefix of the keys of the publish jobs of post id.
func PublishJobKeys(postID string) string { return JobPublishPost + ":" + postID + ":" }

// TagCount is a tag and how many published posts carry it.
type TagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// SearchDoc is the search entry of p: found by everyone when published and not archived; the
// title weighs more than the excerpt, category, tags and content (the store folds the text into
// index words).
func (p *Post) SearchDoc() SearchDoc {
	tags, _ := json.Marshal(p.Tags)
	return SearchDoc{Kind: SearchTypePost, ID: p.ID, Visible: p.Public(),
		Title: p.Title, Body: strings.Join([]string{p.Excerpt, p.Category, string(tags), p.Content}, " ")}
}

// Event builds a post event of the given type.
func (p *Post) Event(typ string) Event {
	return Event{Type: typ, Data: PostEventData{ID: p.ID, Slug: p.Slug, Title: p.Title, Excerpt: p.Excerpt,
		Status: p.Status, PublishedAt: p.PublishedAt}}
}

// Transition is post.published or post.unpublished when a write moved p's status (from before)
// across "published"; otherwise no event.
func (p *Post) Transition(before string) []Event {
	switch {
	case before != PostPublished && p.Status == PostPublished:
		return []Event{p.Event(EventPostPublished)}
	case before == PostPublished && p.Status != PostPublished:
		return []Event{p.Event(EventPostUnpublished)}
	}
	return nil
}
