package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/search"
)

// snippetLen is about how many characters of text a search snippet shows.
const snippetLen = 160

// searchExec is a *sql.Tx or *sql.Conn: the index is written inside the caller's transaction.
type searchExec interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// indexPost writes the search entry of post id as the row now is inside tx (none when the row
// is gone), for writes that change a post's row directly (imports, the external platform's state).
func (db *DB) indexPost(ctx context.Context, tx searchExec, id string) error {
	p, err := scanPost(tx.QueryRowContext(ctx, `SELECT `+postColumns+` FROM posts WHERE id = $1`, id))
	if err == sql.ErrNoRows {
		return db.unindex(ctx, tx, folio.SearchTypePost, id)
	}
	if err != nil {
		return fmt.Errorf("index post %s: %w", id, err)
	}
	return db.putSearchDoc(ctx, tx, p.SearchDoc())
}

// indexProject writes the search entry of project id as the row now is inside tx.
func (db *DB) indexProject(ctx context.Context, tx searchExec, id string) error {
	p, err := scanProject(tx.QueryRowContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = $1`, id))
	if err == sql.ErrNoRows {
		return db.unindex(ctx, tx, folio.SearchTypeProject, id)
	}
	if err != nil {
		return fmt.Errorf("index project %s: %w", id, err)
	}
	return db.putSearchDoc(ctx, tx, p.SearchDoc())
}

// The statements of a record's first search entry on SQLite, prepared at Open (hotWrites). The
// new doc_id is the result's last insert id, not RETURNING: SQLite runs a statement with
// RETURNING under a statement savepoint, and a savepoint makes FTS5 write its pending terms to
// disk — inside a group commit, once per record instead of once per group.
const (
	insertSearchDocSQLite = `INSERT INTO search_docs (kind, ref_id, visible) VALUES ($1, $2, $3)`
	insertSearchFTSSQLite = `INSERT INTO search_fts (rowid, title, body) VALUES ($1, $2, $3)`
)

// insertSearchDocSQLite writes the search entry of a record created in tx, which has none yet;
// through the statement cache when tx is a transaction.
func (db *DB) insertSearchDocSQLite(ctx context.Context, tx searchExec, d folio.SearchDoc) error {
	exec := tx.ExecContext
	if t, ok := tx.(*sql.Tx); ok {
		exec = func(ctx context.Context, q string, args ...any) (sql.Result, error) {
			return db.txExec(ctx, t, q, args...)
		}
	}
	res, err := exec(ctx, insertSearchDocSQLite, d.Kind, d.ID, d.Visible)
	if err != nil {
		return err
	}
	docID, err := res.LastInsertId()
	if err != nil {
		return err
	}
	_, err = exec(ctx, insertSearchFTSSQLite, docID, d.Title, d.Body)
	return err
}

// indexWords folds an entry's text into the words the index keeps.
func indexWords(d folio.SearchDoc) folio.SearchDoc {
	d.Title, d.Body = search.IndexText(d.Title), search.IndexText(d.Body)
	return d
}

func (db *DB) putSearchDoc(ctx context.Context, tx searchExec, d folio.SearchDoc) error {
	d = indexWords(d)
	if db.Dialect == Postgres {
		_, err := tx.ExecContext(ctx, `INSERT INTO search_docs (kind, ref_id, visible, doc)
			VALUES ($1, $2, $3, setweight(to_tsvector('simple', $4), 'A') || setweight(to_tsvector('simple', $5), 'B'))
			ON CONFLICT (kind, ref_id) DO UPDATE SET visible = excluded.visible, doc = excluded.doc`,
			d.Kind, d.ID, d.Visible, d.Title, d.Body)
		return err
	}
	var docID int64
	err := tx.QueryRowContext(ctx, `SELECT doc_id FROM search_docs WHERE kind = $1 AND ref_id = $2`, d.Kind, d.ID).Scan(&docID)
	switch {
	case err == sql.ErrNoRows:
		return db.insertSearchDocSQLite(ctx, tx, d)
	case err != nil:
		return err
	default:
		if _, err := tx.ExecContext(ctx, `UPDATE search_docs SET visible = $1 WHERE doc_id = $2`, d.Visible, docID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_fts WHERE rowid = $1`, docID); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, insertSearchFTSSQLite, docID, d.Title, d.Body)
	return err
}

