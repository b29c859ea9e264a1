package sqldb

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"testing"
	"time"
)

// Ensure an SQLite instance notices another process's commit (a folio command's revocation) and
// never its own: its own writes, through the group commit, leave otherCommits quiet.
func TestOtherCommits(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	server, err := Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	command, err := Open(ctx, "", dir) // another handle on the file: what a folio command opens
	if err != nil {
		t.Fatal(err)
	}
	defer command.Close()
	if _, err := server.W.Exec(`CREATE TABLE notes (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	write := func(db *DB) {
		t.Helper()
		if err := db.tx(ctx, func(tx *sql.Tx) error { _, err := tx.Exec(`INSERT INTO notes VALUES (1)`); return err }); err != nil {
			t.Fatal(err)
		}
	}
	var others otherCommits
	since := func() bool {
		t.Helper()
		changed, err := others.since(ctx, server)
		if err != nil {
			t.Fatal(err)
		}
		return changed
	}
	if since() {
		t.Error("the first answer (the baseline) reported a change")
	}
	write(server)
	if since() {
		t.Error("the instance's own commit counted as another process's")
	}
	write(command)
	if !since() {
		t.Error("another handle's commit went unnoticed")
	}
	if since() {
		t.Error("one commit was reported twice")
	}
	write(server)
	var n int
	if err := server.R.QueryRow(`SELECT COUNT(*) FROM notes`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("rows: %d %v", n, err)
	}
	if since() {
		t.Error("the instance's own commit and reads counted as another process's")
	}
}

// Ensure Listen on SQLite calls back with "*" once another handle commits.
func TestListenHearsOtherProcessesOnSQLite(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	server, err := Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	command, err := Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer command.Close()
	heard := make(chan string, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		server.Listen(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), func(scope string) { heard <- scope })
	}()
	// Commit from the other handle until the listener hears it: the first commits may land before
	// the listener took its baseline (the deadline only stops a broken build from hanging).
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		if _, err := command.W.Exec(`CREATE TABLE IF NOT EXISTS notes (n INTEGER); INSERT INTO notes VALUES (1)`); err != nil {
			t.Fatal(err)
		}
		select {
		case scope := <-heard:
			if scope != "*" {
				t.Errorf("scope %q, want *", scope)
			}
			cancel()
			<-done
			return
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the listener never heard the other handle's commits")
		}
	}
}
