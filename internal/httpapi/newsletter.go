package httpapi

import (
	"errors"
	"net/http"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/newsletter"
)

// The newsletter routes (docs/api.md, "Newsletters"): a post's mailing progress, its preview and
// a test mail for the owner; the subscriber's preferences; the mail provider's signed bounce and
// complaint events.

// maxEventBody bounds a provider's event.
const maxEventBody = 64 << 10

type (
	preferencesInput struct {
		Preference string `json:"preference" doc:"posts (every new post), digest (a weekly digest) or none"`
	}
	testMailResult struct {
		To string `json:"to" doc:"the address the test went to: the caller's account address"`
	}
	mailEventDoc struct {
		Type string `json:"type" doc:"bounce or complaint (also email.bounced, email.complained); other types are acknowledged and ignored"`
		Data struct {
			Email string `json:"email" doc:"the address (or data.to: one address or a list)"`
		} `json:"data"`
	}
)

// newsletterAPI serves the newsletter routes.
type newsletterAPI struct{ *Server }

func (s newsletterAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/posts/{id}/newsletter", Handle: s.progress, Needs: needSubscribers, Level: folio.LevelWrite,
			Tag: "Newsletters", Summary: "How far the mailing of a post to the subscribers is: none (not mailed), queued, sending or sent, with counts",
			Status: http.StatusOK, Resp: folio.NewsletterProgress{}, Errors: []int{404, 503}},
		{Method: "GET", Pattern: "/api/posts/{id}/newsletter/preview", Handle: s.preview, Needs: needSubscribers, Level: folio.LevelWrite,
			Tag: "Newsletters", Summary: "The newsletter mail of a post (drafts too) as a subscriber gets it: subject, HTML and plain text",
			Status: http.StatusOK, Resp: folio.NewsletterPreview{}, Errors: []int{404, 503}},
		{Method: "POST", Pattern: "/api/posts/{id}/newsletter/test", Handle: s.sendTest, Needs: needSubscribers, Level: folio.LevelWrite,
			Limit: limitHelperKey, Audit: "newsletter.test",
			Tag: "Newsletters", Summary: "Send the newsletter mail of a post (drafts too) to the caller's own account address, subject prefixed [Test]; through the outbox",
			Status: http.StatusAccepted, Resp: testMailResult{}, Errors: []int{404, 422, 503}},
		{Method: "GET", Pattern: "/api/subscribers/preferences/{token}", Handle: s.preferences, Needs: needSubscribers,
			Tag: "Newsletters", Summary: "What the subscriber of an unsubscribe link's token receives (the preferences page)",
			Status: http.StatusOK, Resp: folio.SubscriberPreferences{}, Errors: []int{404, 503}},
		{Method: "PUT", Pattern: "/api/subscribers/preferences/{token}", Handle: s.setPreferences, Needs: needSubscribers, Audit: "subscriber.preferences",
			Tag: "Newsletters", Summary: "Choose what the subscriber of an unsubscribe link's token receives: posts, digest or none; posts or digest after an unsubscribe subscribes a confirmed address again",
			Body: preferencesInput{}, Status: http.StatusOK, Resp: folio.SubscriberPreferences{}, Errors: []int{404, 413, 422, 503}},
		{Method: "POST", Pattern: "/api/subscribers/events", Handle: s.events, Needs: needSubscribers, Limit: limitExempt,
			Tag: "Newsletters", Summary: "Bounces and complaints from the mail provider, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body> keyed by NEWSLETTER_EVENTS_SECRET); the address stops receiving mail",
			Body: mailEventDoc{}, Status: http.StatusNoContent, Errors: []int{401, 413, 422, 503}},
	}
}

// sending answers 503 when the server keeps the list but does not mail it.
func (s newsletterAPI) sending() error {
	if s.Subscribers.Sends == nil || s.Subscribers.Posts == nil {
		return folio.Errorf(folio.EUNAVAILABLE, "Newsletter sending is not configured on this server.")
	}
	return nil
}

func (s newsletterAPI) progress(w http.ResponseWriter, r *http.Request) error {
	if err := s.sending(); err != nil {
		return err
	}
	p, err := s.Subscribers.Progress(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, p)
}

func (s newsletterAPI) preview(w http.ResponseWriter, r *http.Request) error {
	if err := s.sending(); err != nil {
		return err
	}
	p, err := s.Subscribers.Preview(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, p)
}

func (s newsletterAPI) sendTest(w http.ResponseWriter, r *http.Request) error {
	if err := s.sending(); err != nil {
		return err
	}
	a := folio.ActorFrom(r.Context())
	to := folio.MailAddress{Name: a.Name, Email: a.Email}
	if err := s.Subscribers.SendTest(r.Context(), r.PathValue("id"), to); err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, testMailResult{To: to.Email})
}

func (s newsletterAPI) preferences(w http.ResponseWriter, r *http.Request) error {
	p, err := s.Subscribers.Preferences(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, p)
}

func (s newsletterAPI) setPreferences(w http.ResponseWriter, r *http.Request) error {
	var in preferencesInput
	if err := decodeJSON(w, r, &in); err != nil {
		return err
	}
	if in.Preference == "" {
		return folio.BadRequest("preference", "is required")
	}
	p, err := s.Subscribers.SetPreferences(r.Context(), r.PathValue("token"), in.Preference)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, p)
}

func (s newsletterAPI) events(w http.ResponseWriter, r *http.Request) error {
	raw, err := readRawBody(w, r, maxEventBody)
	if err != nil {
		return err
	}
	secret := s.Subscribers.EventsSecret
	if secret == "" {
		s.log(r).Warn("subscriber event refused: NEWSLETTER_EVENTS_SECRET is not set")
		return folio.Errorf(folio.EUNAUTHORIZED, "Events are refused: NEWSLETTER_EVENTS_SECRET is not set on this server.")
	}
	err = newsletter.VerifyEvent(newsletter.EventKey(secret), r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"),
		r.Header.Get("webhook-signature"), raw, s.now())
	switch {
	case errors.Is(err, newsletter.ErrEventSignatureMalformed):
		return folio.Errorf(folio.EUNAUTHORIZED, "The webhook-id, webhook-timestamp and webhook-signature headers are missing or malformed.")
	case err != nil:
		s.log(r).Warn("subscriber event rejected", "reason", err.Error())
		return folio.Errorf(folio.EUNAUTHORIZED, "Event signature verification failed.")
	}
	if err := s.Subscribers.ApplyEvent(r.Context(), raw); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// fillOption sets p.Newsletter from the stored option when the request did not set it, so the
// publishing-options answer always shows it (when subscribers are served).
func (s newsletterAPI) fillOption(r *http.Request, p *folio.Post) {
	if p.Newsletter != nil || s.Subscribers == nil || s.Subscribers.Sends == nil {
		return
	}
	pr, err := s.Subscribers.Sends.NewsletterProgress(r.Context(), p.ID)
	if err != nil {
		s.log(r).Warn("newsletter option not read", "post_id", p.ID, "err", err)
		return
	}
	p.Newsletter = &folio.PostNewsletter{Send: pr.Send}
}
