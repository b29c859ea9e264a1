package newsletter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/markdown"
)

// Defaults of the sending fields of Service.
const (
	DefaultRatePerMinute     = 60
	DefaultDomainConcurrency = 2
	// DefaultSendTimeout bounds one mail's conversation with the server, from its claim.
	DefaultSendTimeout = 30 * time.Second
	// DefaultSendLease is the lease of a row with the default SendTimeout: how long the rows
	// of an instance that died wait before another mails them.
	DefaultSendLease    = DefaultSendTimeout + sendMargin
	DefaultSendAttempts = 8
	// sendMargin separates an attempt's deadline from its row's lease lapsing: time to record
	// the outcome (FinishSend gets 10 s) and for clocks that differ between instances.
	sendMargin = 15 * time.Second
	// sendWorkers is how many mails one instance hands to the server at once (each domain
	// limited further by DomainConcurrency).
	sendWorkers = 8
	// sendAhead is how many rows one instance holds claimed and not yet finished: the workers'
	// and those waiting for a worker. A claim takes at least sendClaim rows (fewer claims, the
	// cost of the statement shared) as soon as that many are finished, while the workers go on
	// with the rest, so they never wait for a claim nor for a claim's slowest mail.
	sendAhead = 4 * sendWorkers
	sendClaim = sendAhead / 2
)

// Send is one leased mail of an issue to a subscriber, as ClaimSends returns it: the
// subscriber as they are at the claim (status, address, preference), so a subscriber who left
// meanwhile is skipped.
type Send struct {
	Issue            string
	SubscriberID     string
	Email, Name      string
	Status           string // the subscriber's
	UnsubscribeToken string
	Attempts         int // counting this one
}

// Send outcomes, as stored.
const (
	SendPending = "pending"
	SendSending = "sending"
	SendSent    = "sent"
	SendFailed  = "failed"
	SendSkipped = "skipped"
)

// SendOutcome is what FinishSend records.
type SendOutcome struct {
	Status  string    // SendSent, SendFailed, SendSkipped, or SendPending to retry at RetryAt
	At      time.Time // when it happened
	RetryAt time.Time
	Error   string
	// Bounced marks the subscriber bounced, in the same transaction (a permanent 5xx answer).
	Bounced bool
}

// ErrSendLeaseLost is FinishSend's answer when the row is no longer leased to the caller.
var ErrSendLeaseLost = errors.New("newsletter: send lease lost")

// Issue is one mailing: a post, or the digest of a week.
type Issue struct {
	ID     string
	Kind   string // "post" or "digest"
	PostID string
	// PeriodStart and PeriodEnd bound a digest's posts (published in [start, end)).
	PeriodStart, PeriodEnd time.Time
	Total                  int
	FannedOut              bool
}

// PostIssueID is the issue id of post id.
func PostIssueID(postID string) string { return "post:" + postID }

// SendStore is what sending needs of storage (*sqldb.SubscriberStore). newslettertest checks it.
type SendStore interface {
	// Issue returns an issue; ENOTFOUND when there is none.
	Issue(ctx context.Context, id string) (*Issue, error)
	// FanOut writes, once per issue, a pending send row for each active subscriber whose
	// preference is preference, and returns the issue as it now is (Total set).
	FanOut(ctx context.Context, issue, preference string, now time.Time) (*Issue, error)
	// ClaimSends leases to owner until leaseUntil up to limit rows of issue that are pending and
	// due at now, or sending with a lapsed lease, counting an attempt on each. Of racing callers
	// on any instance, each row goes to one.
	ClaimSends(ctx context.Context, issue, owner string, now, leaseUntil time.Time, limit int) ([]Send, error)
	// FinishSend records the outcome of a leased row, only while owner holds it
	// (ErrSendLeaseLost otherwise).
	FinishSend(ctx context.Context, issue, subscriberID, owner string, out SendOutcome) error
	// IssueRemaining counts the rows of issue still to go (pending or sending) and returns the
	// earliest time one of them may be claimed.
	IssueRemaining(ctx context.Context, issue string) (int, time.Time, error)
	// NewsletterProgress reports a post's newsletter option and its issue's counts.
	NewsletterProgress(ctx context.Context, postID string) (folio.NewsletterProgress, error)
	// CreateDigestIssue stores the digest issue id of [start, end) and queues its job, unless it
	// exists; it reports whether this call created it.
	CreateDigestIssue(ctx context.Context, id string, start, end, now time.Time) (bool, error)
	// PublishedPostIDs lists the posts published in [start, end), oldest first.
	PublishedPostIDs(ctx context.Context, start, end time.Time) ([]string, error)
}

