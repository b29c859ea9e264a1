package analyticsdb

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

// visitorCache is the state of the visitors of this instance's recent batches, so a batch reads
// from the database only the visitors it has not seen lately. It is current while nothing else
// has taken an ingest turn since this instance's last batch (see WriteAnalytics).
type visitorCache struct {
	mu     sync.Mutex
	turn   int64 // the ingest turn of the last batch committed with states; 0 = not current
	states map[string]*visitorState
}

// maxCachedVisitorBytes bounds visitorCache, by the estimate of visitorSize: several thousand
// recent visitors fit, and a flood of new ones costs little memory (at 12 MiB, the 10-minute
// soak's memory grew 1.11x from its first minute and at 30,000 states 1.19x; at 4 MiB, 1.07x).
const maxCachedVisitorBytes = 4 << 20

// visitorSize estimates the memory a cached state of visitor key holds: the state, its map
// entry and its strings.
func visitorSize(key string, st *visitorState) int {
	n := 400 + len(key) + len(st.firstDay) + len(st.lastDay) + len(st.visitDay) + len(st.visitEntry) + len(st.lastPath)
	for _, p := range st.visitPages {
		n += 16 + len(p)
	}
	a := &st.attrs
	return n + len(a.Source) + len(a.Referrer) + len(a.UTMSource) + len(a.UTMMedium) + len(a.UTMCampaign) + len(a.Country) +
		len(a.Device) + len(a.Browser) + len(a.BrowserVersion) + len(a.OS) + len(a.OSVersion)
}

// trim keeps the cache under maxCachedVisitorBytes: the visitors idle for longer than a visit gap
// before newest go first (their next page view starts a new visit anyway), then any, down to
// three quarters of the bound so that trimming is not needed again at the next batch.
func (c *visitorCache) trim(newest time.Time) {
	size := 0
	for k, st := range c.states {
		size += visitorSize(k, st)
	}
	if size <= maxCachedVisitorBytes {
		return
	}
	for k, st := range c.states {
		if newest.Sub(st.lastSeen) > VisitGap {
			size -= visitorSize(k, st)
			delete(c.states, k)
		}
	}
	for k, st := range c.states {
		if size <= maxCachedVisitorBytes*3/4 {
			break
		}
		size -= visitorSize(k, st)
		delete(c.states, k)
	}
}

type visitorState struct {
	id         int64
	firstDay   string // first day with a page view
	lastDay    string // latest day with a page view
	lastSeen   time.Time
	visitStart time.Time
	// The current visit (see migration 0015).
	visitDay   string
	visitViews int
	visitEntry string
	visitPages []string
	attrs      folio.VisitAttrs
	lastPath   string
	sample     int // sampleHash of the visitor key, hashed once per visitor
}

// maxVisitPages bounds the paths remembered of one visit (to count a page's visits once each);
// a visit longer than that may count a page it returns to twice.
const maxVisitPages = 32

// visitAttrDims are the dimension names of VisitAttrs, in the order of visitAttrValues.
var visitAttrDims = []string{"source", "referrer", "utm_source", "utm_medium", "utm_campaign", "country", "device", "browser", "browser_version", "os", "os_version"}

// visitAttrValues lists the attributes as the dimension values stored and reported: browser_version and
// os_version carry the name too ("Firefox 128").
func visitAttrValues(a folio.VisitAttrs) []string {
	return []string{a.Source, a.Referrer, a.UTMSource, a.UTMMedium, a.UTMCampaign, a.Country, a.Device, a.Browser,
		joinVersion(a.Browser, a.BrowserVersion), a.OS, joinVersion(a.OS, a.OSVersion)}
}

func joinVersion(name, version string) string {
	if version == "" {
		return name
	}
	return name + " " + version
}

// attrSep separates the stored attributes of a visit (analytics_visitors.visit_attrs).
const attrSep = "\x1f"

