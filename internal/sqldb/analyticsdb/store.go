package analyticsdb

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
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

// New returns the analytics store over db.
func New(db *sqldb.DB) *Store { return &Store{db: db} }

// VisitGap is the inactivity that ends a visit: a page view more than VisitGap after the
// visitor's previous one starts a new visit.
const VisitGap = 30 * time.Minute

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
		return fmt.Errorf("analyticsdb.WriteAnalytics: %w", err)
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
		return 0, fmt.Errorf("analyticsdb.PruneAnalytics: %w", err)
	}
	return n, nil
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

// dimKey is a row of analytics_daily_dims and dimDelta what a batch adds to it.
type dimKey struct{ dim, day, value string }
type dimDelta struct{ visits, pageviews, bounces int }

// comboKey is a row of analytics_daily_visit_attrs (day is a day) or analytics_period_visit_attrs
// (day is a period): a day or period and a whole set of visit attributes.
type comboKey struct {
	day   string
	attrs folio.VisitAttrs
}

type dayPath struct{ day, path string }

// uniqueKey is a row of analytics_daily_uniques: the visitors whose active day is day and whose
// previous active day was prevDay ("" for none), and whether that previous day was their first.
type uniqueKey struct {
	day, prevDay string
	prevIsFirst  bool
}

// writePageViews writes pvs and their rollups. states holds the current state of some
// visitors (the others are read); it is updated in place to the state after this batch.
func (s *Store) writePageViews(ctx context.Context, tx anTx, pvs []folio.AnalyticsPageView, states map[string]*visitorState) error {
	sort.SliceStable(pvs, func(i, j int) bool { return pvs[i].At.Before(pvs[j].At) })

	// The visitors' state before this batch: remembered, else stored, else none (nil).
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
			return err
		}
		for rows.Next() {
			var k, pages, attrs string
			var st visitorState
			var last, start sqldb.Time
			if err := rows.Scan(&st.id, &k, &st.firstDay, &st.lastDay, &last, &start, &st.visitDay, &st.visitViews, &st.visitEntry, &pages, &attrs, &st.lastPath); err != nil {
				closeRows(rows)
				return err
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
			return err
		}
	}

	// In time order: split visits, and note each visitor's new active days. A visitor's first page
	// view of a day adds one to (day, previous active day); a report counts the unique visitors of
	// days a..b as the rows with day in a..b whose previous active day is before a — each visitor
	// exactly once, at their first active day in the range — without a DISTINCT over visitors.
	type totals struct{ views, visits int }
	daily := map[string]*totals{}
	uniques := map[uniqueKey]int{}
	dims := map[dimKey]*dimDelta{}
	addDim := func(dim, day, value string, visits, views, bounces int) {
		d := dims[dimKey{dim, day, value}]
		if d == nil {
			d = &dimDelta{}
			dims[dimKey{dim, day, value}] = d
		}
		d.visits += visits
		d.pageviews += views
		d.bounces += bounces
	}
	// The visit-attribute combinations (migration 0018), with the same accounting as dims.
	combos := map[comboKey]*dimDelta{}
	addCombo := func(day string, a folio.VisitAttrs, visits, views, bounces int) {
		k := comboKey{day, a}
		d := combos[k]
		if d == nil {
			d = &dimDelta{}
			combos[k] = d
		}
		d.visits += visits
		d.pageviews += views
		d.bounces += bounces
	}
	newVisit := make([]bool, len(pvs))
	visitStart := make([]time.Time, len(pvs))
	for i := range pvs {
		pv := &pvs[i]
		st := states[pv.VisitorKey]
		switch {
		case st == nil:
			st = &visitorState{firstDay: pv.Day, lastSeen: pv.At, visitStart: pv.At, sample: sqldb.VisitorSample(pv.VisitorKey)}
			states[pv.VisitorKey] = st
			newVisit[i] = true
		case pv.At.Sub(st.lastSeen) > VisitGap:
			st.visitStart = pv.At
			newVisit[i] = true
		}
		if pv.At.After(st.lastSeen) {
			st.lastSeen = pv.At
		}
		// Breakdown rollup: a visit counts on the day it starts, with its attributes, entry
		// page and (moving) exit page; a page counts on the day it is viewed.
		if newVisit[i] {
			if pv.Attrs.Country == "" {
				pv.Attrs.Country = "ZZ"
			}
			st.visitDay, st.visitViews, st.visitEntry, st.visitPages, st.attrs = pv.Day, 1, pv.Path, nil, pv.Attrs
			for k, v := range visitAttrValues(st.attrs) {
				addDim(visitAttrDims[k], pv.Day, v, 1, 1, 1)
			}
			addCombo(pv.Day, st.attrs, 1, 1, 1)
			addDim("entry_page", pv.Day, pv.Path, 1, 1, 1)
			addDim("exit_page", pv.Day, pv.Path, 1, 1, 1)
		} else {
			pv.Attrs = st.attrs
			bounce := 0
			if st.visitViews == 1 {
				bounce = -1
			}
			if st.visitDay == "" { // a visit begun before migration 0015: attributes unknown
				st.visitDay, st.visitEntry, st.attrs = pv.Day, pv.Path, decodeVisitAttrs("")
				pv.Attrs = st.attrs
				for k, v := range visitAttrValues(st.attrs) {
					addDim(visitAttrDims[k], pv.Day, v, 1, 0, 0)
				}
				addCombo(pv.Day, st.attrs, 1, 0, 0)
				addDim("entry_page", pv.Day, pv.Path, 1, 0, 0)
				bounce = 0
			} else {
				addDim("exit_page", st.visitDay, st.lastPath, -1, -st.visitViews, bounce)
			}
			for k, v := range visitAttrValues(st.attrs) {
				addDim(visitAttrDims[k], st.visitDay, v, 0, 1, bounce)
			}
			addCombo(st.visitDay, st.attrs, 0, 1, bounce)
			addDim("entry_page", st.visitDay, st.visitEntry, 0, 1, bounce)
			st.visitViews++
			addDim("exit_page", st.visitDay, pv.Path, 1, st.visitViews, 0)
		}
		if !slices.Contains(st.visitPages, pv.Path) {
			addDim("page", pv.Day, pv.Path, 1, 1, 0)
			if len(st.visitPages) < maxVisitPages {
				st.visitPages = append(st.visitPages, pv.Path)
			}
		} else {
			addDim("page", pv.Day, pv.Path, 0, 1, 0)
		}
		st.lastPath = pv.Path
		// NB: a page view dated before the visitor's latest active day (instances whose clocks
		// disagree around midnight) counts in that day's views and visits, not in its uniques.
		if pv.Day > st.lastDay {
			uniques[uniqueKey{day: pv.Day, prevDay: st.lastDay, prevIsFirst: st.lastDay != "" && st.lastDay == st.firstDay}]++
			st.lastDay = pv.Day
		}
		if pv.Day < st.firstDay {
			st.firstDay = pv.Day
		}
		visitStart[i] = st.visitStart
		t := daily[pv.Day]
		if t == nil {
			t = &totals{}
			daily[pv.Day] = t
		}
		t.views++
		if newVisit[i] {
			t.visits++
		}
	}

	// Save the visitors' new state. On SQLite the stored ones are updated by id (this transaction
	// read them and is the only writer); the others are upserted, which also returns the new ones'
	// ids. On PostgreSQL the upsert of them all measured cheaper for the server than an UPDATE
	// ... FROM (VALUES ...) of the stored ones (interleaved runs of the ingestion benchmark).
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

	// Raw rows, and the page and referrer rollups aggregated in Go so each rollup row is one upsert.
	type pageAgg struct {
		views int
		title string
	}
	pages := map[dayPath]*pageAgg{}
	refs := map[dayPath]int{}
	pvRows := make([][]any, len(pvs))
	for i, pv := range pvs {
		st := states[pv.VisitorKey]
		visitID := strconv.FormatInt(st.id, 36) + "." + strconv.FormatInt(visitStart[i].UnixMilli(), 36)
		a := pv.Attrs
		pvRows[i] = []any{s.db.TS(pv.At), pv.Day, st.id, visitID, newVisit[i], pv.Path, pv.Query, pv.Title, pv.Referrer,
			a.Source, a.Referrer, a.UTMSource, a.UTMMedium, a.UTMCampaign, a.Country, a.Device, a.Browser, a.BrowserVersion, a.OS, a.OSVersion,
			st.sample}

		pa := pages[dayPath{pv.Day, pv.Path}]
		if pa == nil {
			pa = &pageAgg{}
			pages[dayPath{pv.Day, pv.Path}] = pa
		}
		pa.views++
		if pv.Title != "" {
			pa.title = pv.Title
		}
		if pv.Referrer != "" {
			refs[dayPath{pv.Day, pv.Referrer}]++
		}
	}
	if err := tx.insertRows(ctx, "analytics_pageviews", pageViewColumns, pvRows); err != nil {
		return err
	}

	dimKeys := anMapKeys(dims)
	for chunk := range anChunks(dimKeys, 300) {
		args := make([]any, 0, 6*len(chunk))
		n := 0
		for _, k := range chunk {
			d := dims[k]
			if d.visits == 0 && d.pageviews == 0 && d.bounces == 0 {
				continue
			}
			args = append(args, k.dim, k.day, k.value, d.visits, d.pageviews, d.bounces)
			n++
		}
		if n == 0 {
			continue
		}
		q := `INSERT INTO analytics_daily_dims (dim, day, value, visits, pageviews, bounces) VALUES ` + s.anBatchValues(n, 6) + `
			ON CONFLICT (dim, day, value) DO UPDATE SET visits = analytics_daily_dims.visits + excluded.visits,
			pageviews = analytics_daily_dims.pageviews + excluded.pageviews, bounces = analytics_daily_dims.bounces + excluded.bounces`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}

	// The periods of each day's combinations (migration 0019): its part of the month and its month.
	periods := make(map[comboKey]*dimDelta, 2*len(combos))
	for k, d := range combos {
		for _, p := range [2]string{partPeriod(k.day), monthPeriod(k.day)} {
			pk := comboKey{p, k.attrs}
			pd := periods[pk]
			if pd == nil {
				pd = &dimDelta{}
				periods[pk] = pd
			}
			pd.visits += d.visits
			pd.pageviews += d.pageviews
			pd.bounces += d.bounces
		}
	}
	if err := s.upsertCombos(ctx, tx, "analytics_daily_visit_attrs", "day", combos); err != nil {
		return err
	}
	if err := s.upsertCombos(ctx, tx, "analytics_period_visit_attrs", "period", periods); err != nil {
		return err
	}

	pageKeys := anMapKeys(pages)
	for chunk := range anChunks(pageKeys, 500) {
		args := make([]any, 0, 4*len(chunk))
		for _, k := range chunk {
			args = append(args, k.day, k.path, pages[k].views, pages[k].title)
		}
		q := `INSERT INTO analytics_daily_pages (day, path, views, title) VALUES ` + s.anBatchValues(len(chunk), 4) + `
			ON CONFLICT (day, path) DO UPDATE SET views = analytics_daily_pages.views + excluded.views,
			title = CASE WHEN excluded.title <> '' THEN excluded.title ELSE analytics_daily_pages.title END`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	refKeys := anMapKeys(refs)
	for chunk := range anChunks(refKeys, 500) {
		args := make([]any, 0, 3*len(chunk))
		for _, k := range chunk {
			args = append(args, k.day, k.path, refs[k])
		}
		q := `INSERT INTO analytics_daily_referrers (day, domain, visits) VALUES ` + s.anBatchValues(len(chunk), 3) + `
			ON CONFLICT (day, domain) DO UPDATE SET visits = analytics_daily_referrers.visits + excluded.visits`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	days := anMapKeys(daily)
	for chunk := range anChunks(days, 500) {
		args := make([]any, 0, 3*len(chunk))
		for _, d := range chunk {
			args = append(args, d, daily[d].views, daily[d].visits)
		}
		q := `INSERT INTO analytics_daily_totals (day, views, visits) VALUES ` + s.anBatchValues(len(chunk), 3) + `
			ON CONFLICT (day) DO UPDATE SET views = analytics_daily_totals.views + excluded.views,
			visits = analytics_daily_totals.visits + excluded.visits`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	uniqueKeys := anMapKeys(uniques)
	for chunk := range anChunks(uniqueKeys, 500) {
		args := make([]any, 0, 4*len(chunk))
		for _, k := range chunk {
			args = append(args, k.day, k.prevDay, k.prevIsFirst, uniques[k])
		}
		q := `INSERT INTO analytics_daily_uniques (day, prev_day, prev_is_first, visitors) VALUES ` + s.anBatchValues(len(chunk), 4) + `
			ON CONFLICT (day, prev_day, prev_is_first) DO UPDATE SET visitors = analytics_daily_uniques.visitors + excluded.visitors`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
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

// upsertCombos adds deltas to a visit-attribute rollup: table, keyed by col (a day or a period)
// and the attributes.
func (s *Store) upsertCombos(ctx context.Context, tx anTx, table, col string, combos map[comboKey]*dimDelta) error {
	const conflict = `, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser, browser_version, os, os_version)
		DO UPDATE SET visits = %[1]s.visits + excluded.visits,
		pageviews = %[1]s.pageviews + excluded.pageviews, bounces = %[1]s.bounces + excluded.bounces`
	if s.db.Dialect == sqldb.Postgres {
		// One statement whatever the rows, a column array each, rather than chunks of 300 rows ×
		// 15 parameters (4,500 to parse and bind a statement): interleaved runs of the ingestion
		// benchmark gave 13,500–15,800 events per CPU-second against 13,500–14,700.
		var cols [12][]string
		var visits, views, bounces []int64
		for k, d := range combos {
			if d.visits == 0 && d.pageviews == 0 && d.bounces == 0 {
				continue
			}
			a := k.attrs
			for i, v := range [12]string{k.day, a.Source, a.Referrer, a.UTMSource, a.UTMMedium, a.UTMCampaign, a.Country, a.Device,
				a.Browser, a.BrowserVersion, a.OS, a.OSVersion} {
				cols[i] = append(cols[i], v)
			}
			visits, views, bounces = append(visits, int64(d.visits)), append(views, int64(d.pageviews)), append(bounces, int64(d.bounces))
		}
		if len(visits) == 0 {
			return nil
		}
		args := make([]any, 0, 15)
		for _, c := range cols {
			args = append(args, c)
		}
		args = append(args, visits, views, bounces)
		q := `INSERT INTO ` + table + ` (` + col + `, source, referrer, utm_source, utm_medium, utm_campaign, country, device,
			browser, browser_version, os, os_version, visits, pageviews, bounces)
			SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
			$9::text[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::bigint[], $15::bigint[])
			ON CONFLICT (` + col + fmt.Sprintf(conflict, table)
		return tx.exec(ctx, q, args...)
	}
	keys := anMapKeys(combos)
	for chunk := range anChunks(keys, 300) {
		args := make([]any, 0, 15*len(chunk))
		n := 0
		for _, k := range chunk {
			d := combos[k]
			if d.visits == 0 && d.pageviews == 0 && d.bounces == 0 {
				continue
			}
			a := k.attrs
			args = append(args, k.day, a.Source, a.Referrer, a.UTMSource, a.UTMMedium, a.UTMCampaign, a.Country, a.Device,
				a.Browser, a.BrowserVersion, a.OS, a.OSVersion, d.visits, d.pageviews, d.bounces)
			n++
		}
		if n == 0 {
			continue
		}
		q := `INSERT INTO ` + table + ` (` + col + `, source, referrer, utm_source, utm_medium, utm_campaign, country, device,
			browser, browser_version, os, os_version, visits, pageviews, bounces) VALUES ` + s.anBatchValues(n, 15) + `
			ON CONFLICT (` + col + fmt.Sprintf(conflict, table)
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// pageViewColumns are the columns of analytics_pageviews an ingest batch writes.
var pageViewColumns = []string{"at", "day", "visitor_id", "visit_id", "is_new_visit", "path", "query", "title", "referrer",
	"source", "visit_referrer", "utm_source", "utm_medium", "utm_campaign", "country", "device", "browser", "browser_version", "os", "os_version",
	"visitor_sample"}

func (s *Store) writeEvents(ctx context.Context, tx anTx, evs []folio.AnalyticsEvent) error {
	if len(evs) == 0 {
		return nil
	}
	// The event rollup: per day and name, the events and the visitors who sent it that day for
	// the first time (those already stored that day are looked up before the batch is written).
	type dayName struct{ day, name string }
	batchKeys := map[dayName]map[string]bool{}
	counts := map[dayName]int{}
	for _, e := range evs {
		k := dayName{e.Day, e.Name}
		if batchKeys[k] == nil {
			batchKeys[k] = map[string]bool{}
		}
		batchKeys[k][e.VisitorKey] = true
		counts[k]++
	}
	for k, keys := range batchKeys {
		list := anMapKeys(keys)
		for chunk := range anChunks(list, 500) {
			args := append([]any{k.name, k.day}, anAnySlice(chunk)...)
			q := `SELECT DISTINCT visitor_key FROM analytics_events WHERE name = $1 AND day = $2 AND visitor_key IN (` + anPlaceholders(3, len(chunk), 1) + `)`
			if s.db.Dialect == sqldb.SQLite {
				q = `SELECT DISTINCT visitor_key FROM analytics_events WHERE name = ? AND day = ? AND visitor_key IN (` + s.anBatchValues(len(chunk), 1) + `)`
			}
			rows, err := tx.query(ctx, q, args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var v string
				if err := rows.Scan(&v); err != nil {
					closeRows(rows)
					return err
				}
				delete(keys, v)
			}
			closeRows(rows)
			if err := rows.Err(); err != nil {
				return err
			}
		}
	}
	rows := make([][]any, len(evs))
	samples := map[string]int{} // sampleHash once per visitor of the batch
	for i, e := range evs {
		props := e.Props
		if props == "" {
			props = "{}"
		}
		sample, ok := samples[e.VisitorKey]
		if !ok {
			sample = sqldb.VisitorSample(e.VisitorKey)
			samples[e.VisitorKey] = sample
		}
		rows[i] = []any{s.db.TS(e.At), e.Day, e.VisitorKey, e.Name, e.Path, props, e.Group, e.Step, sample}
	}
	if err := tx.insertRows(ctx, "analytics_events", []string{"at", "day", "visitor_key", "name", "path", "props", "grp", "step", "visitor_sample"}, rows); err != nil {
		return err
	}
	dimKeys := anMapKeys(counts)
	for chunk := range anChunks(dimKeys, 300) {
		args := make([]any, 0, 6*len(chunk))
		for _, k := range chunk {
			args = append(args, "event", k.day, k.name, len(batchKeys[k]), counts[k], 0)
		}
		q := `INSERT INTO analytics_daily_dims (dim, day, value, visits, pageviews, bounces) VALUES ` + s.anBatchValues(len(chunk), 6) + `
			ON CONFLICT (dim, day, value) DO UPDATE SET visits = analytics_daily_dims.visits + excluded.visits,
			pageviews = analytics_daily_dims.pageviews + excluded.pageviews`
		if err := tx.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// AnalyticsSalt returns the visitor-hash salt of the rotation window windowKey ("day:2026-01-05").
// When the window has none yet, candidate becomes its salt — unless another instance stored one
// first, whose salt is returned instead, so all instances agree. Salts of earlier windows (and of
// other rotation kinds) are deleted in the same transaction, so old hashes cannot be recomputed.
func (s *Store) AnalyticsSalt(ctx context.Context, windowKey, candidate string) (string, error) {
	kind, _, _ := strings.Cut(windowKey, ":")
	var salt string
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO analytics_salts (window_key, salt, created_at) VALUES ($1, $2, $3) ON CONFLICT (window_key) DO NOTHING`,
			windowKey, candidate, s.db.TS(s.db.Now())); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT salt FROM analytics_salts WHERE window_key = $1`, windowKey).Scan(&salt); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM analytics_salts WHERE window_key < $1 OR window_key NOT LIKE $2`, windowKey, kind+":%")
		return err
	})
	if err != nil {
		return "", fmt.Errorf("analyticsdb.AnalyticsSalt: %w", err)
	}
	return salt, nil
}

// AnalyticsSaltWindows lists the windows that have a stored salt (for tests and operators).
func (s *Store) AnalyticsSaltWindows(ctx context.Context) ([]string, error) {
	rows, err := s.db.R.QueryContext(ctx, `SELECT window_key FROM analytics_salts ORDER BY window_key`)
	if err != nil {
		return nil, fmt.Errorf("analyticsdb.AnalyticsSaltWindows: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// AnalyticsTotals sums the rollups over the days from..to (inclusive, YYYY-MM-DD). A visitor
// is unique in the range at their first active day in it (previous active day before from);
// returning when that previous day exists, or when it lies in the range and was their first day
// ever (so the row is their second active day, and both are in the range).
func (s *Store) AnalyticsTotals(ctx context.Context, from, to string) (folio.AnalyticsTotals, error) {
	var t folio.AnalyticsTotals
	err := s.db.R.QueryRowContext(ctx, `SELECT COALESCE(SUM(views), 0), COALESCE(SUM(visits), 0)
		FROM analytics_daily_totals WHERE day >= $1 AND day <= $2`, from, to).Scan(&t.Views, &t.Visits)
	if err != nil {
		return t, fmt.Errorf("analyticsdb.AnalyticsTotals: %w", err)
	}
	err = s.db.R.QueryRowContext(ctx, `SELECT
		COALESCE(SUM(CASE WHEN prev_day < $1 THEN visitors ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN (prev_day <> '' AND prev_day < $1) OR (prev_day >= $1 AND prev_is_first) THEN visitors ELSE 0 END), 0)
		FROM analytics_daily_uniques WHERE day >= $1 AND day <= $2`, from, to).Scan(&t.Unique, &t.Returning)
	if err != nil {
		return t, fmt.Errorf("analyticsdb.AnalyticsTotals: %w", err)
	}
	return t, nil
}

// AnalyticsDaily returns the figures of each day of the range that has any, keyed by day.
func (s *Store) AnalyticsDaily(ctx context.Context, from, to string) (map[string]folio.DailyTotals, error) {
	out := map[string]folio.DailyTotals{}
	rows, err := s.db.R.QueryContext(ctx, `SELECT day, views, visits FROM analytics_daily_totals WHERE day >= $1 AND day <= $2`, from, to)
	if err != nil {
		return nil, fmt.Errorf("analyticsdb.AnalyticsDaily: %w", err)
	}
	for rows.Next() {
		var d folio.DailyTotals
		if err := rows.Scan(&d.Date, &d.PageViews, &d.Visits); err != nil {
			rows.Close()
			return nil, fmt.Errorf("analyticsdb.AnalyticsDaily: %w", err)
		}
		out[d.Date] = d
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("analyticsdb.AnalyticsDaily: %w", err)
	}
	// Every visitor active on a day has exactly one row for that day (keyed by their previous day).
	rows, err = s.db.R.QueryContext(ctx, `SELECT day, SUM(visitors) FROM analytics_daily_uniques WHERE day >= $1 AND day <= $2 GROUP BY day`, from, to)
	if err != nil {
		return nil, fmt.Errorf("analyticsdb.AnalyticsDaily: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var day string
		var n int
		if err := rows.Scan(&day, &n); err != nil {
			return nil, fmt.Errorf("analyticsdb.AnalyticsDaily: %w", err)
		}
		d := out[day]
		d.Date, d.Visitors = day, n
		out[day] = d
	}
	return out, rows.Err()
}

// AnalyticsTopPages returns the n most viewed paths of the day range (views descending, then
// path), each with the latest non-empty title seen for it in the range.
func (s *Store) AnalyticsTopPages(ctx context.Context, from, to string, n int) ([]folio.PageView, error) {
	rows, err := s.db.R.QueryContext(ctx, `SELECT path, SUM(views) AS v FROM analytics_daily_pages
		WHERE day >= $1 AND day <= $2 GROUP BY path ORDER BY v DESC, path LIMIT $3`, from, to, n)
	if err != nil {
		return nil, fmt.Errorf("analyticsdb.AnalyticsTopPages: %w", err)
	}
	out := []folio.PageView{}
	for rows.Next() {
		var p folio.PageView
		if err := rows.Scan(&p.Path, &p.Views); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, err
	}
	args := []any{from, to}
	for _, p := range out {
		args = append(args, p.Path)
	}
	titles := map[string]string{}
	rows, err = s.db.R.QueryContext(ctx, `SELECT path, title FROM analytics_daily_pages WHERE day >= $1 AND day <= $2
		AND title <> '' AND path IN (`+anPlaceholders(3, len(out), 1)+`) ORDER BY day`, args...)
	if err != nil {
		return nil, fmt.Errorf("analyticsdb.AnalyticsTopPages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p, t string
		if err := rows.Scan(&p, &t); err != nil {
			return nil, err
		}
		titles[p] = t // later days override earlier ones
	}
	for i := range out {
		out[i].Title = titles[out[i].Path]
	}
	return out, rows.Err()
}

// AnalyticsReferrers returns the n referring domains of the day range with the most arrivals
// (descending, then domain).
func (s *Store) AnalyticsReferrers(ctx context.Context, from, to string, n int) ([]folio.Referrer, error) {
	return scanReferrers(s.db.R.QueryContext(ctx, `SELECT domain, SUM(visits) AS v FROM analytics_daily_referrers
		WHERE day >= $1 AND day <= $2 GROUP BY domain ORDER BY v DESC, domain LIMIT $3`, from, to, n))
}

func scanReferrers(rows *sql.Rows, err error) ([]folio.Referrer, error) {
	if err != nil {
		return nil, fmt.Errorf("analyticsdb: referrers: %w", err)
	}
	defer rows.Close()
	out := []folio.Referrer{}
	for rows.Next() {
		var r folio.Referrer
		if err := rows.Scan(&r.Domain, &r.Visits); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// AnalyticsPath reports one page path (exact match, query excluded) over the days from..to.
func (s *Store) AnalyticsPath(ctx context.Context, path, from, to string, nRefs int) (*folio.AnalyticsPathReport, error) {
	rep := &folio.AnalyticsPathReport{Daily: map[string]int{}}
	rows, err := s.db.R.QueryContext(ctx, `SELECT day, views FROM analytics_daily_pages WHERE path = $1 AND day >= $2 AND day <= $3`, path, from, to)
	if err != nil {
		return nil, fmt.Errorf("analyticsdb.AnalyticsPath: %w", err)
	}
	for rows.Next() {
		var d string
		var v int
		if err := rows.Scan(&d, &v); err != nil {
			rows.Close()
			return nil, err
		}
		rep.Daily[d] = v
		rep.Views += v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := s.db.R.QueryRowContext(ctx, `SELECT COUNT(DISTINCT visitor_id) FROM analytics_pageviews WHERE path = $1 AND day >= $2 AND day <= $3`,
		path, from, to).Scan(&rep.Unique); err != nil {
		return nil, fmt.Errorf("analyticsdb.AnalyticsPath: %w", err)
	}
	rep.Referrers, err = scanReferrers(s.db.R.QueryContext(ctx, `SELECT referrer, COUNT(*) AS v FROM analytics_pageviews
		WHERE path = $1 AND day >= $2 AND day <= $3 AND referrer <> '' GROUP BY referrer ORDER BY v DESC, referrer LIMIT $4`, path, from, to, nRefs))
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// AnalyticsFunnel counts, over the days from..to, the distinct visitors of each step event and
// the events named errorEvent by group, and abandonment errors by step.
func (s *Store) AnalyticsFunnel(ctx context.Context, from, to string, steps []string, errorEvent string) (*folio.AnalyticsFunnelCounts, error) {
	c := &folio.AnalyticsFunnelCounts{StepVisitors: map[string]int{}, ErrorCount: map[string]int{}, ErrorVisitor: map[string]int{}, Abandonment: []folio.FunnelAbandonment{}}
	args := []any{from, to}
	for _, s := range steps {
		args = append(args, s)
	}
	rows, err := s.db.R.QueryContext(ctx, `SELECT name, COUNT(DISTINCT visitor_key) FROM analytics_events
		WHERE day >= $1 AND day <= $2 AND name IN (`+anPlaceholders(3, len(steps), 1)+`) GROUP BY name`, args...)
	if err != nil {
		return nil, fmt.Errorf("analyticsdb.AnalyticsFunnel: %w", err)
	}
	for rows.Next() {
		var n string
		var v int
		if err := rows.Scan(&n, &v); err != nil {
			rows.Close()
			return nil, err
		}
		c.StepVisitors[n] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = s.db.R.QueryContext(ctx, `SELECT grp, COUNT(*), COUNT(DISTINCT visitor_key) FROM analytics_events
		WHERE name = $1 AND day >= $2 AND day <= $3 GROUP BY grp`, errorEvent, from, to)
	if err != nil {
		return nil, fmt.Errorf("analyticsdb.AnalyticsFunnel: %w", err)
	}
	for rows.Next() {
		var g string
		var n, v int
		if err := rows.Scan(&g, &n, &v); err != nil {
			rows.Close()
			return nil, err
		}
		c.ErrorCount[g], c.ErrorVisitor[g] = n, v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = s.db.R.QueryContext(ctx, `SELECT step, COUNT(*) AS n FROM analytics_events
		WHERE name = $1 AND grp = 'abandonment' AND day >= $2 AND day <= $3 GROUP BY step ORDER BY n DESC, step`, errorEvent, from, to)
	if err != nil {
		return nil, fmt.Errorf("analyticsdb.AnalyticsFunnel: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a folio.FunnelAbandonment
		if err := rows.Scan(&a.Step, &a.Count); err != nil {
			return nil, err
		}
		c.Abandonment = append(c.Abandonment, a)
	}
	return c, rows.Err()
}

// anBatchValues returns the placeholders of a batch statement: rows groups of width values.
// SQLite gets anonymous "?" placeholders: it resolves each "$n" by a linear search of the ones
// seen so far (and the driver does the same when binding), which makes a statement with
// thousands of "$n" quadratic — it was most of the write cost. PostgreSQL gets "$n".
func (s *Store) anBatchValues(rows, width int) string {
	if s.db.Dialect != sqldb.SQLite {
		return anPlaceholders(1, rows, width)
	}
	group := "(" + strings.Repeat("?, ", width-1) + "?)"
	if width == 1 {
		group = "?"
	}
	return strings.Repeat(group+", ", rows-1) + group
}

// anPlaceholders returns rows groups of width $n placeholders starting at $first: "($1, $2), ($3, $4)"
// (width 1 gives "$1, $2, …" for IN lists).
func anPlaceholders(first, rows, width int) string {
	var b strings.Builder
	n := first
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		if width > 1 {
			b.WriteByte('(')
		}
		for c := 0; c < width; c++ {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			n++
		}
		if width > 1 {
			b.WriteByte(')')
		}
	}
	return b.String()
}

// anChunks yields consecutive pieces of s of at most n elements.
func anChunks[T any](s []T, n int) func(yield func([]T) bool) {
	return func(yield func([]T) bool) {
		for len(s) > 0 {
			k := min(n, len(s))
			if !yield(s[:k]) {
				return
			}
			s = s[k:]
		}
	}
}

func anMapKeys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func anAnySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
