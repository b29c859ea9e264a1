package sqldb_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// Ensure a backup taken while writes go on opens as a database holding every write that
// finished before it started.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	db := foliotest.MustOpenSQLite(t)
	mk := func(i int) {
		title, desc := "P", "d"
		if _, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: &title, Description: &desc}); err != nil {
			t.Error(err)
		}
	}
	for i := 0; i < 50; i++ {
		mk(i)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 200; i++ {
			mk(i)
		}
	}()
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := db.Backup(ctx, path); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := db.Backup(ctx, path); err == nil {
		t.Error("backup overwrote an existing file")
	}
	copy, err := sqldb.Open(ctx, "sqlite:"+path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer copy.Close()
	_, total, err := copy.Projects.Projects(ctx, folio.ProjectFilter{Page: 1, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if total < 50 || total > 250 {
		t.Errorf("backup holds %d projects, want 50..250", total)
	}
	if err := copy.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}
