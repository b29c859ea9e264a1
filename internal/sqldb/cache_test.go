package sqldb

import (
	"fmt"
	"testing"
)

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
