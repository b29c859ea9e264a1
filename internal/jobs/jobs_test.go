package jobs_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/sqldb"
)

func ptr[T any](v T) *T { return &v }

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// countingPublisher records how often each post was sent to the platform; failures, when set,
// are returned (and counted) before a call succeeds.
type countingPublisher struct {
	mu       sync.Mutex
	calls    map[string]int
	failures []error
}

func (c *countingPublisher) PublishArticle(ctx context.Context, p *folio.Post) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[p.ID]++
	if len(c.failures) > 0 {
		err := c.failures[0]
		c.failures = c.failures[1:]
		return "", err
	}
	if p.Status != folio.PostPublished {
		return "", errors.New("sent a post that is not published locally")
	}
	if p.ExtblogID != "" {
		return p.ExtblogID, nil
	}
	return "ext-" + p.ID, nil
}

func (c *countingPublisher) count(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[id]
}

// schedule creates a draft and schedules it for at, with cross-publishing on.
func schedule(t *testing.T, db *sqldb.DB, now, at time.Time, title string) *folio.Post {
	t.Helper()
	ctx := context.Background()
	p, err := content.New(db.Content).CreatePost(ctx, &folio.PostInput{Title: ptr(title), Content: ptr("Body of " + title)}, folio.PostAuthor{Name: "A"})
	if err != nil {
		t.Fatal(err)
	}
	in := folio.PublishingOptionsInput{ArticleID: p.ID, Status: "published", ScheduledAt: ptr(at.Format(time.RFC3339)),
		CrossPlatformPublishing: &folio.CrossPlatformPublishing{Extblog: true}}
	plan, err := in.Plan(now)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = content.New(db.Content).SavePublishingOptions(ctx, plan); err != nil {
		t.Fatal(err)
	}
	return p
}

func newScheduler(db *sqldb.DB, clock *foliotest.Clock, pub folio.ArticlePublisher, owner string) *jobs.Scheduler {
	s := jobs.New(db.Jobs, nil)
	s.Now, s.Owner = clock.Now, owner
	s.Handle(folio.JobPublishPost, jobs.PublishPost(content.New(db.Content), pub, nil))
	return s
}

