package newsletter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/markdown"
	"github.com/foliohq/folio/internal/newsletter"
	"github.com/foliohq/folio/internal/ratelimit"
	"github.com/foliohq/folio/internal/sqldb"
)

// sendRig is a database with n active subscribers and one published post whose newsletter is
// queued, and a real SMTP server.
type sendRig struct {
	db    *sqldb.DB
	smtp  *smtptest.Server
	clock *foliotest.Clock
	post  *folio.Post
	job   folio.Job
	n     int
}

func newSendRig(t *testing.T, db *sqldb.DB, n int) *sendRig {
	t.Helper()
	ctx := context.Background()
	clock := foliotest.NewClock(time.Date(2030, 6, 3, 9, 0, 0, 0, time.UTC))
	db.Now = clock.Now
	subs := make([]folio.Subscriber, n)
	now := clock.Now()
	for i := range subs {
		subs[i] = folio.Subscriber{ID: folio.NewID(), Email: fmt.Sprintf("reader%03d@d%d.test", i, i%4), Status: folio.SubscriberActive,
			CreatedAt: now, ConfirmedAt: &now, UnsubscribeToken: newsletter.NewToken()}
	}
	if got, err := db.Subscribers.ImportSubscribers(ctx, subs); err != nil || got != n {
		t.Fatalf("import: %d %v", got, err)
	}
	posts := content.New(db.Content)
	title, body := "Race", "Once each."
	p, err := posts.CreatePost(ctx, &folio.PostInput{Title: &title, Content: &body}, folio.PostAuthor{Name: "Owner"})
	if err != nil {
		t.Fatal(err)
	}
	if p, err = posts.SavePublishingOptions(ctx, &folio.PublishingPlan{PostID: p.ID, Publish: true, Newsletter: &folio.PostNewsletter{Send: true}}); err != nil {
		t.Fatal(err)
	}
	pl, _ := json.Marshal(folio.NewsletterIssueJobPayload{Issue: newsletter.PostIssueID(p.ID)})
	return &sendRig{db: db, smtp: smtptest.Start(t), clock: clock, post: p, n: n,
		job: folio.Job{Kind: folio.JobNewsletterIssue, Payload: string(pl)}}
}

// instance is one server's newsletter service over the shared database.
func (r *sendRig) instance(t *testing.T, owner string) *newsletter.Service {
	t.Helper()
	mailer, err := mail.NewSMTP(mail.SMTPConfig{Host: r.smtp.Host, Port: r.smtp.Port, From: folio.MailAddress{Email: "site@example.org"},
		TLS: mail.TLSNone, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return &newsletter.Service{Store: r.db.Subscribers, SiteURL: "https://site.test", Now: r.clock.Now,
		SendConfig: newsletter.SendConfig{Sends: r.db.Subscribers, Posts: content.New(r.db.Content), Mailer: mailer,
			Markdown: markdown.New(), Owner: owner, DomainConcurrency: 2}}
}

// onceEach checks that the SMTP server got exactly one mail for each subscriber.
func (r *sendRig) onceEach(t *testing.T) {
	t.Helper()
	got := map[string]int{}
	for _, m := range r.smtp.Messages() {
		for _, to := range m.To {
			got[to]++
		}
	}
	if len(got) != r.n {
		t.Fatalf("%d distinct recipients, want %d", len(got), r.n)
	}
	for to, c := range got {
		if c != 1 {
			t.Fatalf("%s got %d mails", to, c)
		}
	}
	p, err := r.db.Subscribers.NewsletterProgress(context.Background(), r.post.ID)
	if err != nil || p.Status != folio.NewsletterSent || p.Sent != r.n || p.Total != r.n || p.Failed != 0 {
		t.Fatalf("progress %+v, %v", p, err)
	}
}

// Two instances run the same issue's job at once: each subscriber gets one mail.
func TestTwoInstancesMailOnce(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		r := newSendRig(t, db, 120)
		a, b := r.instance(t, "instance-a"), r.instance(t, "instance-b")
		var wg sync.WaitGroup
		for _, s := range []*newsletter.Service{a, b, a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// An instance that finds rows leased by the other asks to run again later
				// (jobs.RetryAfter): that is no failure here.
				_ = s.HandleIssue(context.Background(), r.job)
			}()
		}
		wg.Wait()
		if err := a.HandleIssue(context.Background(), r.job); err != nil {
			t.Fatalf("after both: %v", err)
		}
		r.onceEach(t)
	})
}

