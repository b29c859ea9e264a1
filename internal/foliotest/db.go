// Package foliotest holds helpers shared by folio's tests: databases on both engines, fixed
// clocks and test servers.
package foliotest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/sqldb"
)

// PostgresURL returns FOLIO_TEST_POSTGRES_URL, or "" when PostgreSQL tests should be skipped.
func PostgresURL() string { return os.Getenv("FOLIO_TEST_POSTGRES_URL") }

// RedisURL returns FOLIO_TEST_REDIS_URL, or "" when Redis tests should be skipped.
func RedisURL() string { return os.Getenv("FOLIO_TEST_REDIS_URL") }

// Engines runs fn as two subtests, "sqlite" and "postgres", each with a fresh, migrated
// database. The PostgreSQL run is skipped with a message when FOLIO_TEST_POSTGRES_URL is unset.
func Engines(t *testing.T, fn func(t *testing.T, db *sqldb.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, MustOpenSQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, MustOpenPostgres(t)) })
}

// MustOpenSQLite opens a fresh migrated SQLite database in a temporary directory.
func MustOpenSQLite(t testing.TB) *sqldb.DB {
	t.Helper()
	db, err := sqldb.Open(context.Background(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// MustOpenPostgres opens a migrated database in a schema of its own on the server at
// FOLIO_TEST_POSTGRES_URL (dropped when the test ends), or skips the test when it is unset.
func MustOpenPostgres(t testing.TB) *sqldb.DB {
	t.Helper()
	dsn := PostgresSchema(t)
	db, err := sqldb.Open(context.Background(), dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// PostgresSchema creates an empty schema for one test and returns a DSN whose search_path is
// that schema, so tests never see each other's rows. It skips the test when PostgreSQL is not
// configured.
func PostgresSchema(t testing.TB) string {
	t.Helper()
	base := PostgresURL()
	if base == "" {
		t.Skip("PostgreSQL tests skipped: set FOLIO_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "folio_test_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() {
		admin, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer admin.Close()
		admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Clock is a settable clock for tests, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
