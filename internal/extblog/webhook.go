package extblog

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// SignatureHeader is the header that carries the webhook signature (docs/api.md, "External blog platform").
const SignatureHeader = "X-Extblog-Signature"

// DefaultWebhookTolerance is EXTBLOG_WEBHOOK_TOLERANCE_SECONDS's default.
const DefaultWebhookTolerance = 300 * time.Second

// Errors of VerifySignature. ErrSignatureMalformed means the header cannot be read (answer
// 400); the others mean verification failed (answer 401).
var (
	ErrSignatureMissing   = errors.New("extblog: webhook signature missing")
	ErrSignatureMalformed = errors.New("extblog: webhook signature header malformed")
	ErrSignatureMismatch  = errors.New("extblog: webhook signature does not match")
	ErrSignatureExpired   = errors.New("extblog: webhook signature timestamp outside the tolerance")
	ErrNoWebhookSecret    = errors.New("extblog: no webhook secret configured")
)

// msThreshold tells a millisecond timestamp from a seconds one: 1e11 seconds is in the year
// 5138, 1e11 milliseconds is in 1973.
const msThreshold = 100_000_000_000

// VerifySignature checks header against the raw body with secret. Two forms are accepted:
//
//   - "t=<timestamp>,v1=<hex HMAC-SHA256 of "<t>.<body>">" (what the platform sends), with t in
//     milliseconds or seconds and one or more v1 values; t must lie within tolerance of now
//     (tolerance <= 0 means DefaultWebhookTolerance);
//   - "<hex HMAC-SHA256 of body>", optionally prefixed "sha256=".
//
// Digests are compared in constant time. The error is one of the Err* values above.
func VerifySignature(header string, body []byte, secret string, now time.Time, tolerance time.Duration) error {
	if secret == "" {
		return ErrNoWebhookSecret
	}
	header = strings.TrimSpace(header)
	if header == "" {
		return ErrSignatureMissing
	}
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	if strings.Contains(header, ",") || strings.HasPrefix(header, "t=") || strings.HasPrefix(header, "v1=") {
		return verifyTimestamped(header, body, secret, now, tolerance)
	}
	sig := header
	if len(sig) > 7 && strings.EqualFold(sig[:7], "sha256=") {
		sig = sig[7:]
	}
	got, ok := decodeDigest(sig)
	if !ok {
		return ErrSignatureMalformed
	}
	if !hmac.Equal(got, mac(secret, nil, body)) {
		return ErrSignatureMismatch
	}
	return nil
}

func verifyTimestamped(header string, body []byte, secret string, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ErrSignatureMalformed
		}
		switch k {
		case "t":
			if ts != "" || !isDigits(v) || len(v) > 18 {
				return ErrSignatureMalformed
			}
			ts = v
		case "v1":
			d, ok := decodeDigest(v)
			if !ok {
				return ErrSignatureMalformed
			}
			if len(sigs) < 8 {
				sigs = append(sigs, d)
			}
		default:
			// Other schemes (v0, …) are ignored, as signers add them while rotating.
		}
	}
	if ts == "" || len(sigs) == 0 {
		return ErrSignatureMalformed
	}
	want := mac(secret, []byte(ts+"."), body)
	matched := false
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			matched = true
		}
	}
	if !matched {
		return ErrSignatureMismatch
	}
	n, _ := strconv.ParseInt(ts, 10, 64)
	var at time.Time
	if n >= msThreshold {
		at = time.UnixMilli(n)
	} else {
		at = time.Unix(n, 0)
	}
	if d := now.Sub(at); d > tolerance || d < -tolerance {
		return ErrSignatureExpired
	}
	return nil
}

func mac(secret string, prefix, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(prefix)
	m.Write(body)
	return m.Sum(nil)
}