// Ensure two instances (separate connection pools, separate schedulers, several workers each)
// racing over one database publish every scheduled post exactly once, locally and on the
// platform.
func TestScheduledPublishRunsOnceAcrossInstances(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(t0)
		db.Now = clock.Now
		other, err := sqldb.Open(ctx, db.DSN, "")
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		other.Now = clock.Now

		at := t0.Add(time.Hour)
		var posts []*folio.Post
		for i := 0; i < 24; i++ {
			posts = append(posts, schedule(t, db, t0, at, "Post "+string(rune('a'+i))))
		}
		pub := &countingPublisher{}
		a, b := newScheduler(db, clock, pub, "instance-a"), newScheduler(other, clock, pub, "instance-b")
		if n, err := a.RunDue(ctx); n != 0 || err != nil {
			t.Fatalf("ran %d jobs before they were due (%v)", n, err)
		}
		clock.Advance(time.Hour)
		var wg sync.WaitGroup
		var mu sync.Mutex
		ran := 0
		for i := 0; i < 6; i++ {
			s := a
			if i%2 == 1 {
				s = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := s.RunDue(ctx)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				ran += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		if ran != len(posts) {
			t.Errorf("ran %d jobs, want %d", ran, len(posts))
		}
		for _, p := range posts {
			if n := pub.count(p.ID); n != 1 {
				t.Errorf("post %s sent to the platform %d times", p.Slug, n)
			}
			got, err := db.Content.Post(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != folio.PostPublished || !got.PublishedAt.Equal(at) || got.ExtblogID != "ext-"+p.ID {
				t.Errorf("post %s after its schedule: %+v", p.Slug, got.PostSummary)
			}
		}
		js, _ := db.Jobs.JobsOfKind(ctx, folio.JobPublishPost)
		for _, j := range js {
			if j.Status != folio.JobDone || j.Attempts != 1 {
				t.Errorf("job %s: status %s after %d attempts", j.Key, j.Status, j.Attempts)
			}
		}
	})
}

// Ensure a schedule survives a restart, and a job whose worker died is taken over once its lease
// lapses.
func TestScheduleSurvivesRestartAndDeadWorker(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	clock := foliotest.NewClock(t0)
	open := func() *sqldb.DB {
		db, err := sqldb.Open(ctx, "", dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		db.Now = clock.Now
		return db
	}
	db := open()
	p1 := schedule(t, db, t0, t0.Add(time.Hour), "Survives a restart")
	p2 := schedule(t, db, t0, t0.Add(2*time.Hour), "Orphaned by a crash")
	db.Close()

	db = open()
	defer db.Close()
	pub := &countingPublisher{}
	s := newScheduler(db, clock, pub, "after-restart")
	clock.Advance(time.Hour)
	if n, err := s.RunDue(ctx); n != 1 || err != nil {
		t.Fatalf("after restart ran %d (%v)", n, err)
	}
	if got, _ := db.Content.Post(ctx, p1.ID); got.Status != folio.PostPublished {
		t.Errorf("not published after restart: %s", got.Status)
	}
	// A worker claims p2's job and dies without finishing.
	clock.Advance(time.Hour)
	if _, ok, err := db.Jobs.ClaimJob(ctx, "crashed", []string{folio.JobPublishPost}, clock.Now(), clock.Now().Add(jobs.DefaultLease)); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if n, _ := s.RunDue(ctx); n != 0 {
		t.Fatal("took over a job whose lease holds")
	}
	clock.Advance(jobs.DefaultLease + time.Second)
	if n, _ := s.RunDue(ctx); n != 1 {
		t.Fatal("did not take over a lapsed lease")
	}
	if got, _ := db.Content.Post(ctx, p2.ID); got.Status != folio.PostPublished || pub.count(p2.ID) != 1 {
		t.Errorf("orphaned post: %s, sent %d times", got.Status, pub.count(p2.ID))
	}
}

// Ensure a platform failure keeps the local publication, is retried with backoff, and a final
// refusal fails the job without publishing twice.
func TestPublishRetriesPlatformFailures(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(t0)
		db.Now = clock.Now
		pub := &countingPublisher{failures: []error{&folio.ExtBlogError{Kind: folio.ExtBlogNetwork, Op: "PublishPost", Message: "timeout"}}}
		s := newScheduler(db, clock, pub, "w")
		p := schedule(t, db, t0, t0.Add(time.Minute), "Flaky platform")
		clock.Advance(time.Minute)
		s.RunDue(ctx)
		got, _ := db.Content.Post(ctx, p.ID)
		if got.Status != folio.PostPublished || got.ExtblogID != "" {
			t.Fatalf("after a platform failure: %+v", got.PostSummary)
		}
		j, _ := db.Jobs.JobByKey(ctx, jobsKey(t, db))
		if j.Status != folio.JobPending || j.LastError == "" || !j.RunAt.Equal(clock.Now().Add(jobs.ExponentialBackoff(1))) {
			t.Fatalf("job after failure: %+v", j)
		}
		if n, _ := s.RunDue(ctx); n != 0 {
			t.Fatal("retried before the backoff")
		}
		clock.Advance(jobs.ExponentialBackoff(1))
		s.RunDue(ctx)
		got, _ = db.Content.Post(ctx, p.ID)
		if got.ExtblogID != "ext-"+p.ID || pub.count(p.ID) != 2 || !got.PublishedAt.Equal(t0.Add(time.Minute)) {
			t.Errorf("after retry: %+v, %d calls", got.PostSummary, pub.count(p.ID))
		}

		// An authentication failure is not retried.
		pub.failures = []error{&folio.ExtBlogError{Kind: folio.ExtBlogAuth, Op: "PublishPost", Message: "bad token"}}
		q := schedule(t, db, clock.Now(), clock.Now().Add(time.Minute), "Bad token")
		clock.Advance(time.Minute)
		s.RunDue(ctx)
		js, _ := db.Jobs.JobsOfKind(ctx, folio.JobPublishPost)
		last := js[len(js)-1]
		if last.Status != folio.JobFailed || last.Attempts != 1 {
			t.Errorf("auth failure: %+v", last)
		}
		if got, _ := db.Content.Post(ctx, q.ID); got.Status != folio.PostPublished {
			t.Errorf("local publication lost: %s", got.Status)
		}

		// An unconfigured platform is skipped, not retried.
		pub.failures = []error{folio.Errorf(folio.EUNAVAILABLE, "The external blog platform is not configured.")}
		schedule(t, db, clock.Now(), clock.Now().Add(time.Minute), "Not configured")
		clock.Advance(time.Minute)
		s.RunDue(ctx)
		js, _ = db.Jobs.JobsOfKind(ctx, folio.JobPublishPost)
		if last := js[len(js)-1]; last.Status != folio.JobDone {
			t.Errorf("unconfigured platform: %+v", last)
		}
	})
}

