package fediverse

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/webhook"
)

// queue enqueues the delivery of activity to inbox; key names it, so that queueing it again
// (another instance, a job run twice) adds nothing.
func (s *Service) queue(ctx context.Context, key, inbox string, activity any) error {
	body, err := json.Marshal(activity)
	if err != nil {
		return err
	}
	pl, err := json.Marshal(folio.FediverseDeliverPayload{Inbox: inbox, Activity: string(body)})
	if err != nil {
		return err
	}
	return s.Store.EnqueueJob(ctx, folio.JobFediverseDeliver, folio.JobFediverseDeliver+":"+key, string(pl), s.now())
}

// Deliver is the jobs.Handler of folio.JobFediverseDeliver: one signed POST of one activity to
// one inbox, retried on the webhook schedule (docs/api.md, "Outgoing webhooks").
func (s *Service) Deliver(ctx context.Context, j folio.Job) error {
	var pl folio.FediverseDeliverPayload
	if err := json.Unmarshal([]byte(j.Payload), &pl); err != nil || pl.Inbox == "" {
		return jobs.Permanent(fmt.Errorf("fediverse: bad delivery payload"))
	}
	err := s.post(ctx, pl.Inbox, []byte(pl.Activity))
	if err == nil {
		return nil
	}
	delays := s.Delays
	if delays == nil {
		delays = webhook.Schedule
	}
	if j.Attempts > len(delays) {
		s.Log.Warn("fediverse delivery given up", "inbox", pl.Inbox, "error", err.Error())
		return jobs.Permanent(err)
	}
	return jobs.RetryAfter(err, webhook.DefaultJitter(delays[max(j.Attempts, 1)-1]))
}

// post sends one signed activity.
func (s *Service) post(ctx context.Context, inbox string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, inbox, bytes.NewReader(body))
	if err != nil {
		return jobs.Permanent(fmt.Errorf("fediverse: inbox URL: %w", err))
	}
	req.Header.Set("Content-Type", "application/activity+json")
	req.Header.Set("User-Agent", "folio/"+folio.Version)
	if err := Sign(req, body, s.Key, s.KeyID(), s.now()); err != nil {
		return jobs.Permanent(err)
	}
	res, err := s.Client.Do(req)
	if err != nil {
		return fmt.Errorf("fediverse: deliver: %w", err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("fediverse: the inbox answered %d", res.StatusCode)
	}
	return nil
}

// FanOut is the jobs.Handler of folio.JobFediversePost: it turns a post event into one delivery
// per inbox (shared inboxes once). A published post goes out as Create{Article}, an edit of a
// published one as Update{Article} (the post as it is when the job runs), an unpublished or
// deleted one as Delete{Tombstone}. The deliveries' keys derive from this job's, so a second run
// queues nothing new.
func (s *Service) FanOut(ctx context.Context, j folio.Job) error {
	var pl folio.FediversePostPayload
	if err := json.Unmarshal([]byte(j.Payload), &pl); err != nil || pl.PostID == "" {
		return jobs.Permanent(fmt.Errorf("fediverse: bad post payload"))
	}
	var activity Activity
	switch pl.Event {
	case folio.EventPostPublished, folio.EventPostRevised:
		p, err := s.Posts.Post(ctx, pl.PostID)
		if folio.IsNotFound(err) {
			return nil // deleted meanwhile: its Delete follows
		}
		if err != nil {
			return err
		}
		if p.Status != folio.PostPublished {
			return nil // unpublished meanwhile: its own event follows
		}
		activity = s.create(p)
		if pl.Event == folio.EventPostRevised {
			activity = s.update(p, pl.At)
		}
	case folio.EventPostUnpublished, folio.EventPostDeleted:
		activity = s.delete(pl.PostID, pl.At)
	default:
		return nil
	}
	activity.Context = ActivityStreams
	inboxes, err := s.Store.DeliveryInboxes(ctx)
	if err != nil {
		return err
	}
	for _, in := range inboxes {
		if err := s.queue(ctx, j.Key+":"+in, in, activity); err != nil {
			return err
		}
	}
	return nil
}

// stamp makes an activity id unique per event time.
func stamp(at time.Time) string { return at.UTC().Format("20060102T150405.000000000") }

// update is the Update of a published post's Article as it is now.
func (s *Service) update(p *folio.Post, at time.Time) Activity {
	art := s.Article(p)
	now := at.UTC()
	return Activity{ID: art.ID + "#update-" + stamp(at), Type: "Update", Actor: s.ActorID(), Published: &now,
		To: art.To, Cc: art.Cc, Object: art}
}

// delete is the Delete of a post's Article: a Tombstone, as Mastodon expects.
func (s *Service) delete(postID string, at time.Time) Activity {
	now := at.UTC()
	return Activity{ID: s.ObjectID(postID) + "#delete-" + stamp(at), Type: "Delete", Actor: s.ActorID(), Published: &now,
		To: []string{publicAudience}, Cc: []string{s.followersURL()},
		Object: map[string]string{"id": s.ObjectID(postID), "type": "Tombstone"}}
}
