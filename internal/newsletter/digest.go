package newsletter

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/jobs"
)

// The weekly digest: a job at the start of each week (Monday 07:00 UTC) makes the digest issue
// of the week that ended, when posts were published in it, for the subscribers who chose the
// digest. The job's key and the issue's id name the week, so with several instances the digest
// of a week is made and mailed once.

// digestHour is when, on Monday (UTC), the digest of the past week goes out.
const digestHour = 7

type digestPayload struct {
	End time.Time `json:"end"`
}

// nextDigestEnd is the first Monday digestHour:00 UTC after now.
func nextDigestEnd(now time.Time) time.Time {
	now = now.UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), digestHour, 0, 0, 0, time.UTC)
	offset := (int(time.Monday) - int(day.Weekday()) + 7) % 7
	at := day.AddDate(0, 0, offset)
	if !at.After(now) {
		at = at.AddDate(0, 0, 7)
	}
	return at
}

// ScheduleDigest queues the next weekly digest job (a no-op when it is queued already: the key
// names the week).
func (s *Service) ScheduleDigest(ctx context.Context, q jobs.Enqueuer) error {
	return s.scheduleDigestAt(ctx, q, nextDigestEnd(s.now()))
}

func (s *Service) scheduleDigestAt(ctx context.Context, q jobs.Enqueuer, end time.Time) error {
	pl, _ := json.Marshal(digestPayload{End: end})
	return q.EnqueueJob(ctx, folio.JobNewsletterDigest, folio.JobNewsletterDigest+":"+end.Format(time.RFC3339), string(pl), end)
}

// DigestIssueID names the digest of the week that starts at start.
func DigestIssueID(start time.Time) string {
	y, w := start.UTC().ISOWeek()
	return fmt.Sprintf("digest:%04d-W%02d", y, w)
}

// DigestHandler returns the handler of folio.JobNewsletterDigest: it makes the issue of the week
// before the job's time (when posts were published in it; its own job mails it) and queues the
// next week's digest job.
func (s *Service) DigestHandler(q jobs.Enqueuer) jobs.Handler {
	return func(ctx context.Context, j folio.Job) error {
		var pl digestPayload
		if err := json.Unmarshal([]byte(j.Payload), &pl); err != nil || pl.End.IsZero() {
			return jobs.Permanent(fmt.Errorf("newsletter: bad digest payload %q", j.Payload))
		}
		if _, err := s.MakeDigest(ctx, pl.End); err != nil {
			return err
		}
		return s.scheduleDigestAt(ctx, q, pl.End.AddDate(0, 0, 7))
	}
}

// MakeDigest makes the digest issue of the week that ends at end (when posts were published in
// it) and reports its id ("" when the week had none).
func (s *Service) MakeDigest(ctx context.Context, end time.Time) (string, error) {
	start := end.AddDate(0, 0, -7)
	ids, err := s.Sends.PublishedPostIDs(ctx, start, end)
	if err != nil || len(ids) == 0 {
		return "", err
	}
	id := DigestIssueID(start)
	_, err = s.Sends.CreateDigestIssue(ctx, id, start, end, s.now().UTC())
	return id, err
}
