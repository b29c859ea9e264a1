package analyticsdb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

// visitAttrColumn is the column (or expression) of analytics_daily_visit_attrs of each dimension
// it can group or filter by: the visit attributes and date (the day visits start).
var visitAttrColumn = map[string]string{
	"source": "source", "referrer": "referrer", "utm_source": "utm_source", "utm_medium": "utm_medium",
	"utm_campaign": "utm_campaign", "country": "country", "device": "device", "browser": "browser",
	"browser_version": "CASE WHEN browser_version = '' THEN browser ELSE browser || ' ' || browser_version END",
	"os":              "os",
	"os_version":      "CASE WHEN os_version = '' THEN os ELSE os || ' ' || os_version END",
	"date":            "day",
}

// analyticsBreakdownVisitAttrs computes a filtered breakdown from the visit-attribute rollups:
// analytics_period_visit_attrs for the whole months and month parts of the range and
// analytics_daily_visit_attrs for its other days (see visitAttrCover), so it reads about a
// period's distinct attribute combinations per period, whatever the page views. A breakdown by
// date under one filter reads that filter's daily rows of analytics_daily_dims instead. Visits,
// page views and bounces are exact; visitors are not in the rollups and come back 0.
func (s *Store) analyticsBreakdownVisitAttrs(ctx context.Context, q folio.BreakdownQuery) ([]folio.BreakdownCounts, int, error) {
	if !folio.VisitAttrBreakdown(q.Dim, q.Filters) {
		return nil, 0, fmt.Errorf("analyticsdb.AnalyticsBreakdownRollup: %s filtered by %v is not in the rollup", q.Dim, q.Filters)
	}
	filters := q.Filters
	from, to := q.From, q.To
	if day, ok := filters["date"]; ok {
		// A date filter is a one-day range (the rows of a period have no day).
		if day < from || day > to {
			return []folio.BreakdownCounts{}, 0, nil
		}
		from, to = day, day
		filters = make(map[string]string, len(q.Filters))
		for k, v := range q.Filters {
			if k != "date" {
				filters[k] = v
			}
		}
	}
	var args sqldb.Args
	var stmt string
	having := ` HAVING SUM(visits) > 0 OR SUM(pageviews) > 0`
	switch {
	case len(filters) == 0:
		// Only a date filter: the unfiltered rollup of that day.
		return s.AnalyticsBreakdownRollup(ctx, folio.BreakdownQuery{Dim: q.Dim, From: from, To: to, Limit: q.Limit, Offset: q.Offset})
	case q.Dim == "date" && len(filters) == 1:
		// The visits of one attribute value by the day they start are its rows of the
		// per-dimension rollup.
		for dim, val := range filters {
			stmt = `SELECT day AS value, 0, SUM(pageviews) AS views, SUM(visits) AS visits, SUM(bounces), 0, COUNT(*) OVER ()
				FROM analytics_daily_dims WHERE dim = ` + args.Add(dim) + ` AND value = ` + args.Add(val) + `
				AND day >= ` + args.Add(from) + ` AND day <= ` + args.Add(to) + ` GROUP BY day`
		}
	case q.Dim == "date":
		stmt = `SELECT day AS value, 0, SUM(pageviews) AS views, SUM(visits) AS visits, SUM(bounces), 0, COUNT(*) OVER ()
			FROM analytics_daily_visit_attrs WHERE day >= ` + args.Add(from) + ` AND day <= ` + args.Add(to) + visitAttrWhere(&args, filters) + `
			GROUP BY day`
	default:
		cover := visitAttrCover(from, to)
		expr := visitAttrColumn[q.Dim]
		var parts []string
		// Each table is grouped on its own first, so the union holds a few rows per value (a
		// quarter less time on SQLite than grouping the union's rows).
		for _, src := range []struct {
			table, col  string
			plus, minus []string
		}{
			{"analytics_daily_visit_attrs", "day", cover.days, cover.minusDays},
			{"analytics_period_visit_attrs", "period", cover.periods, nil},
		} {
			if len(src.plus)+len(src.minus) == 0 {
				continue
			}
			sign := `1`
			if len(src.minus) > 0 {
				sign = `CASE WHEN ` + src.col + ` IN (` + args.AddList(src.minus) + `) THEN -1 ELSE 1 END`
			}
			parts = append(parts, `SELECT value, SUM(s * pageviews) AS pageviews, SUM(s * visits) AS visits, SUM(s * bounces) AS bounces
				FROM (SELECT `+expr+` AS value, `+sign+` AS s, visits, pageviews, bounces FROM `+src.table+`
				WHERE `+src.col+` IN (`+args.AddList(append(slices.Clone(src.plus), src.minus...))+`)`+visitAttrWhere(&args, filters)+`) r
				GROUP BY value`)
		}
		stmt = `SELECT value, 0, SUM(pageviews) AS views, SUM(visits) AS visits, SUM(bounces), 0, COUNT(*) OVER ()
			FROM (` + strings.Join(parts, `
			UNION ALL `) + `) t GROUP BY value`
	}
	stmt += having + ` ORDER BY visits DESC, views DESC, value
		LIMIT ` + args.Add(q.Limit) + ` OFFSET ` + args.Add(q.Offset)
	var rows []folio.BreakdownCounts
	var total int
	err := s.visitAttrQuery(ctx, func(qr querier) error {
		var err error
		rows, total, err = scanBreakdown(qr.QueryContext(ctx, stmt, args...))
		return err
	})
	if err != nil {
		return nil, 0, wrap("AnalyticsBreakdownRollup", err)
	}
	return rows, total, nil
}

