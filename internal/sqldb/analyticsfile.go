package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// On SQLite, analytics lives in a file of its own beside the main database (AnalyticsPath), with
// its own writer: an analytics batch holds its writer for up to a second, and with one file every
// other write (a project, a post, a booking) waited behind it. The analytics store
// (internal/sqldb/analyticsdb) touches only analytics_* tables and never joins them with the
// others, so nothing needs both files in one transaction. On PostgreSQL, where writers do not
// serialise, analytics stays in the one database.

// AnalyticsPath is the analytics file of the SQLite database at path: folio.db →
// folio-analytics.db (a path not ending in .db gets "-analytics.db" appended).
func AnalyticsPath(path string) string {
	return strings.TrimSuffix(path, ".db") + "-analytics.db"
}

// Analytics is the engine analytics is stored in: on SQLite the analytics file, opened with the
// main file (same pragmas and pools, its own writer), else db itself.
func (db *DB) Analytics() *DB {
	if db.an != nil {
		return db.an
	}
	return db
}

// isAnalyticsMigration tells the migrations the analytics file runs: those named *_analytics*,
// which touch only analytics_* tables (TestAnalyticsMigrationsStayApart checks both ways). The
// main file runs every migration, so its schema is the same on both engines and an existing
// install's analytics tables are there to be moved.
func isAnalyticsMigration(name string) bool { return strings.Contains(name, "_analytics") }

// The analytics file's schema_migrations rows that record the one-time move of an existing
// install's analytics rows out of the main file (moveAnalytics): copied (in the analytics file's
// transaction that copied them), then cleared once the main file's rows are deleted.
const (
	analyticsCopied  = "analytics-copied-from-main"
	analyticsCleared = "analytics-cleared-from-main"
)

// migrateAnalytics applies the analytics migrations to db's analytics file, if it has one, and
// returns their names; then it moves the rows an install from before the split keeps in the
// main file (see moveAnalytics). It and the other functions here that work on both files are
// functions, not methods of DB, which is either file.
func migrateAnalytics(ctx context.Context, db *DB) ([]string, error) {
	if db.an == nil {
		return nil, nil
	}
	applied, err := db.an.applyMigrations(ctx, isAnalyticsMigration)
	for i, name := range applied {
		applied[i] = "analytics file: " + name
	}
	if err != nil {
		return applied, fmt.Errorf("sqldb: analytics file: %w", err)
	}
	return applied, moveAnalytics(ctx, db)
}

