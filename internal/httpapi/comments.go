package httpapi

import (
	"net/http"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/fediverse"
)

// commentsAPI serves the comments of posts (replies from the fediverse and Webmentions) and
// their moderation (docs/api.md, "Comments").
type commentsAPI struct{ *Server }

// publicComment is a comment as anyone may read it.
type publicComment struct {
	ID          string    `json:"id"`
	AuthorName  string    `json:"authorName"`
	AuthorURL   string    `json:"authorUrl"`
	Content     string    `json:"content" doc:"sanitised HTML"`
	Source      string    `json:"source" doc:"activitypub or webmention"`
	PublishedAt time.Time `json:"publishedAt"`
	InReplyTo   string    `json:"inReplyTo,omitempty" doc:"on the owner's reply: the id of the comment it answers"`
}

type publicComments struct {
	Comments   []publicComment `json:"comments"`
	Reactions  folio.Reactions `json:"reactions" doc:"fediverse Likes and Announces (boosts)"`
	Pagination pagination      `json:"pagination"`
}

type commentList struct {
	Comments   []folio.Comment `json:"comments"`
	Pagination pagination      `json:"pagination"`
}

func (s commentsAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/blog/{slug}/comments", Handle: s.postComments, Needs: needComments,
			Tag: "Comments", Summary: "A published post's approved comments, newest first (content sanitised HTML), and its fediverse reactions",
			Query: []param{pageParam, limitParam}, Status: http.StatusOK, Resp: publicComments{}, Errors: []int{404}},
		{Method: "GET", Pattern: "/api/comments", Handle: s.listComments, Level: folio.LevelAdmin, Needs: needComments,
			Tag: "Comments", Summary: "The moderation queue: comments of every post, newest first",
			Query:  []param{{Name: "status", Type: "string", Doc: "pending, approved, rejected or spam (default: all)"}, pageParam, limitParam},
			Status: http.StatusOK, Resp: commentList{}},
		{Method: "POST", Pattern: "/api/comments/{id}/approve", Handle: s.moderate(folio.CommentApproved), Level: folio.LevelAdmin,
			Needs: needComments, Tag: "Comments", Summary: "Approve a comment: it shows on the post", Status: http.StatusOK,
			Resp: folio.Comment{}, Errors: []int{404}},
		{Method: "POST", Pattern: "/api/comments/{id}/reject", Handle: s.moderate(folio.CommentRejected), Level: folio.LevelAdmin,
			Needs: needComments, Tag: "Comments", Summary: "Reject a comment: it no longer shows", Status: http.StatusOK,
			Resp: folio.Comment{}, Errors: []int{404}},
		{Method: "POST", Pattern: "/api/comments/{id}/spam", Handle: s.moderate(folio.CommentSpam), Level: folio.LevelAdmin,
			Needs: needComments, Tag: "Comments", Summary: "Mark a comment spam: it no longer shows, and its author's later comments land as spam",
			Status: http.StatusOK, Resp: folio.Comment{}, Errors: []int{404}},
		{Method: "POST", Pattern: "/api/comments/{id}/reply", Handle: s.reply, Level: folio.LevelAdmin, Needs: needFediverse,
			Tag: "Comments", Summary: "Answer a reply from the fediverse: a Note in reply to it, addressed to its author and delivered signed; " +
				"shown with the post's comments",
			Body: fediverse.ReplyInput{}, Status: http.StatusCreated, Resp: folio.Comment{}, Errors: []int{404, 413, 415, 422, 502}},
	}
}

func (s commentsAPI) reply(w http.ResponseWriter, r *http.Request) error {
	var in fediverse.ReplyInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	c, err := s.Fediverse.Reply(r.Context(), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, c)
}

func (s commentsAPI) postComments(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	p, err := s.Content.PostBySlug(r.Context(), r.PathValue("slug"))
	if err == nil && p.Status != folio.PostPublished {
		err = folio.Errorf(folio.ENOTFOUND, "Post %q was not found.", r.PathValue("slug"))
	}
	if err != nil {
		return err
	}
	cs, total, err := s.Comments.Comments(r.Context(), folio.CommentFilter{PostID: p.ID, Status: folio.CommentApproved, Page: page, Limit: limit})
	if err != nil {
		return err
	}
	reactions, err := s.Comments.Reactions(r.Context(), p.ID)
	if err != nil {
		return err
	}
	out := publicComments{Comments: make([]publicComment, 0, len(cs)), Reactions: reactions, Pagination: newPagination(page, limit, total)}
	for _, c := range cs {
		out.Comments = append(out.Comments, publicComment{ID: c.ID, AuthorName: c.AuthorName, AuthorURL: c.AuthorURL,
			Content: c.Content, Source: c.Source, PublishedAt: c.PublishedAt, InReplyTo: c.InReplyTo})
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s commentsAPI) listComments(w http.ResponseWriter, r *http.Request) error {
	page, limit, err := pageParams(r)
	if err != nil {
		return err
	}
	st := r.URL.Query().Get("status")
	if st != "" && !folio.IsCommentStatus(st) {
		return folio.BadRequest("status", "must be pending, approved, rejected or spam")
	}
	cs, total, err := s.Comments.Comments(r.Context(), folio.CommentFilter{Status: st, Page: page, Limit: limit})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, commentList{Comments: cs, Pagination: newPagination(page, limit, total)})
}

func (s commentsAPI) moderate(status string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		if err := s.Comments.SetCommentStatus(r.Context(), id, status); err != nil {
			return err
		}
		c, err := s.Comments.Comment(r.Context(), id)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, c)
	}
}
