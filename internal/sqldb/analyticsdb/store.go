package analyticsdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

// Store stores page views and events with their rollups, and reads the figures of the reports,
// over the engine (*sqldb.DB). It implements analytics.Store. It remembers the state of the
// visitors of its recent batches (see visitorCache): open one per database and process.
type Store struct {
	db       *sqldb.DB
	visitors visitorCache
}

// New returns the analytics store over db's analytics engine (db.Analytics(): on SQLite the
// analytics file of its own, so its long batches never hold the writer of the site's other
// writes).
func New(db *sqldb.DB) *Store { return &Store{db: db.Analytics()} }

// VisitGap is the inactivity that ends a visit: a page view more than VisitGap after the
// visitor's previous one starts a new visit.
const VisitGap = 30 * time.Minute

// WriteAnalytics stores a batch of page views and events in one transaction and updates the
// daily rollups in the same transaction, so reports never see half a batch. Visits are split
// here, at ingest: each visitor's last page view time is kept in analytics_visitors, and a page
// view more than VisitGap after it starts a new visit. Page views are processed in time order
// (pvs is sorted in place).
//
// A batch of page views first takes the ingest turn (takeIngestTurn), which serialises batches
// across instances and tells whether the visitors this instance remembers are still current.
func (s *Store) WriteAnalytics(ctx context.Context, pvs []folio.AnalyticsPageView, evs []folio.AnalyticsEvent) error {
	if len(pvs) == 0 && len(evs) == 0 {
		return nil
	}
	c := &s.visitors
	c.mu.Lock()
	defer c.mu.Unlock()
	var turn int64
	err := s.analyticsTx(ctx, func(tx anTx) error {
		if len(pvs) > 0 {
			var err error
			if turn, err = takeIngestTurn(ctx, tx); err != nil {
				return err
			}
			// The remembered states are current only if the last turn was this instance's own
			// committed batch. They are changed in place below, so until this transaction
			// commits they are not current either (it may roll back, or run again).
			if c.turn == 0 || turn != c.turn+1 {
				c.states = map[string]*visitorState{}
			}
			c.turn = 0
			if err := s.writePageViews(ctx, tx, pvs, c.states); err != nil {
				return err
			}
		}
		return s.writeEvents(ctx, tx, evs)
	})
	if err != nil {
		return wrap("WriteAnalytics", err)
	}
	if len(pvs) > 0 {
		c.turn = turn
		c.trim(pvs[len(pvs)-1].At)
	}
	return nil
}

// takeIngestTurn adds one to the ingest turn (migration 0021) and returns it. The row stays
// locked until the transaction ends, so batches of page views, and prunes, of every instance
// take turns: a batch reads visitors' state and writes rollups from it, and two batches for one
// visitor must not interleave, or the visitor is counted twice. Batches are about one a second
// per instance, so the wait costs nothing. An instance whose previous turn is the one before
// knows nothing else wrote visitors in between.
func takeIngestTurn(ctx context.Context, tx anTx) (int64, error) {
	rows, err := tx.query(ctx, `UPDATE analytics_ingest SET turn = turn + 1 RETURNING turn`)
	if err != nil {
		return 0, err
	}
	defer closeRows(rows)
	var turn int64
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("analytics_ingest has no row")
	}
	if err := rows.Scan(&turn); err != nil {
		return 0, err
	}
	return turn, rows.Err()
}

// PruneAnalytics deletes the raw page views and events of days before day (YYYY-MM-DD, the
// owner's time zone) and the visitors last seen before it, and returns how many rows went. The
// daily rollups stay, so the site report keeps every day; the per-project report and the funnel,
// which read raw rows, only cover the days kept. It is idempotent: every instance may run it.
func (s *Store) PruneAnalytics(ctx context.Context, day string) (int64, error) {
	var n int64
	err := s.db.TxAlone(ctx, func(tx *sql.Tx) error {
		// Not between an ingest batch's read of a visitor and its write, and every instance's
		// remembered visitors become stale (see WriteAnalytics).
		if _, err := tx.ExecContext(ctx, `UPDATE analytics_ingest SET turn = turn + 1`); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM analytics_pageviews WHERE day < $1`,
			`DELETE FROM analytics_events WHERE day < $1`,
			`DELETE FROM analytics_visitors WHERE last_day < $1`,
		} {
			res, err := tx.ExecContext(ctx, q, day)
			if err != nil {
				return err
			}
			k, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += k
		}
		return nil
	})
	if err != nil {
		return 0, wrap("PruneAnalytics", err)
	}
	return n, nil
}
