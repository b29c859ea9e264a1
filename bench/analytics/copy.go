package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/foliohq/folio/internal/sqldb"
)

// analyticsTables are the tables the generated data lives in.
var analyticsTables = []string{"analytics_visitors", "analytics_pageviews", "analytics_events", "analytics_daily_pages",
	"analytics_daily_referrers", "analytics_daily_totals", "analytics_daily_uniques", "analytics_daily_dims", "analytics_daily_visit_attrs",
	"analytics_period_visit_attrs"}

// copyToPostgres bulk-loads the generated data of the SQLite database src into the migrated,
// empty PostgreSQL database dst with COPY: the rows (rollups included) are exactly the ones
// analyticsdb.Store.WriteAnalytics wrote on SQLite, so both engines answer over the same data.
// Secondary indexes are dropped for the load and rebuilt after it, as a bulk load should.
func copyToPostgres(ctx context.Context, src, dst *sqldb.DB) {
	conn, err := dst.W.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		if _, err := pc.Exec(ctx, `SET synchronous_commit = off`); err != nil {
			return err
		}
		for _, table := range analyticsTables {
			t0 := time.Now()
			var indexes []string
			rows, err := pc.Query(ctx, `SELECT i.indexname, i.indexdef FROM pg_indexes i
				WHERE i.schemaname = current_schema() AND i.tablename = $1
				AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`, table)
			if err != nil {
				return err
			}
			var names []string
			for rows.Next() {
				var name, def string
				if err := rows.Scan(&name, &def); err != nil {
					return err
				}
				names, indexes = append(names, name), append(indexes, def)
			}
			rows.Close()
			for _, n := range names {
				if _, err := pc.Exec(ctx, `DROP INDEX `+pgx.Identifier{n}.Sanitize()); err != nil {
					return err
				}
			}
			var cols, types []string
			rows, err = pc.Query(ctx, `SELECT column_name, data_type FROM information_schema.columns
				WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, table)
			if err != nil {
				return err
			}
			for rows.Next() {
				var c, t string
				if err := rows.Scan(&c, &t); err != nil {
					return err
				}
				cols, types = append(cols, c), append(types, t)
			}
			rows.Close()
			srcRows, err := src.Analytics().R.QueryContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+table)
			if err != nil {
				return err
			}
			n, err := pc.CopyFrom(ctx, pgx.Identifier{table}, cols, &sqliteSource{rows: srcRows, types: types})
			srcRows.Close()
			if err != nil {
				return fmt.Errorf("copy %s: %w", table, err)
			}
			for _, def := range indexes {
				if _, err := pc.Exec(ctx, def); err != nil {
					return err
				}
			}
			if cols[0] == "id" && strings.Contains(strings.Join(types, ","), "bigint") {
				if _, err := pc.Exec(ctx, `SELECT setval(pg_get_serial_sequence('`+table+`', 'id'), COALESCE(MAX(id), 1)) FROM `+table); err != nil {
					return err
				}
			}
			fmt.Printf("  copied %d rows of %s in %.1f s\n", n, table, time.Since(t0).Seconds())
		}
		// VACUUM too, as autovacuum would soon after such a load: until a page is all-visible, an
		// index-only scan of it reads the table (sampled breakdowns took 2 s instead of 10-30 ms).
		_, err := pc.Exec(ctx, `VACUUM (ANALYZE) `+strings.Join(analyticsTables, ", "))
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
}

// sqliteSource feeds COPY from SQLite rows, converting SQLite's text times and integer booleans
// to the PostgreSQL column types.
type sqliteSource struct {
	rows  *sql.Rows
	types []string
	vals  []any
	err   error
}

func (s *sqliteSource) Next() bool {
	if !s.rows.Next() {
		return false
	}
	raw := make([]any, len(s.types))
	ptrs := make([]any, len(s.types))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	if err := s.rows.Scan(ptrs...); err != nil {
		s.err = err
		return false
	}
	for i, t := range s.types {
		switch t {
		case "timestamp with time zone":
			var tm sqldb.Time
			if err := tm.Scan(raw[i]); err != nil {
				s.err = err
				return false
			}
			raw[i] = tm.Time
		case "boolean":
			switch v := raw[i].(type) {
			case int64:
				raw[i] = v != 0
			}
		}
	}
	s.vals = raw
	return true
}

func (s *sqliteSource) Values() ([]any, error) { return s.vals, nil }

func (s *sqliteSource) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.rows.Err()
}
