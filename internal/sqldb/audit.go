package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// insertAuditSQLite stores audit entries from a JSON array of rows in audit_log's column order.
// The WHERE clause keeps SQLite from reading ON CONFLICT as a join constraint.
const insertAuditSQLite = `INSERT INTO audit_log (id, at, user_id, key_id, action, resource, resource_id, ip, status, refused)
	SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7, value->>8, value->>9
	FROM json_each($1) WHERE true
	ON CONFLICT (id) DO UPDATE SET refused = audit_log.refused + excluded.refused`

// InsertAudit stores a batch of audit entries in one statement. An entry whose id is already
// stored adds its Refused count to the stored row and changes nothing else: that is how the
// refusals of one client, action and window, counted on several instances, make one row
// (internal/audit). The ids within one batch must differ.
func (s *AuditStore) InsertAudit(ctx context.Context, entries []folio.AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	// One statement for the whole batch (a statement per entry cost a round trip each on
	// PostgreSQL): the columns as arrays on PostgreSQL, one JSON array of rows on SQLite.
	var err error
	if s.Dialect == Postgres {
		cols := make([][]string, 7)
		ats := make([]time.Time, len(entries))
		statuses := make([]int32, len(entries))
		refused := make([]int32, len(entries))
		for i, e := range entries {
			ats[i] = e.At.UTC().Truncate(time.Microsecond)
			statuses[i] = int32(e.Status)
			refused[i] = int32(e.Refused)
			for c, v := range []string{e.ID, e.Actor.UserID, e.Actor.KeyID, e.Action, e.Resource, e.ResourceID, e.IP} {
				cols[c] = append(cols[c], v)
			}
		}
		_, err = s.W.ExecContext(ctx, `INSERT INTO audit_log (id, at, user_id, key_id, action, resource, resource_id, ip, status, refused)
			SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[], $10::int[])
			ON CONFLICT (id) DO UPDATE SET refused = audit_log.refused + excluded.refused`,
			cols[0], ats, cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], statuses, refused)
	} else {
		rows := make([][]any, len(entries))
		for i, e := range entries {
			rows[i] = []any{e.ID, s.ts(e.At), e.Actor.UserID, e.Actor.KeyID, e.Action, e.Resource, e.ResourceID, e.IP, e.Status, e.Refused}
		}
		b, _ := json.Marshal(rows)
		err = s.txRetryable(ctx, func(tx *sql.Tx) error {
			_, err := s.txExec(ctx, tx, insertAuditSQLite, string(b))
			return err
		})
	}
	if err != nil {
		return wrap("InsertAudit", err)
	}
	return nil
}

// AuditEntries returns one page of entries, newest first, and how many match in total.
func (s *AuditStore) AuditEntries(ctx context.Context, f folio.AuditFilter) ([]folio.AuditEntry, int, error) {
	var where []string
	var args Args
	if a := f.Action; a != "" {
		if strings.HasSuffix(a, "*") || strings.HasSuffix(a, ".") {
			where = append(where, `action LIKE `+args.Add(escapeLike(strings.TrimSuffix(a, "*"))+"%")+` ESCAPE '\'`)
		} else {
			where = append(where, `action = `+args.Add(a))
		}
	}
	if f.Actor != "" {
		p := args.Add(f.Actor)
		where = append(where, `(user_id = `+p+` OR key_id = `+p+`)`)
	}
	if f.From != nil {
		where = append(where, `at >= `+args.Add(s.ts(*f.From)))
	}
	if f.To != nil {
		where = append(where, `at < `+args.Add(s.ts(*f.To)))
	}
	cond := ""
	if len(where) > 0 {
		cond = ` WHERE ` + strings.Join(where, ` AND `)
	}
	var total int
	if err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log`+cond, args...).Scan(&total); err != nil {
		return nil, 0, wrap("AuditEntries", err)
	}
	limit, page := max(f.Limit, 1), max(f.Page, 1)
	q := `SELECT id, at, user_id, key_id, action, resource, resource_id, ip, status, refused FROM audit_log` + cond +
		` ORDER BY at DESC, id DESC LIMIT ` + args.Add(limit) + ` OFFSET ` + args.Add((page-1)*limit)
	rows, err := s.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, wrap("AuditEntries", err)
	}
	defer rows.Close()
	out := []folio.AuditEntry{}
	for rows.Next() {
		var e folio.AuditEntry
		var at Time
		if err := rows.Scan(&e.ID, &at, &e.Actor.UserID, &e.Actor.KeyID, &e.Action, &e.Resource, &e.ResourceID, &e.IP, &e.Status, &e.Refused); err != nil {
			return nil, 0, wrap("AuditEntries", err)
		}
		e.At = at.Time
		if e.Refused > 0 {
			e.Detail = folio.RefusedDetail(e.Refused)
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// PruneAudit deletes the entries older than before and returns how many went.
func (s *AuditStore) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.W.ExecContext(ctx, `DELETE FROM audit_log WHERE at < $1`, s.ts(before))
	if err != nil {
		return 0, wrap("PruneAudit", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
