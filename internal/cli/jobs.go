package cli

import (
	"context"
	"log/slog"

	"github.com/foliohq/folio/internal/newsletter"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/backup"
	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/fediverse"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/webhook"
	"github.com/foliohq/folio/internal/webmention"
)

// schedulerDeps is what the durable job scheduler runs jobs for.
type schedulerDeps struct {
	Config *config.Config
	DB     *sqldb.DB
	Log    *slog.Logger
	// Publisher publishes scheduled posts on the external blog platform too.
	Publisher folio.ArticlePublisher
	// Bookings sends reminder mails before meetings (BOOKING_REMINDERS); nil sends none.
	Bookings *booking.Service
	// Backups takes the scheduled snapshots; nil when BACKUP_INTERVAL is unset.
	Backups *backup.Service
	// Fediverse fans post events out to the followers and delivers the activities.
	Fediverse *fediverse.Service
	// Webmention verifies received Webmentions and sends published posts'.
	Webmention *webmention.Service
	// Newsletter mails published posts and the weekly digest to the subscribers.
	Newsletter *newsletter.Service
}

// newScheduler builds the durable job scheduler (every instance runs one; each job still runs
// once) and schedules the recurring jobs: the webhook log's pruning and the backups.
func newScheduler(ctx context.Context, d schedulerDeps) (*jobs.Scheduler, error) {
	db, log := d.DB, d.Log
	sched := jobs.New(db.Jobs, log)
	sched.Poll = d.Config.JobsPoll
	sched.Handle(folio.JobPublishPost, jobs.PublishPost(content.New(db.Content), d.Publisher, log))
	if d.Bookings != nil {
		remind := d.Bookings.Remind
		sched.Handle(booking.JobReminder, func(ctx context.Context, j folio.Job) error { return remind(ctx, j.Key, j.Payload) })
	}
	// Outgoing webhooks: deliveries queued with the writes that caused them (internal/webhook).
	sched.Handle(folio.JobWebhookDelivery, webhook.NewSender(db.Webhooks, d.Config.WebhookAllowPrivate, log).Handle)
	if d.Fediverse != nil {
		sched.Handle(folio.JobFediversePost, d.Fediverse.FanOut)
		sched.Handle(folio.JobFediverseDeliver, d.Fediverse.Deliver)
	}
	if d.Webmention != nil {
		sched.Handle(folio.JobWebmentionVerify, d.Webmention.Verify)
		sched.Handle(folio.JobWebmentionSend, d.Webmention.Send)
	}
	if d.Newsletter != nil {
		sched.Handle(folio.JobNewsletterIssue, d.Newsletter.HandleIssue)
		sched.Handle(folio.JobNewsletterDigest, d.Newsletter.DigestHandler(db.Jobs))
		if err := d.Newsletter.ScheduleDigest(ctx, db.Jobs); err != nil {
			return nil, err
		}
	}
	pruner := &webhook.Pruner{Queue: db.Jobs, Deliveries: db.Webhooks, Log: log} // settled deliveries leave the log after 30 days
	sched.Handle(webhook.PruneJob, pruner.Handle)
	if err := pruner.Schedule(ctx); err != nil {
		return nil, err
	}
	if d.Backups != nil {
		sched.Handle(backup.JobKind, d.Backups.Handle)
		if err := d.Backups.Schedule(ctx); err != nil {
			return nil, err
		}
	}
	return sched, nil
}
