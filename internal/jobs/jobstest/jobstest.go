// Package jobstest holds the conformance suite every jobs.Store (the SQL ones included) must
// pass.
package jobstest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/jobs"
)

// Store is a jobs.Store that can also read a job back by its key, so the suite can see what
// was stored.
type Store interface {
	jobs.Store
	// JobByKey returns the job with the given key, or ENOTFOUND.
	JobByKey(ctx context.Context, key string) (folio.Job, error)
}

// TestStore runs the conformance suite; open returns the store for each subtest. Every subtest
// names its kinds and keys after itself, so open may return the same store each time.
func TestStore(t *testing.T, open func(t *testing.T) Store) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	ctx := context.Background()
	lease := t0.Add(time.Minute)
	own := func(t *testing.T, name string) string { return t.Name() + "/" + name }
	strip := func(t *testing.T, j folio.Job) folio.Job {
		j.Kind, j.Key = strings.TrimPrefix(j.Kind, t.Name()+"/"), strings.TrimPrefix(j.Key, t.Name()+"/")
		return j
	}
	enqueue := func(t *testing.T, s Store, kind, key, payload string, at time.Time) {
		t.Helper()
		if err := s.EnqueueJob(ctx, own(t, kind), own(t, key), payload, at); err != nil {
			t.Fatalf("EnqueueJob(%s): %v", key, err)
		}
	}
	claim := func(t *testing.T, s Store, owner string, kinds []string, now time.Time) (folio.Job, bool) {
		t.Helper()
		var owned []string
		for _, k := range kinds {
			owned = append(owned, own(t, k))
		}
		j, ok, err := s.ClaimJob(ctx, owner, owned, now, now.Add(time.Minute))
		if err != nil {
			t.Fatalf("ClaimJob: %v", err)
		}
		return strip(t, j), ok
	}
	byKey := func(t *testing.T, s Store, key string) folio.Job {
		t.Helper()
		j, err := s.JobByKey(ctx, own(t, key))
		if err != nil {
			t.Fatalf("JobByKey(%s): %v", key, err)
		}
		return strip(t, j)
	}
	finish := func(t *testing.T, s Store, id, owner string, now time.Time, msg string, retryAt time.Time) bool {
		t.Helper()
		held, err := s.FinishJob(ctx, id, owner, now, msg, retryAt)
		if err != nil {
			t.Fatalf("FinishJob: %v", err)
		}
		return held
	}

	t.Run("enqueue stores a pending job and a claim leases it", func(t *testing.T) {
		s := open(t)
		enqueue(t, s, "k", "k:1", `{"a":1}`, t0)
		if j := byKey(t, s, "k:1"); j.ID == "" || j.Kind != "k" || j.Payload != `{"a":1}` || !j.RunAt.Equal(t0) ||
			j.Status != folio.JobPending || j.Attempts != 0 || j.LeaseOwner != "" || !j.DoneAt.IsZero() {
			t.Fatalf("JobByKey = %+v", j)
		}
		j, ok := claim(t, s, "w1", []string{"k"}, t0)
		if !ok || j.Key != "k:1" || j.Status != folio.JobRunning || j.Attempts != 1 || j.LeaseOwner != "w1" ||
			!j.LeaseUntil.Equal(lease) || j.Payload != `{"a":1}` {
			t.Fatalf("ClaimJob = %+v, %v", j, ok)
		}
		if got := byKey(t, s, "k:1"); got.Status != folio.JobRunning || got.LeaseOwner != "w1" || got.Attempts != 1 {
			t.Errorf("after claim JobByKey = %+v", got)
		}
		if _, err := s.JobByKey(ctx, own(t, "missing")); !folio.IsNotFound(err) {
			t.Errorf("JobByKey(missing) err = %v, want ENOTFOUND", err)
		}
	})

	t.Run("claim takes only due jobs of the given kinds, earliest first", func(t *testing.T) {
		s := open(t)
		enqueue(t, s, "k", "late", "{}", t0.Add(-time.Minute))
		enqueue(t, s, "k", "early", "{}", t0.Add(-2*time.Minute))
		enqueue(t, s, "k", "future", "{}", t0.Add(time.Second))
		enqueue(t, s, "other", "other", "{}", t0.Add(-time.Hour))
		if _, ok := claim(t, s, "w1", nil, t0); ok {
			t.Fatal("a claim with no kinds took a job")
		}
		var got []string
		for {
			j, ok := claim(t, s, "w1", []string{"k"}, t0)
			if !ok {
				break
			}
			got = append(got, j.Key)
		}
		if len(got) != 2 || got[0] != "early" || got[1] != "late" {
			t.Fatalf("claimed %v, want [early late]", got)
		}
		if j, ok := claim(t, s, "w1", []string{"k", "other"}, t0); !ok || j.Key != "other" {
			t.Errorf("claim of kinds [k other] = %+v, %v; want other", j, ok)
		}
	})

	t.Run("a running job is taken over only when its lease lapsed", func(t *testing.T) {
		s := open(t)
		enqueue(t, s, "k", "k:1", "{}", t0)
		j, _ := claim(t, s, "w1", []string{"k"}, t0)
		if _, ok := claim(t, s, "w2", []string{"k"}, t0.Add(30*time.Second)); ok {
			t.Fatal("a leased job was claimed again")
		}
		j2, ok := claim(t, s, "w2", []string{"k"}, t0.Add(2*time.Minute))
		if !ok || j2.ID != j.ID || j2.Attempts != 2 || j2.LeaseOwner != "w2" {
			t.Fatalf("claim after the lease lapsed = %+v, %v", j2, ok)
		}
		if finish(t, s, j.ID, "w1", t0.Add(2*time.Minute), "", time.Time{}) {
			t.Error("the worker that lost its lease recorded the outcome")
		}
		if !finish(t, s, j.ID, "w2", t0.Add(3*time.Minute), "", time.Time{}) {
			t.Error("the lease holder could not record the outcome")
		}
	})

	t.Run("a renewal extends only the holder's lease", func(t *testing.T) {
		s := open(t)
		enqueue(t, s, "k", "k:1", "{}", t0)
		j, _ := claim(t, s, "w1", []string{"k"}, t0)
		renew := func(owner string, until time.Time) bool {
			t.Helper()
			ok, err := s.RenewJob(ctx, j.ID, owner, until)
			if err != nil {
				t.Fatalf("RenewJob: %v", err)
			}
			return ok
		}
		if !renew("w1", t0.Add(90*time.Second)) {
			t.Fatal("the holder could not renew its lease")
		}
		if got := byKey(t, s, "k:1"); !got.LeaseUntil.Equal(t0.Add(90*time.Second)) || got.LeaseOwner != "w1" {
			t.Fatalf("after renewal %+v", got)
		}
		if _, ok := claim(t, s, "w2", []string{"k"}, t0.Add(80*time.Second)); ok {
			t.Fatal("a renewed lease was taken over before it lapsed")
		}
		if renew("w2", t0.Add(time.Hour)) {
			t.Fatal("another worker renewed the lease")
		}
		if _, ok := claim(t, s, "w2", []string{"k"}, t0.Add(91*time.Second)); !ok {
			t.Fatal("the renewed lease was not taken over once it lapsed")
		}
		if renew("w1", t0.Add(time.Hour)) {
			t.Fatal("the worker that lost the job renewed its lease")
		}
		if !finish(t, s, j.ID, "w2", t0.Add(2*time.Minute), "", time.Time{}) || renew("w2", t0.Add(time.Hour)) {
			t.Fatal("a finished job's lease was renewed")
		}
	})

	t.Run("finish records done, a retry or a failure", func(t *testing.T) {
		s := open(t)
		enqueue(t, s, "k", "done", "{}", t0)
		enqueue(t, s, "k", "retry", "{}", t0)
		enqueue(t, s, "k", "fail", "{}", t0)
		for range 3 {
			j, _ := claim(t, s, "w1", []string{"k"}, t0)
			switch j.Key {
			case "done":
				finish(t, s, j.ID, "w1", t0.Add(time.Second), "", time.Time{})
			case "retry":
				finish(t, s, j.ID, "w1", t0.Add(time.Second), "boom", t0.Add(10*time.Minute))
			case "fail":
				finish(t, s, j.ID, "w1", t0.Add(time.Second), "bad", time.Time{})
			}
		}
		if j := byKey(t, s, "done"); j.Status != folio.JobDone || !j.DoneAt.Equal(t0.Add(time.Second)) || j.LastError != "" {
			t.Errorf("done job = %+v", j)
		}
		if j := byKey(t, s, "retry"); j.Status != folio.JobPending || !j.RunAt.Equal(t0.Add(10*time.Minute)) || j.LastError != "boom" || j.Attempts != 1 {
			t.Errorf("retried job = %+v", j)
		}
		if j := byKey(t, s, "fail"); j.Status != folio.JobFailed || j.LastError != "bad" || j.DoneAt.IsZero() {
			t.Errorf("failed job = %+v", j)
		}
		if _, ok := claim(t, s, "w1", []string{"k"}, t0.Add(time.Minute)); ok {
			t.Error("a job was claimed before its retry was due")
		}
		if j, ok := claim(t, s, "w1", []string{"k"}, t0.Add(10*time.Minute)); !ok || j.Key != "retry" || j.Attempts != 2 {
			t.Errorf("claim at the retry = %+v, %v", j, ok)
		}
	})

	t.Run("enqueueing a key again is a no-op while live and re-arms it when settled", func(t *testing.T) {
		s := open(t)
		enqueue(t, s, "k", "k:1", "first", t0)
		enqueue(t, s, "k", "k:1", "second", t0.Add(time.Hour))
		if j := byKey(t, s, "k:1"); j.Payload != "first" || !j.RunAt.Equal(t0) {
			t.Fatalf("pending job after a second enqueue = %+v", j)
		}
		j, _ := claim(t, s, "w1", []string{"k"}, t0)
		enqueue(t, s, "k", "k:1", "third", t0.Add(time.Hour))
		if got := byKey(t, s, "k:1"); got.Payload != "first" || got.Status != folio.JobRunning {
			t.Fatalf("running job after an enqueue = %+v", got)
		}
		finish(t, s, j.ID, "w1", t0, "bad", time.Time{})
		enqueue(t, s, "k", "k:1", "fourth", t0.Add(time.Hour))
		if got := byKey(t, s, "k:1"); got.Payload != "fourth" || got.Status != folio.JobPending || got.Attempts != 0 ||
			!got.RunAt.Equal(t0.Add(time.Hour)) || got.LastError != "" || !got.DoneAt.IsZero() {
			t.Fatalf("failed job after an enqueue = %+v", got)
		}
	})

	t.Run("of racing claimers exactly one gets a job", func(t *testing.T) {
		s := open(t)
		enqueue(t, s, "k", "k:1", "{}", t0)
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, ok, err := s.ClaimJob(ctx, "w"+string(rune('0'+i)), []string{own(t, "k")}, t0, lease)
				if err != nil {
					t.Errorf("ClaimJob: %v", err)
				}
				if ok {
					mu.Lock()
					won++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Errorf("%d claimers got the job, want 1", won)
		}
	})
}
