package sqldb_test

import (
	"context"
	"database/sql"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// A write to the main database commits while an analytics write transaction is open: on SQLite
// analytics has a file and a writer of its own. (With one writer the project's write would wait
// for the analytics transaction, which waits for the project: the test would hang.)
func TestMainWriteNotBlockedByAnalyticsTx(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		an := db.Analytics()
		if db.Dialect == sqldb.Postgres {
			if an != db {
				t.Fatal("on PostgreSQL analytics must stay in the one database")
			}
		} else if an == db || an.W == db.W || an.DSN != sqldb.AnalyticsPath(db.DSN) {
			t.Fatalf("on SQLite analytics must have a file and a writer of its own (file %q beside %q)", an.DSN, db.DSN)
		}
		var created *folio.Project
		err := an.TxAlone(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO analytics_imported_days (day, source, pageviews, visitors, visits, imported_at) VALUES ('2026-01-02', 'test', 1, 1, 1, '2026-01-02T00:00:00.000000Z')`); err != nil {
				return err
			}
			if db.Dialect == sqldb.Postgres {
				return nil // one database: the project below commits after this transaction
			}
			title, desc := "Meanwhile", "committed while analytics holds its writer"
			p, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: &title, Description: &desc})
			created = p
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if db.Dialect == sqldb.Postgres {
			return
		}
		if got, err := db.Projects.Project(ctx, created.ID); err != nil || got.Title != "Meanwhile" {
			t.Fatalf("project written during the analytics transaction: %v, %v", got, err)
		}
		var n int
		if err := an.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM analytics_imported_days`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("analytics file holds %d imported days (%v), want 1", n, err)
		}
		if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM analytics_imported_days`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("main file holds %d imported days (%v), want 0", n, err)
		}
	})
}

func TestAnalyticsPath(t *testing.T) {
	for in, want := range map[string]string{"data/folio.db": "data/folio-analytics.db", "/srv/site": "/srv/site-analytics.db", "x.sqlite": "x.sqlite-analytics.db"} {
		if got := sqldb.AnalyticsPath(in); got != want {
			t.Errorf("AnalyticsPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// The analytics file runs the migrations named *_analytics*: each must touch analytics tables
// only, and no other migration may touch one.
func TestAnalyticsMigrationsStayApart(t *testing.T) {
	comment := regexp.MustCompile(`--[^\n]*`)
	table := regexp.MustCompile(`(?i)\b(?:TABLE|INTO|UPDATE|FROM|JOIN|ON)\s+([a-z_][a-z0-9_]*)`)
	root := "migrations"
	n := 0
	err := fs.WalkDir(os.DirFS("."), root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".sql") {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sqlText := comment.ReplaceAllString(string(body), "")
		named := strings.Contains(filepath.Base(path), "_analytics")
		for _, m := range table.FindAllStringSubmatch(sqlText, -1) {
			name := strings.ToLower(m[1])
			if name == "conflict" { // ON CONFLICT
				continue
			}
			isAn := strings.HasPrefix(name, "analytics_")
			if named && !isAn {
				t.Errorf("%s is an analytics migration but touches %s", path, name)
			}
			if !named && isAn {
				t.Errorf("%s touches %s: name it *_analytics* so the analytics file runs it", path, name)
			}
		}
		if named {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no analytics migration found")
	}
}

// An install from before the analytics file keeps its analytics in the main file: the first
// start moves them (once, however often it starts, and finishing a move a crash cut short),
// leaving the main file's analytics tables empty but for the ingest turn.
func TestAnalyticsMovedFromMainFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *sqldb.DB {
		t.Helper()
		db, err := sqldb.Open(ctx, "", dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx); err != nil {
			db.Close()
			t.Fatal(err)
		}
		return db
	}
	count := func(q *sql.DB, table string) int {
		t.Helper()
		var n int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The old layout: analytics rows in the main file, no analytics file.
	db := open()
	for _, q := range []string{
		`INSERT INTO analytics_daily_totals (day, views, visits) VALUES ('2026-01-01', 10, 4), ('2026-01-02', 20, 8)`,
		`INSERT INTO analytics_shares (id, token_hash, password_hash, created_at) VALUES ('s1', 'h1', '', '2026-01-01T00:00:00.000000Z')`,
		`UPDATE analytics_ingest SET turn = 41`,
	} {
		if _, err := db.W.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if err := sqldb.RemoveAnalyticsFile(filepath.Join(dir, "folio.db")); err != nil {
		t.Fatal(err)
	}

	for start := 1; start <= 2; start++ {
		db = open()
		an := db.Analytics()
		if got := count(an.R, "analytics_daily_totals"); got != 2 {
			t.Fatalf("start %d: analytics file has %d daily totals, want 2", start, got)
		}
		if got := count(an.R, "analytics_shares"); got != 1 {
			t.Fatalf("start %d: analytics file has %d shares, want 1", start, got)
		}
		var turn int
		if err := an.R.QueryRowContext(ctx, `SELECT turn FROM analytics_ingest`).Scan(&turn); err != nil || turn != 41 {
			t.Fatalf("start %d: ingest turn %d (%v), want 41", start, turn, err)
		}
		if got := count(db.R, "analytics_daily_totals") + count(db.R, "analytics_shares"); got != 0 {
			t.Fatalf("start %d: %d analytics rows left in the main file", start, got)
		}
		if got := count(db.R, "analytics_ingest"); got != 1 {
			t.Fatalf("start %d: main file's ingest row count %d, want 1 (kept for older binaries)", start, got)
		}
		db.Close()
	}

	// A crash after the copy, before the main file's rows went: the next start deletes them and
	// copies nothing twice.
	db = open()
	for _, q := range []string{
		`INSERT INTO analytics_daily_totals (day, views, visits) VALUES ('2026-01-01', 10, 4), ('2026-01-02', 20, 8)`,
		`INSERT INTO analytics_shares (id, token_hash, password_hash, created_at) VALUES ('s1', 'h1', '', '2026-01-01T00:00:00.000000Z')`,
	} {
		if _, err := db.W.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Analytics().W.ExecContext(ctx, `DELETE FROM schema_migrations WHERE name = 'analytics-cleared-from-main'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open()
	defer db.Close()
	if got := count(db.Analytics().R, "analytics_daily_totals"); got != 2 {
		t.Fatalf("after an interrupted move: analytics file has %d daily totals, want 2", got)
	}
	if got := count(db.R, "analytics_daily_totals"); got != 0 {
		t.Fatalf("after an interrupted move: %d daily totals left in the main file", got)
	}
}

// A backup is one file holding the analytics too, and what restore puts back: the analytics file
// beside the restored database goes, and the next start moves the snapshot's analytics into a
// new one.
func TestBackupHoldsAnalytics(t *testing.T) {
	ctx := context.Background()
	db := foliotest.MustOpenSQLite(t)
	if _, err := db.Analytics().W.ExecContext(ctx, `INSERT INTO analytics_daily_totals (day, views, visits) VALUES ('2026-03-01', 7, 3)`); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "backup.db")
	if err := db.Backup(ctx, path); err != nil {
		t.Fatal(err)
	}
	snap, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	var views int
	if err := snap.QueryRowContext(ctx, `SELECT views FROM analytics_daily_totals WHERE day = '2026-03-01'`).Scan(&views); err != nil || views != 7 {
		t.Fatalf("snapshot's analytics: views %d, %v; want 7", views, err)
	}
	if _, err := os.Stat(path + ".analytics"); !os.IsNotExist(err) {
		t.Fatalf("the analytics file's temporary copy was left: %v", err)
	}
}
