package analytics

import (
	"context"
	"crypto/md5"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// The generator's facts about the software of each User-Agent and the country of each address,
// stated here (from public knowledge), not asked from the parsers under test.
var bdAgents = []struct{ ua, device, browser, browserVersion, os, osVersion string }{
	{"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "desktop", "Firefox", "128", "Linux", ""},
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "desktop", "Chrome", "131", "Windows", "10"},
	{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "mobile", "Safari", "17", "iOS", "17"},
	{"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36", "mobile", "Chrome", "131", "Android", "14"},
	{"Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1", "tablet", "Safari", "16", "iOS", "16"},
}

var bdAddrs = []struct{ ip, country string }{
	{"8.8.8.8", "US"},        // Google public DNS
	{"81.2.69.160", "GB"},    // the GeoIP test address in London
	{"2a01:4f8::1", "DE"},    // Hetzner
	{"133.242.0.1", "JP"},    // Sakura Internet
	{"193.0.6.139", "NL"},    // RIPE NCC
	{"200.160.2.3", "BR"},    // NIC.br
	{"10.1.2.3", "ZZ"},       // private: unknown
	{"::ffff:8.8.4.4", "US"}, // IPv4-mapped
}

// Entry referrers and campaign tags with the source, referrer host and campaign they must give.
var bdArrivals = []struct {
	referrer, query                           string
	source, host, uSource, uMedium, uCampaign string
}{
	{"", "", "Direct / None", "", "", "", ""},
	{"https://github.com/foliohq/folio", "", "GitHub", "github.com", "", "", ""},
	{"https://news.ycombinator.com/item?id=1", "", "Hacker News", "news.ycombinator.com", "", "", ""},
	{"https://www.google.de/", "", "Google", "google.de", "", "", ""},
	{"https://m.facebook.com/story", "", "Facebook", "m.facebook.com", "", "", ""},
	{"https://blog.example.org/links", "", "blog.example.org", "blog.example.org", "", "", ""},
	{"", "?utm_source=Newsletter&utm_medium=Email&utm_campaign=Spring%20Launch", "newsletter", "", "newsletter", "email", "Spring Launch"},
	{"https://t.co/abc", "?UTM_SOURCE=twitter&utm_campaign=talk-2026&x=1", "X (Twitter)", "t.co", "twitter", "", "talk-2026"},
}

type bdPageView struct {
	at             time.Time
	identity, path string
	visit          int // index of the visit in the reference
}

type bdVisit struct {
	out                             bool // not in the sample the reference is computed over
	identity, startDay, entry, exit string
	views                           int
	attrs                           map[string]string // visit dimension → value
	pages                           map[string]bool
}

type bdEvent struct {
	at             time.Time
	identity, name string
}

// bdStream is a generated stream: the collect calls in time order and the facts they stand for.
type bdStream struct {
	calls  []bdCall
	pvs    []bdPageView
	visits []*bdVisit
	events []bdEvent
}

type bdCall struct {
	at     time.Time
	in     folio.CollectInput
	ip, ua string
}

// generateBreakdownStream builds visits of 1–6 page views by the given number of visitors (at
// most 1,000) over about six days: each visitor keeps an address and an agent; each visit
// arrives in one of bdArrivals. Every time of visitor v has v milliseconds, so a visit is known
// by its start to the millisecond.
func generateBreakdownStream(seed uint64, loc *time.Location, visitors int) *bdStream {
	rng := rand.New(rand.NewPCG(seed, 7))
	paths := []string{"/", "/about", "/blog", "/blog/a-post", "/projects", "/contact", "/uses"}
	goals := []string{"signup", "download", "contact_sent"}
	start := time.Date(2026, 4, 6, 0, 30, 0, 0, loc)
	st := &bdStream{}
	type visitorGen struct {
		id     string
		ag, ad int
		next   time.Time
	}
	for v := 0; v < visitors; v++ {
		vg := visitorGen{id: fmt.Sprintf("bd-%d-%x", v, rng.Uint32()), ag: rng.IntN(len(bdAgents)), ad: rng.IntN(len(bdAddrs)),
			next: start.Add(time.Duration(rng.IntN(5*24*60))*time.Minute + time.Duration(v)*time.Millisecond)}
		for k := 1 + rng.IntN(4); k > 0; k-- {
			arr := bdArrivals[rng.IntN(len(bdArrivals))]
			ag, ad := bdAgents[vg.ag], bdAddrs[vg.ad]
			vis := &bdVisit{identity: vg.id, startDay: vg.next.In(loc).Format(time.DateOnly), pages: map[string]bool{}, attrs: map[string]string{
				"source": arr.source, "referrer": arr.host, "utm_source": arr.uSource, "utm_medium": arr.uMedium, "utm_campaign": arr.uCampaign,
				"country": ad.country, "device": ag.device, "browser": ag.browser, "browser_version": strings.TrimSpace(ag.browser + " " + ag.browserVersion),
				"os": ag.os, "os_version": strings.TrimSpace(ag.os + " " + ag.osVersion)}}
			st.visits = append(st.visits, vis)
			t := vg.next
			for n := 1 + rng.IntN(6); n > 0; n-- {
				p := paths[rng.IntN(len(paths))]
				in := folio.CollectInput{Type: folio.CollectPageView, Path: p, VisitorID: vg.id, Referrer: "https://folio.example" + vis.exit}
				if vis.views == 0 {
					in.Path, in.Referrer = "https://folio.example"+p+arr.query, arr.referrer
					vis.entry = p
				}
				vis.views++
				vis.exit = p
				vis.pages[p] = true
				st.calls = append(st.calls, bdCall{at: t, in: in, ip: ad.ip, ua: ag.ua})
				st.pvs = append(st.pvs, bdPageView{at: t, identity: vg.id, path: p, visit: len(st.visits) - 1})
				if rng.IntN(5) == 0 {
					g := goals[rng.IntN(len(goals))]
					t = t.Add(5 * time.Second)
					st.calls = append(st.calls, bdCall{at: t, in: folio.CollectInput{Type: folio.CollectEvent, Path: p, Name: g, VisitorID: vg.id}, ip: ad.ip, ua: ag.ua})
					st.events = append(st.events, bdEvent{at: t, identity: vg.id, name: g})
				}
				t = t.Add(time.Duration(20+rng.IntN(25*60)) * time.Second) // under 30 minutes: same visit
			}
			vg.next = t.Add(time.Duration(31+rng.IntN(30*60)) * time.Minute) // over 30 minutes: a new visit
		}
	}
	sort.SliceStable(st.calls, func(i, j int) bool { return st.calls[i].at.Before(st.calls[j].at) })
	return st
}

type bdRow struct {
	visitors, pageViews, visits, bounces, events int
}

// bdReference computes a breakdown from the stream's facts for days from..to and filters.
func bdReference(st *bdStream, loc *time.Location, dim, from, to string, filters map[string]string) (map[string]bdRow, int) {
	day := func(t time.Time) string { return t.In(loc).Format(time.DateOnly) }
	in := func(d string) bool { return d >= from && d <= to }
	evDone := map[string]map[string]bool{} // event name → identities that sent it in range
	for _, e := range st.events {
		if in(day(e.at)) {
			if evDone[e.name] == nil {
				evDone[e.name] = map[string]bool{}
			}
			evDone[e.name][e.identity] = true
		}
	}
	match := func(v *bdVisit) bool {
		if v.out || !in(v.startDay) {
			return false
		}
		for d, val := range filters {
			switch d {
			case "page":
				if !v.pages[val] {
					return false
				}
			case "entry_page":
				if v.entry != val {
					return false
				}
			case "exit_page":
				if v.exit != val {
					return false
				}
			case "date":
				if v.startDay != val {
					return false
				}
			case "event":
				if !evDone[val][v.identity] {
					return false
				}
			default:
				if v.attrs[d] != val {
					return false
				}
			}
		}
		return true
	}
	out := map[string]bdRow{}
	who := map[string]map[string]bool{}
	count := func(value, identity string, f func(*bdRow)) {
		r := out[value]
		f(&r)
		if who[value] == nil {
			who[value] = map[string]bool{}
		}
		who[value][identity] = true
		r.visitors = len(who[value])
		out[value] = r
	}
	allVisitors := map[string]bool{}
	for _, v := range st.visits {
		if match(v) {
			allVisitors[v.identity] = true
		}
	}
	switch dim {
	case "page":
		seen := map[[2]int]bool{}
		for _, pv := range st.pvs {
			if v := st.visits[pv.visit]; !in(day(pv.at)) || v.out || len(filters) > 0 && !match(v) {
				continue
			}
			count(pv.path, pv.identity, func(r *bdRow) {
				r.pageViews++
				pathIdx := strings.Index("|/|/about|/blog|/blog/a-post|/projects|/contact|/uses|", "|"+pv.path+"|")
				if !seen[[2]int{pv.visit, pathIdx}] {
					seen[[2]int{pv.visit, pathIdx}] = true
					r.visits++
				}
			})
		}
	case "event":
		for _, e := range st.events {
			if !in(day(e.at)) || len(filters) > 0 && !allVisitors[e.identity] {
				continue
			}
			count(e.name, e.identity, func(r *bdRow) { r.events++ })
		}
	default:
		for _, v := range st.visits {
			if !match(v) {
				continue
			}
			value := v.attrs[dim]
			switch dim {
			case "entry_page":
				value = v.entry
			case "exit_page":
				value = v.exit
			case "date":
				value = v.startDay
			}
			count(value, v.identity, func(r *bdRow) {
				r.visits++
				r.pageViews += v.views
				if v.views == 1 {
					r.bounces++
				}
			})
		}
	}
	if len(filters) == 0 && dim == "event" {
		// The denominator of conversion: every visitor with a page view in the range.
		allVisitors = map[string]bool{}
		for _, pv := range st.pvs {
			if in(day(pv.at)) {
				allVisitors[pv.identity] = true
			}
		}
	}
	return out, len(allVisitors)
}

func collectStream(t *testing.T, s *Service, clock *foliotest.Clock, st *bdStream) {
	t.Helper()
	ctx := context.Background()
	s.Start()
	for i, c := range st.calls {
		clock.Advance(c.at.Sub(clock.Now()))
		in := c.in
		out, err := s.Collect(ctx, &in, c.ip, c.ua)
		if err != nil || out != Queued {
			t.Fatalf("collect %+v: %v %v", c.in, out, err)
		}
		if i%50 == 49 {
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func checkBreakdown(t *testing.T, got *folio.Breakdown, want map[string]bdRow, visitors int, exactVisitors bool) {
	t.Helper()
	if got.Total != len(want) {
		t.Errorf("total = %d, want %d", got.Total, len(want))
	}
	if len(got.Rows) != min(len(want), got.Limit) {
		t.Errorf("%d rows, want %d", len(got.Rows), min(len(want), got.Limit))
	}
	for _, r := range got.Rows {
		w, ok := want[r.Value]
		if !ok {
			t.Errorf("row %q not expected", r.Value)
			continue
		}
		if r.PageViews != w.pageViews || r.Visits != w.visits {
			t.Errorf("row %q: pageViews %d visits %d, want %d %d", r.Value, r.PageViews, r.Visits, w.pageViews, w.visits)
		}
		if exactVisitors && r.Visitors != w.visitors {
			t.Errorf("row %q: visitors %d, want %d", r.Value, r.Visitors, w.visitors)
		}
		if !exactVisitors && got.Dimension == "event" && (r.Visitors < w.visitors || r.Visitors > visitors) {
			t.Errorf("event %q: estimated visitors %d outside %d..%d", r.Value, r.Visitors, w.visitors, visitors)
		}
		if !exactVisitors && got.Dimension != "event" && (r.Visitors < 1 || r.Visitors > r.Visits) {
			t.Errorf("row %q: estimated visitors %d outside 1..%d", r.Value, r.Visitors, r.Visits)
		}
		switch got.Dimension {
		case "page":
			if r.BounceRate != nil || r.ConversionRate != nil {
				t.Errorf("page row %q has rates", r.Value)
			}
		case "event":
			if r.Events == nil || *r.Events != w.events {
				t.Errorf("event %q: events %v, want %d", r.Value, r.Events, w.events)
			}
			if r.ConversionRate == nil || math.Abs(*r.ConversionRate-float64(r.Visitors)/float64(visitors)) > 0.00005 {
				t.Errorf("event %q: conversion %v, want %d/%d", r.Value, r.ConversionRate, w.visitors, visitors)
			}
		default:
			if r.BounceRate == nil || math.Abs(*r.BounceRate-float64(w.bounces)/float64(w.visits)) > 0.00005 {
				t.Errorf("row %q: bounce rate %v, want %d/%d", r.Value, r.BounceRate, w.bounces, w.visits)
			}
		}
	}
	// Rows come most visitors first (most visits first from the rollup).
	for i := 1; i < len(got.Rows); i++ {
		a, b := got.Rows[i-1], got.Rows[i]
		if exactVisitors && a.Visitors < b.Visitors || !exactVisitors && got.Dimension != "event" && a.Visits < b.Visits {
			t.Errorf("rows out of order: %+v before %+v", a, b)
		}
	}
}

func TestBreakdownsMatchReferenceComputation(t *testing.T) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	st := generateBreakdownStream(11, loc, 40)
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(st.calls[0].at)
		s, err := newTestService(db, Options{Location: loc, SiteURL: "https://folio.example", Now: clock.Now, BatchSize: 23, FlushInterval: time.Hour, QueueSize: len(st.calls) + 1})
		if err != nil {
			t.Fatal(err)
		}
		collectStream(t, s, clock, st)
		defer s.Close(ctx)
		rollup, err := newTestService(db, Options{Location: loc, Now: clock.Now, RawLimit: -1})
		if err != nil {
			t.Fatal(err)
		}

		first := st.calls[0].at.In(loc).Format(time.DateOnly)
		last := st.calls[len(st.calls)-1].at.In(loc).Format(time.DateOnly)
		for _, rg := range []struct{ name, from, to string }{
			{"whole stream", first, last},
			{"two middle days", "2026-04-08", "2026-04-09"},
			// Ranges the period rollup answers (migration 0019): whole parts of the month, a
			// part minus a day outside the range, the whole month.
			{"parts 1–7 and 8–14", "2026-04-01", "2026-04-14"},
			{"part 1–7 minus April 1, part 8–14 minus April 14", "2026-04-02", "2026-04-13"},
			{"part 8–14 minus April 8 (a day with visits)", "2026-04-09", "2026-04-14"},
			{"April", "2026-04-01", "2026-04-30"},
			{"April minus 1–4 April (a reach of 4 days)", "2026-04-05", "2026-04-30"},
		} {
			r, err := s.ParseRange(rg.from, rg.to)
			if err != nil {
				t.Fatal(err)
			}
			for _, dim := range Dimensions {
				for _, f := range []map[string]string{
					nil,
					{"country": "US"},
					{"device": "mobile", "source": "GitHub"},
					{"page": "/blog"},
					{"event": "signup"},
					{"exit_page": "/contact", "utm_source": "newsletter"},
					{"date": "2026-04-08", "browser": "Safari"},
				} {
					t.Run(fmt.Sprintf("%s/%s/%v", rg.name, dim, f), func(t *testing.T) {
						want, visitors := bdReference(st, loc, dim, rg.from, rg.to, f)
						if rg.name == "whole stream" && f == nil && len(want) < 2 && dim != "utm_medium" {
							t.Fatalf("the stream does not exercise %s: %v", dim, want)
						}
						got, err := s.Breakdown(ctx, BreakdownParams{Dimension: dim, Range: r, Filters: f, Page: 1, Limit: 100})
						if err != nil {
							t.Fatal(err)
						}
						if !got.VisitorsExact {
							t.Error("a small range was estimated")
						}
						checkBreakdown(t, got, want, visitors, true)

						if f == nil && rg.name == "whole stream" || f != nil && folio.VisitAttrBreakdown(dim, f) {
							// The rollup gives the same visits, page views and bounces (filtered by
							// visit attributes: from analytics_daily_visit_attrs and, for whole parts
							// of months and months, analytics_period_visit_attrs).
							got, err := rollup.Breakdown(ctx, BreakdownParams{Dimension: dim, Range: r, Filters: f, Page: 1, Limit: 100})
							if err != nil {
								t.Fatal(err)
							}
							if got.VisitorsExact {
								t.Error("the rollup claims exact visitors")
							}
							checkBreakdown(t, got, want, visitors, false)
						}
					})
				}
			}
		}

		// Paging: the rows of page 2 follow those of page 1, and total counts them all.
		r, _ := s.ParseRange(first, last)
		p1, err := s.Breakdown(ctx, BreakdownParams{Dimension: "page", Range: r, Page: 1, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		p3, err := s.Breakdown(ctx, BreakdownParams{Dimension: "page", Range: r, Page: 3, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		all, _ := s.Breakdown(ctx, BreakdownParams{Dimension: "page", Range: r, Page: 1, Limit: 100})
		if p1.Total != 7 || p3.Total != 7 || len(p3.Rows) != 1 || p3.Rows[0] != all.Rows[6] && p3.Rows[0].Value != all.Rows[6].Value {
			t.Errorf("paging: page 1 %+v, page 3 %+v", p1, p3)
		}
		p9, _ := s.Breakdown(ctx, BreakdownParams{Dimension: "page", Range: r, Page: 9, Limit: 3})
		if p9.Total != 7 || len(p9.Rows) != 0 {
			t.Errorf("past the end: %+v", p9)
		}

		// The visit-attribute rollup pages its summed rows too: page 2 of 2 rows is rows 3–4 of the
		// whole list, and the total counts them all.
		for _, dim := range []string{"country", "source"} {
			f := map[string]string{"device": "desktop"}
			all, err := rollup.Breakdown(ctx, BreakdownParams{Dimension: dim, Range: r, Filters: f, Page: 1, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if len(all.Rows) < 4 {
				t.Fatalf("%s under %v: %d rows, too few to page", dim, f, len(all.Rows))
			}
			p2, err := rollup.Breakdown(ctx, BreakdownParams{Dimension: dim, Range: r, Filters: f, Page: 2, Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			if p2.Total != all.Total || p2.Total != len(all.Rows) || !reflect.DeepEqual(p2.Rows, all.Rows[2:4]) {
				t.Errorf("%s under %v, page 2 of 2: %+v (total %d), want %+v (total %d)", dim, f, p2.Rows, p2.Total, all.Rows[2:4], all.Total)
			}
		}

		// compare=previous: the previous period of equal length, with its own figures.
		r, _ = s.ParseRange("2026-04-10", "2026-04-11")
		cmp, err := s.Breakdown(ctx, BreakdownParams{Dimension: "country", Range: r, Page: 1, Limit: 100, Compare: true})
		if err != nil {
			t.Fatal(err)
		}
		if cmp.Previous == nil || cmp.Previous.TimeRange.Start[:10] != "2026-04-08" || cmp.Previous.TimeRange.End[:10] != "2026-04-10" {
			t.Fatalf("previous = %+v", cmp.Previous)
		}
		want, visitors := bdReference(st, loc, "country", "2026-04-08", "2026-04-09", nil)
		checkBreakdown(t, &folio.Breakdown{Dimension: "country", Rows: cmp.Previous.Rows, Total: cmp.Previous.Total, Limit: 100}, want, visitors, true)
		rep, err := s.Report(ctx, r, true)
		if err != nil {
			t.Fatal(err)
		}
		prevRep, _ := s.Report(ctx, r.Previous())
		if rep.Previous == nil || rep.Previous.Visitors != prevRep.Visitors || rep.Previous.PageViews != prevRep.PageViews || rep.Previous.TimeRange != prevRep.TimeRange {
			t.Errorf("report previous = %+v, want the figures of %+v", rep.Previous, prevRep)
		}

		// Realtime: visitors whose latest page view is in the last five minutes, by that page.
		now := clock.Now()
		lastPV := map[string]bdPageView{}
		for _, pv := range st.pvs {
			if pv.at.After(lastPV[pv.identity].at) {
				lastPV[pv.identity] = pv
			}
		}
		wantPages := map[string]int{}
		wantN := 0
		for _, pv := range lastPV {
			if !pv.at.Before(now.Add(-RealtimeWindow)) {
				wantN++
				wantPages[pv.path]++
			}
		}
		rt, err := s.Realtime(ctx)
		if err != nil {
			t.Fatal(err)
		}
		gotPages := map[string]int{}
		for _, p := range rt.Pages {
			gotPages[p.Path] = p.Visitors
		}
		if wantN == 0 || rt.Visitors != wantN || fmt.Sprint(gotPages) != fmt.Sprint(wantPages) {
			t.Errorf("realtime = %+v, want %d visitors on %v", rt, wantN, wantPages)
		}
		clock.Advance(RealtimeWindow + time.Second)
		if rt, _ := s.Realtime(ctx); rt.Visitors != 0 || len(rt.Pages) != 0 {
			t.Errorf("realtime after five quiet minutes = %+v", rt)
		}

		// Nothing raw about the visitor is stored: no address, no agent.
		for _, q := range []string{`SELECT COUNT(*) FROM analytics_pageviews WHERE path LIKE '%8.8.8.8%' OR title LIKE '%Mozilla%'`,
			`SELECT COUNT(*) FROM analytics_visitors WHERE visit_attrs LIKE '%Mozilla%' OR visit_attrs LIKE '%8.8.%' OR visit_attrs LIKE '%10.1.2.3%'`} {
			var n int
			if err := db.Analytics().R.QueryRowContext(ctx, q).Scan(&n); err != nil || n != 0 {
				t.Errorf("%s: %d %v", q, n, err)
			}
		}
	})
}

// TestSampledBreakdowns checks the breakdowns that read a visitor sample (a range over RawLimit
// page views, with filters that the rollups do not key): their counts are those of the visitors
// whose key hashes into the sample (the first two bytes of its MD5 below 65536/8), with all their
// visits and events, computed from the stream's facts, times 8.
func TestSampledBreakdowns(t *testing.T) {
	loc := time.UTC
	st := generateBreakdownStream(5, loc, 1000)
	visitAt := map[int64]int{} // a page view's time (Unix ms, unique in the stream) → its visit
	for _, pv := range st.pvs {
		visitAt[pv.at.UnixMilli()] = pv.visit
	}
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(st.calls[0].at)
		s, err := newTestService(db, Options{Location: loc, SiteURL: "https://folio.example", Now: clock.Now, BatchSize: 500, FlushInterval: time.Hour,
			QueueSize: len(st.calls) + 1})
		if err != nil {
			t.Fatal(err)
		}
		collectStream(t, s, clock, st)
		defer s.Close(ctx)

		// The sample, by the stored visitor keys of the stream's visits; visit ids are "<visitor
		// id>.<start in Unix ms>", both base 36.
		const k = 8
		sample := &bdStream{}
		for _, v := range st.visits {
			c := *v
			c.out = true
			sample.visits = append(sample.visits, &c)
		}
		rows, err := db.Analytics().R.QueryContext(ctx, `SELECT DISTINCT p.visit_id, a.visitor_key FROM analytics_pageviews p JOIN analytics_visitors a ON a.id = p.visitor_id`)
		if err != nil {
			t.Fatal(err)
		}
		ids := 0
		inSample := map[string]bool{} // identity → in the sample
		for rows.Next() {
			var id, key string
			if err := rows.Scan(&id, &key); err != nil {
				t.Fatal(err)
			}
			_, startPart, _ := strings.Cut(id, ".")
			ms, err := strconv.ParseInt(startPart, 36, 64)
			i, ok := visitAt[ms]
			if err != nil || !ok {
				t.Fatalf("visit id %q starts at no visit of the stream", id)
			}
			h := md5.Sum([]byte(key))
			in := int(h[0])<<8|int(h[1]) < 65536/k
			if was, seen := inSample[st.visits[i].identity]; seen && was != in {
				t.Fatalf("visitor %s has several keys", st.visits[i].identity)
			}
			inSample[st.visits[i].identity] = in
			sample.visits[i].out = !in
			ids++
		}
		rows.Close()
		if ids != len(st.visits) {
			t.Fatalf("%d visit ids stored, want %d", ids, len(st.visits))
		}
		for _, pv := range st.pvs {
			if !sample.visits[pv.visit].out {
				sample.pvs = append(sample.pvs, pv)
			}
		}
		for _, e := range st.events {
			if inSample[e.identity] {
				sample.events = append(sample.events, e)
			}
		}
		t.Logf("%d of %d visits, %d of %d page views, %d of %d events in the 1/%d sample",
			ids, len(st.visits), len(sample.pvs), len(st.pvs), len(sample.events), len(st.events), k)

		// Sampling starts above RawLimit page views and reads the finest level whose share stays
		// within it: here 1 in 8.
		sampled, err := newTestService(db, Options{Location: loc, Now: clock.Now, RawLimit: len(st.pvs) / 6, SampleTarget: len(st.pvs) / 6})
		if err != nil {
			t.Fatal(err)
		}
		first := st.calls[0].at.Format(time.DateOnly)
		last := st.calls[len(st.calls)-1].at.Format(time.DateOnly)
		r, err := s.ParseRange(first, last)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			dim     string
			filters map[string]string
		}{
			{"page", map[string]string{"country": "US"}},
			{"page", map[string]string{"device": "mobile", "source": "Direct / None"}},
			{"entry_page", map[string]string{"browser": "Safari"}},
			{"exit_page", map[string]string{"country": "DE"}},
			{"source", map[string]string{"page": "/blog"}},
			{"country", map[string]string{"event": "signup"}},
			{"event", map[string]string{"device": "desktop"}},
			{"event", map[string]string{"page": "/blog", "country": "US"}},
		} {
			t.Run(fmt.Sprintf("%s/%v", c.dim, c.filters), func(t *testing.T) {
				want, visitors := bdReference(sample, loc, c.dim, first, last, c.filters)
				got, err := sampled.Breakdown(ctx, BreakdownParams{Dimension: c.dim, Range: r, Filters: c.filters, Page: 1, Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				if got.SampleRate != 1.0/k || got.VisitorsExact {
					t.Fatalf("sample rate %v, visitors exact %v; want 1/%d, estimated", got.SampleRate, got.VisitorsExact, k)
				}
				if got.Total != len(want) || len(got.Rows) != len(want) || len(want) < 2 {
					t.Fatalf("%d rows of %d values, want the sample's %d", len(got.Rows), got.Total, len(want))
				}
				for i, row := range got.Rows {
					if i > 0 && got.Rows[i-1].Visitors < row.Visitors {
						t.Errorf("rows out of order: %+v before %+v", got.Rows[i-1], row)
					}
					w := want[row.Value]
					if row.Visitors != k*w.visitors || row.Visits != k*w.visits || row.PageViews != k*w.pageViews {
						t.Errorf("%q: %d visitors, %d visits, %d page views; want 8 × %d, 8 × %d, 8 × %d",
							row.Value, row.Visitors, row.Visits, row.PageViews, w.visitors, w.visits, w.pageViews)
					}
					switch c.dim {
					case "page":
					case "event":
						if *row.Events != k*w.events || math.Abs(*row.ConversionRate-float64(w.visitors)/float64(visitors)) > 0.00005 {
							t.Errorf("%q: %d events, conversion %v; want 8 × %d, %d/%d", row.Value, *row.Events, *row.ConversionRate, w.events, w.visitors, visitors)
						}
					default:
						if math.Abs(*row.BounceRate-float64(w.bounces)/float64(w.visits)) > 0.00005 {
							t.Errorf("%q: bounce rate %v, want %d/%d", row.Value, *row.BounceRate, w.bounces, w.visits)
						}
					}
				}
				exact, err := s.Breakdown(ctx, BreakdownParams{Dimension: c.dim, Range: r, Filters: c.filters, Page: 1, Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				if exact.SampleRate != 0 || !exact.VisitorsExact {
					t.Errorf("a range within RawLimit was sampled: %+v", exact)
				}
				forced, err := sampled.Breakdown(ctx, BreakdownParams{Dimension: c.dim, Range: r, Filters: c.filters, Page: 1, Limit: 100, Exact: true})
				if err != nil {
					t.Fatal(err)
				}
				if forced.SampleRate != 0 || !reflect.DeepEqual(forced.Rows, exact.Rows) {
					t.Errorf("exact=true over RawLimit: %+v, want %+v", forced.Rows, exact.Rows)
				}
			})
		}
	})
}

func TestParseFilters(t *testing.T) {
	f, err := ParseFilters(url.Values{"country": {"FR"}, "device": {"mobile"}, "start": {"2026-01-01"}, "nope": {"x"}})
	if err != nil || len(f) != 2 || f["country"] != "FR" || f["device"] != "mobile" {
		t.Errorf("filters = %v, %v", f, err)
	}
	if _, err := ParseFilters(url.Values{"page": {"/a", "/b"}}); err == nil {
		t.Error("a repeated filter was accepted")
	}
	if _, err := ParseFilters(url.Values{"page": {strings.Repeat("x", 2000)}}); err == nil {
		t.Error("an overlong filter was accepted")
	}
}
