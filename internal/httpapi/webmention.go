package httpapi

import (
	"net/http"

	"github.com/foliohq/folio"
)

// webmentionAPI receives Webmentions (docs/api.md, "Webmention").
type webmentionAPI struct{ *Server }

// maxWebmentionForm bounds the form of one Webmention (two URLs).
const maxWebmentionForm = 16 << 10

func (s webmentionAPI) routes() []route {
	return []route{
		{Method: "POST", Pattern: "/webmention", Handle: s.receive, Needs: needWebmention, Audit: "-",
			Tag: "Comments", Summary: "Receive a Webmention (form: source, target): 202, verified asynchronously (the source must link " +
				"to the target); the target must be a published post's public URL, <FOLIO_SITE_URL>/blog/<slug>, else 400",
			BodyType: "application/x-www-form-urlencoded", Status: http.StatusAccepted, Errors: []int{413, 415}},
	}
}

func (s webmentionAPI) receive(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxWebmentionForm)
	if err := r.ParseForm(); err != nil {
		return folio.BadRequest("body", "must be a form: source=…&target=…")
	}
	if err := s.Webmention.Receive(r.Context(), r.PostForm.Get("source"), r.PostForm.Get("target")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// withComments prepares a single post's response: the Link header that names the Webmention
// endpoint, when it is served, and the post's approved comment count, when comments are.
func (s *Server) withComments(w http.ResponseWriter, r *http.Request, p *folio.Post) error {
	if s.Webmention != nil {
		w.Header().Set("Link", "<"+s.siteURL()+"/webmention>; rel=\"webmention\"")
	}
	if s.Comments == nil {
		return nil
	}
	_, n, err := s.Comments.Comments(r.Context(), folio.CommentFilter{PostID: p.ID, Status: folio.CommentApproved, Page: 1, Limit: 1})
	p.CommentCount = &n
	return err
}
