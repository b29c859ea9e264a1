package sqldb

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
)

//go:embed migrations
var migrations embed.FS

// migrationLockID is the PostgreSQL advisory lock several instances starting at once take, so
// only one of them applies migrations.
const migrationLockID = 7_346_501_001

// Migrate applies every embedded migration of the dialect that is not yet recorded, in name
// order, each in its own transaction. It returns the names it applied; on SQLite, those applied
// to the analytics file follow, each after "analytics file: ".
func (db *DB) Migrate(ctx context.Context) ([]string, error) {
	applied, err := db.applyMigrations(ctx, nil)
	if err != nil {
		return applied, err
	}
	an, err := migrateAnalytics(ctx, db)
	applied = append(applied, an...)
	if err != nil {
		return applied, err
	}
	// The search index is filled in Go (its words are folded in Go), after the migration
	// connection is released (SQLite's writer pool has one); this also catches rows written
	// without it, e.g. by an older binary during a rolling upgrade.
	if _, err := db.Search.RebuildSearchIndex(ctx); err != nil {
		return applied, err
	}
	db.prepareWrites(ctx) // the hot statements can only be prepared once their tables exist
	return applied, nil
}

// applyMigrations applies the missing migrations that only accepts (all when nil).
func (db *DB) applyMigrations(ctx context.Context, only func(name string) bool) ([]string, error) {
	names, err := fs.Glob(migrations, "migrations/"+string(db.Dialect)+"/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	conn, err := db.W.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqldb: migrate: %w", err)
	}
	defer conn.Close()
	if db.Dialect == Postgres {
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLockID); err != nil {
			return nil, fmt.Errorf("sqldb: migrate lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLockID)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return nil, fmt.Errorf("sqldb: migrate: %w", err)
	}
	var applied []string
	for _, path := range names {
		name := path[len("migrations/"+string(db.Dialect)+"/"):]
		if only != nil && !only(name) {
			continue
		}
		var n int
		if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = $1`, name).Scan(&n); err != nil {
			return applied, fmt.Errorf("sqldb: migrate: %w", err)
		}
		if n > 0 {
			continue
		}
		body, err := migrations.ReadFile(path)
		if err != nil {
			return applied, err
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return applied, fmt.Errorf("sqldb: migrate %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return applied, fmt.Errorf("sqldb: migrate %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)`, name, db.Now().UTC().Format(sqliteTime)); err != nil {
			tx.Rollback()
			return applied, fmt.Errorf("sqldb: migrate %s: %w", name, err)
		}
		if err := tx.Commit(); err != nil {
			return applied, fmt.Errorf("sqldb: migrate %s: %w", name, err)
		}
		applied = append(applied, name)
	}
	return applied, nil
}
