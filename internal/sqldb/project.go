package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

const projectColumns = `id, title, description, long_description, technologies, status, demo_url, source_url, images, created_at, updated_at`

// insertProject writes projectColumns and, as $12, technologiesLower.
const insertProject = `INSERT INTO projects (` + projectColumns + `, technologies_lower)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`

// createProjectPostgres is insertProject with the search entry ($13 visible, $14 title, $15 body;
// as putSearchDoc writes it) in the same statement.
const createProjectPostgres = `WITH project AS (
		` + insertProject + `
	), doc AS (
		INSERT INTO search_docs (kind, ref_id, visible, doc)
		VALUES ('project', $1, $13, setweight(to_tsvector('simple', $14), 'A') || setweight(to_tsvector('simple', $15), 'B'))
	) SELECT 1`

// withTotal scans a row of a list query whose last column is the list's total into total.
type withTotal struct {
	rows  *sql.Rows
	total *int
}

func (w withTotal) Scan(dest ...any) error { return w.rows.Scan(append(dest, w.total)...) }

func scanProject(row interface{ Scan(...any) error }) (*folio.Project, error) {
	var p folio.Project
	var techs, images string
	var created, updated Time
	if err := row.Scan(&p.ID, &p.Title, &p.Description, &p.LongDescription, &techs, &p.Status, &p.DemoURL,
		&p.SourceURL, &images, &created, &updated); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(techs), &p.Technologies); err != nil {
		return nil, fmt.Errorf("project %s technologies: %w", p.ID, err)
	}
	if err := json.Unmarshal([]byte(images), &p.Images); err != nil {
		return nil, fmt.Errorf("project %s images: %w", p.ID, err)
	}
	p.CreatedAt, p.UpdatedAt = created.Time, updated.Time
	return &p, nil
}

