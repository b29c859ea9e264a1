// Package audittest holds the conformance suite every audit log store (the SQL ones included)
// must pass.
package audittest

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/audit"
)

// Store is the store an audit.Writer writes to, plus the filtered listing GET /api/audit reads.
type Store interface {
	audit.Store
	// AuditEntries returns one page of entries, newest first, and how many match in total.
	AuditEntries(ctx context.Context, f folio.AuditFilter) ([]folio.AuditEntry, int, error)
}

// TestStore runs the conformance suite; open returns the store for each subtest. Every subtest
// uses actions, actors and times of its own, so open may return the same store each time.
func TestStore(t *testing.T, open func(t *testing.T) Store) {
	ctx := context.Background()
	insert := func(t *testing.T, s Store, es ...folio.AuditEntry) {
		t.Helper()
		for i := range es {
			es[i].ID = folio.NewID()
		}
		if err := s.InsertAudit(ctx, es); err != nil {
			t.Fatalf("InsertAudit: %v", err)
		}
	}
	list := func(t *testing.T, s Store, f folio.AuditFilter) ([]string, int) {
		t.Helper()
		if f.Limit == 0 {
			f.Limit = 100
		}
		es, n, err := s.AuditEntries(ctx, f)
		if err != nil {
			t.Fatalf("AuditEntries(%+v): %v", f, err)
		}
		var ids []string
		for _, e := range es {
			ids = append(ids, e.ResourceID)
		}
		return ids, n
	}
	same := func(a []string, b ...string) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}

	t.Run("a batch round-trips every field", func(t *testing.T) {
		s := open(t)
		at := time.Date(2026, 3, 1, 12, 0, 0, 123_000_000, time.UTC)
		in := folio.AuditEntry{At: at, Actor: folio.AuditActor{UserID: "rt-user", KeyID: "rt-key"}, Action: "rt.projects.create",
			Resource: "projects", ResourceID: "p1", IP: "203.0.113.0/24", Status: 201}
		insert(t, s, in)
		if err := s.InsertAudit(ctx, nil); err != nil {
			t.Errorf("InsertAudit(empty batch): %v", err)
		}
		es, n, err := s.AuditEntries(ctx, folio.AuditFilter{Action: "rt.projects.create", Limit: 10})
		if err != nil || n != 1 || len(es) != 1 {
			t.Fatalf("AuditEntries = %+v, %d, %v", es, n, err)
		}
		got := es[0]
		in.ID = got.ID
		if got.ID == "" || !got.At.Equal(at) || got.Actor != in.Actor || got.Action != in.Action || got.Resource != in.Resource ||
			got.ResourceID != in.ResourceID || got.IP != in.IP || got.Status != in.Status {
			t.Errorf("entry = %+v, want %+v", got, in)
		}
	})

	t.Run("filters by action, prefix, actor and time; newest first; paged", func(t *testing.T) {
		s := open(t)
		t0 := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
		e := func(id, action, user, key string, at time.Time) folio.AuditEntry {
			return folio.AuditEntry{At: at, Action: action, Actor: folio.AuditActor{UserID: user, KeyID: key}, ResourceID: id, Status: 200}
		}
		insert(t, s,
			e("a", "flt.posts.create", "flt-u1", "", t0),
			e("b", "flt.posts.update", "flt-u1", "flt-k1", t0.Add(time.Hour)),
			e("c", "flt.projects.create", "flt-u2", "", t0.Add(2*time.Hour)),
			e("d", "flt_posts.create", "flt-u2", "flt-k2", t0.Add(3*time.Hour)))
		cases := []struct {
			f    folio.AuditFilter
			want []string
		}{
			{folio.AuditFilter{Action: "flt.posts.create"}, []string{"a"}},
			{folio.AuditFilter{Action: "flt.posts."}, []string{"b", "a"}},
			{folio.AuditFilter{Action: "flt.posts*"}, []string{"b", "a"}},
			{folio.AuditFilter{Action: "flt.*"}, []string{"c", "b", "a"}},
			{folio.AuditFilter{Action: "flt_*"}, []string{"d"}}, // "_" is no wildcard
			{folio.AuditFilter{Actor: "flt-u1"}, []string{"b", "a"}},
			{folio.AuditFilter{Actor: "flt-k2"}, []string{"d"}},
			{folio.AuditFilter{Action: "flt.*", Actor: "flt-u2"}, []string{"c"}},
			{folio.AuditFilter{Action: "flt*", From: ptr(t0.Add(time.Hour)), To: ptr(t0.Add(3 * time.Hour))}, []string{"c", "b"}},
		}
		for _, c := range cases {
			if got, n := list(t, s, c.f); !same(got, c.want...) || n != len(c.want) {
				t.Errorf("AuditEntries(%+v) = %v (total %d), want %v", c.f, got, n, c.want)
			}
		}
		if got, n := list(t, s, folio.AuditFilter{Action: "flt*", Page: 2, Limit: 3}); !same(got, "a") || n != 4 {
			t.Errorf("page 2 of 3 = %v (total %d), want [a] of 4", got, n)
		}
	})

	t.Run("prune deletes the entries older than the cutoff", func(t *testing.T) {
		s := open(t)
		old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
		insert(t, s,
			folio.AuditEntry{At: old, Action: "prn.x", ResourceID: "old"},
			folio.AuditEntry{At: old.AddDate(1, 0, 0), Action: "prn.x", ResourceID: "kept"})
		n, err := s.PruneAudit(ctx, old.AddDate(0, 6, 0))
		if err != nil || n != 1 {
			t.Fatalf("PruneAudit = %d, %v; want 1", n, err)
		}
		if got, _ := list(t, s, folio.AuditFilter{Action: "prn.x"}); !same(got, "kept") {
			t.Errorf("after pruning: %v, want [kept]", got)
		}
	})
}

func ptr(t time.Time) *time.Time { return &t }
