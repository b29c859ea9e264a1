package extblogfake

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/foliohq/folio/internal/extblog"
)

// fieldError is a resolver failure reported with a GraphQL error code.
type fieldError struct{ code, msg string }

func (e *fieldError) Error() string { return e.code + ": " + e.msg }

func fail(code, format string, args ...any) error {
	return &fieldError{code: code, msg: fmt.Sprintf(format, args...)}
}

// resolver computes a field's value from its arguments.
type resolver func(args map[string]any) (any, error)

// project returns the parts of v that sel selects. Objects are map[string]any whose values may
// be resolvers; lists are []map[string]any.
func project(sel ast.SelectionSet, v any, vars map[string]any) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		out := map[string]any{}
		if err := projectInto(out, sel, v, vars); err != nil {
			return nil, err
		}
		return out, nil
	case []map[string]any:
		out := make([]any, 0, len(v))
		for _, it := range v {
			p, err := project(sel, it, vars)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		return out, nil
	}
	return nil, fmt.Errorf("extblogfake: cannot select fields of %T", v)
}

func projectInto(out map[string]any, sel ast.SelectionSet, obj map[string]any, vars map[string]any) error {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			val := obj[s.Name]
			if fn, ok := val.(resolver); ok {
				var err error
				if val, err = fn(s.ArgumentMap(vars)); err != nil {
					return err
				}
			}
			if len(s.SelectionSet) > 0 {
				var err error
				if val, err = project(s.SelectionSet, val, vars); err != nil {
					return err
				}
			}
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			out[key] = val
		case *ast.FragmentSpread:
			if err := projectInto(out, s.Definition.SelectionSet, obj, vars); err != nil {
				return err
			}
		case *ast.InlineFragment:
			if err := projectInto(out, s.SelectionSet, obj, vars); err != nil {
				return err
			}
		}
	}
	return nil
}

func timeString(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *Server) queryRoot() map[string]any {
	return map[string]any{
		"__typename": "Query",
		"post": resolver(func(args map[string]any) (any, error) {
			// As on the platform, a removed post can still be read by id.
			if p := s.find(str(args["id"])); p != nil {
				return s.postObject(p), nil
			}
			return nil, nil
		}),
		"publication": resolver(func(args map[string]any) (any, error) {
			host, id := str(args["host"]), str(args["id"])
			if host == "" && id == "" {
				return nil, fail("BAD_USER_INPUT", "Either host or id must be provided.")
			}
			if (host != "" && host != s.host) || (id != "" && id != s.publicationID) {
				return nil, nil
			}
			return s.publicationObject(), nil
		}),
	}
}

func (s *Server) userObject() map[string]any {
	return map[string]any{"__typename": "User", "id": "64f0c0ffee000000000000aa", "username": "owner",
		"name": "Site Owner", "profilePicture": nil}
}

func (s *Server) publicationObject() map[string]any {
	url := "https://" + s.host
	return map[string]any{
		"__typename": "Publication", "id": s.publicationID, "title": "Fake Blog", "displayTitle": nil,
		"url": url, "canonicalURL": url, "isTeam": false, "author": s.userObject(),
		"post": resolver(func(args map[string]any) (any, error) {
			slug := str(args["slug"])
			for _, p := range s.posts {
				if !p.Removed && p.PublicationID == s.publicationID && p.Slug == slug {
					return s.postObject(p), nil
				}
			}
			return nil, nil
		}),
		"posts":  resolver(s.resolvePosts),
		"series": resolver(func(map[string]any) (any, error) { return nil, nil }),
	}
}

