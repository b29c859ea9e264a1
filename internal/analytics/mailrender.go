package analytics

import (
	"context"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// digest is what a mailed report says: the period's figures beside the previous period's.
type digest struct {
	cur, prev         Range
	visitors, prevVis int
	views, prevViews  int
	conv, prevConv    folio.ConversionTotals
	topPages          []folio.PageView
	sources           []folio.BreakdownRow
	// imported and prevImported are the days of each period whose figures come from an import,
	// importedFrom the tools they came from.
	imported, prevImported []string
	importedFrom           []string
}

// digest gathers the figures of a report: the site report with comparison, the top sources and
// the bookings, contact messages and subscriptions (analytics_conversions) of both periods.
func (s *Service) digest(ctx context.Context, cur, prev Range) (*digest, error) {
	rep, err := s.Report(ctx, cur)
	if err != nil {
		return nil, err
	}
	old, err := s.Report(ctx, prev)
	if err != nil {
		return nil, err
	}
	src, err := s.Breakdown(ctx, BreakdownParams{Dimension: "source", Range: cur, Page: 1, Limit: 5})
	if err != nil {
		return nil, err
	}
	d := &digest{cur: cur, prev: prev, visitors: rep.Visitors.Unique, prevVis: old.Visitors.Unique,
		views: rep.PageViews.Total, prevViews: old.PageViews.Total, topPages: rep.TopPages, sources: src.Rows,
		imported: rep.ImportedDays, prevImported: old.ImportedDays}
	if len(d.imported)+len(d.prevImported) > 0 {
		if d.importedFrom, err = s.store.AnalyticsImportSources(ctx, prev.From, cur.To); err != nil {
			return nil, err
		}
	}
	if len(d.topPages) > 5 {
		d.topPages = d.topPages[:5]
	}
	for _, p := range []struct {
		rg Range
		t  *folio.ConversionTotals
	}{{cur, &d.conv}, {prev, &d.prevConv}} {
		cs, err := s.store.AnalyticsConversions(ctx, p.rg.From, p.rg.To)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			switch c.Kind {
			case folio.ConversionBooking:
				p.t.Bookings++
			case folio.ConversionContact:
				p.t.Contacts++
			case folio.ConversionSubscription:
				p.t.Subscriptions++
			}
		}
	}
	return d, nil
}

// periodLabel is "2026-11-16 – 2026-11-22".
func periodLabel(r Range) string { return r.From + " – " + r.To }

// change is the change from prev to cur in words: "+25%", "−10%", "new", "=".
func change(cur, prev int) string {
	switch {
	case cur == prev:
		return "="
	case prev == 0:
		return "new"
	}
	pct := float64(cur-prev) / float64(prev) * 100
	if pct > 0 {
		return fmt.Sprintf("+%.0f%%", pct)
	}
	return fmt.Sprintf("−%.0f%%", -pct)
}

// render returns the report as text and as HTML (every value escaped: paths and sources come
// from visitors).
func (d *digest) render(kind, site string) (text, htmlBody string) {
	rows := []struct {
		label     string
		cur, prev int
	}{
		{"Visitors", d.visitors, d.prevVis},
		{"Page views", d.views, d.prevViews},
		{"Bookings", d.conv.Bookings, d.prevConv.Bookings},
		{"Contact messages", d.conv.Contacts, d.prevConv.Contacts},
		{"Subscribers", d.conv.Subscriptions, d.prevConv.Subscriptions},
	}
	var t, h strings.Builder
	fmt.Fprintf(&t, "%s analytics for %s\n%s (previous: %s)\n\n", kind, site, periodLabel(d.cur), periodLabel(d.prev))
	fmt.Fprintf(&h, "<h1>%s analytics for %s</h1>\n<p>%s (previous: %s)</p>\n<table>\n<tr><th></th><th>This period</th><th>Previous</th><th>Change</th></tr>\n",
		html.EscapeString(kind), html.EscapeString(site), html.EscapeString(periodLabel(d.cur)), html.EscapeString(periodLabel(d.prev)))
	for _, r := range rows {
		fmt.Fprintf(&t, "%-18s %8d  (previous %d, %s)\n", r.label+":", r.cur, r.prev, change(r.cur, r.prev))
		fmt.Fprintf(&h, "<tr><th>%s</th><td>%d</td><td>%d</td><td>%s</td></tr>\n", r.label, r.cur, r.prev, change(r.cur, r.prev))
	}
	h.WriteString("</table>\n")
	if note := d.importedNote(); note != "" {
		fmt.Fprintf(&t, "\n%s\n", note)
		fmt.Fprintf(&h, "<p><em>%s</em></p>\n", html.EscapeString(note))
	}
	t.WriteString("\nTop pages:\n")
	h.WriteString("<h2>Top pages</h2>\n<ol>\n")
	for _, p := range d.topPages {
		fmt.Fprintf(&t, "  %s  %d views\n", p.Path, p.Views)
		fmt.Fprintf(&h, "<li>%s — %d views</li>\n", html.EscapeString(p.Path), p.Views)
	}
	t.WriteString("\nSources:\n")
	h.WriteString("</ol>\n<h2>Sources</h2>\n<ol>\n")
	for _, r := range d.sources {
		fmt.Fprintf(&t, "  %s  %d visits\n", r.Value, r.Visits)
		fmt.Fprintf(&h, "<li>%s — %d visits</li>\n", html.EscapeString(r.Value), r.Visits)
	}
	h.WriteString("</ol>\n")
	return t.String(), h.String()
}

