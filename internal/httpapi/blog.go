package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/markdown"
)

const scopePosts = folio.ScopePosts

// postRenderer turns a post's Markdown into sanitized HTML. It holds no state that changes
// after construction, so one serves every request; renderMarkdown is its plain form (feeds).
var (
	postRenderer   = markdown.New()
	renderMarkdown = postRenderer.Render
)

// maxDescribedImages bounds the images of one post looked up in the media library.
const maxDescribedImages = 100

// renderPost renders a post's Markdown for a page: images from the media library get their
// srcset, size and lazy loading (one lookup for all of them). Without the library, or when the
// lookup fails, the images are plain; the text never depends on it.
func (s *Server) renderPost(r *http.Request, src string) string {
	if s.MediaLibrary == nil {
		return renderMarkdown(src)
	}
	return postRenderer.RenderWithImages(src, func(urls []string) map[string]markdown.Image {
		recs, err := s.MediaLibrary.MediaByURL(r.Context(), urls[:min(len(urls), maxDescribedImages)])
		if err != nil {
			s.log(r).Warn("post images: media lookup failed; images without srcset", "error", err.Error())
			return nil
		}
		out := make(map[string]markdown.Image, len(recs))
		for _, m := range recs {
			im := markdown.Image{Width: m.Width, Height: m.Height}
			for _, v := range m.Variants {
				im.Variants = append(im.Variants, markdown.Variant{Width: v.Width, URL: v.URL})
			}
			out[m.URL] = im
		}
		return out
	})
}

type postList struct {
	Posts      []folio.PostSummary `json:"posts" doc:"full posts without content"`
	Pagination pagination          `json:"pagination"`
}

type publishingResult struct {
	Article  *folio.Post           `json:"article"`
	Platform folio.PlatformOutcome `json:"platform"`
}

// blogAPI serves the blog's posts (the Atom and JSON feeds are feedAPI's).
type blogAPI struct{ *Server }

func (s blogAPI) routes() []route {
	listQuery := []param{pageParam, limitParam,
		{Name: "category", Type: "string", Doc: "exact category, case-insensitive"},
		{Name: "status", Type: "string", Doc: "published, draft or archived (comma list); draft and archived need write access"},
		{Name: "tag", Type: "string", Doc: "exact tag, case-insensitive"}}
	return []route{
		{Method: "GET", Pattern: "/api/blog", Handle: s.listPosts, Cache: scopePosts,
			Tag: "Blog", Summary: "List posts, newest first (public callers see published, non-archived posts; write+ sees all and may filter by status)",
			Query: listQuery, Status: http.StatusOK, Resp: postList{}, Errors: []int{401, 403}},
		{Method: "GET", Pattern: "/api/blog/{slug}", Handle: s.getPostBySlug, Cache: scopePosts,
			Tag: "Blog", Summary: "Get one post with content and contentHtml; a former slug answers 301 to the current one",
			Status: http.StatusOK, Resp: folio.Post{}, Errors: []int{404}},
		{Method: "POST", Pattern: "/api/blog", Handle: s.createPost, Level: folio.LevelWrite,
			Tag: "Blog", Summary: "Create a post (title and content required; the slug is derived from the title unless given)",
			Body: folio.PostInput{}, Status: http.StatusCreated, Resp: folio.Post{}, Errors: []int{409, 413, 415, 422}},
		{Method: "PUT", Pattern: "/api/blog/{slug}", Handle: s.updatePostBySlug, Level: folio.LevelWrite,
			Tag: "Blog", Summary: "Change a post: present fields replace, absent ones stay; a new slug keeps the old one redirecting",
			Body: folio.PostInput{}, Status: http.StatusOK, Resp: folio.Post{}, Errors: []int{404, 409, 413, 415, 422}},
		{Method: "DELETE", Pattern: "/api/blog/{slug}", Handle: s.deletePostBySlug, Level: folio.LevelWrite,
			Tag: "Blog", Summary: "Delete a post", Status: http.StatusNoContent, Errors: []int{404}},
		{Method: "POST", Pattern: "/api/posts", Handle: s.createPost, Level: folio.LevelWrite,
			Tag: "Blog", Summary: "Create a post (same as POST /api/blog)",
			Body: folio.PostInput{}, Status: http.StatusCreated, Resp: folio.Post{}, Errors: []int{409, 413, 415, 422}},
		{Method: "GET", Pattern: "/api/posts/{id}", Handle: s.getPostByID, Cache: scopePosts,
			Tag: "Blog", Summary: "Get one post by id", Status: http.StatusOK, Resp: folio.Post{}, Errors: []int{404}},
		{Method: "PUT", Pattern: "/api/posts/{id}", Handle: s.updatePostByID, Level: folio.LevelWrite,
			Tag: "Blog", Summary: "Change a post by id (same rules as PUT /api/blog/{slug})",
			Body: folio.PostInput{}, Status: http.StatusOK, Resp: folio.Post{}, Errors: []int{404, 409, 413, 415, 422}},
		{Method: "DELETE", Pattern: "/api/posts/{id}", Handle: s.deletePostByID, Level: folio.LevelWrite,
			Tag: "Blog", Summary: "Delete a post by id", Status: http.StatusNoContent, Errors: []int{404}},
		{Method: "POST", Pattern: "/api/articles/publishing-options", Handle: s.savePublishingOptions, Level: folio.LevelWrite,
			Tag: "Blog", Summary: "Save an article's publishing options: publish now, schedule, SEO, series, settings, cross-publishing; " +
				"the response carries the article and the platform outcome (a platform failure never loses the local save); " +
				"cross-publishing (crossPlatformPublishing.extblog on) needs manage:articles or an admin key, like /api/extblog/publish (else 403)",
			Body: folio.PublishingOptionsInput{}, Status: http.StatusOK, Resp: publishingResult{}, Errors: []int{404, 413, 415, 422}},
	}
}

