package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/foliohq/folio"
)

// Posts is what PublishPost needs of the posts (content.Service).
type Posts interface {
	// PublishScheduled publishes the post when it is still a draft scheduled for at, and
	// returns the post as it now is and whether this call published it.
	PublishScheduled(ctx context.Context, id string, at time.Time) (*folio.Post, bool, error)
	SetPostExtblogID(ctx context.Context, id, extblogID string) error
}

// PublishPost returns the handler of folio.JobPublishPost: it publishes the scheduled post
// locally and, when the post's crossPlatformPublishing.extblog flag is on, on the external
// platform through pub (nil: not configured, logged and skipped).
//
// It is idempotent, as a lapsed lease may run it twice: the local publication is conditional on
// the post still being a draft scheduled for this job's time, and the platform step publishes a
// post that already has an extblogId as an update. A job whose post was deleted, rescheduled or
// unscheduled does nothing.
func PublishPost(posts Posts, pub folio.ArticlePublisher, log *slog.Logger) Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context, j folio.Job) error {
		var pl folio.PublishJobPayload
		if err := json.Unmarshal([]byte(j.Payload), &pl); err != nil || pl.PostID == "" {
			return Permanent(fmt.Errorf("jobs: bad publish payload %q", j.Payload))
		}
		p, published, err := posts.PublishScheduled(ctx, pl.PostID, pl.ScheduledAt)
		if folio.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if p.ScheduledAt == nil || !p.ScheduledAt.Equal(pl.ScheduledAt) || p.Status != folio.PostPublished {
			log.Info("scheduled publication no longer applies", "post_id", pl.PostID)
			return nil
		}
		if published {
			log.Info("scheduled post published", "post_id", p.ID, "slug", p.Slug)
		}
		if p.CrossPlatformPublishing == nil || !p.CrossPlatformPublishing.Extblog {
			return nil
		}
		if pub == nil {
			log.Warn("scheduled post not sent to the external blog: it is not configured (EXTBLOG_API_TOKEN)", "post_id", p.ID)
			return nil
		}
		id, err := pub.PublishArticle(ctx, p)
		if folio.ErrorCode(err) == folio.EUNAVAILABLE {
			// The platform is not configured: retrying cannot help until an operator acts.
			log.Warn("scheduled post not sent to the external blog", "post_id", p.ID, "error", err.Error())
			return nil
		}
		if err != nil {
			var xe *folio.ExtBlogError
			if errors.As(err, &xe) && !xe.Retryable() {
				return Permanent(err)
			}
			return err
		}
		if id != "" && id != p.ExtblogID {
			return posts.SetPostExtblogID(ctx, p.ID, id)
		}
		return nil
	}
}