// moveAnalytics moves the analytics rows of the main file into the analytics file, once: the
// copy (through ATTACH, in one transaction of the analytics file that also records it) is made
// durable before the main file's rows are deleted, so a crash at any point loses nothing and the
// next start finishes the work. The main file's analytics_ingest row stays, so an older binary
// started on it again still finds it. After the move the main file's analytics tables stay
// empty: rows an older binary writes there later are not moved again (docs/operations.md).
func moveAnalytics(ctx context.Context, db *DB) error {
	copied, err := hasMigration(ctx, db.an.W, analyticsCopied)
	if err != nil {
		return err
	}
	cleared, err := hasMigration(ctx, db.an.W, analyticsCleared)
	if err != nil || cleared {
		return err
	}
	tables, err := analyticsTables(ctx, db.W, "main")
	if err != nil {
		return err
	}
	if !copied {
		conn, err := db.an.W.Conn(ctx)
		if err != nil {
			return err
		}
		err = withAttached(ctx, conn, db.DSN, "folio_main", func() error {
			tx, err := conn.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			// Asked again inside the transaction, which serialises the processes starting at
			// once: a second copy would follow the first's deletion and copy nothing.
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = $1`, analyticsCopied).Scan(&n); err != nil || n > 0 {
				return err
			}
			if err := copyTables(ctx, tx, "folio_main", "main", tables); err != nil {
				return err
			}
			if err := recordMigration(ctx, tx, analyticsCopied, db.Now()); err != nil {
				return err
			}
			return tx.Commit()
		})
		if err == nil {
			// The copy reaches the disk before the originals go (synchronous=NORMAL syncs at
			// checkpoints, not at each commit).
			_, err = conn.ExecContext(ctx, `PRAGMA wal_checkpoint(FULL)`)
		}
		conn.Close()
		if err != nil {
			return fmt.Errorf("sqldb: move analytics to %s: %w", AnalyticsPath(db.DSN), err)
		}
	}
	err = db.txOnce(ctx, func(tx *sql.Tx) error {
		for _, t := range tables {
			if t == "analytics_ingest" {
				continue
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqldb: remove the moved analytics from the main file: %w", err)
	}
	return db.an.txOnce(ctx, func(tx *sql.Tx) error { return recordMigration(ctx, tx, analyticsCleared, db.Now()) })
}

// hasMigration tells whether the schema_migrations table on w records name.
func hasMigration(ctx context.Context, w *sql.DB, name string) (bool, error) {
	var n int
	err := w.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = $1`, name).Scan(&n)
	return n > 0, err
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func recordMigration(ctx context.Context, tx execer, name string, at time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, at.UTC().Format(sqliteTime))
	return err
}

// analyticsTables lists the analytics_* tables of schema ("main" or an attached name) on q.
func analyticsTables(ctx context.Context, q execer, schema string) ([]string, error) {
	return queryNames(ctx, q, `SELECT name FROM `+schema+`.sqlite_master WHERE type = 'table' AND name LIKE 'analytics\_%' ESCAPE '\' ORDER BY name`)
}

// withAttached runs fn with the SQLite file path attached to conn as name, and detaches it.
func withAttached(ctx context.Context, conn *sql.Conn, path, name string, fn func() error) error {
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE $1 AS `+name, path); err != nil {
		return err
	}
	err := fn()
	if _, derr := conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE `+name); derr != nil && err == nil {
		err = derr
	}
	return err
}

// copyTables replaces the rows of each of tables in schema to by those of schema from, column by
// column name (the columns both have), skipping a table one of them lacks.
func copyTables(ctx context.Context, tx execer, from, to string, tables []string) error {
	for _, t := range tables {
		src, err := columns(ctx, tx, from, t)
		if err != nil {
			return err
		}
		dst, err := columns(ctx, tx, to, t)
		if err != nil {
			return err
		}
		var cols []string
		for _, c := range dst {
			for _, s := range src {
				if s == c {
					cols = append(cols, `"`+c+`"`)
				}
			}
		}
		if len(cols) == 0 {
			continue
		}
		list := strings.Join(cols, ", ")
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+to+`.`+t); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+to+`.`+t+` (`+list+`) SELECT `+list+` FROM `+from+`.`+t); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	return nil
}

func columns(ctx context.Context, q execer, schema, table string) ([]string, error) {
	return queryNames(ctx, q, `SELECT name FROM pragma_table_info($1, $2)`, table, schema)
}

// queryNames runs query, whose rows are one text column, and returns its values.
func queryNames(ctx context.Context, q execer, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// backupAnalytics adds the analytics file's rows to the snapshot at path (a copy of the main
// file, made by Backup), so a snapshot stays one file holding everything: the analytics file is
// first copied whole with VACUUM INTO (one consistent read, as the main file's), then its tables
// replace the snapshot's empty ones. Restore puts the snapshot back as the main file and removes
// the analytics file, and the next start moves the analytics out again (moveAnalytics).
func backupAnalytics(ctx context.Context, db *DB, path string) error {
	if db.an == nil {
		return nil
	}
	tmp := path + ".analytics"
	os.Remove(tmp)
	defer os.Remove(tmp)
	if _, err := db.an.R.ExecContext(ctx, `VACUUM INTO $1`, tmp); err != nil {
		return err
	}
	snap, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer snap.Close()
	conn, err := snap.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return withAttached(ctx, conn, tmp, "folio_analytics", func() error {
		tables, err := analyticsTables(ctx, conn, "folio_analytics")
		if err != nil {
			return err
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := copyTables(ctx, tx, "folio_analytics", "main", tables); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// RemoveAnalyticsFile deletes the analytics file of the SQLite database at path (with its
// write-ahead log), as a restore does: the restored snapshot holds the analytics, which the next
// start moves into a new analytics file.
func RemoveAnalyticsFile(path string) error {
	an := AnalyticsPath(path)
	for _, suffix := range []string{"-wal", "-shm", ""} {
		if err := os.Remove(an + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