func canSeeDrafts(r *http.Request) bool {
	return folio.ActorFrom(r.Context()).AtLeast(folio.LevelWrite)
}

func (s blogAPI) listPosts(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := folio.PostFilter{Page: page, Limit: limit, Category: strings.TrimSpace(q.Get("category")), Tag: strings.TrimSpace(q.Get("tag"))}
	if len(f.Category) > folio.MaxPostCategoryLen*4 {
		return folio.BadRequest("category", "must be at most %d characters", folio.MaxPostCategoryLen)
	}
	if len(f.Tag) > folio.MaxPostTagLen*4 {
		return folio.BadRequest("tag", "must be at most %d characters", folio.MaxPostTagLen)
	}
	if f.Statuses, err = listStatuses(r, "posts"); err != nil {
		return err
	}
	ps, total, err := s.Content.Posts(r.Context(), f)
	if err != nil {
		return err
	}
	out := postList{Posts: make([]folio.PostSummary, 0, len(ps)), Pagination: newPagination(page, limit, total)}
	for _, p := range ps {
		s.publicAuthor(r, &p.PostSummary)
		out.Posts = append(out.Posts, p.PostSummary)
	}
	return writeJSON(w, http.StatusOK, out)
}

// visible returns ENOTFOUND for a post the caller may not see: drafts and archived posts do not
// exist for callers below write level.
func visible(r *http.Request, p *folio.Post, key string) error {
	if !p.Public() && !canSeeDrafts(r) {
		return folio.Errorf(folio.ENOTFOUND, "Post %q was not found.", key)
	}
	return nil
}

func (s *Server) writePost(w http.ResponseWriter, r *http.Request, status int, p *folio.Post) error {
	p.ContentHTML = s.renderPost(r, p.Content)
	return writeJSON(w, status, p)
}

