package httpapi

import (
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/foliohq/folio"
)

// dashboardAPI serves the few routes the admin dashboard needs beyond the resources: whether the
// instance still needs its first user (public, one boolean), which optional features are
// configured (authenticated), and a Markdown preview through the same renderer the published
// pages use (write).
type dashboardAPI struct{ *Server }

func (s dashboardAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/setup", Handle: s.setupState,
			Tag: "Dashboard", Summary: "Whether this instance still needs its first user (so the sign-in form can say how to make one); reveals nothing else",
			Status: http.StatusOK, Resp: setupState{}, Errors: []int{503}},
		{Method: "GET", Pattern: "/api/features", Handle: s.listFeatures, Level: folio.LevelRead,
			Tag: "Dashboard", Summary: "The optional features and whether each is configured; a missing one names the variables to set",
			Status: http.StatusOK, Resp: featureList{}},
		{Method: "POST", Pattern: "/api/blog/preview", Handle: s.previewMarkdown, Level: folio.LevelWrite,
			Tag: "Blog", Summary: "Render Markdown exactly as a published post's contentHtml (same renderer and sanitizer); stores nothing",
			Body: previewInput{}, Status: http.StatusOK, Resp: previewOutput{}, Errors: []int{413, 422}},
	}
}

// Feature is one optional part of folio and whether its configuration is complete. Missing
// names the environment variables still to set (never their values).
type Feature struct {
	ID         string   `json:"id" doc:"stable name: imageGeneration, externalBlog, smtp, calendar, s3, redis, postgres"`
	Label      string   `json:"label" doc:"what the feature is, in words"`
	Configured bool     `json:"configured"`
	Missing    []string `json:"missing" doc:"variables to set for the feature (empty when configured)"`
	Note       string   `json:"note" doc:"what happens without it, or which setting is in use"`
}

type featureList struct {
	Features []Feature `json:"features"`
}

type setupState struct {
	NeedsOwner bool `json:"needsOwner" doc:"true while no user exists: create one with folio user create, or FOLIO_ADMIN_EMAIL and FOLIO_ADMIN_PASSWORD"`
}

type previewInput struct {
	Content string `json:"content" doc:"the Markdown (at most the longest post content, 500000 characters)"`
}

type previewOutput struct {
	HTML string `json:"html" doc:"sanitized HTML, identical to contentHtml of a post with this content"`
}

func (s dashboardAPI) setupState(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Users.CountUsers(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, setupState{NeedsOwner: n == 0})
}

func (s dashboardAPI) listFeatures(w http.ResponseWriter, r *http.Request) error {
	fs := make([]Feature, 0, len(s.Features))
	for _, f := range s.Features {
		// The mail server may be set from the dashboard since start (Settings).
		if f.ID == "smtp" && s.Settings != nil && s.Settings.Current().Mail.SMTP.Host != "" {
			f.Configured, f.Missing = true, nil
		}
		if f.Missing == nil {
			f.Missing = []string{}
		}
		fs = append(fs, f)
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, featureList{Features: fs})
}

func (s dashboardAPI) previewMarkdown(w http.ResponseWriter, r *http.Request) error {
	var in previewInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if utf8.RuneCountInString(in.Content) > folio.MaxPostContentLen {
		return &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
			Details: []folio.FieldError{{Field: "content", Message: fmt.Sprintf("must be at most %d characters", folio.MaxPostContentLen)}}}
	}
	return writeJSON(w, http.StatusOK, previewOutput{HTML: s.renderPost(r, in.Content)})
}
