package audit

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"strings"
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

// Ensure entries wait off the request path, are all written when Run stops (shutdown), entries
// past a full queue are dropped and counted, and retention prunes only old entries.
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
		// Past a full queue entries are dropped and counted; Record never writes itself.
		for range 60 {
			w.Record(folio.AuditEntry{Action: "auth.login", Status: 401})
		}
		if n := count(t, db); n != 10 {
			t.Fatalf("%d entries after overfilling the queue, want 10: Record must not write", n)
		}
		if d := w.Dropped(); d != 10 {
			t.Errorf("%d entries dropped, want 10", d)
		}
		if err := w.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := count(t, db); n != 60 {
			t.Fatalf("%d entries after a flush, want 60", n)
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

// Ensure the queue is bounded whatever comes: a flood of entries and of refusals from distinct
// clients never holds more than QueueSize, never reaches the database from Record (the writer
// has none here), and every entry left out is counted and reported once at the next write.
func TestQueueBound(t *testing.T) {
	logs := &bytes.Buffer{}
	w := New(nil, Options{QueueSize: 100, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	for i := range 10_000 {
		w.Record(folio.AuditEntry{Action: "projects.create", Status: 201})
		w.RecordRefused(folio.AuditEntry{Action: "auth.login", Status: 429}, fmt.Sprintf("client %d", i), time.Hour)
	}
	w.mu.Lock()
	held := len(w.queue) + len(w.refused)
	w.mu.Unlock()
	if held != 100 {
		t.Errorf("%d entries held, want the bound of 100", held)
	}
	if d := w.Dropped(); d != 20_000-100 {
		t.Errorf("%d dropped, want %d", d, 20_000-100)
	}
	// A refusal for a row already counted takes no room, even with the queue full.
	w.mu.Lock()
	var counted *folio.AuditEntry
	for _, e := range w.refused {
		if e.ID == refusalID("auth.login", "client 0", e.At.Truncate(time.Hour)) {
			counted = e
		}
	}
	w.mu.Unlock()
	if counted == nil {
		t.Fatal("the first client's refusal was not counted")
	}
	w.RecordRefused(folio.AuditEntry{Action: "auth.login", Status: 429, At: counted.At}, "client 0", time.Hour)
	if counted.Refused != 2 || w.Dropped() != 20_000-100 {
		t.Errorf("a counted client's refusal on a full queue: refused %d, dropped %d", counted.Refused, w.Dropped())
	}
	// The drops are reported in one line when the queue is next written.
	w.mu.Lock()
	w.queue, w.refused = nil, map[string]*folio.AuditEntry{}
	w.mu.Unlock()
	_ = w.Flush(context.Background())
	_ = w.Flush(context.Background())
	if n := strings.Count(logs.String(), "entries dropped"); n != 1 || !strings.Contains(logs.String(), "dropped=19900") {
		t.Errorf("drop reports: %q", logs.String())
	}
}

// Ensure refusals are counted into one row per client, action and window: two writers (two
// instances) add to the same row, later writes keep its count current, another client or
// action is another row, a new window starts a new row, and a failed write keeps the counts.
func TestRefusalsCounted(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		a := New(db.Audit, Options{Now: clock.Now})
		b := New(db.Audit, Options{Now: clock.Now})
		refuse := func(w *Writer, n int, client, action string) {
			for range n {
				w.RecordRefused(folio.AuditEntry{Action: action, Resource: "auth", Status: 429, IP: "203.0.113.0/24"}, client, time.Hour)
			}
		}
		flush := func() {
			t.Helper()
			for _, w := range []*Writer{a, b} {
				if err := w.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		rows := func() map[string]int {
			t.Helper()
			es, _, err := db.Audit.AuditEntries(ctx, folio.AuditFilter{Page: 1, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]int{}
			for _, e := range es {
				if e.Refused > 0 && e.Detail != folio.RefusedDetail(e.Refused) {
					t.Errorf("detail %q for %d refusals", e.Detail, e.Refused)
				}
				m[e.Action+" "+e.At.Format(time.TimeOnly)] += e.Refused
			}
			return m
		}
		refuse(a, 100, "203.0.113.0/24", "auth.login")
		refuse(b, 50, "203.0.113.0/24", "auth.login")
		refuse(a, 3, "203.0.113.0/24", "auth.login.totp")
		flush()
		want := map[string]int{"auth.login 12:00:00": 150, "auth.login.totp 12:00:00": 3}
		if got := rows(); !maps.Equal(got, want) {
			t.Fatalf("rows %v, want %v", got, want)
		}
		clock.Advance(10 * time.Minute)
		refuse(b, 7, "203.0.113.0/24", "auth.login")
		refuse(a, 1, "key:k1", "auth.login")
		flush()
		want = map[string]int{"auth.login 12:00:00": 157, "auth.login.totp 12:00:00": 3, "auth.login 12:10:00": 1}
		if got := rows(); !maps.Equal(got, want) {
			t.Fatalf("after more refusals: rows %v, want %v", got, want)
		}
		clock.Advance(time.Hour)
		refuse(a, 2, "203.0.113.0/24", "auth.login")
		flush()
		want["auth.login 13:10:00"] = 2
		if got := rows(); !maps.Equal(got, want) {
			t.Fatalf("in the next window: rows %v, want %v", got, want)
		}

		// A write that fails keeps the counts for the next one, merged with those counted since.
		c := New(db.Audit, Options{Now: clock.Now})
		refuse(c, 4, "203.0.113.0/24", "auth.login")
		c.Record(folio.AuditEntry{Action: "auth.login", Status: 401})
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if err := c.Flush(cancelled); err == nil {
			t.Fatal("a flush with a cancelled context succeeded")
		}
		refuse(c, 1, "203.0.113.0/24", "auth.login")
		if err := c.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rows(); got["auth.login 13:10:00"] != 2+4+1 {
			t.Errorf("after a failed write: rows %v, want 7 refusals at 13:10:00", got)
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