func jobsKey(t *testing.T, db *sqldb.DB) string {
	t.Helper()
	js, err := db.Jobs.JobsOfKind(context.Background(), folio.JobPublishPost)
	if err != nil || len(js) == 0 {
		t.Fatalf("jobs: %v %v", js, err)
	}
	return js[len(js)-1].Key
}

// Ensure stale jobs (rescheduled, unscheduled or deleted posts) do nothing.
func TestStalePublishJobs(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(t0)
		db.Now = clock.Now
		pub := &countingPublisher{}
		s := newScheduler(db, clock, pub, "w")
		p := schedule(t, db, t0, t0.Add(time.Minute), "Deleted before its time")
		if err := content.New(db.Content).DeletePost(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		// A job whose post vanished after it was claimed (so not cancelled) is done, not failed.
		db.Jobs.EnqueueJob(ctx, folio.JobPublishPost, "publish:gone", `{"postId":"gone","scheduledAt":"2026-05-01T12:01:00Z"}`, t0)
		db.Jobs.EnqueueJob(ctx, folio.JobPublishPost, "publish:bad", `not json`, t0)
		clock.Advance(time.Minute)
		if n, _ := s.RunDue(ctx); n != 2 {
			t.Errorf("ran %d jobs, want 2 (the deleted post's job is cancelled)", n)
		}
		if j, _ := db.Jobs.JobByKey(ctx, "publish:gone"); j.Status != folio.JobDone {
			t.Errorf("job of a missing post: %s", j.Status)
		}
		if j, _ := db.Jobs.JobByKey(ctx, "publish:bad"); j.Status != folio.JobFailed {
			t.Errorf("job with a bad payload: %s", j.Status)
		}
		if len(pub.calls) != 0 {
			t.Errorf("platform called: %v", pub.calls)
		}
	})
}