// visitAttrWhere returns the conditions of filters on a visit-attribute rollup, in a fixed order
// (which keeps the statement text stable).
func visitAttrWhere(args *sqldb.Args, filters map[string]string) string {
	var b strings.Builder
	for _, dim := range folio.BreakdownDims {
		if val, ok := filters[dim]; ok {
			fmt.Fprintf(&b, ` AND %s = %s`, visitAttrColumn[dim], args.Add(val))
		}
	}
	return b.String()
}

// monthPeriod and partPeriod name the periods of analytics_period_visit_attrs a day belongs to:
// its month ("2026-04") and its part of the month ("2026-04-08": days 1–7, 8–14, 15–21, 22–end,
// each named by its first day).
func monthPeriod(day string) string { return day[:7] }

func partPeriod(day string) string {
	switch d := day[8:]; {
	case d < "08":
		return day[:8] + "01"
	case d < "15":
		return day[:8] + "08"
	case d < "22":
		return day[:8] + "15"
	default:
		return day[:8] + "22"
	}
}

// attrCover is how a day range is read from the visit-attribute rollups: the sum of the days
// and periods listed, minus the sum of the days in minusDays.
type attrCover struct {
	days, periods, minusDays []string
	cost                     float64
}

// Relative costs of reading one day, part or month of combinations: on traffic whose attribute
// combinations spread widely they saturate within days, so a month costs little more than a day
// (docs/performance.md, "Storage"); on light traffic every level is cheap.
const (
	dayCost   = 1.0
	partCost  = 1.6
	monthCost = 1.7
)

// maxCoverWiden is how many days past each end of a range a cover may reach to use a whole part
// or month, subtracting those days again (a subtracted day costs what a read day costs, and a
// month little more than a part; docs/performance.md, "Storage"). Only the cheapest cover is
// used, so a wider reach never reads more.
const maxCoverWiden = 6

// visitAttrCover returns the cheapest way to read the days from..to (YYYY-MM-DD) from the
// rollups: whole months, then whole parts, then single days, the range possibly widened by up to
// maxCoverWiden days at either end with those days subtracted (April 2–30 is April minus
// April 1).
func visitAttrCover(from, to string) attrCover {
	f, err1 := time.Parse(time.DateOnly, from)
	t, err2 := time.Parse(time.DateOnly, to)
	if err1 != nil || err2 != nil || t.Before(f) {
		return attrCover{}
	}
	var best attrCover
	found := false
	for l := 0; l <= maxCoverWiden; l++ {
		for r := 0; r <= maxCoverWiden; r++ {
			c := greedyCover(f.AddDate(0, 0, -l), t.AddDate(0, 0, r))
			for i := 1; i <= l; i++ {
				c.minusDays = append(c.minusDays, f.AddDate(0, 0, -i).Format(time.DateOnly))
			}
			for i := 1; i <= r; i++ {
				c.minusDays = append(c.minusDays, t.AddDate(0, 0, i).Format(time.DateOnly))
			}
			c.cost += float64(l+r) * dayCost
			// A subtracted day that the cover reads as a single day cancels out.
			c.days, c.minusDays = cancel(c.days, c.minusDays)
			if !found || c.cost < best.cost {
				best, found = c, true
			}
		}
	}
	return best
}

// greedyCover reads f..t as whole months where it can, else whole parts, else days.
func greedyCover(f, t time.Time) attrCover {
	var c attrCover
	for d := f; !d.After(t); {
		day := d.Format(time.DateOnly)
		monthEnd := time.Date(d.Year(), d.Month()+1, 0, 0, 0, 0, 0, time.UTC)
		partEnd := d.AddDate(0, 0, 6)
		if d.Day() == 22 {
			partEnd = monthEnd
		}
		switch {
		case d.Day() == 1 && !monthEnd.After(t):
			c.periods = append(c.periods, monthPeriod(day))
			c.cost += monthCost
			d = monthEnd.AddDate(0, 0, 1)
		case partPeriod(day) == day && !partEnd.After(t):
			c.periods = append(c.periods, day)
			c.cost += partCost
			d = partEnd.AddDate(0, 0, 1)
		default:
			c.days = append(c.days, day)
			c.cost += dayCost
			d = d.AddDate(0, 0, 1)
		}
	}
	return c
}

// cancel removes the days present in both lists from both.
func cancel(plus, minus []string) ([]string, []string) {
	var p, m []string
	for _, d := range plus {
		if !slices.Contains(minus, d) {
			p = append(p, d)
		}
	}
	for _, d := range minus {
		if !slices.Contains(plus, d) {
			m = append(m, d)
		}
	}
	if p == nil {
		p = []string{}
	}
	return p, m
}