func (db *DB) unindex(ctx context.Context, tx searchExec, kind, id string) error {
	if db.Dialect == Postgres {
		_, err := tx.ExecContext(ctx, `DELETE FROM search_docs WHERE kind = $1 AND ref_id = $2`, kind, id)
		return err
	}
	var docID int64
	err := tx.QueryRowContext(ctx, `SELECT doc_id FROM search_docs WHERE kind = $1 AND ref_id = $2`, kind, id).Scan(&docID)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM search_fts WHERE rowid = $1`, docID); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM search_docs WHERE doc_id = $1`, docID)
	return err
}

// RebuildSearchIndex indexes every post and project that has no search entry yet (after the
// migration that creates the index, and after imports that write rows directly). Existing
// entries are kept: writes keep them current.
func (s *SearchStore) RebuildSearchIndex(ctx context.Context) (int, error) {
	n := 0
	for _, k := range []struct{ kind, table string }{{folio.SearchTypePost, "posts"}, {folio.SearchTypeProject, "projects"}} {
		rows, err := s.W.QueryContext(ctx, `SELECT id FROM `+k.table+` WHERE id NOT IN (SELECT ref_id FROM search_docs WHERE kind = $1)`, k.kind)
		if err != nil {
			return n, wrap("RebuildSearchIndex", err)
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return n, wrap("RebuildSearchIndex", err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		for start := 0; start < len(ids); start += 500 {
			batch := ids[start:min(start+500, len(ids))]
			err := s.tx(ctx, func(tx *sql.Tx) error {
				for _, id := range batch {
					var err error
					if k.kind == folio.SearchTypePost {
						err = s.indexPost(ctx, tx, id)
					} else {
						err = s.indexProject(ctx, tx, id)
					}
					if err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return n, wrap("RebuildSearchIndex", err)
			}
			n += len(batch)
		}
	}
	return n, nil
}

// Search runs a full-text query: every term of q must occur as a word prefix (case and
// diacritics folded), best matches first (title words weigh more than body words). A q without
// any letter or digit finds nothing.
func (s *SearchStore) Search(ctx context.Context, q folio.SearchQuery) ([]folio.SearchResult, int, error) {
	terms := search.Terms(q.Q)
	out := []folio.SearchResult{}
	if len(terms) == 0 {
		return out, 0, nil
	}
	// The page of best matches, then, only when that page is full, the count, which stops at
	// SearchMaxTotal (a window count in the page query would make both engines rank and sort
	// every match of a common word before the LIMIT).
	var pageQ, countQ string
	var args Args
	if s.Dialect == Postgres {
		args = append(args, search.TSQuery(terms))
		cond := ""
		if !q.All {
			cond += " AND visible"
		}
		if q.Type != "" {
			cond += " AND kind = " + args.Add(q.Type)
		}
		pageQ = `SELECT kind, ref_id, ts_rank(doc, q) AS score FROM search_docs, to_tsquery('simple', $1) q
			WHERE doc @@ q` + cond + ` ORDER BY score DESC, ref_id DESC`
		countQ = `SELECT COUNT(*) FROM (SELECT 1 FROM search_docs WHERE doc @@ to_tsquery('simple', $1)` + cond +
			fmt.Sprintf(` LIMIT %d) t`, folio.SearchMaxTotal+1)
	} else {
		args = append(args, search.FTS5Query(terms))
		cond := ""
		if !q.All {
			cond += " AND d.visible = 1"
		}
		if q.Type != "" {
			cond += " AND d.kind = " + args.Add(q.Type)
		}
		// bm25 is lower for better matches; the score is its negation so higher is better. It
		// may only run in the FTS query itself, hence the materialized CTE before the join.
		pageQ = `WITH m AS MATERIALIZED (SELECT rowid, -bm25(search_fts, 4.0, 1.0) AS score FROM search_fts WHERE search_fts MATCH $1)
			SELECT d.kind, d.ref_id, m.score FROM m JOIN search_docs d ON d.doc_id = m.rowid
			WHERE 1 = 1` + cond + ` ORDER BY m.score DESC, m.rowid DESC`
		countQ = `SELECT COUNT(*) FROM (SELECT 1 FROM search_fts f JOIN search_docs d ON d.doc_id = f.rowid
			WHERE search_fts MATCH $1` + cond + fmt.Sprintf(` LIMIT %d) t`, folio.SearchMaxTotal+1)
	}
	pageQ += fmt.Sprintf(" LIMIT $%d OFFSET $%d", len(args)+1, len(args)+2)
	rows, err := s.R.QueryContext(ctx, pageQ, append(args, q.Limit, (q.Page-1)*q.Limit)...)
	if err != nil {
		return nil, 0, wrap("Search", err)
	}
	for rows.Next() {
		var r folio.SearchResult
		if err := rows.Scan(&r.Type, &r.ID, &r.Score); err != nil {
			rows.Close()
			return nil, 0, wrap("Search", err)
		}
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, wrap("Search", err)
	}
	// A page that is not full tells the total without counting (most searches find a few items).
	total := (q.Page-1)*q.Limit + len(out)
	if len(out) == q.Limit || (len(out) == 0 && q.Page > 1) {
		if err := s.R.QueryRowContext(ctx, countQ, args...).Scan(&total); err != nil {
			return nil, 0, wrap("Search", err)
		}
	}
	total = min(total, folio.SearchMaxTotal)
	if out, err = s.fillSearchResults(ctx, out, terms); err != nil {
		return nil, 0, wrap("Search", err)
	}
	return out, total, nil
}

var (
	mdLinkRe   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdSymbolRe = regexp.MustCompile("(?m)^\\s{0,3}(#{1,6}|>|[-*+]|\\d+\\.)\\s+|[*_`~]{1,3}|^```.*$")
)

// plainText strips the commonest Markdown syntax for snippets (the snippet is escaped anyway).
func plainText(md string) string {
	return mdSymbolRe.ReplaceAllString(mdLinkRe.ReplaceAllString(md, "$1"), "")
}

// fillSearchResults adds title, slug and snippet to the hits from their records.
func (db *DB) fillSearchResults(ctx context.Context, hits []folio.SearchResult, terms []string) ([]folio.SearchResult, error) {
	kept := hits[:0]
	for i := range hits {
		h := hits[i]
		var title, body string
		if h.Type == folio.SearchTypePost {
			var excerpt, content string
			if err := db.R.QueryRowContext(ctx, `SELECT slug, title, excerpt, content FROM posts WHERE id = $1`, h.ID).
				Scan(&h.Slug, &title, &excerpt, &content); err == sql.ErrNoRows {
				continue // deleted since the search read the index
			} else if err != nil {
				return nil, err
			}
			body = excerpt
			if !search.Matches(excerpt, terms) && search.Matches(content, terms) {
				body = plainText(content)
			}
		} else {
			var desc, long string
			if err := db.R.QueryRowContext(ctx, `SELECT title, description, long_description FROM projects WHERE id = $1`, h.ID).
				Scan(&title, &desc, &long); err == sql.ErrNoRows {
				continue
			} else if err != nil {
				return nil, err
			}
			body = desc
			if !search.Matches(desc, terms) && search.Matches(long, terms) {
				body = plainText(long)
			}
		}
		h.Title = title
		h.Snippet = search.Snippet(body, terms, snippetLen)
		kept = append(kept, h)
	}
	return kept, nil
}
