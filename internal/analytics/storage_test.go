package analytics

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
)

// Ensure storage mode none, switched on at run time, ignores the ids clients send (a script
// cached from before), counts a visitor per day by address, agent and site, and so counts none
// as returning; switching back to local counts ids again. The script served follows the mode.
func TestStorageModeNone(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	var mode atomic.Value
	mode.Store(StorageLocal)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	s, err := newTestService(db, Options{Rotation: "month", Now: func() time.Time { return now }, Storage: func() string { return mode.Load().(string) }})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	ctx := context.Background()
	view := func(id, ip string) {
		t.Helper()
		if _, err := s.Collect(ctx, &folio.CollectInput{Type: folio.CollectPageView, Path: "/", VisitorID: id}, ip, browserUA); err != nil {
			t.Fatal(err)
		}
	}
	report := func(day string) folio.VisitorCounts {
		t.Helper()
		rg, err := s.ParseRange(day, day)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := s.Report(ctx, rg)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Visitors
	}
	if !bytes.Equal(s.TrackingScript(), Script) || !bytes.Contains(Script, []byte("keep = true")) {
		t.Fatal("mode local does not serve the script that keeps an id")
	}
	mode.Store(StorageNone)
	if sc := s.TrackingScript(); !bytes.Contains(sc, []byte("keep = false")) || bytes.Contains(sc, []byte("keep = true")) {
		t.Errorf("mode none serves a script that keeps an id:\n%s", sc)
	}
	// Day 1: one address sending three ids, another address; day 2: the first address again.
	view("id-a", "192.0.2.1")
	view("id-b", "192.0.2.1")
	view("", "192.0.2.1")
	view("id-a", "192.0.2.2")
	s.Flush(ctx)
	if v := report("2026-06-01"); v.Unique != 2 {
		t.Errorf("day 1 in mode none: %d unique visitors, want 2 (one per address; ids ignored)", v.Unique)
	}
	now = now.Add(24 * time.Hour)
	view("id-a", "192.0.2.1")
	s.Flush(ctx)
	if v := report("2026-06-02"); v.Unique != 1 || v.Returning != 0 {
		t.Errorf("day 2 in mode none: %+v, want 1 unique, none returning (the salt is the day's)", v)
	}
	// Back to local: the id counts, and a visitor seen on an earlier day is returning.
	mode.Store(StorageLocal)
	view("id-z", "192.0.2.9")
	now = now.Add(24 * time.Hour)
	view("id-z", "192.0.2.9")
	s.Flush(ctx)
	if v := report("2026-06-03"); v.Unique != 1 || v.Returning != 1 {
		t.Errorf("day 3 in mode local: %+v, want 1 unique and returning", v)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
