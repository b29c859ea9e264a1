package analyticsdb

import "github.com/foliohq/folio"

// dimKey is a row of analytics_daily_dims and dimDelta what a batch adds to it.
type dimKey struct{ dim, day, value string }
type dimDelta struct{ visits, pageviews, bounces int }

// comboKey is a row of analytics_daily_visit_attrs (day is a day) or analytics_period_visit_attrs
// (day is a period): a day or period and a whole set of visit attributes.
type comboKey struct {
	day   string
	attrs folio.VisitAttrs
}

// dayPath is a row of analytics_daily_pages (a path) or analytics_daily_referrers (a domain).
type dayPath struct{ day, path string }

// uniqueKey is a row of analytics_daily_uniques: the visitors whose active day is day and whose
// previous active day was prevDay ("" for none), and whether that previous day was their first.
type uniqueKey struct {
	day, prevDay string
	prevIsFirst  bool
}

// The rollups of a batch of page views, each computed from the batch's view steps (splitVisits)
// alone; write.go adds them to their tables.

// addDelta adds to the row k of a rollup of visits, page views and bounces.
func addDelta[K comparable](m map[K]*dimDelta, k K, visits, views, bounces int) {
	d := m[k]
	if d == nil {
		d = &dimDelta{}
		m[k] = d
	}
	d.visits += visits
	d.pageviews += views
	d.bounces += bounces
}

// zero reports whether the delta changes nothing (its row need not be written).
func (d *dimDelta) zero() bool { return d.visits == 0 && d.pageviews == 0 && d.bounces == 0 }

// dimDeltas is what the batch adds to analytics_daily_dims. A visit counts on the day it starts,
// with its attributes, entry page and (moving) exit page: each view moves the visit's exit from
// the previous page to its own, and its second view ends its bounce. A page counts on the day it
// is viewed, a visit once.
func dimDeltas(steps []viewStep) map[dimKey]*dimDelta {
	dims := map[dimKey]*dimDelta{}
	add := func(dim, day, value string, visits, views, bounces int) {
		addDelta(dims, dimKey{dim, day, value}, visits, views, bounces)
	}
	for i := range steps {
		s := &steps[i]
		pv := s.pv
		attrs := visitAttrValues(pv.Attrs)
		if s.newVisit {
			for k, v := range attrs {
				add(visitAttrDims[k], pv.Day, v, 1, 1, 1)
			}
			add("entry_page", pv.Day, pv.Path, 1, 1, 1)
			add("exit_page", pv.Day, pv.Path, 1, 1, 1)
		} else {
			if s.resumed {
				for k, v := range attrs {
					add(visitAttrDims[k], pv.Day, v, 1, 0, 0)
				}
				add("entry_page", pv.Day, pv.Path, 1, 0, 0)
			} else {
				add("exit_page", s.visitDay, s.prevExit, -1, -(s.views - 1), s.bounce())
			}
			for k, v := range attrs {
				add(visitAttrDims[k], s.visitDay, v, 0, 1, s.bounce())
			}
			add("entry_page", s.visitDay, s.entry, 0, 1, s.bounce())
			add("exit_page", s.visitDay, pv.Path, 1, s.views, 0)
		}
		if s.newPage {
			add("page", pv.Day, pv.Path, 1, 1, 0)
		} else {
			add("page", pv.Day, pv.Path, 0, 1, 0)
		}
	}
	return dims
}

// comboDeltas is what the batch adds to analytics_daily_visit_attrs (migration 0018): the visits
// of each day by their whole set of attributes, with the accounting of dimDeltas.
func comboDeltas(steps []viewStep) map[comboKey]*dimDelta {
	combos := map[comboKey]*dimDelta{}
	for i := range steps {
		s := &steps[i]
		if s.newVisit {
			addDelta(combos, comboKey{s.pv.Day, s.pv.Attrs}, 1, 1, 1)
			continue
		}
		if s.resumed {
			addDelta(combos, comboKey{s.pv.Day, s.pv.Attrs}, 1, 0, 0)
		}
		addDelta(combos, comboKey{s.visitDay, s.pv.Attrs}, 0, 1, s.bounce())
	}
	return combos
}

// periodDeltas is what the day deltas of combos add to analytics_period_visit_attrs (migration
// 0019): each day's to its part of the month and to its month.
func periodDeltas(combos map[comboKey]*dimDelta) map[comboKey]*dimDelta {
	periods := make(map[comboKey]*dimDelta, 2*len(combos))
	for k, d := range combos {
		for _, p := range [2]string{partPeriod(k.day), monthPeriod(k.day)} {
			addDelta(periods, comboKey{p, k.attrs}, d.visits, d.pageviews, d.bounces)
		}
	}
	return periods
}

// dayTotals is what a batch adds to a row of analytics_daily_totals.
type dayTotals struct{ views, visits int }

// dailyTotals is what the batch adds to analytics_daily_totals: each day's page views and the
// visits that start on it.
func dailyTotals(steps []viewStep) map[string]*dayTotals {
	daily := map[string]*dayTotals{}
	for i := range steps {
		s := &steps[i]
		t := daily[s.pv.Day]
		if t == nil {
			t = &dayTotals{}
			daily[s.pv.Day] = t
		}
		t.views++
		if s.newVisit {
			t.visits++
		}
	}
	return daily
}

// uniqueDeltas is what the batch adds to analytics_daily_uniques: the visitors of each new active
// day, by their previous one (see splitVisits).
func uniqueDeltas(steps []viewStep) map[uniqueKey]int {
	uniques := map[uniqueKey]int{}
	for i := range steps {
		if k := steps[i].newDay; k != nil {
			uniques[*k]++
		}
	}
	return uniques
}

// pageDelta is what a batch adds to a row of analytics_daily_pages: views, and the latest
// non-empty title.
type pageDelta struct {
	views int
	title string
}

// pageDeltas is what the page views add to analytics_daily_pages.
func pageDeltas(pvs []folio.AnalyticsPageView) map[dayPath]*pageDelta {
	pages := map[dayPath]*pageDelta{}
	for _, pv := range pvs {
		p := pages[dayPath{pv.Day, pv.Path}]
		if p == nil {
			p = &pageDelta{}
			pages[dayPath{pv.Day, pv.Path}] = p
		}
		p.views++
		if pv.Title != "" {
			p.title = pv.Title
		}
	}
	return pages
}

// referrerDeltas is what the page views add to analytics_daily_referrers: the arrivals from each
// referring domain by day (path is the domain).
func referrerDeltas(pvs []folio.AnalyticsPageView) map[dayPath]int {
	refs := map[dayPath]int{}
	for _, pv := range pvs {
		if pv.Referrer != "" {
			refs[dayPath{pv.Day, pv.Referrer}]++
		}
	}
	return refs
}
