package audit

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func count(t *testing.T, db *sqldb.DB) int {
	t.Helper()
	_, n, err := db.Audit.AuditEntries(context.Background(), folio.AuditFilter{Page: 1, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Ensure entries wait off the request path, are all written when Run stops (shutdown), a full
// queue is written rather than dropped, and retention prunes only old entries.
func TestWriter(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		clock := foliotest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		w := New(db.Audit, Options{QueueSize: 50, FlushInterval: time.Hour, RetentionDays: 30, Now: clock.Now})
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { w.Run(ctx); close(done) }()
		for i := range 10 {
			w.Record(folio.AuditEntry{Action: "projects.create", Resource: "projects", ResourceID: string(rune('a' + i)), Status: 201,
				Actor: folio.AuditActor{UserID: "u1"}, IP: Network("198.51.100.9")})
		}
		if n := count(t, db); n != 0 {
			t.Fatalf("%d entries written before a flush; Record must not write", n)
		}
		stop()
		<-done
		if n := count(t, db); n != 10 {
			t.Fatalf("%d entries after shutdown, want 10", n)
		}
		// A full queue is written by the recorder itself.
		for range 50 {
			w.Record(folio.AuditEntry{Action: "auth.login", Status: 401})
		}
		if n := count(t, db); n != 60 {
			t.Fatalf("%d entries after filling the queue, want 60", n)
		}
		es, _, err := db.Audit.AuditEntries(context.Background(), folio.AuditFilter{Action: "projects.create", Page: 1, Limit: 1})
		if err != nil || len(es) != 1 || es[0].IP != "198.51.100.0/24" || es[0].ID == "" || !es[0].At.Equal(clock.Now()) ||
			es[0].Actor.UserID != "u1" || es[0].Resource != "projects" || es[0].Status != 201 || len(es[0].ResourceID) != 1 {
			t.Fatalf("stored entry: %+v %v", es, err)
		}
		clock.Advance(31 * 24 * time.Hour)
		w.Record(folio.AuditEntry{Action: "auth.login", Status: 200})
		if err := w.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n, err := w.Prune(context.Background()); err != nil || n != 60 {
			t.Fatalf("pruned %d %v, want 60", n, err)
		}
		if n := count(t, db); n != 1 {
			t.Errorf("%d entries after pruning, want the recent one", n)
		}
	})
}

// BenchmarkRecord is what recording an audit entry adds to a write request: a queue append (the
// database write happens later, in batches).
func BenchmarkRecord(b *testing.B) {
	w := New(nil, Options{QueueSize: 1 << 30})
	e := folio.AuditEntry{Action: "projects.create", Resource: "projects", ResourceID: "p1", Status: 201,
		Actor: folio.AuditActor{UserID: "u1", KeyID: "k1"}, IP: "203.0.113.0/24"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w.Record(e)
		if i++; i%100_000 == 0 {
			b.StopTimer()
			w.mu.Lock()
			w.queue = nil
			w.mu.Unlock()
			b.StartTimer()
		}
	}
}
