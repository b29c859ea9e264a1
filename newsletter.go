package folio

import "time"

// Job kinds of the newsletter (internal/newsletter).
const (
	// JobNewsletterIssue writes the send rows of one issue and mails them; its key is
	// "newsletter.issue:<issue id>", so an issue has one job.
	JobNewsletterIssue = "newsletter.issue"
	// JobNewsletterDigest makes the weekly digest issue of the week that just ended; its key
	// names the week, so the digest of a week is made once whichever instance runs it.
	JobNewsletterDigest = "newsletter.digest"
)

// NewsletterIssueJobPayload is the payload of a JobNewsletterIssue job.
type NewsletterIssueJobPayload struct {
	Issue string `json:"issue"`
}

// Subscriber preferences: what a subscriber receives (the preferences page).
const (
	PreferencePosts  = "posts"  // every new post, as it is published
	PreferenceDigest = "digest" // a weekly digest of the week's new posts
	PreferenceNone   = "none"   // nothing (still on the list)
)

// ValidPreference reports whether p is one of the preferences.
func ValidPreference(p string) bool {
	return p == PreferencePosts || p == PreferenceDigest || p == PreferenceNone
}

// PostNewsletter is a post's newsletter option (publishing-options' newsletter): Send mails the
// post to the subscribers when it becomes published.
type PostNewsletter struct {
	Send bool `json:"send" doc:"mail the post to the active subscribers (those who chose every new post) when it becomes published; once per post"`
}

// Newsletter issue statuses (GET /api/posts/{id}/newsletter).
const (
	NewsletterNone    = "none"    // not mailed (send off, or not published yet)
	NewsletterQueued  = "queued"  // published with send on; no mail handed to the server yet
	NewsletterSending = "sending" // some mails are out, some are still to go
	NewsletterSent    = "sent"    // every mail is sent, failed or skipped
)

// NewsletterProgress is the answer of GET /api/posts/{id}/newsletter.
type NewsletterProgress struct {
	Status  string `json:"status" doc:"none, queued, sending or sent"`
	Send    bool   `json:"send" doc:"the post's newsletter.send option"`
	Sent    int    `json:"sent" doc:"mails the mail server accepted"`
	Failed  int    `json:"failed" doc:"mails given up (refused by the server, or too many attempts)"`
	Skipped int    `json:"skipped" doc:"subscribers who left (unsubscribed, bounced, erased) before their mail went out"`
	Total   int    `json:"total" doc:"subscribers the post is addressed to (sent + failed + skipped + still to go)"`
}

// SubscriberPreferences is what the preferences page shows and changes.
type SubscriberPreferences struct {
	Email      string `json:"email"`
	Status     string `json:"status"`
	Preference string `json:"preference" doc:"posts (every new post), digest (a weekly digest) or none"`
}

// NewsletterPreview is a newsletter mail as a subscriber would get it (preview route).
type NewsletterPreview struct {
	Subject string `json:"subject"`
	HTML    string `json:"html"`
	Text    string `json:"text"`
}

// MailEvent is a bounce or complaint a mail provider reports (POST /api/subscribers/events).
type MailEvent struct {
	Type  string    `json:"type"`
	Email string    `json:"email"`
	At    time.Time `json:"at"`
}
