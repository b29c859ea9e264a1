package extblog

import (
	"context"

	"github.com/foliohq/folio"
)

// FetchPage reads page (1-based) of limit posts of the publication through the platform's
// cursor windows, for GET /api/posts's page/limit pagination. It reads windows of at most
// MaxFirst posts until the page is covered or the posts run out, so page p costs about
// p*limit/50 requests. hasMore reports whether posts exist after this page.
func FetchPage(ctx context.Context, eb folio.ExtBlog, page, limit int) (posts []folio.ExtBlogPost, total int, hasMore bool, err error) {
	if page < 1 {
		page = 1
	}
	if limit < 1 {
		limit = 1
	}
	skip, need := (page-1)*limit, page*limit
	var all []folio.ExtBlogPost
	after := ""
	for len(all) < need {
		w, err := eb.ListPosts(ctx, min(MaxFirst, need-len(all)), after)
		if err != nil {
			return nil, 0, false, err
		}
		total = w.Total
		all = append(all, w.Posts...)
		if !w.HasNext || w.EndCursor == "" || len(w.Posts) == 0 {
			break
		}
		after = w.EndCursor
	}
	if skip < len(all) {
		posts = all[skip:min(need, len(all))]
	}
	if posts == nil {
		posts = []folio.ExtBlogPost{}
	}
	hasMore = skip+len(posts) < total
	return posts, total, hasMore, nil
}