func decodeDigest(s string) ([]byte, bool) {
	if len(s) != 2*sha256.Size {
		return nil, false
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// SignWebhook returns a timestamped signature header for body, as the platform computes it
// (t in milliseconds). Tests and the fake use it.
func SignWebhook(secret string, body []byte, at time.Time) string {
	ts := strconv.FormatInt(at.UnixMilli(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, []byte(ts+"."), body))
}

// Webhook event kinds, spelt as docs/api.md ("External blog platform") spells them.
const (
	EventPostPublished = "POST_PUBLISHED"
	EventPostUpdated   = "POST_UPDATED"
	EventPostDeleted   = "POST_DELETED"
)

// ErrIgnoredEvent is returned by DecodeWebhook for a well-formed event folio does not act on
// (the platform's static_page_* events); the handler acknowledges it with 204.
var ErrIgnoredEvent = errors.New("extblog: webhook event not handled")

// WebhookEvent is an inbound webhook delivery, from either payload shape.
type WebhookEvent struct {
	Kind   string // EventPostPublished, EventPostUpdated or EventPostDeleted
	PostID string
	// Slug, Title and PublishedAt come with the documented shape only (docs/api.md, "External
	// blog platform"); the platform's native shape carries ids, so the handler fetches the post.
	Slug        string
	Title       string
	PublishedAt *time.Time
	// DeliveryID is the platform's metadata.uuid (native shape), for deduplication.
	DeliveryID string
	// PublicationID is the publication the event belongs to (native shape).
	PublicationID string
}

type webhookPayload struct {
	Event    *string `json:"event"`
	Metadata *struct {
		UUID string `json:"uuid"`
	} `json:"metadata"`
	Data *struct {
		// The documented shape.
		PostID      *string `json:"postId"`
		Slug        *string `json:"slug"`
		Title       *string `json:"title"`
		PublishedAt *string `json:"publishedAt"`
		// The platform's native shape.
		EventType   *string `json:"eventType"`
		Publication *struct {
			ID string `json:"id"`
		} `json:"publication"`
		Post *struct {
			ID string `json:"id"`
		} `json:"post"`
	} `json:"data"`
}

// DecodeWebhook parses a webhook body in the documented shape {event, data:{postId, slug, title,
// publishedAt}} or the platform's {metadata:{uuid}, data:{publication:{id}, post:{id},
// eventType}}. Invalid bodies give an error wrapping nothing of the body beyond a field name;
// known events folio ignores give ErrIgnoredEvent.
func DecodeWebhook(body []byte) (WebhookEvent, error) {
	var p webhookPayload
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&p); err != nil {
		return WebhookEvent{}, errors.New("extblog: webhook body is not a JSON object")
	}
	if dec.More() {
		return WebhookEvent{}, errors.New("extblog: webhook body has trailing data")
	}
	if p.Data == nil {
		return WebhookEvent{}, errors.New("extblog: webhook body has no data")
	}
	var ev WebhookEvent
	var name string
	switch {
	case p.Event != nil:
		name = *p.Event
		if p.Data.PostID == nil {
			return WebhookEvent{}, errors.New("extblog: webhook data.postId is missing")
		}
		ev.PostID = *p.Data.PostID
		if p.Data.Slug != nil {
			ev.Slug = *p.Data.Slug
		}
		if p.Data.Title != nil {
			ev.Title = *p.Data.Title
		}
		if p.Data.PublishedAt != nil && *p.Data.PublishedAt != "" {
			t, err := time.Parse(time.RFC3339Nano, *p.Data.PublishedAt)
			if err != nil {
				return WebhookEvent{}, errors.New("extblog: webhook data.publishedAt is not an ISO 8601 time")
			}
			ev.PublishedAt = &t
		}
	case p.Data.EventType != nil:
		name = *p.Data.EventType
		if p.Data.Post != nil {
			ev.PostID = p.Data.Post.ID
		}
		if p.Data.Publication != nil {
			ev.PublicationID = p.Data.Publication.ID
		}
		if p.Metadata != nil {
			ev.DeliveryID = p.Metadata.UUID
		}
	default:
		return WebhookEvent{}, errors.New("extblog: webhook body names no event")
	}
	switch strings.ToUpper(name) {
	case EventPostPublished, EventPostUpdated, EventPostDeleted:
		ev.Kind = strings.ToUpper(name)
	case "STATIC_PAGE_PUBLISHED", "STATIC_PAGE_EDITED", "STATIC_PAGE_DELETED":
		return WebhookEvent{}, ErrIgnoredEvent
	default:
		return WebhookEvent{}, errors.New("extblog: webhook event is not one of POST_PUBLISHED, POST_UPDATED, POST_DELETED")
	}
	for _, f := range []struct {
		name, v string
		max     int
	}{
		{"postId", ev.PostID, 128}, {"slug", ev.Slug, 300}, {"title", ev.Title, 1000},
		{"metadata.uuid", ev.DeliveryID, 128}, {"publication.id", ev.PublicationID, 128},
	} {
		if err := checkText(f.name, f.v, f.max); err != nil {
			return WebhookEvent{}, err
		}
	}
	if ev.PostID == "" {
		return WebhookEvent{}, errors.New("extblog: webhook post id is empty")
	}
	return ev, nil
}

func checkText(name, v string, max int) error {
	if len(v) > max {
		return fmt.Errorf("extblog: webhook %s is longer than %d bytes", name, max)
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("extblog: webhook %s is not UTF-8", name)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return fmt.Errorf("extblog: webhook %s contains control characters", name)
		}
	}
	return nil
}
