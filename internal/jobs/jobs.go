// Package jobs runs durable background work stored in the database: scheduled publishing,
// booking reminders, webhook deliveries and their pruning, backups. Jobs survive restarts because they are rows; several
// instances may run schedulers against one PostgreSQL database and each job still runs once,
// because a worker claims a job with a lease in one conditional UPDATE (Store.ClaimJob) and only
// the lease holder may record its outcome. The worker renews the lease while the handler runs,
// so the lease can be short: a worker that dies mid-job loses it within Lease and another worker
// runs the job again, so handlers must be idempotent.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/foliohq/folio"
)

// Handler runs one job. A nil error marks it done; an error schedules a retry with backoff, or
// fails the job for good when it is Permanent or the attempts are spent.
type Handler func(ctx context.Context, j folio.Job) error

// Enqueuer adds a job due at runAt. key names the job: enqueueing a key that exists again is a
// no-op while that job is pending or running, and re-arms it when it is done or failed.
type Enqueuer interface {
	EnqueueJob(ctx context.Context, kind, key, payload string, runAt time.Time) error
}

// Store is the durable job queue a Scheduler runs (internal/jobs/jobstest checks an
// implementation).
type Store interface {
	Enqueuer
	// ClaimJob takes the next due job of one of kinds for owner until leaseUntil — pending and
	// due at now, or running with a lapsed lease — and returns it with attempts counted; ok is
	// false when none is due. Of several racing claimers exactly one gets a job.
	ClaimJob(ctx context.Context, owner string, kinds []string, now, leaseUntil time.Time) (j folio.Job, ok bool, err error)
	// FinishJob records the outcome of a job owner ran: done when errMsg is empty; otherwise
	// pending again at retryAt, or failed when retryAt is zero. It reports false when owner no
	// longer held the job.
	FinishJob(ctx context.Context, id, owner string, now time.Time, errMsg string, retryAt time.Time) (bool, error)
	// RenewJob extends the lease of a job owner is running to leaseUntil; it reports false when
	// owner no longer holds it.
	RenewJob(ctx context.Context, id, owner string, leaseUntil time.Time) (bool, error)
}

// Defaults of a Scheduler.
const (
	DefaultPoll = time.Second
	// DefaultLease is how long a job stays its worker's without a renewal: how long a job of a
	// worker that died waits before another takes it over.
	DefaultLease = 30 * time.Second
	// DefaultTimeout bounds one run of a handler.
	DefaultTimeout     = 2 * time.Minute
	DefaultMaxAttempts = 8
)

// Scheduler claims due jobs and runs their handlers. Set the fields before Run; register
// handlers with Handle.
type Scheduler struct {
	Store  Store
	Logger *slog.Logger
	// Owner names this scheduler in leases; it must differ between instances (New picks a
	// random one).
	Owner string
	// Now is the clock that decides what is due; tests pin it.
	Now func() time.Time
	// Poll is how often an idle worker looks for due jobs.
	Poll time.Duration
	// Lease is how long a claimed job belongs to its worker unless renewed; the worker renews it
	// every third of it while the handler runs, and ends the handler's context when it cannot.
	Lease time.Duration
	// Timeout bounds one run of a handler (its context ends then).
	Timeout time.Duration
	// Workers is how many jobs this scheduler runs at once.
	Workers int
	// MaxAttempts bounds retries of a failing job.
	MaxAttempts int
	// Backoff is the wait before retry number attempt (1-based).
	Backoff func(attempt int) time.Duration

	mu       sync.RWMutex
	handlers map[string]Handler
}

// New returns a scheduler over store with the defaults and a random owner name.
func New(store Store, log *slog.Logger) *Scheduler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Scheduler{Store: store, Logger: log, Owner: "worker-" + folio.NewID(), Now: time.Now,
		Poll: DefaultPoll, Lease: DefaultLease, Timeout: DefaultTimeout, Workers: 2, MaxAttempts: DefaultMaxAttempts, Backoff: ExponentialBackoff}
}

// ExponentialBackoff waits 30 s before the first retry, doubling up to one hour.
func ExponentialBackoff(attempt int) time.Duration {
	d := 30 * time.Second
	for i := 1; i < attempt && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

// Handle registers the handler of a job kind.
func (s *Scheduler) Handle(kind string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handlers == nil {
		s.handlers = map[string]Handler{}
	}
	s.handlers[kind] = h
}

func (s *Scheduler) kinds() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.handlers))
	for k := range s.handlers {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (s *Scheduler) handler(kind string) Handler {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.handlers[kind]
}

// permanent marks an error that retrying cannot fix.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// Permanent wraps err so the job fails at once instead of being retried.
func Permanent(err error) error { return permanent{err} }

// retryAfter carries a handler's own retry schedule.
type retryAfter struct {
	err   error
	delay time.Duration
}

func (r retryAfter) Error() string { return r.err.Error() }
func (r retryAfter) Unwrap() error { return r.err }

// RetryAfter wraps err so the job runs again after delay, whatever the scheduler's Backoff and
// MaxAttempts say: for handlers with a schedule of their own (webhook deliveries follow the
// Standard Webhooks one) that end it themselves with Permanent.
func RetryAfter(err error, delay time.Duration) error { return retryAfter{err, delay} }

// continued marks a job that did part of its work and runs again for the rest.
type continued struct{ retryAfter }

// Unwrap yields the retryAfter, which sets when the job runs again.
func (c continued) Unwrap() error { return c.retryAfter }

// Continue ends a run that did part of the job's work (its time was up, or the rest waits for
// something): the job runs again after delay, as with RetryAfter, but this is no failure and is
// logged as none.
func Continue(reason string, delay time.Duration) error {
	return continued{retryAfter{errors.New(reason), delay}}
}

// Run starts the workers and blocks until ctx ends and every worker has finished its job.
func (s *Scheduler) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for i := 0; i < max(s.Workers, 1); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.work(ctx)
		}()
	}
	wg.Wait()
}

