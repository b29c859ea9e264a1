package newsletter

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// Bounces and complaints a mail provider reports (POST /api/subscribers/events), signed as the
// Standard Webhooks specification says (https://www.standardwebhooks.com): headers webhook-id,
// webhook-timestamp (Unix seconds) and webhook-signature, a space-separated list of
// "v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">"; the key is the secret's base64 part
// after "whsec_" (a secret without the prefix is used as it is). Providers that follow the
// specification (Resend, Svix-based ones) sign this way.

// EventTolerance is how far a signed event's timestamp may be from now (replays of an old
// delivery are refused).
const EventTolerance = 5 * time.Minute

// Signature errors. ErrEventSignatureMalformed is the caller's fault (400); the others are 401.
var (
	ErrEventSignatureMalformed = errors.New("newsletter: malformed webhook-signature, webhook-id or webhook-timestamp")
	ErrEventSignatureMismatch  = errors.New("newsletter: no signature matches")
	ErrEventTimestamp          = errors.New("newsletter: webhook-timestamp too far from now")
)

// EventKey is the HMAC key of a configured secret (NEWSLETTER_EVENTS_SECRET).
func EventKey(secret string) []byte {
	if b64, ok := strings.CutPrefix(secret, "whsec_"); ok {
		if key, err := base64.StdEncoding.DecodeString(b64); err == nil && len(key) > 0 {
			return key
		}
	}
	return []byte(secret)
}

// SignEvent returns the webhook-signature value of body (the signing side; tests use it).
func SignEvent(key []byte, id string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(ts, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// VerifyEvent checks a Standard Webhooks signature over the raw body, in constant time for
// each candidate signature.
func VerifyEvent(key []byte, id, timestamp, signatures string, body []byte, now time.Time) error {
	if id == "" || len(id) > 256 || timestamp == "" || signatures == "" || len(signatures) > 4096 {
		return ErrEventSignatureMalformed
	}
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil || ts <= 0 {
		return ErrEventSignatureMalformed
	}
	if d := now.Sub(time.Unix(ts, 0)); d > EventTolerance || d < -EventTolerance {
		return ErrEventTimestamp
	}
	want := SignEvent(key, id, ts, body)[len("v1,"):]
	wantRaw, _ := base64.StdEncoding.DecodeString(want)
	seen := false
	for _, sig := range strings.Fields(signatures) {
		version, value, ok := strings.Cut(sig, ",")
		if !ok {
			continue
		}
		seen = true
		if version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			continue
		}
		if hmac.Equal(got, wantRaw) {
			return nil
		}
	}
	if !seen {
		return ErrEventSignatureMalformed
	}
	return ErrEventSignatureMismatch
}

// eventBody is what an event's JSON may carry: {type, data: {email | to, bounce: {type}}}.
type eventBody struct {
	Type string `json:"type"`
	Data struct {
		Email  string          `json:"email"`
		To     json.RawMessage `json:"to"`
		Bounce struct {
			Type string `json:"type"`
		} `json:"bounce"`
	} `json:"data"`
}

// Event types: bounce (a permanent failure) and complaint (the reader marked a mail as spam);
// the names of providers (email.bounced, email.complained) are accepted too.
var eventStatus = map[string]string{
	"bounce": folio.SubscriberBounced, "bounced": folio.SubscriberBounced, "email.bounced": folio.SubscriberBounced,
	"complaint": folio.SubscriberComplained, "complained": folio.SubscriberComplained, "email.complained": folio.SubscriberComplained,
}

// ParseEvent reads an event body. ignore is true for a type or bounce this service does not act
// on (a transient bounce, a delivery notice): acknowledged and left alone.
func ParseEvent(body []byte) (status string, emails []string, ignore bool, err error) {
	var ev eventBody
	if err := json.Unmarshal(body, &ev); err != nil {
		return "", nil, false, folio.BadRequest("", "The body must be a JSON event {type, data: {email}}.")
	}
	status, ok := eventStatus[strings.ToLower(ev.Type)]
	if !ok || strings.EqualFold(ev.Data.Bounce.Type, "transient") || strings.EqualFold(ev.Data.Bounce.Type, "soft") {
		return "", nil, true, nil
	}
	if ev.Data.Email != "" {
		emails = append(emails, ev.Data.Email)
	}
	if len(ev.Data.To) > 0 {
		var one string
		var many []string
		if json.Unmarshal(ev.Data.To, &one) == nil && one != "" {
			emails = append(emails, one)
		} else if json.Unmarshal(ev.Data.To, &many) == nil {
			emails = append(emails, many...)
		}
	}
	if len(emails) == 0 || len(emails) > 50 {
		return "", nil, false, invalid("data.email", "must name the address (data.email or data.to, at most 50)")
	}
	for i, e := range emails {
		e = strings.ToLower(strings.TrimSpace(e))
		if !folio.ValidEmail(e) {
			return "", nil, false, invalid("data.email", "must be an e-mail address")
		}
		emails[i] = e
	}
	return status, emails, false, nil
}

// ApplyEvent marks the subscribers of a verified event bounced or complained: no more mail goes
// to them. Unknown addresses are ignored (the answer tells nothing about the list).
func (s *Service) ApplyEvent(ctx context.Context, body []byte) error {
	status, emails, ignore, err := ParseEvent(body)
	if err != nil || ignore {
		return err
	}
	for _, e := range emails {
		if err := s.Store.MarkSubscriber(ctx, e, status, s.now().UTC()); err != nil {
			return err
		}
	}
	return nil
}

// invalid is a 422 naming field.
func invalid(field, msg string) error {
	var v folio.Validation
	v.Invalid(field, "%s", msg)
	return v.Err()
}