func (s blogAPI) getPostBySlug(w http.ResponseWriter, r *http.Request) error {
	key := r.PathValue("slug")
	p, err := s.Content.PostBySlug(r.Context(), key)
	if err != nil {
		return err
	}
	if err := visible(r, p, key); err != nil {
		return err
	}
	if p.Slug != key {
		loc := "/api/blog/" + url.PathEscape(p.Slug)
		if r.URL.RawQuery != "" {
			loc += "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusMovedPermanently)
		return nil
	}
	s.publicAuthor(r, &p.PostSummary)
	if err := s.withComments(w, r, p); err != nil {
		return err
	}
	return s.writePost(w, r, http.StatusOK, p)
}

func (s blogAPI) getPostByID(w http.ResponseWriter, r *http.Request) error {
	p, err := s.Content.Post(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := visible(r, p, r.PathValue("id")); err != nil {
		return err
	}
	s.publicAuthor(r, &p.PostSummary)
	if err := s.withComments(w, r, p); err != nil {
		return err
	}
	return s.writePost(w, r, http.StatusOK, p)
}

func (s blogAPI) createPost(w http.ResponseWriter, r *http.Request) error {
	var in folio.PostInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(true); err != nil {
		return err
	}
	a := folio.ActorFrom(r.Context())
	p, err := s.Content.CreatePost(r.Context(), &in, folio.PostAuthor{ID: a.UserID, Name: a.Name, Email: a.Email})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/blog/"+p.Slug)
	return s.writePost(w, r, http.StatusCreated, p)
}

// postIDBySlug resolves the current slug of a post for a write. A former slug is 404: writes
// name posts exactly, and the message says where the post went.
func (s blogAPI) postIDBySlug(ctx context.Context, key string) (string, error) {
	p, err := s.Content.PostBySlug(ctx, key)
	if err != nil {
		return "", err
	}
	if p.Slug != key {
		return "", folio.Errorf(folio.ENOTFOUND, "Post %q was renamed; its slug is now %q.", key, p.Slug)
	}
	return p.ID, nil
}

func (s blogAPI) updatePost(w http.ResponseWriter, r *http.Request, id func() (string, error)) error {
	var in folio.PostInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.Validate(false); err != nil {
		return err
	}
	pid, err := id()
	if err != nil {
		return err
	}
	p, err := s.Content.UpdatePost(r.Context(), pid, &in)
	if err != nil {
		return err
	}
	return s.writePost(w, r, http.StatusOK, p)
}

func (s blogAPI) updatePostBySlug(w http.ResponseWriter, r *http.Request) error {
	return s.updatePost(w, r, func() (string, error) { return s.postIDBySlug(r.Context(), r.PathValue("slug")) })
}

func (s blogAPI) updatePostByID(w http.ResponseWriter, r *http.Request) error {
	return s.updatePost(w, r, func() (string, error) { return r.PathValue("id"), nil })
}

func (s blogAPI) deletePostBySlug(w http.ResponseWriter, r *http.Request) error {
	id, err := s.postIDBySlug(r.Context(), r.PathValue("slug"))
	if err != nil {
		return err
	}
	return s.deletePost(w, r, id)
}

func (s blogAPI) deletePostByID(w http.ResponseWriter, r *http.Request) error {
	return s.deletePost(w, r, r.PathValue("id"))
}

func (s blogAPI) deletePost(w http.ResponseWriter, r *http.Request, id string) error {
	if err := s.Content.DeletePost(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// savePublishingOptions saves the options first, then — when publishing now with the extblog
// flag on — hands the article to the platform. The platform's answer is reported, never turned
// into a failed request: the local save stands either way.
func (s blogAPI) savePublishingOptions(w http.ResponseWriter, r *http.Request) error {
	var in folio.PublishingOptionsInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	plan, err := in.Plan(s.now())
	if err != nil {
		return err
	}
	if err := s.mayCrossPublish(r, plan); err != nil {
		return err
	}
	p, err := s.Content.SavePublishingOptions(r.Context(), plan)
	if err != nil {
		return err
	}
	out := publishingResult{Article: p, Platform: folio.PlatformOutcome{Status: folio.PlatformSkipped}}
	cross := p.CrossPlatformPublishing != nil && p.CrossPlatformPublishing.Extblog
	switch {
	case !cross:
	case plan.ScheduledAt != nil:
		out.Platform.Status = folio.PlatformScheduled
	case !plan.Publish:
	case s.ArticlePublisher == nil:
		out.Platform.Error = "The external blog platform is not configured: set EXTBLOG_API_TOKEN and EXTBLOG_PUBLICATION_ID."
	default:
		out.Platform = s.publishOnPlatform(r, p)
	}
	p.ContentHTML = s.renderPost(r, p.Content)
	newsletterAPI(s).fillOption(r, p)
	return writeJSON(w, http.StatusOK, out)
}

// crossPublishPerm is what publishing on the external blog platform needs, through
// /api/extblog/publish (its route row) and through publishing-options alike: one effect, one
// permission.
const crossPublishPerm = folio.PermManageArticles

// mayCrossPublish refuses (403, before anything is saved) a publishing-options request that
// cross-publishes when the caller lacks crossPublishPerm: one that turns
// crossPlatformPublishing.extblog on, or one that publishes or schedules a post whose stored
// flag is on and that does not turn it off.
func (s blogAPI) mayCrossPublish(r *http.Request, plan *folio.PublishingPlan) error {
	if folio.ActorFrom(r.Context()).Has(crossPublishPerm) {
		return nil
	}
	refuse := folio.Errorf(folio.EFORBIDDEN, "Cross-publishing to the external blog needs the %s permission "+
		"(an owner or editor session) or an admin key, as /api/extblog/publish does.", crossPublishPerm)
	if c := plan.CrossPlatformPublishing; c != nil {
		if c.Extblog {
			return refuse
		}
		return nil // turned off by this request
	}
	if !plan.Publish && plan.ScheduledAt == nil {
		return nil
	}
	p, err := s.Content.Post(r.Context(), plan.PostID)
	if err != nil {
		return err
	}
	if p.CrossPlatformPublishing != nil && p.CrossPlatformPublishing.Extblog {
		return refuse
	}
	return nil
}

// publishOnPlatform sends p to the platform and reports the outcome. Messages shown to the
// caller come from *folio.ExtBlogError (scrubbed of the token by the client) or *folio.Error;
// anything else is logged and summarised.
func (s blogAPI) publishOnPlatform(r *http.Request, p *folio.Post) folio.PlatformOutcome {
	id, err := s.ArticlePublisher.PublishArticle(r.Context(), p)
	if err == nil {
		if id != "" && id != p.ExtblogID {
			if err := s.Content.SetPostExtblogID(r.Context(), p.ID, id); err != nil {
				s.log(r).Error("platform post id not stored", "post_id", p.ID, "error", err.Error())
			}
			p.ExtblogID = id
		}
		return folio.PlatformOutcome{Status: folio.PlatformPublished, ExtblogID: p.ExtblogID}
	}
	var xe *folio.ExtBlogError
	var fe *folio.Error
	switch {
	case errors.As(err, &xe):
		s.log(r).Warn("external blog publication failed", "post_id", p.ID, "kind", xe.Kind, "error", err.Error())
		msg := "The external blog platform refused or could not be reached (" + xe.Kind + ")"
		if xe.Message != "" {
			msg += ": " + xe.Message
		}
		return folio.PlatformOutcome{Status: folio.PlatformFailed, Error: msg}
	case errors.As(err, &fe) && fe.Code == folio.EUNAVAILABLE:
		return folio.PlatformOutcome{Status: folio.PlatformSkipped, Error: fe.Message}
	case errors.As(err, &fe):
		return folio.PlatformOutcome{Status: folio.PlatformFailed, Error: fe.Message}
	default:
		s.log(r).Error("external blog publication failed", "post_id", p.ID, "error", err.Error())
		return folio.PlatformOutcome{Status: folio.PlatformFailed, Error: "The external blog platform could not be reached; the article is saved."}
	}
}
