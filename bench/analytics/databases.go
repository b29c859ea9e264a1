package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"net/url"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/foliohq/folio/internal/sqldb"
)

func openSQLite(ctx context.Context, path string) *sqldb.DB {
	db, err := sqldb.Open(ctx, "sqlite:"+path, "")
	if err != nil {
		log.Fatal(err)
	}
	migrate(ctx, db)
	return db
}

// migrate applies db's missing migrations and says how long they took: over cached data, that
// is what a migration costs an upgrade.
func migrate(ctx context.Context, db *sqldb.DB) {
	t0 := time.Now()
	applied, err := db.Migrate(ctx)
	if err != nil {
		log.Fatal(err)
	}
	switch {
	case len(applied) > 3:
		fmt.Printf("  applied %d migrations (%s … %s) in %.1f s\n", len(applied), applied[0], applied[len(applied)-1], time.Since(t0).Seconds())
	case len(applied) > 0:
		fmt.Printf("  applied %s in %.1f s\n", strings.Join(applied, ", "), time.Since(t0).Seconds())
	}
}

func schemaURL(base, schema string) string {
	u, err := url.Parse(base)
	if err != nil {
		log.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func adminExec(ctx context.Context, base, stmt string) {
	db, err := sql.Open("pgx", base)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, stmt); err != nil {
		log.Fatalf("%s: %v", stmt, err)
	}
}

func resetSchema(ctx context.Context, base, schema string) {
	dropSchema(ctx, base, schema)
	ensureSchema(ctx, base, schema)
}
func dropSchema(ctx context.Context, base, schema string) {
	adminExec(ctx, base, `DROP SCHEMA IF EXISTS `+schema+` CASCADE`)
}
func ensureSchema(ctx context.Context, base, schema string) {
	adminExec(ctx, base, `CREATE SCHEMA IF NOT EXISTS `+schema)
}

func openPostgres(ctx context.Context, base, schema string) *sqldb.DB {
	db, err := sqldb.Open(ctx, schemaURL(base, schema), "")
	if err != nil {
		log.Fatal(err)
	}
	migrate(ctx, db)
	return db
}
