// Package seed fills a folio database for the benchmarks faster than the API would.
package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

// Posts inserts n published posts, one a minute apart, in one transaction, with one SQL statement
// per row: what the sitemap reads (slug, status, publication and change times; the rest is the
// columns' defaults), not through CreatePost, which would spend minutes on slugs and the search
// index.
func Posts(ctx context.Context, db *sqldb.DB, n int) error {
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO posts (id, slug, title, content, status, published_at, created_at, updated_at)
		VALUES ($1, $2, $3, '', 'published', $4, $4, $4)`)
	if err != nil {
		return err
	}
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		at := base.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000000Z")
		if _, err := st.ExecContext(ctx, folio.NewID(), fmt.Sprintf("a-realistic-post-title-number-%d", i), fmt.Sprintf("Post %d", i), at); err != nil {
			return err
		}
	}
	return tx.Commit()
}
