package analyticsdb

import (
	"slices"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

// A viewStep is what one page view of a batch did to its visitor's visit: the input of every
// rollup of the batch (rollups.go).
type viewStep struct {
	pv *folio.AnalyticsPageView // its Attrs are its visit's
	// newVisit: the view starts a visit. resumed: it continues a visit begun before migration
	// 0015, whose attributes and entry page were not kept: the visit counts from this view on.
	newVisit, resumed bool
	visitDay, entry   string // the day the visit started (it counts on that day) and its entry page
	prevExit          string // the visit's exit page before this view (a continued visit)
	views             int    // the visit's page views, this one included
	newPage           bool   // the visit's first view of pv.Path
	visitStart        time.Time
	// newDay, on the visitor's first view of a later active day, is the row of
	// analytics_daily_uniques it counts in.
	newDay *uniqueKey
}

// bounce is what the view adds to the bounces of its visit's rows: a visit of one page view
// stops being a bounce at its second.
func (s *viewStep) bounce() int {
	if !s.newVisit && !s.resumed && s.views == 2 {
		return -1
	}
	return 0
}

// splitVisits walks pvs in time order and splits visits: a view more than VisitGap after the
// visitor's previous one starts a new visit. states holds the visitors' state before the batch
// (nil for a visitor never seen) and is updated in place to the state after it; each page view
// gets its visit's attributes (Country "ZZ" when unknown).
//
// A visitor's first page view of a day notes (day, previous active day): a report counts the
// unique visitors of days a..b as the rows with day in a..b whose previous active day is before
// a — each visitor exactly once, at their first active day in the range — without a DISTINCT
// over visitors. A page view dated before the visitor's latest active day (instances whose
// clocks disagree around midnight) counts in that day's views and visits, not in its uniques.
func splitVisits(pvs []folio.AnalyticsPageView, states map[string]*visitorState) []viewStep {
	steps := make([]viewStep, len(pvs))
	for i := range pvs {
		pv := &pvs[i]
		step := viewStep{pv: pv}
		st := states[pv.VisitorKey]
		switch {
		case st == nil:
			st = &visitorState{firstDay: pv.Day, lastSeen: pv.At, visitStart: pv.At, sample: sqldb.VisitorSample(pv.VisitorKey)}
			states[pv.VisitorKey] = st
			step.newVisit = true
		case pv.At.Sub(st.lastSeen) > VisitGap:
			st.visitStart = pv.At
			step.newVisit = true
		}
		if pv.At.After(st.lastSeen) {
			st.lastSeen = pv.At
		}
		switch {
		case step.newVisit:
			if pv.Attrs.Country == "" {
				pv.Attrs.Country = "ZZ"
			}
			st.visitDay, st.visitViews, st.visitEntry, st.visitPages, st.attrs = pv.Day, 1, pv.Path, nil, pv.Attrs
		case st.visitDay == "":
			step.resumed = true
			st.visitDay, st.visitEntry, st.attrs = pv.Day, pv.Path, decodeVisitAttrs("")
			st.visitViews++
		default:
			step.prevExit = st.lastPath
			st.visitViews++
		}
		pv.Attrs = st.attrs
		step.visitDay, step.entry, step.views, step.visitStart = st.visitDay, st.visitEntry, st.visitViews, st.visitStart
		if !slices.Contains(st.visitPages, pv.Path) {
			step.newPage = true
			if len(st.visitPages) < maxVisitPages {
				st.visitPages = append(st.visitPages, pv.Path)
			}
		}
		st.lastPath = pv.Path
		if pv.Day > st.lastDay {
			step.newDay = &uniqueKey{day: pv.Day, prevDay: st.lastDay, prevIsFirst: st.lastDay != "" && st.lastDay == st.firstDay}
			st.lastDay = pv.Day
		}
		if pv.Day < st.firstDay {
			st.firstDay = pv.Day
		}
		steps[i] = step
	}
	return steps
}