// Posts is what sending reads of posts (content.Service).
type Posts interface {
	Post(ctx context.Context, id string) (*folio.Post, error)
}

// SendConfig are the sending parts of a Service.
type SendConfig struct {
	Sends SendStore
	Posts Posts
	// Mailer hands the mails to the mail server (the configured SMTP server or .eml directory),
	// directly: the send rows are the durable queue, so the outbox is not used for them.
	Mailer folio.Mailer
	// Markdown is the site's renderer, the one the post pages use.
	Markdown *markdown.Renderer
	// Limiter paces the sending to RatePerMinute across every instance sharing it (Redis), or
	// this one (memory); nil: no pacing.
	Limiter folio.Limiter
	// RatePerMinute is NEWSLETTER_RATE_PER_MINUTE (default 60).
	RatePerMinute int
	// DomainConcurrency is how many mails to one recipient domain this instance has in flight
	// at once (NEWSLETTER_DOMAIN_CONCURRENCY, default 2).
	DomainConcurrency int
	// Owner names this instance in send leases (must differ between instances).
	Owner string
	// SendTimeout bounds one mail's attempt from its row's claim (NEWSLETTER_SEND_TIMEOUT,
	// default 30 s); the row is leased for SendTimeout plus a margin, and a lease that lapses
	// (the instance died) makes the row claimable again.
	SendTimeout time.Duration
	// MaxAttempts before a temporarily failing mail is given up.
	MaxAttempts int

	// Log gets what goes wrong in the background; nil: discarded.
	Log *slog.Logger

	domainMu sync.Mutex
	domains  map[string]chan struct{}
	ownerOne sync.Once
	owner0   string
}

func (c *SendConfig) owner() string {
	c.ownerOne.Do(func() {
		c.owner0 = c.Owner
		if c.owner0 == "" {
			c.owner0 = "newsletter-" + folio.NewID()
		}
	})
	return c.owner0
}

