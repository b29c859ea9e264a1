// Package outboxtest holds an in-memory mail.OutboxStore and a conformance suite that every
// OutboxStore (the SQL ones included) must pass.
package outboxtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/mail"
)

// Store is an OutboxStore that can also read one item back (admin listings need it too).
type Store interface {
	mail.OutboxStore
	// GetOutbox returns the item, or a folio ENOTFOUND error.
	GetOutbox(ctx context.Context, id string) (mail.OutboxItem, error)
}

// MemStore is an in-memory Store for one process; safe for concurrent use.
type MemStore struct {
	mu    sync.Mutex
	items map[string]*mail.OutboxItem
}

var _ Store = (*MemStore)(nil)

// NewMemStore returns an empty store.
func NewMemStore() *MemStore { return &MemStore{items: map[string]*mail.OutboxItem{}} }

// InsertOutbox implements mail.OutboxStore.
func (s *MemStore) InsertOutbox(_ context.Context, item mail.OutboxItem) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items[item.ID]; ok {
		return folio.Errorf(folio.ECONFLICT, "outbox item %s exists", item.ID)
	}
	item.Payload = slices.Clone(item.Payload)
	s.items[item.ID] = &item
	return nil
}

// ClaimOutbox implements mail.OutboxStore.
func (s *MemStore) ClaimOutbox(_ context.Context, owner string, now, leaseUntil time.Time, limit int) ([]mail.OutboxItem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var due []*mail.OutboxItem
	for _, it := range s.items {
		if (it.Status == mail.OutboxPending || it.Status == mail.OutboxFailed) &&
			!it.NextAttemptAt.After(now) && (it.LeaseUntil.IsZero() || it.LeaseUntil.Before(now)) {
			due = append(due, it)
		}
	}
	slices.SortFunc(due, func(a, b *mail.OutboxItem) int {
		if c := a.NextAttemptAt.Compare(b.NextAttemptAt); c != 0 {
			return c
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
	if len(due) > limit {
		due = due[:limit]
	}
	out := make([]mail.OutboxItem, 0, len(due))
	for _, it := range due {
		it.LeaseOwner, it.LeaseUntil = owner, leaseUntil
		c := *it
		c.Payload = slices.Clone(it.Payload)
		out = append(out, c)
	}
	return out, nil
}

func (s *MemStore) leased(id, owner string) (*mail.OutboxItem, error) {
	it, ok := s.items[id]
	if !ok {
		return nil, folio.Errorf(folio.ENOTFOUND, "outbox item %s not found", id)
	}
	if it.LeaseOwner != owner || it.LeaseOwner == "" {
		return nil, mail.ErrOutboxLeaseLost
	}
	return it, nil
}

// MarkOutboxSent implements mail.OutboxStore.
func (s *MemStore) MarkOutboxSent(_ context.Context, id, owner string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, err := s.leased(id, owner)
	if err != nil {
		return err
	}
	it.Status, it.SentAt, it.LeaseOwner, it.LeaseUntil = mail.OutboxSent, now, "", time.Time{}
	return nil
}

// MarkOutboxFailed implements mail.OutboxStore.
func (s *MemStore) MarkOutboxFailed(_ context.Context, id, owner string, attempts int, nextAttempt time.Time, lastError string, giveUp bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, err := s.leased(id, owner)
	if err != nil {
		return err
	}
	it.Attempts, it.NextAttemptAt, it.LastError = attempts, nextAttempt, lastError
	it.Status = mail.OutboxFailed
	if giveUp {
		it.Status = mail.OutboxDead
	}
	it.LeaseOwner, it.LeaseUntil = "", time.Time{}
	return nil
}

// GetOutbox implements Store.
func (s *MemStore) GetOutbox(_ context.Context, id string) (mail.OutboxItem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[id]
	if !ok {
		return mail.OutboxItem{}, folio.Errorf(folio.ENOTFOUND, "outbox item %s not found", id)
	}
	c := *it
	c.Payload = slices.Clone(it.Payload)
	return c, nil
}

// TestStore runs the OutboxStore contract against stores from open (a fresh, empty store per
// call). Times used are whole seconds in UTC, so any storage precision round-trips them.
func TestStore(t *testing.T, open func(t *testing.T) Store) {
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	ctx := context.Background()
	newItem := func(id string, next time.Time) mail.OutboxItem {
		return mail.OutboxItem{
			ID: id, Payload: []byte(`{"to":[{"email":"a@example.com"}],"subject":"s ` + id + `","text":"t"}`),
			Recipients: "a@example.com", Subject: "s " + id, Status: mail.OutboxPending,
			NextAttemptAt: next, CreatedAt: t0,
		}
	}
	mustInsert := func(t *testing.T, s Store, items ...mail.OutboxItem) {
		t.Helper()
		for _, it := range items {
			if err := s.InsertOutbox(ctx, it); err != nil {
				t.Fatalf("InsertOutbox(%s): %v", it.ID, err)
			}
		}
	}
	mustGet := func(t *testing.T, s Store, id string) mail.OutboxItem {
		t.Helper()
		it, err := s.GetOutbox(ctx, id)
		if err != nil {
			t.Fatalf("GetOutbox(%s): %v", id, err)
		}
		return it
	}
	ids := func(items []mail.OutboxItem) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.ID)
		}
		return out
	}

	t.Run("insert round-trips every field", func(t *testing.T) {
		s := open(t)
		in := newItem("a1", t0)
		in.Payload = []byte("{\"text\":\"Grüße \\u2028 \\\"q\\\"\"}") // exact bytes, not re-encoded JSON
		in.Recipients, in.Subject = "zoë@example.com, b@example.com", "Grüße"
		mustInsert(t, s, in)
		got := mustGet(t, s, "a1")
		if string(got.Payload) != string(in.Payload) || got.Recipients != in.Recipients || got.Subject != in.Subject ||
			got.Status != mail.OutboxPending || got.Attempts != 0 || !got.NextAttemptAt.Equal(t0) ||
			!got.CreatedAt.Equal(t0) || got.LeaseOwner != "" || !got.LeaseUntil.IsZero() || !got.SentAt.IsZero() {
			t.Errorf("GetOutbox = %+v, want %+v", got, in)
		}
		if _, err := s.GetOutbox(ctx, "missing"); !folio.IsNotFound(err) {
			t.Errorf("GetOutbox(missing) err = %v, want ENOTFOUND", err)
		}
	})

	t.Run("claim takes due unleased items oldest first, up to limit", func(t *testing.T) {
		s := open(t)
		mustInsert(t, s, newItem("c", t0.Add(-1*time.Minute)), newItem("a", t0.Add(-3*time.Minute)),
			newItem("b", t0.Add(-2*time.Minute)), newItem("future", t0.Add(time.Second)), newItem("now", t0))
		got, err := s.ClaimOutbox(ctx, "w1", t0, t0.Add(5*time.Minute), 2)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), []string{"a", "b"}) {
			t.Fatalf("claimed %v, want [a b]", ids(got))
		}
		for _, it := range got {
			if it.LeaseOwner != "w1" || !it.LeaseUntil.Equal(t0.Add(5*time.Minute)) || len(it.Payload) == 0 {
				t.Errorf("claimed item %+v lacks lease or payload", it)
			}
		}
		got, err = s.ClaimOutbox(ctx, "w2", t0, t0.Add(5*time.Minute), 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), []string{"c", "now"}) {
			t.Fatalf("second claim %v, want [c now] (leased and future items excluded)", ids(got))
		}
		if it := mustGet(t, s, "a"); it.LeaseOwner != "w1" {
			t.Errorf("stored lease owner = %q, want w1", it.LeaseOwner)
		}
	})

	t.Run("expired lease is reclaimed and the old owner loses it", func(t *testing.T) {
		s := open(t)
		mustInsert(t, s, newItem("x", t0))
		if got, _ := s.ClaimOutbox(ctx, "w1", t0, t0.Add(time.Minute), 10); len(got) != 1 {
			t.Fatalf("w1 claimed %d", len(got))
		}
		if got, _ := s.ClaimOutbox(ctx, "w2", t0.Add(30*time.Second), t0.Add(2*time.Minute), 10); len(got) != 0 {
			t.Fatalf("w2 claimed a leased item: %v", ids(got))
		}
		got, err := s.ClaimOutbox(ctx, "w2", t0.Add(2*time.Minute), t0.Add(3*time.Minute), 10)
		if err != nil || len(got) != 1 {
			t.Fatalf("w2 after expiry claimed %v, %v; want x", ids(got), err)
		}
		if err := s.MarkOutboxSent(ctx, "x", "w1", t0.Add(2*time.Minute)); !errors.Is(err, mail.ErrOutboxLeaseLost) {
			t.Errorf("stale MarkOutboxSent err = %v, want ErrOutboxLeaseLost", err)
		}
		if err := s.MarkOutboxFailed(ctx, "x", "w1", 1, t0, "e", false); !errors.Is(err, mail.ErrOutboxLeaseLost) {
			t.Errorf("stale MarkOutboxFailed err = %v, want ErrOutboxLeaseLost", err)
		}
		if err := s.MarkOutboxSent(ctx, "x", "w2", t0.Add(2*time.Minute)); err != nil {
			t.Errorf("owner MarkOutboxSent: %v", err)
		}
	})

	t.Run("mark sent", func(t *testing.T) {
		s := open(t)
		mustInsert(t, s, newItem("s", t0))
		_, _ = s.ClaimOutbox(ctx, "w1", t0, t0.Add(time.Minute), 10)
		if err := s.MarkOutboxSent(ctx, "s", "w1", t0.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		it := mustGet(t, s, "s")
		if it.Status != mail.OutboxSent || !it.SentAt.Equal(t0.Add(time.Second)) || it.LeaseOwner != "" || !it.LeaseUntil.IsZero() {
			t.Errorf("after MarkOutboxSent: %+v", it)
		}
		if got, _ := s.ClaimOutbox(ctx, "w1", t0.Add(time.Hour), t0.Add(2*time.Hour), 10); len(got) != 0 {
			t.Errorf("sent item claimed again")
		}
		if err := s.MarkOutboxSent(ctx, "s", "w1", t0); !errors.Is(err, mail.ErrOutboxLeaseLost) {
			t.Errorf("second MarkOutboxSent err = %v, want ErrOutboxLeaseLost", err)
		}
	})

	t.Run("mark failed retries later; give up is final", func(t *testing.T) {
		s := open(t)
		mustInsert(t, s, newItem("f", t0), newItem("d", t0))
		_, _ = s.ClaimOutbox(ctx, "w1", t0, t0.Add(time.Minute), 10)
		next := t0.Add(2 * time.Minute)
		if err := s.MarkOutboxFailed(ctx, "f", "w1", 1, next, "451 try later", false); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkOutboxFailed(ctx, "d", "w1", 1, next, "550 no such user", true); err != nil {
			t.Fatal(err)
		}
		f, d := mustGet(t, s, "f"), mustGet(t, s, "d")
		if f.Status != mail.OutboxFailed || f.Attempts != 1 || !f.NextAttemptAt.Equal(next) || f.LastError != "451 try later" || f.LeaseOwner != "" {
			t.Errorf("failed item: %+v", f)
		}
		if d.Status != mail.OutboxDead || d.LastError != "550 no such user" {
			t.Errorf("dead item: %+v", d)
		}
		if got, _ := s.ClaimOutbox(ctx, "w2", next.Add(-time.Second), next.Add(time.Hour), 10); len(got) != 0 {
			t.Errorf("claimed before next attempt: %v", ids(got))
		}
		got, _ := s.ClaimOutbox(ctx, "w2", next.Add(time.Hour), next.Add(2*time.Hour), 10)
		if !slices.Equal(ids(got), []string{"f"}) || got[0].Attempts != 1 {
			t.Errorf("claim at next attempt = %+v, want f with 1 attempt (dead d never)", got)
		}
	})

	t.Run("concurrent claims hand each item to one worker", func(t *testing.T) {
		s := open(t)
		const n = 40
		for i := range n {
			mustInsert(t, s, newItem(fmt.Sprintf("i%02d", i), t0))
		}
		var mu sync.Mutex
		seen := map[string]string{}
		var wg sync.WaitGroup
		errs := make(chan error, 8*20)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				owner := fmt.Sprintf("w%d", w)
				for range 20 {
					got, err := s.ClaimOutbox(ctx, owner, t0, t0.Add(time.Hour), 3)
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					for _, it := range got {
						if prev, dup := seen[it.ID]; dup {
							errs <- fmt.Errorf("%s claimed by %s and %s", it.ID, prev, owner)
						}
						seen[it.ID] = owner
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if len(seen) != n {
			t.Errorf("%d items claimed, want %d", len(seen), n)
		}
	})
}
