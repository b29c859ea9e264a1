package folio

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Event types an outgoing webhook may subscribe to (docs/api.md, "Outgoing webhooks").
const (
	EventContactReceived     = "contact.received"
	EventBookingCreated      = "booking.created"
	EventBookingCancelled    = "booking.cancelled"
	EventBookingRescheduled  = "booking.rescheduled"
	EventPostPublished       = "post.published"
	EventPostUnpublished     = "post.unpublished"
	EventProjectCreated      = "project.created"
	EventProjectUpdated      = "project.updated"
	EventProjectDeleted      = "project.deleted"
	EventMediaUploaded       = "media.uploaded"
	EventSubscriberCreated   = "subscriber.created"
	EventSubscriberConfirmed = "subscriber.confirmed"
)

// EventTypes lists every event type, in documentation order.
var EventTypes = []string{
	EventContactReceived, EventBookingCreated, EventBookingCancelled, EventBookingRescheduled,
	EventPostPublished, EventPostUnpublished, EventProjectCreated, EventProjectUpdated,
	EventProjectDeleted, EventMediaUploaded, EventSubscriberCreated, EventSubscriberConfirmed,
}

// IsEventType reports whether t is one of EventTypes.
func IsEventType(t string) bool {
	for _, e := range EventTypes {
		if e == t {
			return true
		}
	}
	return false
}

// Event is something that happened which outgoing webhooks may be told about. Data is encoded
// as JSON into the delivery's "data" member when the event is emitted, so it must not change
// afterwards.
type Event struct {
	Type string
	Data any
}

// EventEmitter records events for delivery to the webhooks subscribed to their type.
//
// How to emit: a store that changes data inside a database transaction emits through the
// webhook store's EmitTx(ctx, tx, ev) in that same transaction, so the delivery exists exactly
// when the change commits; code with no transaction of its own calls Emit. Either way the delivery is
// durable once the call returns: a worker (internal/webhook) signs and sends it, retrying for
// about a day, across restarts and instances. Emitting an event nobody subscribes to costs one
// query and stores nothing.
type EventEmitter interface {
	Emit(ctx context.Context, ev Event) error
}

// Webhook is an outgoing webhook endpoint as the API shows it; its secret is shown only once,
// when it is created.
type Webhook struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Events      []string  `json:"events"`
	Description string    `json:"description,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
}

// WebhookDelivery is one message to one webhook and the outcome of its attempts.
type WebhookDelivery struct {
	// ID is the webhook-id header: the same on every attempt, so receivers can drop repeats.
	ID        string `json:"id"`
	WebhookID string `json:"webhookId"`
	EventType string `json:"eventType"`
	// Status is pending (not yet attempted or being retried), succeeded or failed (given up).
	Status   string `json:"status"`
	Attempts int    `json:"attempts"`
	// ResponseStatus is the HTTP status of the last attempt (0: no response).
	ResponseStatus int        `json:"responseStatus,omitempty"`
	LastError      string     `json:"lastError,omitempty"`
	NextAttemptAt  *time.Time `json:"nextAttemptAt,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
	LastAttemptAt  *time.Time `json:"lastAttemptAt,omitempty"`
	DeliveredAt    *time.Time `json:"deliveredAt,omitempty"`
}

// Webhook delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// EventTest is the type of the delivery POST /api/webhooks/{id}/test sends; it is not
// subscribable.
const EventTest = "webhook.test"

// Limits of webhook input.
const (
	MaxWebhookURLLen         = 2000
	MaxWebhookDescriptionLen = 500
)

// WebhookInput is the body of POST /api/webhooks.
type WebhookInput struct {
	URL         *string  `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description,omitempty"`
}

// Validate checks the input: an absolute http(s) URL with a host, at least one known event type
// (each once). Whether the host is a permitted destination is checked by the caller, which knows
// the operator's WEBHOOK_ALLOW_PRIVATE setting.
func (in *WebhookInput) Validate() error {
	var v Validation
	if in.URL == nil || strings.TrimSpace(*in.URL) == "" {
		v.Missing("url")
	} else if len(*in.URL) > MaxWebhookURLLen {
		v.Invalid("url", "must be at most %d characters", MaxWebhookURLLen)
	} else if u, err := url.Parse(strings.TrimSpace(*in.URL)); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		v.Invalid("url", "must be an absolute http or https URL")
	} else if u.User != nil {
		v.Invalid("url", "must not carry credentials")
	}
	if in.Events == nil {
		v.Missing("events")
	} else if len(in.Events) == 0 {
		v.Invalid("events", "must list at least one event")
	}
	seen := map[string]bool{}
	for i, e := range in.Events {
		switch {
		case !IsEventType(e):
			v.Invalid(indexed("events", i), "must be one of %s", strings.Join(EventTypes, ", "))
		case seen[e]:
			v.Invalid(indexed("events", i), "is listed twice")
		}
		seen[e] = true
	}
	if in.Description != nil && utf8.RuneCountInString(*in.Description) > MaxWebhookDescriptionLen {
		v.Invalid("description", "must be at most %d characters", MaxWebhookDescriptionLen)
	}
	return v.Err()
}

// WebhookBody is the JSON body of every delivery (Standard Webhooks: type, timestamp, data).
type WebhookBody struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// OutgoingDelivery is what the delivery worker needs to send one attempt.
type OutgoingDelivery struct {
	WebhookDelivery
	URL    string
	Secret string
	Body   []byte
}

// The data of each event type. They are small and stable: receivers fetch the resource from the
// API when they need more.

// PostEventData is the data of post.published and post.unpublished.
type PostEventData struct {
	ID          string     `json:"id"`
	Slug        string     `json:"slug"`
	Title       string     `json:"title"`
	Excerpt     string     `json:"excerpt,omitempty"`
	Status      string     `json:"status"`
	PublishedAt *time.Time `json:"publishedAt,omitempty"`
}

// ContactEventData is the data of contact.received.
type ContactEventData struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	Subject   string    `json:"subject,omitempty"`
	Message   string    `json:"message"`
	CreatedAt time.Time `json:"createdAt"`
}
