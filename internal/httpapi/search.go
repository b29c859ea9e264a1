package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/search"
	"github.com/foliohq/folio/internal/sqldb"
)

type tagList struct {
	Tags []sqldb.TagCount `json:"tags"`
}

// searchRoutes are full-text search and the blog's tag index and JSON Feed (CONTRACT §9).
func (s *Server) searchRoutes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/search", Handle: s.search,
			Tag: "Search", Summary: "Full-text search over posts and projects: every word must occur as a word prefix, case and " +
				"diacritics folded, best first; public callers find published items only, write+ finds drafts and archived items too",
			Query: []param{{Name: "q", Type: "string", Required: true, Doc: "the words to find (1–200 characters; at most 8 words are used)"},
				{Name: "type", Type: "string", Doc: "post or project (default both)"}, pageParam, limitParam},
			Status: http.StatusOK, Resp: folio.SearchPage{}},
		{Method: "GET", Pattern: "/api/blog/tags", Handle: s.blogTags, Cache: scopePosts,
			Tag: "Blog", Summary: "Tags of published posts with their counts, most used first (tags lowercased)",
			Status: http.StatusOK, Resp: tagList{}},
		{Method: "GET", Pattern: "/api/blog/feed.json", Handle: s.blogJSONFeed, Cache: scopePosts,
			Tag: "Blog", Summary: "JSON Feed 1.1 of the 20 newest published posts (ETag/Last-Modified; 304 on a conditional GET)",
			Query:  []param{{Name: "tag", Type: "string", Doc: "only posts with this tag (case-insensitive)"}},
			Status: http.StatusOK, RespType: "application/feed+json"},
	}
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	qs := r.URL.Query()
	q := strings.TrimSpace(qs.Get("q"))
	if q == "" {
		return folio.BadRequest("q", "is required")
	}
	if !utf8.ValidString(q) || utf8.RuneCountInString(q) > search.MaxQueryLen {
		return folio.BadRequest("q", "must be valid text of at most %d characters", search.MaxQueryLen)
	}
	typ := qs.Get("type")
	switch typ {
	case "", folio.SearchTypePost, folio.SearchTypeProject:
	default:
		return folio.BadRequest("type", "must be post or project")
	}
	res, total, err := s.DB.Content.Search(r.Context(), folio.SearchQuery{Q: q, Type: typ, All: canSeeDrafts(r), Page: page, Limit: limit})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, folio.SearchPage{Results: res, Total: total, Page: page, Limit: limit})
}

func (s *Server) blogTags(w http.ResponseWriter, r *http.Request) error {
	tags, err := s.DB.Content.Tags(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, tagList{Tags: tags})
}

// feedTag reads the optional tag parameter of the feeds.
func feedTag(r *http.Request) (string, error) {
	tag := strings.TrimSpace(r.URL.Query().Get("tag"))
	if utf8.RuneCountInString(tag) > folio.MaxPostTagLen {
		return "", folio.BadRequest("tag", "must be at most %d characters", folio.MaxPostTagLen)
	}
	return tag, nil
}

// feedPostsFor returns the newest published posts of the feeds, with the tag when one is given.
func (s *Server) feedPostsFor(r *http.Request, tag string) ([]*folio.Post, error) {
	ps, _, err := s.DB.Content.Posts(r.Context(), folio.PostFilter{Statuses: []string{folio.PostPublished}, Tag: tag, Page: 1, Limit: feedPosts, WithContent: true})
	return ps, err
}

// JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/).
type jsonFeed struct {
	Version     string           `json:"version"`
	Title       string           `json:"title"`
	HomePageURL string           `json:"home_page_url,omitempty"`
	FeedURL     string           `json:"feed_url,omitempty"`
	Description string           `json:"description,omitempty"`
	Authors     []jsonFeedAuthor `json:"authors,omitempty"`
	Items       []jsonFeedItem   `json:"items"`
}

type jsonFeedAuthor struct {
	Name string `json:"name,omitempty"`
}

type jsonFeedItem struct {
	ID            string           `json:"id"`
	URL           string           `json:"url,omitempty"`
	Title         string           `json:"title,omitempty"`
	ContentHTML   string           `json:"content_html"`
	Summary       string           `json:"summary,omitempty"`
	DatePublished string           `json:"date_published,omitempty"`
	DateModified  string           `json:"date_modified,omitempty"`
	Authors       []jsonFeedAuthor `json:"authors,omitempty"`
	Tags          []string         `json:"tags,omitempty"`
}

const jsonFeedVersion = "https://jsonfeed.org/version/1.1"

func (s *Server) blogJSONFeed(w http.ResponseWriter, r *http.Request) error {
	tag, err := feedTag(r)
	if err != nil {
		return err
	}
	ps, err := s.feedPostsFor(r, tag)
	if err != nil {
		return err
	}
	site := s.siteURL()
	feed := jsonFeed{
		Version:     jsonFeedVersion,
		Title:       "Blog — " + s.siteHost(),
		HomePageURL: site + strings.TrimSuffix(sitePostPath, "/"),
		FeedURL:     site + "/api/blog/feed.json",
		Authors:     []jsonFeedAuthor{{Name: s.siteHost()}},
		Items:       []jsonFeedItem{},
	}
	if tag != "" {
		feed.Title += " — " + tag
		feed.FeedURL += "?tag=" + url.QueryEscape(tag)
	}
	var modified time.Time
	for _, p := range ps {
		if p.UpdatedAt.After(modified) {
			modified = p.UpdatedAt
		}
		it := jsonFeedItem{
			ID:           "urn:uuid:" + p.ID,
			URL:          site + sitePostPath + url.PathEscape(p.Slug),
			Title:        p.Title,
			ContentHTML:  renderMarkdown(p.Content),
			Summary:      p.Excerpt,
			DateModified: atomTime(p.UpdatedAt),
			Tags:         p.Tags,
		}
		if p.PublishedAt != nil {
			it.DatePublished = atomTime(*p.PublishedAt)
		}
		if p.Author.Name != "" {
			it.Authors = []jsonFeedAuthor{{Name: p.Author.Name}}
		}
		feed.Items = append(feed.Items, it)
	}
	if modified.IsZero() {
		modified = time.Unix(0, 0).UTC()
	}
	body, err := json.Marshal(feed)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/feed+json; charset=utf-8")
	h.Set("ETag", etagOf(body))
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "feed.json", modified, bytes.NewReader(body))
	return nil
}
