package folio

// Search result types (GET /api/search; docs/api.md, "Search and tags").
const (
	SearchTypePost    = "post"
	SearchTypeProject = "project"
)

// SearchQuery is a full-text search over posts and projects.
type SearchQuery struct {
	// Q is the caller's text; every word of it must occur, as a word prefix, folded for case and
	// diacritics.
	Q string
	// Type is SearchTypePost, SearchTypeProject or "" for both.
	Type string
	// All includes drafts and archived items (callers with write access); otherwise only
	// published posts and projects are found.
	All         bool
	Page, Limit int
}

// SearchResult is one hit of a search, best first. Snippet is HTML: escaped text of the item
// with the matching words wrapped in <mark>…</mark>. Score is higher for better matches; its
// scale depends on the database engine.
type SearchResult struct {
	Type    string  `json:"type"`
	ID      string  `json:"id"`
	Slug    string  `json:"slug,omitempty" doc:"posts only"`
	Title   string  `json:"title"`
	Snippet string  `json:"snippet" doc:"HTML: escaped text with matches in <mark>…</mark>"`
	Score   float64 `json:"score"`
}

// SearchMaxTotal is the most matches a search counts: a larger result reports this total (as
// Elasticsearch's track_total_hits does), so a word found in every post does not cost a full
// count. Ranking still considers every match.
const SearchMaxTotal = 10_000

// SearchPage is the response of GET /api/search.
type SearchPage struct {
	Results []SearchResult `json:"results"`
	Total   int            `json:"total" doc:"number of matches, counted up to 10,000"`
	Page    int            `json:"page"`
	Limit   int            `json:"limit"`
}

// SearchDoc is what one post or project contributes to the search index. Title and Body are
// already folded for the index (lower case, no diacritics, words only).
type SearchDoc struct {
	Kind, ID string
	// Visible says whether callers without write access find it.
	Visible bool
	// Title and Body are the entry's text as written; the search index keeps them folded into
	// words (internal/search).
	Title, Body string
}
