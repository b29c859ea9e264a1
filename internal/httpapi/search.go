package httpapi

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/search"
)

type tagList struct {
	Tags []folio.TagCount `json:"tags"`
}

// searchAPI serves full-text search and the blog's tag index (docs/api.md, search).
type searchAPI struct{ *Server }

func (s searchAPI) routes() []route {
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
	}
}

func (s searchAPI) search(w http.ResponseWriter, r *http.Request) error {
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
	res, total, err := s.Content.Search(r.Context(), folio.SearchQuery{Q: q, Type: typ, All: canSeeDrafts(r), Page: page, Limit: limit})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, folio.SearchPage{Results: res, Total: total, Page: page, Limit: limit})
}

func (s searchAPI) blogTags(w http.ResponseWriter, r *http.Request) error {
	tags, err := s.Content.Tags(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, tagList{Tags: tags})
}