// importedNote says which days of the period and of the previous one hold imported figures
// (daily totals from another tool, without the tracker's visit-level detail), or "".
func (d *digest) importedNote() string {
	var parts []string
	for _, p := range []struct {
		label string
		days  []string
	}{{"this period", d.imported}, {"the previous period", d.prevImported}} {
		if len(p.days) == 0 {
			continue
		}
		n := "days"
		if len(p.days) == 1 {
			n = "day"
		}
		parts = append(parts, fmt.Sprintf("%d %s of %s (%s)", len(p.days), n, p.label, dayRuns(p.days)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Imported days: " + strings.Join(parts, " and ") + " hold figures imported from " + toolNames(d.importedFrom) +
		" (daily totals), not counted by folio's tracker."
}

// toolNames names the import sources for a sentence: "Plausible", "Plausible and Umami".
func toolNames(sources []string) string {
	var names []string
	for _, s := range sources {
		switch s {
		case ImportPlausible:
			names = append(names, "Plausible")
		case ImportUmami:
			names = append(names, "Umami")
		default:
			names = append(names, s)
		}
	}
	if len(names) == 0 {
		return "another analytics tool"
	}
	return strings.Join(names, " and ")
}

// dayRuns writes sorted days as runs of consecutive days: "2026-05-04 – 2026-05-06, 2026-05-09".
func dayRuns(days []string) string {
	var out []string
	for i := 0; i < len(days); {
		j := i
		for j+1 < len(days) && nextDay(days[j]) == days[j+1] {
			j++
		}
		if j == i {
			out = append(out, days[i])
		} else {
			out = append(out, days[i]+" – "+days[j])
		}
		i = j + 1
	}
	return strings.Join(out, ", ")
}

func nextDay(day string) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 0, 1).Format(time.DateOnly)
}

// renderAlert returns the spike alert as text and HTML.
func renderAlert(site string, start time.Time, h folio.HourTraffic, usual float64, cooldown time.Duration) (text, htmlBody string) {
	var t, b strings.Builder
	fmt.Fprintf(&t, "%d visitors on %s since %s (usually about %.0f by now).\n", h.Visitors, site, start.Format("15:04 MST"), usual)
	fmt.Fprintf(&b, "<p><strong>%d visitors</strong> on %s since %s (usually about %.0f by now).</p>\n", h.Visitors,
		html.EscapeString(site), html.EscapeString(start.Format("15:04 MST")), usual)
	list := func(title string, rows []folio.RealtimePage) {
		fmt.Fprintf(&t, "\n%s:\n", title)
		fmt.Fprintf(&b, "<h2>%s</h2>\n<ol>\n", title)
		for _, r := range rows {
			fmt.Fprintf(&t, "  %s  %d visitors\n", r.Path, r.Visitors)
			fmt.Fprintf(&b, "<li>%s — %d visitors</li>\n", html.EscapeString(r.Path), r.Visitors)
		}
		b.WriteString("</ol>\n")
	}
	list("Top sources", h.Sources)
	list("Top pages", h.Pages)
	fmt.Fprintf(&t, "\nNo further alert for %s.\n", cooldown)
	fmt.Fprintf(&b, "<p>No further alert for %s.</p>\n", cooldown)
	return t.String(), b.String()
}