// An instance dies after claiming rows and before mailing them: another mails them once their
// lease lapses; nothing is lost and nothing is sent twice.
func TestDeadInstanceRowsMailedOnce(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		r := newSendRig(t, db, 40)
		a := r.instance(t, "instance-a")
		issue := newsletter.PostIssueID(r.post.ID)
		if _, err := db.Subscribers.FanOut(ctx, issue, folio.PreferencePosts, r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		dead, err := db.Subscribers.ClaimSends(ctx, issue, "dead-instance", r.clock.Now(), r.clock.Now().Add(newsletter.DefaultSendLease), 7)
		if err != nil || len(dead) != 7 {
			t.Fatalf("claim: %d %v", len(dead), err)
		}
		// The live instance mails the rest; the dead one's rows wait for their lease.
		err = a.HandleIssue(ctx, r.job)
		if err == nil {
			t.Fatal("the job finished with leased rows left")
		}
		if n := len(r.smtp.Messages()); n != 33 {
			t.Fatalf("%d mails before the lease lapsed, want 33", n)
		}
		p, _ := db.Subscribers.NewsletterProgress(ctx, r.post.ID)
		if p.Status != folio.NewsletterSending || p.Sent != 33 {
			t.Fatalf("progress meanwhile: %+v", p)
		}
		// The dead instance's late outcome would be refused once another took the row over.
		r.clock.Advance(newsletter.DefaultSendLease + time.Second)
		if err := a.HandleIssue(ctx, r.job); err != nil {
			t.Fatal(err)
		}
		if err := db.Subscribers.FinishSend(ctx, issue, dead[0].SubscriberID, "dead-instance", newsletter.SendOutcome{Status: newsletter.SendSent, At: r.clock.Now()}); !errors.Is(err, newsletter.ErrSendLeaseLost) {
			t.Fatalf("a lapsed lease's outcome: %v", err)
		}
		r.onceEach(t)
	})
}

// The rate limit paces the sending: a batch takes no more than the minute allows.
func TestSendRate(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		r := newSendRig(t, db, 12)
		a := r.instance(t, "instance-a")
		a.Limiter, a.RatePerMinute = ratelimit.NewMemory(r.clock.Now), 5
		issue, err := db.Subscribers.FanOut(ctx, newsletter.PostIssueID(r.post.ID), folio.PreferencePosts, r.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		n, wait, err := a.SendBatch(ctx, issue)
		if err != nil || n != 5 || wait != 0 {
			t.Fatalf("first batch: %d %v %v", n, wait, err)
		}
		n, wait, err = a.SendBatch(ctx, issue)
		if err != nil || n != 0 || wait <= 0 {
			t.Fatalf("over the rate: %d %v %v", n, wait, err)
		}
		if got := len(r.smtp.Messages()); got != 5 {
			t.Fatalf("%d mails in the first minute, want 5", got)
		}
		r.clock.Advance(time.Minute + 10*time.Second)
		if n, _, err := a.SendBatch(ctx, issue); err != nil || n != 5 {
			t.Fatalf("next minute: %d %v", n, err)
		}
	})
}

// A subscriber who unsubscribes after the fan-out is skipped.
func TestUnsubscribedBeforeTheirTurnSkipped(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		r := newSendRig(t, db, 3)
		a := r.instance(t, "instance-a")
		if _, err := db.Subscribers.FanOut(ctx, newsletter.PostIssueID(r.post.ID), folio.PreferencePosts, r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		subs, _, _ := db.Subscribers.Subscribers(ctx, folio.SubscriberFilter{}, 1, 10)
		if _, err := db.Subscribers.Unsubscribe(ctx, subs[0].UnsubscribeToken, r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if err := a.HandleIssue(ctx, r.job); err != nil {
			t.Fatal(err)
		}
		p, _ := db.Subscribers.NewsletterProgress(ctx, r.post.ID)
		if p.Status != folio.NewsletterSent || p.Sent != 2 || p.Skipped != 1 || p.Total != 3 || len(r.smtp.Messages()) != 2 {
			t.Fatalf("progress %+v, %d mails", p, len(r.smtp.Messages()))
		}
	})
}

// The server accepts each mail and then drops the connection at QUIT, or never answers it: each
// mail is recorded as sent (not retried, which would mail it twice).
func TestAcceptedMailRecordedWhenQuitFails(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		for _, mode := range []smtptest.QuitMode{smtptest.QuitDrop, smtptest.QuitHang} {
			r := newSendRig(t, db, 20)
			r.smtp.AtQuit(mode)
			if err := r.instance(t, "instance-a").HandleIssue(context.Background(), r.job); err != nil {
				t.Fatalf("quit mode %d: %v", mode, err)
			}
			r.onceEach(t)
			// Drop the rig's subscribers so the next mode's rig starts from an empty list.
			subs, _, _ := db.Subscribers.Subscribers(context.Background(), folio.SubscriberFilter{}, 1, 100)
			for _, s := range subs {
				if err := db.Subscribers.DeleteSubscriber(context.Background(), s.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
