// Package webhook sends folio's outgoing webhooks (docs/api.md, "Outgoing webhooks") the way the
// Standard Webhooks specification (https://www.standardwebhooks.com) describes: a JSON body {type,
// timestamp, data} POSTed with webhook-id, webhook-timestamp and webhook-signature headers, the
// signature being HMAC-SHA256 over "<id>.<timestamp>.<body>" keyed by the secret's decoded bytes.
//
// Deliveries are queued by the store's EmitTx in the transaction of the write that caused them, as
// jobs of kind folio.JobWebhookDelivery; Sender is the handler of that kind. The job scheduler
// (internal/jobs) gives each delivery to one worker at a time across instances, and the rows
// outlive restarts. A crash between the receiver's answer and the recording of it sends the
// delivery again with the same webhook-id, which is how receivers recognise a repeat.
package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/netguard"
)

// SecretPrefix starts every signing secret (the Standard Webhooks convention).
const SecretPrefix = "whsec_"

// secretBytes is the size of a new secret: the spec asks for 24 to 64 bytes.
const secretBytes = 32

// NewSecret returns a fresh signing secret, "whsec_" and the base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// DecodeSecret returns the key bytes of a secret (with or without the whsec_ prefix).
func DecodeSecret(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(key) == 0 {
		return nil, errors.New("webhook: the secret is not whsec_ followed by base64")
	}
	return key, nil
}

// Sign returns the webhook-signature header value of one attempt: "v1," and the base64
// HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed by key.
func Sign(key []byte, id string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(timestamp, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Verification errors.
var (
	ErrMissingHeaders = errors.New("webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	ErrBadTimestamp   = errors.New("webhook: timestamp unparseable or outside the tolerance")
	ErrNoMatch        = errors.New("webhook: no matching signature")
)

// Verify checks a received delivery as a receiver would: the headers, the timestamp within
// tolerance of now, and at least one v1 signature of the space-separated list matching in
// constant time. folio does not receive its own webhooks; Verify documents the scheme, backs
// the fuzz target and lets tests check what was sent.
func Verify(key []byte, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return ErrMissingHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sec < 0 || sec > math.MaxInt64/int64(time.Second) {
		return ErrBadTimestamp
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrBadTimestamp
	}
	want := Sign(key, id, sec, body)
	for _, s := range strings.Fields(sigs) {
		if subtle.ConstantTimeCompare([]byte(s), []byte(want)) == 1 {
			return nil
		}
	}
	return ErrNoMatch
}

// Schedule is the wait before each retry (docs/api.md, "Outgoing webhooks"): after the first attempt fails, 5 s,
// then 5 min, 30 min, 2 h, 5 h, 10 h and 10 h — eight attempts over about 28 hours.
var Schedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// Timeout bounds one attempt (connection, redirects and response headers included).
const Timeout = 10 * time.Second

// CheckURL refuses a webhook URL whose host the guarded client would refuse to reach
// (netguard.Policy.CheckHost: literal addresses, numeric IPv4 forms, localhost names, names that
// resolve to such addresses now). Names are checked again on every connection, after DNS.
func CheckURL(ctx context.Context, raw string, policy netguard.Policy) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return err
	}
	if err := policy.CheckHost(ctx, u.Hostname()); err != nil {
		if errors.Is(err, netguard.ErrForbidden) {
			return fmt.Errorf("%w (set WEBHOOK_ALLOW_PRIVATE=true to allow private destinations)", err)
		}
		return err
	}
	return nil
}

// DeliveryStore is the delivery log a Sender reads and records its attempts in
// (internal/webhook/webhooktest checks an implementation).
type DeliveryStore interface {
	// OutgoingDelivery returns a delivery with its webhook's URL and secret, or ENOTFOUND (the
	// webhook was deleted).
	OutgoingDelivery(ctx context.Context, id string) (folio.OutgoingDelivery, error)
	// RecordWebhookAttempt writes the outcome of one attempt: status succeeded, failed (given
	// up) or pending with next as the time of the retry.
	RecordWebhookAttempt(ctx context.Context, id string, attempts int, at time.Time, status string, responseStatus int,
		lastError string, next time.Time) error
}

// Sender delivers queued webhook deliveries: it is the jobs.Handler of folio.JobWebhookDelivery.
type Sender struct {
	Store DeliveryStore
	// Client sends the requests; NewSender's goes through netguard.
	Client *http.Client
	// Now is the clock; the scheduler's, so retries come due when the scheduler thinks so.
	Now func() time.Time
	// Delays is the retry schedule (default Schedule); tests shorten it.
	Delays []time.Duration
	// Jitter spreads a delay (default: ±10 %), so retries after an outage do not all arrive at
	// once; tests make it the identity.
	Jitter func(time.Duration) time.Duration
	// Timeout bounds one attempt (default Timeout, 10 s, as docs/api.md says); tests shorten it.
	Timeout time.Duration
	// UserAgent is sent with every delivery.
	UserAgent string
	Log       *slog.Logger
}

// NewSender returns a sender whose client dials public addresses only, unless allowPrivate.
func NewSender(store DeliveryStore, allowPrivate bool, log *slog.Logger) *Sender {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Sender{Store: store, Client: netguard.Policy{AllowPrivate: allowPrivate}.Client(Timeout), Now: time.Now,
		UserAgent: "folio-webhooks/" + folio.Version, Log: log}
}

// DefaultJitter moves d by up to 10 % either way.
func DefaultJitter(d time.Duration) time.Duration {
	spread := int64(d) / 10
	if spread <= 0 {
		return d
	}
	return d + time.Duration(mrand.Int64N(2*spread+1)-spread)
}

func (s *Sender) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Handle is the jobs.Handler: one attempt of one delivery, recorded in the delivery log.
func (s *Sender) Handle(ctx context.Context, j folio.Job) error {
	var pl folio.WebhookJobPayload
	if err := json.Unmarshal([]byte(j.Payload), &pl); err != nil || pl.DeliveryID == "" {
		return jobs.Permanent(fmt.Errorf("webhook: bad job payload %q", j.Payload))
	}
	d, err := s.Store.OutgoingDelivery(ctx, pl.DeliveryID)
	if folio.IsNotFound(err) {
		return nil // the webhook was deleted meanwhile
	}
	if err != nil {
		return err
	}
	if d.Status != folio.DeliveryPending {
		return nil // already settled (a lapsed lease ran this job again)
	}
	attempt := d.Attempts + 1
	status, sendErr := s.send(ctx, d)
	at := s.now()
	log := s.Log.With("delivery_id", d.ID, "webhook_id", d.WebhookID, "event", d.EventType, "attempt", attempt)
	if sendErr == nil {
		log.Info("webhook delivered", "status", status)
		return s.Store.RecordWebhookAttempt(context.WithoutCancel(ctx), d.ID, attempt, at, folio.DeliverySucceeded, status, "", time.Time{})
	}
	msg := sendErr.Error()
	if len(msg) > 500 {
		msg = msg[:500]
	}
	delays := s.Delays
	if delays == nil {
		delays = Schedule
	}
	if attempt > len(delays) {
		log.Warn("webhook delivery given up", "error", msg)
		if err := s.Store.RecordWebhookAttempt(context.WithoutCancel(ctx), d.ID, attempt, at, folio.DeliveryFailed, status, msg, time.Time{}); err != nil {
			return err
		}
		return jobs.Permanent(sendErr)
	}
	jitter := s.Jitter
	if jitter == nil {
		jitter = DefaultJitter
	}
	delay := jitter(delays[attempt-1])
	log.Warn("webhook delivery failed; will retry", "error", msg, "retry_in", delay.String())
	if err := s.Store.RecordWebhookAttempt(context.WithoutCancel(ctx), d.ID, attempt, at, folio.DeliveryPending, status, msg, at.Add(delay)); err != nil {
		return err
	}
	return jobs.RetryAfter(sendErr, delay)
}

// send makes one attempt. It returns the response status (0 without a response) and nil for a
// 2xx answer.
func (s *Sender) send(ctx context.Context, d folio.OutgoingDelivery) (int, error) {
	key, err := DecodeSecret(d.Secret)
	if err != nil {
		return 0, err
	}
	ts := s.now().Unix()
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = Timeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, strings.NewReader(string(d.Body)))
	if err != nil {
		return 0, errors.New("the webhook URL is not valid")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.UserAgent)
	req.Header.Set("webhook-id", d.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", Sign(key, d.ID, ts, d.Body))
	client := s.Client
	if client == nil {
		client = netguard.Policy{}.Client(Timeout)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, describe(err, timeout)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, fmt.Errorf("the receiver answered %d %s", res.StatusCode, http.StatusText(res.StatusCode))
	}
	return res.StatusCode, nil
}

// describe names a transport failure without the URL: webhook URLs often carry a token in
// their path (Slack, Discord), and the message goes into the log and the delivery log.
func describe(err error, timeout time.Duration) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	switch {
	case errors.Is(err, netguard.ErrForbidden):
		return errors.New("refused: the destination address is not public (WEBHOOK_ALLOW_PRIVATE is off)")
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return fmt.Errorf("no answer within %s", timeout)
	}
	var de *net.DNSError
	if errors.As(err, &de) {
		return fmt.Errorf("name lookup failed: %s", de.Err)
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return fmt.Errorf("connection failed: %v", oe.Err)
	}
	return fmt.Errorf("request failed: %v", err)
}