// Ensure handler errors, panics and unknown kinds are recorded, retried or failed as documented.
func TestSchedulerOutcomes(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ctx := context.Background()
	clock := foliotest.NewClock(t0)
	s := jobs.New(db.Jobs, nil)
	s.Now, s.MaxAttempts = clock.Now, 2
	s.Backoff = func(int) time.Duration { return time.Minute }
	calls := map[string]int{}
	s.Handle("flaky", func(ctx context.Context, j folio.Job) error { calls["flaky"]++; return errors.New("still broken") })
	s.Handle("panics", func(ctx context.Context, j folio.Job) error { calls["panics"]++; panic("boom") })
	s.Handle("permanent", func(ctx context.Context, j folio.Job) error {
		calls["permanent"]++
		return jobs.Permanent(errors.New("cannot work"))
	})
	s.Handle("ok", func(ctx context.Context, j folio.Job) error { calls["ok"]++; return nil })
	for _, k := range []string{"flaky", "panics", "permanent", "ok", "unhandled"} {
		if err := db.Jobs.EnqueueJob(ctx, k, k, "{}", t0); err != nil {
			t.Fatal(err)
		}
	}
	s.RunDue(ctx)
	clock.Advance(time.Minute)
	s.RunDue(ctx)
	clock.Advance(time.Minute)
	s.RunDue(ctx)
	for _, tc := range []struct {
		key, status string
		calls       int
	}{
		{"flaky", folio.JobFailed, 2},
		{"panics", folio.JobFailed, 2},
		{"permanent", folio.JobFailed, 1},
		{"ok", folio.JobDone, 1},
		{"unhandled", folio.JobPending, 0},
	} {
		j, _ := db.Jobs.JobByKey(ctx, tc.key)
		if j.Status != tc.status || calls[tc.key] != tc.calls {
			t.Errorf("%s: status %s after %d calls, want %s after %d (last error %q)", tc.key, j.Status, calls[tc.key], tc.status, tc.calls, j.LastError)
		}
	}
}

// Ensure Run polls, runs due jobs and returns when its context ends.
func TestRunUntilCancelled(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ctx, cancel := context.WithCancel(context.Background())
	s := jobs.New(db.Jobs, nil)
	s.Poll = 5 * time.Millisecond
	ran := make(chan string, 1)
	s.Handle("ping", func(ctx context.Context, j folio.Job) error { ran <- j.Key; return nil })
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	if err := db.Jobs.EnqueueJob(context.Background(), "ping", "ping:1", "{}", time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := <-ran; got != "ping:1" {
		t.Errorf("ran %q", got)
	}
	cancel()
	<-done
}

// leaseWorkers returns a worker named owner and another one, both on a test clock that db uses
// too. The first holds leases of seconds, not milliseconds: on a loaded machine (the race
// detector, both cores busy) one renewal can take longer than a third of a short lease.
func leaseWorkers(db *sqldb.DB, owner string) (s, other *jobs.Scheduler, clock *foliotest.Clock) {
	clock = foliotest.NewClock(t0)
	db.Now = clock.Now
	s, other = jobs.New(db.Jobs, nil), jobs.New(db.Jobs, nil)
	s.Now, s.Owner, s.Lease = clock.Now, owner, 1500*time.Millisecond
	other.Now, other.Owner = clock.Now, "other"
	return s, other, clock
}

// awaitRenewal, called by s's handler of j, moves the clock an hour on, far past the claim's
// lease, and waits until a renewal holds j at the new time (or stop closes).
func awaitRenewal(db *sqldb.DB, clock *foliotest.Clock, s *jobs.Scheduler, j folio.Job, stop <-chan struct{}) error {
	clock.Advance(time.Hour)
	want := clock.Now().Add(s.Lease)
	for {
		got, err := db.Jobs.JobByKey(context.Background(), j.Key)
		if err != nil {
			return err
		}
		if !got.LeaseUntil.Before(want) {
			return nil
		}
		select {
		case <-stop:
			return errors.New("the handler's context ended before its lease was renewed")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// A long job keeps its lease while it runs, so no other worker takes it over, and the lease it
// holds is short: the scheduler renews it.
func TestLongJobKeepsItsLease(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s, other, clock := leaseWorkers(db, "long")
		var otherRan bool
		other.Handle("long", func(context.Context, folio.Job) error { otherRan = true; return nil })
		s.Handle("long", func(hctx context.Context, j folio.Job) error {
			// Only renewals keep the job this worker's.
			if err := awaitRenewal(db, clock, s, j, hctx.Done()); err != nil {
				return err
			}
			if n, err := other.RunDue(ctx); n != 0 || err != nil {
				return errors.New("another worker took the job over while it ran")
			}
			return nil
		})
		if err := db.Jobs.EnqueueJob(ctx, "long", "long:1", "{}", t0); err != nil {
			t.Fatal(err)
		}
		if n, err := s.RunDue(ctx); n != 1 || err != nil {
			t.Fatalf("ran %d: %v", n, err)
		}
		j, err := db.Jobs.JobByKey(ctx, "long:1")
		if err != nil || j.Status != folio.JobDone || j.LeaseOwner != "long" || otherRan {
			t.Fatalf("job %+v (%v), other ran: %v", j, err, otherRan)
		}
	})
}

// A handler that ignores its context keeps its lease only until one lease past the run limit:
// then the lease lapses and another worker runs the job.
func TestStuckJobLosesItsLease(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s, other, clock := leaseWorkers(db, "stuck")
		s.Timeout = 100 * time.Millisecond
		held, release, otherRan := make(chan struct{}), make(chan struct{}), make(chan struct{})
		other.Handle("stuck", func(context.Context, folio.Job) error { close(otherRan); return nil })
		s.Handle("stuck", func(_ context.Context, j folio.Job) error {
			if err := awaitRenewal(db, clock, s, j, nil); err != nil {
				return err
			}
			close(held)
			<-release // ignores its context
			return nil
		})
		if err := db.Jobs.EnqueueJob(ctx, "stuck", "stuck:1", "{}", t0); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := s.RunDue(ctx); done <- err }()
		select {
		case <-held:
		case err := <-done:
			t.Fatalf("the job ended before its lease was renewed: %v", err)
		}
		giveUp := time.After(time.Minute) // a liveness bound, not a timing assertion
	wait:
		for {
			select {
			case <-otherRan:
				break wait
			case <-giveUp:
				close(release)
				t.Fatal("the stuck handler kept its job: no other worker could run it")
			case <-time.After(20 * time.Millisecond):
			}
			// The fake clock runs at most at the wall's pace: renewals (every 500 ms of the
			// wall) keep the lease ahead of it; without them it lapses.
			clock.Advance(20 * time.Millisecond)
			if _, err := other.RunDue(ctx); err != nil {
				t.Fatal(err)
			}
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		j, err := db.Jobs.JobByKey(ctx, "stuck:1")
		if err != nil || j.Status != folio.JobDone || j.LeaseOwner != "other" {
			t.Fatalf("job %+v (%v)", j, err)
		}
	})
}

