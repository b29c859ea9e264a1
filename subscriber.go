package folio

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Subscriber statuses (docs/api.md, "Subscribers"). Only active subscribers are mailed
// newsletters; pending ones get the confirmation mail alone.
const (
	SubscriberPending      = "pending"
	SubscriberActive       = "active"
	SubscriberUnsubscribed = "unsubscribed"
	SubscriberBounced      = "bounced"
	SubscriberComplained   = "complained"
)

// ValidSubscriberStatus reports whether s is one of the subscriber statuses.
func ValidSubscriberStatus(s string) bool {
	switch s {
	case SubscriberPending, SubscriberActive, SubscriberUnsubscribed, SubscriberBounced, SubscriberComplained:
		return true
	}
	return false
}

// Subscriber is a reader who follows the site by e-mail.
type Subscriber struct {
	ID string `json:"id"`
	// Email is stored in lower case: one address is one subscriber however it is typed.
	Email       string     `json:"email"`
	Name        string     `json:"name"`
	Status      string     `json:"status" doc:"pending, active, unsubscribed, bounced or complained"`
	Source      string     `json:"source,omitempty" doc:"where the reader subscribed (a page, a form), as the form said"`
	CreatedAt   time.Time  `json:"createdAt"`
	ConfirmedAt *time.Time `json:"confirmedAt"`
	// Preference is what the subscriber chose to receive: posts, digest or none.
	Preference string `json:"preference" doc:"posts (every new post), digest (a weekly digest) or none"`
	// UnsubscribeToken is the token of the one-click unsubscribe link every mail to the
	// subscriber carries; never shown by the API.
	UnsubscribeToken string `json:"-"`
}

// Limits of subscriber fields.
const (
	MaxSubscriberName   = 200
	MaxSubscriberSource = 200
)

// SubscribeInput is the body of POST /api/subscribers.
type SubscribeInput struct {
	Email  string `json:"email"`
	Name   string `json:"name,omitempty"`
	Source string `json:"source,omitempty"`
	// Website is the honeypot: the public form hides it from people, so a filled one is a bot's,
	// answered like any other request and otherwise ignored.
	Website string `json:"website,omitempty" doc:"honeypot: leave empty (a filled one is answered 202 and ignored)"`
}

// Normalize trims the fields, lower-cases the address and checks them.
func (in *SubscribeInput) Normalize() error {
	in.Email = strings.ToLower(strings.TrimSpace(in.Email))
	in.Name, in.Source = strings.TrimSpace(in.Name), strings.TrimSpace(in.Source)
	if in.Email == "" {
		return BadRequest("email", "is required")
	}
	if !ValidEmail(in.Email) {
		return BadRequest("email", "must be an e-mail address")
	}
	for _, f := range []struct {
		name, value string
		max         int
	}{{"name", in.Name, MaxSubscriberName}, {"source", in.Source, MaxSubscriberSource}} {
		if !utf8.ValidString(f.value) || utf8.RuneCountInString(f.value) > f.max || hasControl(f.value) {
			return BadRequest(f.name, "must be one line of at most %d characters", f.max)
		}
	}
	return nil
}

// SubscriberFilter selects subscribers in the admin listing: Status one of the statuses or
// empty for all, Q a case-insensitive part of the address or name.
type SubscriberFilter struct {
	Status, Q string
}

// SubscriberEventData is the data of the subscriber.* webhook events.
type SubscriberEventData struct {
	ID     string `json:"id"`
	Email  string `json:"email"`
	Name   string `json:"name"`
	Status string `json:"status"`
}