func (s *Scheduler) work(ctx context.Context) {
	poll := s.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := s.RunDue(ctx); err != nil && ctx.Err() == nil {
			s.Logger.Warn("job scheduler cannot claim jobs; retrying", "error", err.Error())
		}
		t.Reset(poll)
	}
}

// RunDue claims and runs due jobs one after another until none is due, and returns how many
// it ran. Tests call it directly with a pinned clock.
func (s *Scheduler) RunDue(ctx context.Context) (int, error) {
	n := 0
	for ctx.Err() == nil {
		ran, err := s.runOne(ctx)
		if err != nil || !ran {
			return n, err
		}
		n++
	}
	return n, nil
}

func (s *Scheduler) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Scheduler) runOne(ctx context.Context) (bool, error) {
	lease := s.Lease
	if lease <= 0 {
		lease = DefaultLease
	}
	now := s.now()
	j, ok, err := s.Store.ClaimJob(ctx, s.Owner, s.kinds(), now, now.Add(lease))
	if err != nil || !ok {
		return false, err
	}
	log := s.Logger.With("job_id", j.ID, "job_kind", j.Kind, "job_key", j.Key, "attempt", j.Attempts)
	herr := s.call(ctx, j, lease, log)

	// The outcome is recorded even when ctx was cancelled meanwhile (shutdown).
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	done := s.now()
	var msg string
	var retryAt time.Time
	if herr != nil {
		msg = herr.Error()
		if len(msg) > 1000 {
			msg = msg[:1000]
		}
		maxAttempts := s.MaxAttempts
		if maxAttempts <= 0 {
			maxAttempts = DefaultMaxAttempts
		}
		var perm permanent
		var ra retryAfter
		switch {
		case ctx.Err() != nil:
			retryAt = done // interrupted by shutdown: another worker may take it at once
		case errors.As(herr, &ra) && !errors.As(herr, &perm):
			retryAt = done.Add(max(ra.delay, 0))
		case errors.As(herr, &perm) || j.Attempts >= maxAttempts:
		default:
			backoff := s.Backoff
			if backoff == nil {
				backoff = ExponentialBackoff
			}
			retryAt = done.Add(backoff(j.Attempts))
		}
	}
	held, err := s.Store.FinishJob(fctx, j.ID, s.Owner, done, msg, retryAt)
	switch {
	case err != nil:
		log.Error("job outcome not recorded; it will run again when its lease lapses", "error", err.Error())
		return true, nil
	case !held:
		log.Warn("job lease lapsed before the job finished; another worker took it over")
	case herr == nil:
		log.Info("job done")
	case errors.As(herr, new(continued)):
		log.Info("job continues later", "reason", msg, "run_at", retryAt.UTC().Format(time.RFC3339))
	case retryAt.IsZero():
		log.Error("job failed for good", "error", msg)
	default:
		log.Warn("job failed; will retry", "error", msg, "retry_at", retryAt.UTC().Format(time.RFC3339))
	}
	return true, nil
}

// call runs the job's handler, turning a panic into an error so one bad job cannot stop the
// worker. It renews the job's lease meanwhile and ends the handler's context when the lease is
// lost or about to lapse unrenewed.
func (s *Scheduler) call(ctx context.Context, j folio.Job, lease time.Duration, log *slog.Logger) (err error) {
	h := s.handler(j.Kind)
	if h == nil {
		return Permanent(fmt.Errorf("jobs: no handler for kind %q", j.Kind))
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := make(chan struct{})
	renewed := make(chan struct{})
	defer func() { close(stop); <-renewed }()
	// Renewals end one lease after the run limit: a handler that ignores its context would
	// otherwise hold the job for ever, and the lapsed lease lets another worker take it over.
	limit := time.Now().Add(timeout + lease)
	go func() {
		defer close(renewed)
		s.renew(context.WithoutCancel(ctx), cancel, j, lease, limit, stop, log)
	}()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("jobs: handler panicked: %v", r)
		}
	}()
	return h(hctx, j)
}

// renew extends j's lease every third of it until the handler returns (stop), also after its
// context ended, as it may still be finishing, but not past limit; it cancels the handler when
// another worker holds the job, or when the lease would lapse before the next try (the store
// cannot be reached).
func (s *Scheduler) renew(ctx context.Context, cancel context.CancelFunc, j folio.Job, lease time.Duration, limit time.Time, stop <-chan struct{}, log *slog.Logger) {
	t := time.NewTicker(lease / 3)
	defer t.Stop()
	held := time.Now() // the claim's lease runs from about now
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if time.Now().After(limit) {
			log.Error("job handler still running long after its run limit, ignoring its context; its lease is left to lapse, so another worker may run the job again")
			return
		}
		rctx, rcancel := context.WithTimeout(ctx, lease/3)
		ok, err := s.Store.RenewJob(rctx, j.ID, s.Owner, s.now().Add(lease))
		rcancel()
		switch {
		case err == nil && ok:
			held = time.Now()
		case err == nil:
			log.Warn("job lease lost to another worker; stopping the job")
			cancel()
			return
		case time.Since(held) > lease*2/3-lease/10:
			log.Error("job lease cannot be renewed; stopping the job before it lapses", "error", err.Error())
			cancel()
			return
		}
	}
}
