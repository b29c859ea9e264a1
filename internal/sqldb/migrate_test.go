package sqldb

import (
	"io/fs"
	"path"
	"testing"
)

// Ensure both engines have the same migrations, so a feature never exists on only one of them.
func TestMigrationsExistForBothEngines(t *testing.T) {
	names := func(dialect Dialect) map[string]bool {
		out := map[string]bool{}
		files, err := fs.Glob(migrations, "migrations/"+string(dialect)+"/*.sql")
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v %v", dialect, files, err)
		}
		for _, f := range files {
			out[path.Base(f)] = true
		}
		return out
	}
	lite, pg := names(SQLite), names(Postgres)
	for n := range lite {
		if !pg[n] {
			t.Errorf("%s exists for SQLite only", n)
		}
	}
	for n := range pg {
		if !lite[n] {
			t.Errorf("%s exists for PostgreSQL only", n)
		}
	}
}