// A handler that did part of its work (jobs.Continue) runs again after the delay it asked for,
// however many runs it took already: not after the scheduler's backoff.
func TestContinueRunsAgainAfterItsDelay(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(t0)
		db.Now = clock.Now
		s := jobs.New(db.Jobs, nil)
		s.Now, s.Owner = clock.Now, "w"
		runs := 0
		s.Handle("part", func(context.Context, folio.Job) error {
			runs++
			if runs < 4 {
				return jobs.Continue("more to do", 2*time.Second)
			}
			return nil
		})
		if err := db.Jobs.EnqueueJob(ctx, "part", "part:1", "{}", t0); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 4; i++ {
			if n, err := s.RunDue(ctx); n != 1 || err != nil {
				t.Fatalf("run %d: ran %d (%v)", i, n, err)
			}
			j, err := db.Jobs.JobByKey(ctx, "part:1")
			if err != nil {
				t.Fatal(err)
			}
			if i < 4 && (j.Status != folio.JobPending || !j.RunAt.Equal(clock.Now().Add(2*time.Second)) || j.LastError != "more to do") {
				t.Fatalf("after run %d: %+v", i, j)
			}
			if i == 4 && j.Status != folio.JobDone {
				t.Fatalf("after the last run: %+v", j)
			}
			if n, _ := s.RunDue(ctx); n != 0 {
				t.Fatal("ran again before its delay")
			}
			clock.Advance(2 * time.Second)
		}
	})
}
