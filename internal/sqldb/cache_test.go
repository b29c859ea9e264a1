package sqldb

import (
	"fmt"
	"testing"
	"time"
)

func TestVisitorCacheTrim(t *testing.T) {
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	fill := func(active, idle int) *visitorCache {
		c := &visitorCache{states: map[string]*visitorState{}}
		for i := range active {
			c.states[fmt.Sprint("a", i)] = &visitorState{lastSeen: now.Add(-time.Minute)}
		}
		for i := range idle {
			c.states[fmt.Sprint("i", i)] = &visitorState{lastSeen: now.Add(-VisitGap - time.Minute)}
		}
		return c
	}
	c := fill(maxCachedVisitors, 0)
	c.trim(now)
	if len(c.states) != maxCachedVisitors {
		t.Errorf("at the bound: %d states kept, want all %d", len(c.states), maxCachedVisitors)
	}
	c = fill(maxCachedVisitors/2, maxCachedVisitors)
	c.trim(now)
	if len(c.states) != maxCachedVisitors/2 {
		t.Errorf("over the bound with idle visitors: %d states kept, want the %d active ones", len(c.states), maxCachedVisitors/2)
	}
	for k := range c.states {
		if k[0] != 'a' {
			t.Fatalf("idle visitor %s kept", k)
		}
	}
	c = fill(maxCachedVisitors+10, 0)
	c.trim(now)
	if len(c.states) != maxCachedVisitors*3/4 {
		t.Errorf("over the bound, all active: %d states kept, want %d", len(c.states), maxCachedVisitors*3/4)
	}
}

// TestStatementCacheIsBounded fills the statement cache and checks that past its bound a new
// query is not cached but still answers.
func TestStatementCacheIsBounded(t *testing.T) {
	ctx := t.Context()
	db, err := Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := 0; len(db.stmts.m) < maxCachedStmts; i++ {
		if db.prepared(ctx, db.R, fmt.Sprintf("SELECT %d", i)) == nil {
			t.Fatalf("statement %d not prepared below the bound", i)
		}
	}
	if db.prepared(ctx, db.R, "SELECT -1") != nil || len(db.stmts.m) != maxCachedStmts {
		t.Errorf("cached past the bound: %d statements", len(db.stmts.m))
	}
	var n int
	if err := db.queryRow(ctx, db.R, "SELECT -1").Scan(&n); err != nil || n != -1 {
		t.Errorf("uncached query: %d, %v", n, err)
	}
}