func (c *SendConfig) log() *slog.Logger {
	if c.Log != nil {
		return c.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (c *SendConfig) sendTimeout() time.Duration { return orDefault(c.SendTimeout, DefaultSendTimeout) }

// HandleIssue is the handler of folio.JobNewsletterIssue: it writes the issue's send rows
// (once) and mails them until none is left or the job's run is up. It asks to run again
// (jobs.Continue) while rows wait for a retry or sit leased by another instance.
func (s *Service) HandleIssue(ctx context.Context, j folio.Job) error {
	var pl folio.NewsletterIssueJobPayload
	if err := json.Unmarshal([]byte(j.Payload), &pl); err != nil || pl.Issue == "" {
		return jobs.Permanent(fmt.Errorf("newsletter: bad issue payload %q", j.Payload))
	}
	issue, err := s.Sends.Issue(ctx, pl.Issue)
	if folio.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	pref := folio.PreferencePosts
	if issue.Kind == "digest" {
		pref = folio.PreferenceDigest
	}
	if issue, err = s.Sends.FanOut(ctx, issue.ID, pref, s.now().UTC()); err != nil {
		return err
	}
	for ctx.Err() == nil {
		n, wait, err := s.SendBatch(ctx, issue)
		if err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		if wait <= 0 || !sleep(ctx, wait) {
			break // nothing due now, or the job's time is up: the job runs again
		}
	}
	left, next, err := s.Sends.IssueRemaining(context.WithoutCancel(ctx), issue.ID)
	if err != nil || left == 0 {
		return err
	}
	return jobs.Continue(fmt.Sprintf("newsletter: %d mails of %s still to go", left, issue.ID), max(next.Sub(s.now()), 0))
}

// SendBatch mails the rows of issue this instance may send now: it claims rows as workers free
// up (each leased from its claim for one attempt), as many as the rate allows, until none is
// due, the rate is spent or ctx ends, and waits for the mails in flight. It returns how many
// rows it claimed, and when none because the rate is spent, how long until it frees a send.
func (s *Service) SendBatch(ctx context.Context, issue *Issue) (int, time.Duration, error) {
	free := make(chan struct{}, sendAhead) // a token for each row this call may still claim
	for range cap(free) {
		free <- struct{}{}
	}
	work := make(chan sendItem, sendAhead)
	var wg sync.WaitGroup
	for range sendWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				s.sendOne(ctx, it)
				free <- struct{}{}
			}
		}()
	}
	defer func() { close(work); wg.Wait() }()

	var content issueContent
	var loaded time.Time
	claimed := 0
	for {
		k := takeFree(ctx, free, sendClaim)
		if k == 0 {
			return claimed, 0, nil
		}
		n, wait := s.allowance(ctx, k)
		giveBack(free, k-n)
		if n == 0 {
			if claimed > 0 {
				wait = 0
			}
			return claimed, wait, nil
		}
		now := s.now().UTC()
		deadline := time.Now().Add(s.sendTimeout())
		rows, err := s.Sends.ClaimSends(ctx, issue.ID, s.owner(), now, now.Add(s.sendTimeout()+sendMargin), n)
		giveBack(free, n-len(rows))
		if err != nil || len(rows) == 0 {
			return claimed, 0, err
		}
		// A post unpublished meanwhile stops the mailing within a second.
		if loaded.IsZero() || time.Since(loaded) > time.Second {
			if content, err = s.issueContent(ctx, issue); err != nil {
				giveBack(free, len(rows))
				return claimed, 0, err // the leases lapse and the rows are tried again
			}
			loaded = time.Now()
		}
		claimed += len(rows)
		for _, row := range rows {
			work <- sendItem{row: row, content: content, deadline: deadline}
		}
	}
}

// sendItem is a claimed row on its way to a worker: deadline ends its attempt, before its
// lease lapses.
type sendItem struct {
	row      Send
	content  issueContent
	deadline time.Time
}

// takeFree waits for least free tokens and takes every other free one; 0 when ctx ended.
func takeFree(ctx context.Context, free chan struct{}, least int) int {
	k := 0
	for k < least {
		select {
		case <-free:
			k++
		case <-ctx.Done():
			giveBack(free, k)
			return 0
		}
	}
	for {
		select {
		case <-free:
			k++
		default:
			return k
		}
	}
}

func giveBack(free chan struct{}, n int) {
	for range n {
		free <- struct{}{}
	}
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// issueContent is what an issue mails: its post, or the digest's posts (nil: nothing to mail).
type issueContent struct {
	post   *folio.Post
	digest []*folio.Post
}

func (s *Service) issueContent(ctx context.Context, issue *Issue) (issueContent, error) {
	if issue.Kind == "post" {
		p, err := s.Posts.Post(ctx, issue.PostID)
		if folio.IsNotFound(err) || (err == nil && !p.Public()) {
			return issueContent{}, nil // deleted or unpublished meanwhile: the rest is skipped
		}
		return issueContent{post: p}, err
	}
	ids, err := s.Sends.PublishedPostIDs(ctx, issue.PeriodStart, issue.PeriodEnd)
	if err != nil {
		return issueContent{}, err
	}
	var out issueContent
	for _, id := range ids {
		p, err := s.Posts.Post(ctx, id)
		if folio.IsNotFound(err) {
			continue
		}
		if err != nil {
			return issueContent{}, err
		}
		if p.Public() {
			out.digest = append(out.digest, p)
		}
	}
	return out, nil
}

// sendOne mails one claimed row and records the outcome. The attempt does not end with the
// job's context: a mail in flight is finished and recorded, so a shutdown does not resend it.
func (s *Service) sendOne(ctx context.Context, it sendItem) {
	row := it.row
	out := SendOutcome{Status: SendSkipped}
	var m *folio.MailMessage
	r := Recipient{Name: row.Name, Email: row.Email, UnsubscribeToken: row.UnsubscribeToken}
	switch {
	case row.Status != folio.SubscriberActive:
	case it.content.post != nil:
		m = s.PostMail(it.content.post, r)
	case len(it.content.digest) > 0:
		m = s.DigestMail(it.content.digest, r)
	}
	if m != nil {
		m.Headers["Message-ID"] = s.messageID(row.Issue, row.SubscriberID)
		sctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), it.deadline)
		if release, ok := s.domainSlot(ctx, sctx, row.Email); ok {
			err := s.Mailer.Send(sctx, m)
			release()
			out = s.outcome(row, err)
		} else {
			// Never attempted (the domain's slots stayed busy, or shutdown): due again at once,
			// here or on another instance.
			out = SendOutcome{Status: SendPending, RetryAt: s.now().UTC(), Error: "newsletter: not attempted: no slot for the recipient's domain in time"}
		}
		cancel()
	}
	out.At = s.now().UTC()
	// Recorded even when ctx ended meanwhile (shutdown): the server has the mail.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.Sends.FinishSend(fctx, row.Issue, row.SubscriberID, s.owner(), out); err != nil {
		s.log().Error("newsletter: outcome not recorded", "issue", row.Issue, "subscriber_id", row.SubscriberID, "err", err)
	}
}

