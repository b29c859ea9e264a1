package sqldb

import (
	"context"
	"fmt"
	"os"
)

// Backup writes a consistent copy of an SQLite database to path with VACUUM INTO, which reads
// one snapshot and so is safe while the service keeps writing. The file must not exist yet.
// PostgreSQL databases are backed up with pg_dump instead. The copy holds the analytics file's rows
// too (backupAnalytics): a snapshot is one file, restored as the main file.
func (db *DB) Backup(ctx context.Context, path string) error {
	if db.Dialect != SQLite {
		return fmt.Errorf("sqldb: backup: use pg_dump for PostgreSQL (for example pg_dump -Fc -f folio.dump \"$DATABASE_URL\")")
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("sqldb: backup: %s already exists", path)
	}
	if _, err := db.R.ExecContext(ctx, `VACUUM INTO $1`, path); err != nil {
		return fmt.Errorf("sqldb: backup: %w", err)
	}
	if err := backupAnalytics(ctx, db, path); err != nil {
		os.Remove(path)
		return fmt.Errorf("sqldb: backup of the analytics file: %w", err)
	}
	return nil
}