// Project returns the project with the given id, or ENOTFOUND.
func (s *ProjectStore) Project(ctx context.Context, id string) (*folio.Project, error) {
	p, err := scanProject(s.R.QueryRowContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = $1`, id))
	if err == sql.ErrNoRows {
		return nil, notFound("Project", id)
	}
	if err != nil {
		return nil, wrap("Project", err)
	}
	return p, nil
}

// Projects returns one page of the projects f selects, newest first, and the total count.
func (s *ProjectStore) Projects(ctx context.Context, f folio.ProjectFilter) ([]*folio.Project, int, error) {
	var where []string
	var args Args
	if len(f.Statuses) > 0 {
		where = append(where, "status IN ("+args.AddList(f.Statuses)+")")
	}
	if f.Technology != "" {
		// A scan of the projects, not an index: a portfolio holds hundreds of projects, not
		// millions, and a technology index cost every write more than the scan costs a filter.
		t := args.Add(strings.ToLower(f.Technology))
		if s.Dialect == Postgres {
			where = append(where, "technologies_lower::jsonb @> jsonb_build_array("+t+"::text)")
		} else {
			where = append(where, "EXISTS (SELECT 1 FROM json_each(technologies_lower) WHERE value = "+t+")")
		}
	}
	if q := strings.TrimSpace(f.Query); q != "" {
		pat := "%" + escapeLike(strings.ToLower(q)) + "%"
		a := args.Add(pat)
		where = append(where, "(LOWER(title) LIKE "+a+` ESCAPE '\' OR LOWER(description) LIKE `+a+` ESCAPE '\')`)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	// The page and the total in one statement (one read of one snapshot): the count is an
	// uncorrelated subquery, which both engines evaluate once. A page past the end has no row to
	// carry it, so then the count runs alone. LIMIT (1 to 100) is written into the statement,
	// not bound: SQLite's planner reads a bound LIMIT's value, so binding it marks the prepared
	// statement to be compiled again at every run — a parse per request, a third of the
	// uncached list's CPU.
	countQuery := `SELECT COUNT(*) FROM projects` + cond
	limit, offset := f.Limit, (f.Page-1)*f.Limit
	q := `SELECT ` + projectColumns + `, (` + countQuery + `) FROM projects` + cond +
		` ORDER BY created_at DESC, id DESC LIMIT ` + strconv.Itoa(limit) + ` OFFSET ` + args.Add(offset)
	rows, err := s.query(ctx, s.R, q, args...)
	if err != nil {
		return nil, 0, wrap("Projects", err)
	}
	defer rows.Close()
	out := []*folio.Project{}
	total := -1
	for rows.Next() {
		p, err := scanProject(withTotal{rows, &total})
		if err != nil {
			return nil, 0, wrap("Projects", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, wrap("Projects", err)
	}
	if total < 0 {
		if err := s.queryRow(ctx, s.R, countQuery, args[:len(args)-1]...).Scan(&total); err != nil {
			return nil, 0, wrap("Projects", err)
		}
	}
	return out, total, nil
}

// CreateProject stores a decided new project: the row, its search entry and its events.
//
// It is the hot write path (docs/performance.md), so it costs as few statements as the engine
// allows: the project and its search entry are one statement on PostgreSQL, and three prepared
// ones on SQLite, then the outgoing-webhook events in the same transaction.
func (s *ProjectStore) CreateProject(ctx context.Context, w *folio.ProjectWrite) error {
	p, doc := w.Project, w.Search
	techs, _ := json.Marshal(p.Technologies)
	images, _ := json.Marshal(p.Images)
	args := []any{p.ID, p.Title, p.Description, p.LongDescription, string(techs), p.Status, p.DemoURL, p.SourceURL,
		string(images), s.ts(p.CreatedAt), s.ts(p.UpdatedAt), technologiesLower(p)}
	var err error
	if s.Dialect == Postgres {
		// The project and its search entry in one statement. With no
		// webhook subscribed to the events that statement is the whole write, and a single
		// statement is a transaction of its own: one round trip instead of BEGIN … COMMIT.
		args = append(args, doc.Visible, doc.Title, doc.Body)
		if !s.anySubscribed(w.Events) {
			_, err = s.W.ExecContext(ctx, createProjectPostgres, args...)
		} else {
			err = s.tx(ctx, func(tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, createProjectPostgres, args...); err != nil {
					return err
				}
				return s.Webhooks.emitAll(ctx, tx, w.Events)
			})
		}
	} else {
		err = s.txRetryable(ctx, func(tx *sql.Tx) error {
			if _, err := s.txExec(ctx, tx, insertProject, args...); err != nil {
				return err
			}
			if err := s.insertSearchDocSQLite(ctx, tx, indexWords(doc)); err != nil {
				return err
			}
			return s.Webhooks.emitAll(ctx, tx, w.Events)
		})
	}
	if err != nil {
		return wrap("CreateProject", err)
	}
	s.changed(folio.ScopeProjects)
	return nil
}

// anySubscribed says whether a webhook may subscribe to one of events.
func (s *ProjectStore) anySubscribed(events []folio.Event) bool {
	for _, ev := range events {
		if maybe, _ := s.hooks.subscribed(ev.Type); maybe {
			return true
		}
	}
	return false
}

// UpdateProject reads the project with the given id (ENOTFOUND when missing) and stores the
// write decide makes of it, in one transaction.
func (s *ProjectStore) UpdateProject(ctx context.Context, id string, decide func(p *folio.Project) (*folio.ProjectWrite, error)) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		p, err := scanProject(tx.QueryRowContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = $1`, id))
		if err == sql.ErrNoRows {
			return notFound("Project", id)
		}
		if err != nil {
			return err
		}
		w, err := decide(p)
		if err != nil {
			return err
		}
		p = w.Project
		techs, _ := json.Marshal(p.Technologies)
		images, _ := json.Marshal(p.Images)
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET title = $1, description = $2, long_description = $3,
			technologies = $4, status = $5, demo_url = $6, source_url = $7, images = $8, updated_at = $9,
			technologies_lower = $10 WHERE id = $11`,
			p.Title, p.Description, p.LongDescription, string(techs), p.Status, p.DemoURL, p.SourceURL, string(images),
			s.ts(p.UpdatedAt), technologiesLower(p), p.ID); err != nil {
			return err
		}
		if err := s.putSearchDoc(ctx, tx, w.Search); err != nil {
			return err
		}
		return s.Webhooks.emitAll(ctx, tx, w.Events)
	})
	if folio.ErrorCode(err) != folio.EINTERNAL {
		return err
	}
	if err != nil {
		return wrap("UpdateProject", err)
	}
	s.changed(folio.ScopeProjects)
	return nil
}

// DeleteProject removes a project and its search entry and emits events, or returns ENOTFOUND.
func (s *ProjectStore) DeleteProject(ctx context.Context, id string, events []folio.Event) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM projects WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("Project", id)
		}
		if err := s.unindex(ctx, tx, folio.SearchTypeProject, id); err != nil {
			return err
		}
		return s.Webhooks.emitAll(ctx, tx, events)
	})
	if folio.IsNotFound(err) {
		return err
	}
	if err != nil {
		return wrap("DeleteProject", err)
	}
	s.changed(folio.ScopeProjects)
	return nil
}

// technologiesLower is the JSON array of p's technologies in lower case, which the technology
// filter matches (lowered here, not by the engine, so both engines agree beyond ASCII).
func technologiesLower(p *folio.Project) string {
	lowered := make([]string, len(p.Technologies))
	for i, t := range p.Technologies {
		lowered[i] = strings.ToLower(t)
	}
	b, _ := json.Marshal(lowered)
	return string(b)
}

// EachPublishedProject calls fn with the id and last change of every published project, oldest
// first (then by id), from one query: the project half of the sitemap's linear scan. Errors and
// early stops are as EachPublishedPost's.
func (s *ProjectStore) EachPublishedProject(ctx context.Context, fn func(id string, updated time.Time) error) error {
	return eachUpdated(ctx, s.DB, "EachPublishedProject", `SELECT id, updated_at FROM projects WHERE status = 'published' ORDER BY created_at, id`, fn)
}
