package sqldb_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// Ensure OpenExisting opens only a database folio has set up: on SQLite a missing file is
// ErrNoDatabase and stays missing (no file, no folder), and so is a file without folio's tables;
// on PostgreSQL a database (schema) without the migrations table.
func TestOpenExisting(t *testing.T) {
	ctx := context.Background()
	t.Run("sqlite", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		loc := sqldb.Locate("", dir)
		if _, err := sqldb.OpenExisting(ctx, loc); !errors.Is(err, sqldb.ErrNoDatabase) {
			t.Fatalf("missing file: %v", err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("OpenExisting created %s: %v", dir, err)
		}
		os.MkdirAll(dir, 0o750)
		os.WriteFile(loc.DSN, nil, 0o600) // an empty file is an empty SQLite database
		if _, err := sqldb.OpenExisting(ctx, loc); !errors.Is(err, sqldb.ErrNoDatabase) {
			t.Fatalf("a file without folio's tables: %v", err)
		}
		if _, err := os.Stat(sqldb.AnalyticsPath(loc.DSN)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("an analytics file was left beside a file that is not folio's: %v", err)
		}
		migrateAndReopen(t, sqldb.Locate("sqlite:"+loc.DSN, ""))
	})
	t.Run("postgres", func(t *testing.T) {
		loc := sqldb.Locate(foliotest.PostgresSchema(t), "")
		if _, err := sqldb.OpenExisting(ctx, loc); !errors.Is(err, sqldb.ErrNoDatabase) {
			t.Fatalf("a schema without folio's tables: %v", err)
		}
		migrateAndReopen(t, loc)
	})
}

// migrateAndReopen sets folio's tables up at loc, then expects OpenExisting to open it.
func migrateAndReopen(t *testing.T, loc sqldb.Location) {
	t.Helper()
	ctx := context.Background()
	db, err := sqldb.Open(ctx, loc.DSN, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = sqldb.OpenExisting(ctx, loc)
	if err != nil {
		t.Fatalf("after migrating: %v", err)
	}
	defer db.Close()
	if n, err := db.Identity.CountUsers(ctx); err != nil || n != 0 {
		t.Errorf("CountUsers: %d %v", n, err)
	}
}

// Ensure a location names the SQLite file by its absolute path and PostgreSQL by database and
// host, never with the password.
func TestLocationString(t *testing.T) {
	wd, _ := os.Getwd()
	for url, want := range map[string]string{
		"":                           filepath.Join(wd, "data", "folio.db") + " (SQLite)",
		"sqlite:/srv/folio/folio.db": "/srv/folio/folio.db (SQLite)",
		"file:rel/folio.db":          filepath.Join(wd, "rel", "folio.db") + " (SQLite)",
		"postgres://folio:s3cret@db.example.com:5432/site?sslmode=require": "site on db.example.com:5432 (PostgreSQL)",
		"postgresql://db.example.com/site":                                 "site on db.example.com (PostgreSQL)",
	} {
		got := sqldb.Locate(url, "./data").String()
		if got != want || strings.Contains(got, "s3cret") {
			t.Errorf("Locate(%q).String() = %q, want %q", url, got, want)
		}
	}
}
