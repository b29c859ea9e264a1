package extblogfake

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

func (s *Server) mutationRoot() map[string]any {
	payload := func(typename string, p *Post) map[string]any {
		return map[string]any{"__typename": typename, "post": s.postObject(p)}
	}
	input := func(args map[string]any) map[string]any {
		m, _ := args["input"].(map[string]any)
		return m
	}
	return map[string]any{
		"__typename": "Mutation",
		"publishPost": resolver(func(args map[string]any) (any, error) {
			p, err := s.publish(input(args))
			if err != nil {
				return nil, err
			}
			return payload("PublishPostPayload", p), nil
		}),
		"updatePost": resolver(func(args map[string]any) (any, error) {
			p, err := s.update(input(args))
			if err != nil {
				return nil, err
			}
			return payload("UpdatePostPayload", p), nil
		}),
		"removePost": resolver(func(args map[string]any) (any, error) {
			p := s.find(str(input(args)["id"]))
			if p == nil || p.Removed {
				return nil, fail("NOT_FOUND", "Post not found.")
			}
			p.Removed = true
			return payload("RemovePostPayload", p), nil
		}),
		"restorePost": resolver(func(args map[string]any) (any, error) {
			p := s.find(str(input(args)["id"]))
			if p == nil {
				return nil, fail("NOT_FOUND", "Post not found.")
			}
			p.Removed = false
			return payload("RestorePostPayload", p), nil
		}),
	}
}

func (s *Server) publish(in map[string]any) (*Post, error) {
	if str(in["publicationId"]) != s.publicationID {
		return nil, fail("NOT_FOUND", "Publication not found.")
	}
	p := &Post{PublicationID: s.publicationID}
	if err := s.apply(p, in, true); err != nil {
		return nil, err
	}
	if p.PublishedAt.IsZero() {
		p.PublishedAt = s.now()
	}
	p.ID = s.newID()
	s.posts = append(s.posts, p)
	return p, nil
}

func (s *Server) update(in map[string]any) (*Post, error) {
	p := s.find(str(in["id"]))
	if p == nil || p.Removed {
		return nil, fail("NOT_FOUND", "Post not found.")
	}
	if id, ok := in["publicationId"]; ok && id != nil && str(id) != s.publicationID {
		return nil, fail("NOT_FOUND", "Publication not found.")
	}
	cp := *p
	if err := s.apply(&cp, in, false); err != nil {
		return nil, err
	}
	cp.UpdatedAt = s.now()
	*p = cp
	return p, nil
}

// apply copies the input fields that are present onto p, with the platform's checks.
func (s *Server) apply(p *Post, in map[string]any, create bool) error {
	has := func(k string) bool { v, ok := in[k]; return ok && v != nil }
	if has("title") || create {
		if strings.TrimSpace(str(in["title"])) == "" {
			return fail("BAD_USER_INPUT", "Title is required.")
		}
		p.Title = str(in["title"])
	}
	if has("contentMarkdown") || create {
		if strings.TrimSpace(str(in["contentMarkdown"])) == "" {
			return fail("BAD_USER_INPUT", "Content is required.")
		}
		p.ContentMarkdown = str(in["contentMarkdown"])
	}
	if has("subtitle") {
		p.Subtitle = str(in["subtitle"])
	}
	if has("tags") {
		list, _ := in["tags"].([]any)
		if len(list) > 15 {
			return fail("BAD_USER_INPUT", "A post can have at most 15 tags.")
		}
		p.Tags = nil
		for _, t := range list {
			m, _ := t.(map[string]any)
			name, slug := str(m["name"]), str(m["slug"])
			if str(m["id"]) == "" && (name == "" || slug == "") {
				return fail("BAD_USER_INPUT", "Each tag needs an id, or a name and a slug.")
			}
			p.Tags = append(p.Tags, Tag{Name: name, Slug: slug})
		}
	}
	if has("seriesId") {
		p.SeriesID = str(in["seriesId"])
	}
	if m, ok := in["metaTags"].(map[string]any); ok {
		p.MetaTitle, p.MetaDescription, p.MetaImage = str(m["title"]), str(m["description"]), str(m["image"])
	}
	if m, ok := in["coverImageOptions"].(map[string]any); ok {
		p.CoverImageURL = str(m["coverImageURL"])
	}
	if has("originalArticleURL") {
		p.OriginalArticleURL = str(in["originalArticleURL"])
	}
	if has("disableComments") {
		p.DisableComments, _ = in["disableComments"].(bool)
	}
	if m, ok := in["settings"].(map[string]any); ok {
		if v, ok := m["isNewsletterActivated"].(bool); ok {
			p.NewsletterActivated = v
		}
		if v, ok := m["disableComments"].(bool); ok {
			p.DisableComments = v
		}
	}
	if has("publishedAt") {
		t, err := time.Parse(time.RFC3339Nano, str(in["publishedAt"]))
		if err != nil {
			return fail("BAD_USER_INPUT", "publishedAt is not a valid DateTime.")
		}
		p.PublishedAt = t
	}
	slug := p.Slug
	if has("slug") {
		slug = str(in["slug"])
	}
	if slug == "" {
		slug = slugify(p.Title)
	}
	p.Slug = s.uniqueSlug(slug, p.ID)
	return nil
}

// uniqueSlug appends -1, -2, … while another active post of the publication uses slug.
func (s *Server) uniqueSlug(slug, selfID string) string {
	taken := func(c string) bool {
		for _, o := range s.posts {
			if o.ID != selfID && !o.Removed && o.Slug == c {
				return true
			}
		}
		return false
	}
	c := slug
	for i := 1; taken(c); i++ {
		c = fmt.Sprintf("%s-%d", slug, i)
	}
	return c
}

func slugify(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

func toInt(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), v == float64(int(v))
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	}
	return 0, false
}