// resolvePosts lists the publication's posts newest first; cursors are post ids.
func (s *Server) resolvePosts(args map[string]any) (any, error) {
	first, ok := toInt(args["first"])
	if !ok || first < 1 || first > extblog.MaxFirst {
		return nil, fail("BAD_USER_INPUT", "first must be between 1 and %d.", extblog.MaxFirst)
	}
	deletedOnly := false
	if f, ok := args["filter"].(map[string]any); ok {
		deletedOnly, _ = f["deletedOnly"].(bool)
	}
	var list []*Post
	for _, p := range s.posts {
		if p.PublicationID == s.publicationID && p.Removed == deletedOnly {
			list = append(list, p)
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if !list[i].PublishedAt.Equal(list[j].PublishedAt) {
			return list[i].PublishedAt.After(list[j].PublishedAt)
		}
		return list[i].ID > list[j].ID
	})
	start := 0
	if after := str(args["after"]); after != "" {
		start = -1
		for i, p := range list {
			if p.ID == after {
				start = i + 1
			}
		}
		if start < 0 {
			return nil, fail("BAD_USER_INPUT", "Invalid cursor.")
		}
	}
	end := min(start+first, len(list))
	edges := []map[string]any{}
	for _, p := range list[start:end] {
		edges = append(edges, map[string]any{"__typename": "PostEdge", "cursor": p.ID, "node": s.postObject(p)})
	}
	var endCursor any
	if end > start {
		endCursor = list[end-1].ID
	}
	return map[string]any{
		"__typename": "PublicationPostConnection", "edges": edges, "totalDocuments": len(list),
		"pageInfo": map[string]any{"__typename": "PageInfo", "hasNextPage": end < len(list), "endCursor": endCursor},
	}, nil
}

func brief(md string) string {
	t := strings.Join(strings.Fields(md), " ")
	if len(t) > 250 {
		t = t[:250]
	}
	return t
}

func (s *Server) postObject(p *Post) map[string]any {
	tags := []map[string]any{}
	for _, t := range p.Tags {
		tags = append(tags, map[string]any{"__typename": "Tag", "id": "tag-" + t.Slug, "name": t.Name,
			"slug": t.Slug, "logo": nil, "tagline": nil, "followersCount": 0, "postsCount": 1})
	}
	var series, cover any
	if p.SeriesID != "" {
		series = map[string]any{"__typename": "Series", "id": p.SeriesID, "cuid": nil, "name": "Series",
			"slug": "series", "coverImage": nil, "createdAt": timeString(p.PublishedAt)}
	}
	if p.CoverImageURL != "" {
		cover = map[string]any{"__typename": "PostCoverImage", "url": p.CoverImageURL, "attribution": nil,
			"photographer": nil, "isPortrait": false, "isAttributionHidden": false}
	}
	return map[string]any{
		"__typename": "Post", "id": p.ID, "cuid": nil, "title": p.Title, "subtitle": nullable(p.Subtitle),
		"slug": p.Slug, "previousSlugs": []string{}, "brief": brief(p.ContentMarkdown),
		"url": "https://" + s.host + "/" + p.Slug, "canonicalUrl": nullable(p.OriginalArticleURL),
		"content": map[string]any{"__typename": "Content", "markdown": p.ContentMarkdown,
			"html": p.ContentMarkdown, "text": p.ContentMarkdown},
		"author":      s.userObject(),
		"publication": resolver(func(map[string]any) (any, error) { return s.publicationObject(), nil }),
		"tags":        tags,
		"series":      series,
		"seo": map[string]any{"__typename": "SEO", "title": nullable(p.MetaTitle),
			"description": nullable(p.MetaDescription)},
		"ogMetaData": map[string]any{"__typename": "OpenGraphMetaData", "image": nullable(p.MetaImage)},
		"coverImage": cover,
		"preferences": map[string]any{"__typename": "PostPreferences", "disableComments": p.DisableComments,
			"isDelisted": false, "pinnedToBlog": false, "stickCoverToBottom": false},
		"publishedAt": timeString(p.PublishedAt), "updatedAt": timeString(p.UpdatedAt),
		"readTimeInMinutes": 1, "reactionCount": 0, "responseCount": 0, "views": 0,
	}
}