func encodeVisitAttrs(a folio.VisitAttrs) string {
	return strings.Join([]string{a.Source, a.Referrer, a.UTMSource, a.UTMMedium, a.UTMCampaign, a.Country, a.Device, a.Browser, a.BrowserVersion, a.OS, a.OSVersion}, attrSep)
}

func decodeVisitAttrs(s string) folio.VisitAttrs {
	f := strings.Split(s, attrSep)
	if len(f) != 11 {
		return folio.VisitAttrs{Country: "ZZ"}
	}
	return folio.VisitAttrs{Source: f[0], Referrer: f[1], UTMSource: f[2], UTMMedium: f[3], UTMCampaign: f[4], Country: f[5],
		Device: f[6], Browser: f[7], BrowserVersion: f[8], OS: f[9], OSVersion: f[10]}
}

// updateVisitorsSQL returns the SQLite statement that sets the state of n stored visitors by
// id: n groups of (id, first_day, last_day, last_seen, visit_start, visit_day, visit_views,
// visit_entry, visit_pages, visit_attrs, last_path). An UPDATE by primary key: the upsert it
// replaces probed the unique index of visitor_key for every row first.
func (s *Store) updateVisitorsSQL(n int) string {
	// SQLite names the columns of a VALUES list column1, column2, ...
	return `UPDATE analytics_visitors SET first_day = v.column2, last_day = v.column3, last_seen = v.column4,
		visit_start = v.column5, visit_day = v.column6, visit_views = v.column7, visit_entry = v.column8,
		visit_pages = v.column9, visit_attrs = v.column10, last_path = v.column11
		FROM (VALUES ` + s.anBatchValues(n, 11) + `) AS v WHERE analytics_visitors.id = v.column1`
}