// LogRetention is how long settled deliveries stay in the delivery log.
const LogRetention = 30 * 24 * time.Hour

// PruneJob is the kind of the daily job that trims the delivery log.
const PruneJob = "webhook.prune"

// DeliveryPruner deletes settled deliveries (succeeded or failed) created before before, with
// their finished jobs, and returns how many deliveries it deleted.
type DeliveryPruner interface {
	PruneWebhookDeliveries(ctx context.Context, before time.Time) (int, error)
}

// Pruner trims the delivery log once a day (one job per day across instances: the key names
// the day).
type Pruner struct {
	// Queue takes the next day's prune job.
	Queue jobs.Enqueuer
	// Deliveries is the delivery log it trims.
	Deliveries DeliveryPruner
	Now        func() time.Time
	Log        *slog.Logger
}

func (p *Pruner) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Schedule enqueues the next day's prune job (a no-op when another instance already did).
func (p *Pruner) Schedule(ctx context.Context) error {
	at := p.now().UTC().Truncate(24 * time.Hour).Add(24*time.Hour + 30*time.Minute)
	return p.Queue.EnqueueJob(ctx, PruneJob, PruneJob+":"+at.Format(time.RFC3339), "{}", at)
}

// Handle deletes settled deliveries older than LogRetention and schedules the next run.
func (p *Pruner) Handle(ctx context.Context, _ folio.Job) error {
	n, err := p.Deliveries.PruneWebhookDeliveries(ctx, p.now().Add(-LogRetention))
	if err != nil {
		return err
	}
	if n > 0 && p.Log != nil {
		p.Log.Info("webhook delivery log trimmed", "deleted", n)
	}
	return p.Schedule(ctx)
}