// outcome classifies a send's error: a 5xx answer bounces the address for good; a temporary
// failure is retried with backoff until MaxAttempts.
func (s *Service) outcome(row Send, err error) SendOutcome {
	if err == nil {
		return SendOutcome{Status: SendSent}
	}
	msg := err.Error()
	if len(msg) > 1000 {
		msg = msg[:1000]
	}
	var me *folio.MailError
	if errors.As(err, &me) && me.Permanent {
		return SendOutcome{Status: SendFailed, Error: msg, Bounced: me.Code >= 500 && me.Code < 600}
	}
	maxAttempts := s.MaxAttempts
	if maxAttempts <= 0 {
		maxAttempts = DefaultSendAttempts
	}
	if row.Attempts >= maxAttempts {
		return SendOutcome{Status: SendFailed, Error: msg}
	}
	return SendOutcome{Status: SendPending, Error: msg, RetryAt: s.now().UTC().Add(jobs.ExponentialBackoff(row.Attempts))}
}

// allowance takes up to want sends from the rate limit and returns how many it got; none: how
// long until the limit frees one.
func (s *Service) allowance(ctx context.Context, want int) (int, time.Duration) {
	if s.Limiter == nil {
		return want, 0
	}
	rl := folio.RateLimit{Limit: max(s.RatePerMinute, 1), Window: time.Minute}
	if s.RatePerMinute == 0 {
		rl.Limit = DefaultRatePerMinute
	}
	n := 0
	for n < want {
		d, err := s.Limiter.Allow(ctx, "newsletter:send", rl)
		if err != nil {
			return max(n, 1), 0 // the limiter cannot decide: go on, one at a time
		}
		if !d.Allowed {
			if n == 0 {
				return 0, max(d.RetryAfter, time.Second)
			}
			break
		}
		n++
	}
	return n, 0
}

// domainSlot waits for a free slot of the recipient's domain and returns its release; ok is
// false when ctx (the job) or attempt (the row's deadline) ended first.
func (s *Service) domainSlot(ctx, attempt context.Context, email string) (release func(), ok bool) {
	domain := strings.ToLower(email[strings.LastIndexByte(email, '@')+1:])
	s.domainMu.Lock()
	if s.domains == nil {
		s.domains = map[string]chan struct{}{}
	}
	ch, found := s.domains[domain]
	if !found {
		ch = make(chan struct{}, max(s.DomainConcurrency, 1))
		if s.DomainConcurrency == 0 {
			ch = make(chan struct{}, DefaultDomainConcurrency)
		}
		s.domains[domain] = ch
	}
	s.domainMu.Unlock()
	if ctx.Err() != nil {
		return nil, false // shutting down: the mail is left to the next run, here or elsewhere
	}
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, true
	case <-ctx.Done():
	case <-attempt.Done():
	}
	return nil, false
}
