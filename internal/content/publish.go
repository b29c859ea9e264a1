package content

import (
	"context"
	"time"

	"github.com/foliohq/folio"
)

// SavePublishingOptions applies a publishing plan to its post, or returns ENOTFOUND: publishing
// now sets publishedAt on the first publication, clears any schedule and un-archives the post; a
// future ScheduledAt makes the post a draft waiting for one publish job at that time (a job for
// another time goes); otherwise the post becomes a draft and any schedule is cancelled. The SEO,
// series, settings and cross-publishing flag are set when the plan has them.
func (s *Service) SavePublishingOptions(ctx context.Context, plan *folio.PublishingPlan) (*folio.Post, error) {
	var out *folio.Post
	err := s.Store.UpdatePost(ctx, plan.PostID, func(p *folio.Post, _ SlugUse) (*folio.PostWrite, error) {
		out = p
		before := p.Status
		if plan.CrossPlatformPublishing != nil {
			c := *plan.CrossPlatformPublishing
			p.CrossPlatformPublishing = &c
		}
		if plan.SEOSet {
			p.SEO = plan.SEO
		}
		if plan.Series != nil {
			p.Series = *plan.Series
		}
		if plan.Settings != nil {
			st := *plan.Settings
			p.Settings = &st
		}
		now := s.now().UTC().Truncate(time.Microsecond)
		p.UpdatedAt = now
		jobs := &folio.PostJobs{}
		switch {
		case plan.Publish:
			p.Status, p.ScheduledAt, p.ArchivedAt = folio.PostPublished, nil, nil
			if p.PublishedAt == nil {
				p.PublishedAt = &now
			}
		case plan.ScheduledAt != nil:
			at := *plan.ScheduledAt
			p.Status, p.ScheduledAt = folio.PostDraft, &at
			j := p.PublishJob(at)
			jobs.Enqueue, jobs.Keep = &j, j.Key
		default:
			p.Status, p.ScheduledAt = folio.PostDraft, nil
		}
		w := &folio.PostWrite{Post: p, Search: p.SearchDoc(), Events: p.Transition(before), Jobs: jobs}
		if plan.Newsletter != nil {
			send := plan.Newsletter.Send
			w.NewsletterSend = &send
			p.Newsletter = &folio.PostNewsletter{Send: send}
		}
		return w, nil
	})
	if folio.IsNotFound(err) {
		// The publishing API names posts articles.
		return nil, folio.Errorf(folio.ENOTFOUND, "Article %q was not found.", plan.PostID)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PublishScheduled publishes the post of a publish job when it is still a draft scheduled for at.
// It returns the post as it now is and whether this call published it; a post rescheduled or
// published meanwhile is returned unchanged (the job is stale). publishedAt, when not set by an
// earlier publication, is the scheduled time.
func (s *Service) PublishScheduled(ctx context.Context, id string, at time.Time) (*folio.Post, bool, error) {
	var read, pub *folio.Post
	published, err := s.Store.PublishScheduledPost(ctx, id, at, func(p *folio.Post) (*folio.PostWrite, error) {
		read = p
		if p.ScheduledAt == nil || !p.ScheduledAt.Equal(at) || p.Status != folio.PostDraft {
			return nil, nil
		}
		q := *p
		now := s.now().UTC().Truncate(time.Microsecond)
		when := at.UTC().Truncate(time.Microsecond)
		if q.PublishedAt != nil {
			when = *q.PublishedAt
		}
		q.Status, q.PublishedAt, q.ArchivedAt, q.UpdatedAt = folio.PostPublished, &when, nil, now
		pub = &q
		return &folio.PostWrite{Post: &q, Search: q.SearchDoc(), Events: []folio.Event{q.Event(folio.EventPostPublished)}}, nil
	})
	if err != nil {
		return nil, false, err
	}
	if published {
		return pub, true, nil
	}
	return read, false, nil
}