// readVisitors reads into states the stored state of the batch's visitors it does not hold, and
// returns the batch's visitor keys in order of first page view.
func (s *Store) readVisitors(ctx context.Context, tx anTx, pvs []folio.AnalyticsPageView, states map[string]*visitorState) ([]string, error) {
	var keys, unknown []string
	inBatch := map[string]bool{}
	for _, pv := range pvs {
		if !inBatch[pv.VisitorKey] {
			inBatch[pv.VisitorKey] = true
			keys = append(keys, pv.VisitorKey)
			if states[pv.VisitorKey] == nil {
				unknown = append(unknown, pv.VisitorKey)
			}
		}
	}
	for chunk := range anChunks(unknown, 500) {
		q := `SELECT id, visitor_key, first_day, last_day, last_seen, visit_start, visit_day, visit_views, visit_entry, visit_pages, visit_attrs, last_path
			FROM analytics_visitors WHERE visitor_key IN (` + s.anBatchValues(len(chunk), 1) + `)`
		rows, err := tx.query(ctx, q, anAnySlice(chunk)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var k, pages, attrs string
			var st visitorState
			var last, start sqldb.Time
			if err := rows.Scan(&st.id, &k, &st.firstDay, &st.lastDay, &last, &start, &st.visitDay, &st.visitViews, &st.visitEntry, &pages, &attrs, &st.lastPath); err != nil {
				closeRows(rows)
				return nil, err
			}
			st.lastSeen, st.visitStart, st.sample = last.Time, start.Time, sqldb.VisitorSample(k)
			if pages != "" {
				st.visitPages = strings.Split(pages, "\n")
			}
			st.attrs = decodeVisitAttrs(attrs)
			states[k] = &st
		}
		closeRows(rows)
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// saveVisitors stores the state of the batch's visitors (keys) and sets the ids of the new ones.
func (s *Store) saveVisitors(ctx context.Context, tx anTx, keys []string, states map[string]*visitorState) error {
	// On SQLite the stored ones are updated by id (this transaction read them and is the only
	// writer); the others are upserted, which also returns the new ones' ids. On PostgreSQL
	// the upsert of them all costs the server less than an UPDATE ... FROM (VALUES ...) of the
	// stored ones.
	var known, fresh []string
	for _, k := range keys {
		if states[k].id != 0 && s.db.Dialect == sqldb.SQLite {
			known = append(known, k)
		} else {
			fresh = append(fresh, k)
		}
	}
	for chunk := range anChunks(known, 300) {
		args := make([]any, 0, 11*len(chunk))
		for _, k := range chunk {
			st := states[k]
			args = append(args, st.id, st.firstDay, st.lastDay, s.db.TS(st.lastSeen), s.db.TS(st.visitStart),
				st.visitDay, st.visitViews, st.visitEntry, strings.Join(st.visitPages, "\n"), encodeVisitAttrs(st.attrs), st.lastPath)
		}
		if err := tx.exec(ctx, s.updateVisitorsSQL(len(chunk)), args...); err != nil {
			return err
		}
	}
	const upsertVisitors = ` ON CONFLICT (visitor_key) DO UPDATE SET
		first_day = CASE WHEN excluded.first_day < analytics_visitors.first_day THEN excluded.first_day ELSE analytics_visitors.first_day END,
		last_day = CASE WHEN excluded.last_day > analytics_visitors.last_day THEN excluded.last_day ELSE analytics_visitors.last_day END,
		visit_start = CASE WHEN excluded.last_seen > analytics_visitors.last_seen THEN excluded.visit_start ELSE analytics_visitors.visit_start END,
		visit_day = excluded.visit_day, visit_views = excluded.visit_views, visit_entry = excluded.visit_entry,
		visit_pages = excluded.visit_pages, visit_attrs = excluded.visit_attrs, last_path = excluded.last_path,
		last_seen = CASE WHEN excluded.last_seen > analytics_visitors.last_seen THEN excluded.last_seen ELSE analytics_visitors.last_seen END
		RETURNING id, visitor_key`
	const visitorColumns = `visitor_key, first_day, last_day, last_seen, visit_start, visit_day, visit_views, visit_entry, visit_pages, visit_attrs, last_path`
	chunkSize := 300
	if s.db.Dialect == sqldb.Postgres {
		chunkSize = max(len(fresh), 1) // one statement of column arrays, as upsertCombos
	}
	for chunk := range anChunks(fresh, chunkSize) {
		var q string
		var args []any
		if s.db.Dialect == sqldb.Postgres {
			var cols [8][]string
			var seen, start []time.Time
			var views []int32
			for _, k := range chunk {
				st := states[k]
				for i, v := range [8]string{k, st.firstDay, st.lastDay, st.visitDay, st.visitEntry, strings.Join(st.visitPages, "\n"),
					encodeVisitAttrs(st.attrs), st.lastPath} {
					cols[i] = append(cols[i], v)
				}
				seen, start = append(seen, st.lastSeen.UTC().Truncate(time.Microsecond)), append(start, st.visitStart.UTC().Truncate(time.Microsecond))
				views = append(views, int32(st.visitViews))
			}
			q = `INSERT INTO analytics_visitors (` + visitorColumns + `)
				SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::text[], $7::int[],
				$8::text[], $9::text[], $10::text[], $11::text[])` + upsertVisitors
			args = []any{cols[0], cols[1], cols[2], seen, start, cols[3], views, cols[4], cols[5], cols[6], cols[7]}
		} else {
			args = make([]any, 0, 11*len(chunk))
			for _, k := range chunk {
				st := states[k]
				args = append(args, k, st.firstDay, st.lastDay, s.db.TS(st.lastSeen), s.db.TS(st.visitStart),
					st.visitDay, st.visitViews, st.visitEntry, strings.Join(st.visitPages, "\n"), encodeVisitAttrs(st.attrs), st.lastPath)
			}
			q = `INSERT INTO analytics_visitors (` + visitorColumns + `) VALUES ` + s.anBatchValues(len(chunk), 11) + upsertVisitors
		}
		rows, err := tx.query(ctx, q, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var k string
			if err := rows.Scan(&id, &k); err != nil {
				closeRows(rows)
				return err
			}
			states[k].id = id
		}
		closeRows(rows)
		if err := rows.Err(); err != nil {
			return err
		}
	}

	return nil
}
