package analytics

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

const (
	browserUA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
	phoneUA   = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	botUA     = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	siteURL   = "https://www.folio.example"
)

// genEvent is one generated collect call together with what the test knows it means, so the
// expected figures are computed from the generator's own facts, not from the code under test.
type genEvent struct {
	at       time.Time
	in       folio.CollectInput
	ip, ua   string
	bot      bool
	identity string // who the visitor is, as the product promises to see them
	path     string // canonical path the raw address must reduce to
	domain   string // referrer domain it must reduce to ("" for none or self)
}

// referrer forms and the domain each must reduce to.
var referrerForms = []struct{ raw, domain string }{
	{"", ""},
	{"", ""},
	{"https://www.google.com/search?q=folio", "google.com"},
	{"https://news.ycombinator.com/item?id=42", "news.ycombinator.com"},
	{"https://folio.example/about", ""},     // self-referral
	{"https://WWW.Folio.Example./blog", ""}, // self-referral, odd spelling
	{"t.co", "t.co"},
	{"https://GitHub.com/foliohq", "github.com"},
	{"http://lobste.rs:8080/s/abc", "lobste.rs"},
	{"https://duckduckgo.com/", "duckduckgo.com"},
	{"not a url at all", ""},
}

// generate builds a deterministic event stream over about nine days around the 2026 US DST change.
func generate(seed uint64, loc *time.Location, paths []string) []genEvent {
	rng := rand.New(rand.NewPCG(seed, 99))
	start := time.Date(2026, 3, 4, 6, 0, 0, 0, loc)
	gaps := []time.Duration{10 * time.Second, 2 * time.Minute, 7 * time.Minute, 29*time.Minute + 59*time.Second,
		30 * time.Minute, 30*time.Minute + time.Second, 45 * time.Minute, 3 * time.Hour, 9 * time.Hour, 26 * time.Hour}
	var out []genEvent
	for v := 0; v < 60; v++ {
		var base genEvent
		switch {
		case v%17 == 5:
			base = genEvent{ip: fmt.Sprintf("198.51.100.%d", v), ua: botUA, bot: true}
		case v%2 == 0:
			base = genEvent{ip: fmt.Sprintf("203.0.113.%d", v), ua: browserUA}
			base.in.VisitorID = fmt.Sprintf("vid_%d-%x", v, rng.Uint32())
		default:
			// No id: the visitor is its IP and User-Agent; two visitors share an IP.
			base = genEvent{ip: fmt.Sprintf("192.0.2.%d", v/4), ua: []string{browserUA, phoneUA}[v%4/2]}
		}
		t := start.Add(time.Duration(rng.IntN(48*60)) * time.Minute)
		step := 0
		for n := 5 + rng.IntN(50); n > 0; n-- {
			e := base
			e.at = t
			if e.in.VisitorID != "" {
				e.identity = "id:" + e.in.VisitorID
			} else {
				// The salt rotates daily in the owner's zone, so the same IP+UA is a new visitor each day.
				e.identity = "hash:" + e.ip + "|" + e.ua + "|" + t.In(loc).Format(time.DateOnly)
			}
			if rng.IntN(100) < 85 {
				e.in.Type = folio.CollectPageView
				e.path = paths[rng.IntN(len(paths))]
				switch rng.IntN(4) {
				case 0:
					e.in.Path = e.path
				case 1:
					e.in.Path = e.path + "?utm_source=news&email=someone%40example.org&ref=hn"
				case 2:
					e.in.Path = siteURL + e.path + "?q=secret#section-2"
				default:
					e.in.Path = e.path + "#top"
				}
				if rng.IntN(5) > 0 {
					e.in.Title = fmt.Sprintf("Title of %s v%d", e.path, rng.IntN(3))
				}
				rf := referrerForms[rng.IntN(len(referrerForms))]
				e.in.Referrer, e.domain = rf.raw, rf.domain
			} else {
				e.in.Type, e.in.Path = folio.CollectEvent, "/contact"
				if rng.IntN(4) == 0 {
					g := folio.FunnelErrorGroups[rng.IntN(len(folio.FunnelErrorGroups))]
					e.in.Name = folio.FunnelErrorEvent
					e.in.Props = map[string]any{"group": g, "step": folio.FunnelSteps[step]}
				} else {
					e.in.Name = folio.FunnelSteps[step]
					if step < len(folio.FunnelSteps)-1 && rng.IntN(3) > 0 {
						step++
					}
				}
			}
			out = append(out, e)
			t = t.Add(gaps[rng.IntN(len(gaps))])
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// reference computes the expected report for days from..to straight from the generated stream:
// per identity, page views in time order, a new visit after more than 30 minutes.
type reference struct {
	report  folio.Analytics
	project folio.ProjectAnalytics
	funnel  map[string]int
	errs    map[string][2]int
}

func computeReference(evs []genEvent, loc *time.Location, from, to, projectPath string) reference {
	day := func(t time.Time) string { return t.In(loc).Format(time.DateOnly) }
	in := func(t time.Time) bool { d := day(t); return d >= from && d <= to }
	last := map[string]time.Time{}
	firstDay := map[string]string{}
	views, visits := 0, 0
	unique, returning := map[string]bool{}, map[string]bool{}
	pageViews, titles, refs := map[string]int{}, map[string]string{}, map[string]int{}
	projViews, projDaily, projRefs, projUnique := 0, map[string]int{}, map[string]int{}, map[string]bool{}
	funnel, errs := map[string]map[string]bool{}, map[string][2]int{}
	errVisitors := map[string]map[string]bool{}
	daily := map[string]folio.DailyTotals{}
	dayVisitors := map[string]map[string]bool{}
	for _, e := range evs {
		if e.bot {
			continue
		}
		if e.in.Type == folio.CollectEvent {
			if !in(e.at) {
				continue
			}
			if e.in.Name == folio.FunnelErrorEvent {
				g := e.in.Props["group"].(string)
				c := errs[g]
				c[0]++
				if errVisitors[g] == nil {
					errVisitors[g] = map[string]bool{}
				}
				errVisitors[g][e.identity] = true
				c[1] = len(errVisitors[g])
				errs[g] = c
				continue
			}
			if funnel[e.in.Name] == nil {
				funnel[e.in.Name] = map[string]bool{}
			}
			funnel[e.in.Name][e.identity] = true
			continue
		}
		prev, seen := last[e.identity]
		newVisit := !seen || e.at.Sub(prev) > 30*time.Minute
		last[e.identity] = e.at
		if _, ok := firstDay[e.identity]; !ok {
			firstDay[e.identity] = day(e.at)
		}
		if !in(e.at) {
			continue
		}
		views++
		dd := day(e.at)
		if dayVisitors[dd] == nil {
			dayVisitors[dd] = map[string]bool{}
		}
		dayVisitors[dd][e.identity] = true
		dt := daily[dd]
		dt.PageViews++
		if newVisit {
			visits++
			dt.Visits++
		}
		daily[dd] = dt
		unique[e.identity] = true
		if firstDay[e.identity] < day(e.at) {
			returning[e.identity] = true
		}
		pageViews[e.path]++
		if e.in.Title != "" {
			titles[e.path] = e.in.Title
		}
		if e.domain != "" {
			refs[e.domain]++
		}
		if e.path == projectPath {
			projViews++
			projDaily[day(e.at)]++
			projUnique[e.identity] = true
			if e.domain != "" {
				projRefs[e.domain]++
			}
		}
	}
	var r reference
	r.report.Visitors = folio.VisitorCounts{Total: visits, Unique: len(unique), Returning: len(returning)}
	// Every day of the range, zero when nothing happened.
	for t0, _ := time.Parse(time.DateOnly, from); !t0.After(mustDate(to)); t0 = t0.AddDate(0, 0, 1) {
		d := t0.Format(time.DateOnly)
		dt := daily[d]
		dt.Date, dt.Visitors = d, len(dayVisitors[d])
		r.report.Daily = append(r.report.Daily, dt)
	}
	avg := 0.0
	if visits > 0 {
		avg = math.Round(float64(views)/float64(visits)*100) / 100
	}
	r.report.PageViews = folio.PageViewCounts{Total: views, Average: avg}
	r.report.TopPages = []folio.PageView{}
	for p, n := range pageViews {
		r.report.TopPages = append(r.report.TopPages, folio.PageView{Path: p, Views: n, Title: titles[p]})
	}
	sort.Slice(r.report.TopPages, func(i, j int) bool {
		a, b := r.report.TopPages[i], r.report.TopPages[j]
		return a.Views > b.Views || a.Views == b.Views && a.Path < b.Path
	})
	if len(r.report.TopPages) > 10 {
		r.report.TopPages = r.report.TopPages[:10]
	}
	r.report.Referrers = topReferrers(refs)
	r.project = folio.ProjectAnalytics{Path: projectPath, Views: projViews, UniqueVisitors: len(projUnique), Referrers: topReferrers(projRefs)}
	f, _ := time.Parse(time.DateOnly, from)
	t, _ := time.Parse(time.DateOnly, to)
	for d := f; !d.After(t); d = d.AddDate(0, 0, 1) {
		r.project.Daily = append(r.project.Daily, folio.DailyViews{Date: d.Format(time.DateOnly), Views: projDaily[d.Format(time.DateOnly)]})
	}
	r.funnel = map[string]int{}
	for n, vs := range funnel {
		r.funnel[n] = len(vs)
	}
	r.errs = errs
	return r
}

func topReferrers(m map[string]int) []folio.Referrer {
	out := []folio.Referrer{}
	for d, n := range m {
		out = append(out, folio.Referrer{Domain: d, Visits: n})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Visits > out[j].Visits || out[i].Visits == out[j].Visits && out[i].Domain < out[j].Domain
	})
	if len(out) > 10 {
		out = out[:10]
	}
	return out
}

func TestReportsMatchReferenceComputation(t *testing.T) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		title, desc := "Tidewater", "Field notes"
		proj, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: &title, Description: &desc})
		if err != nil {
			t.Fatal(err)
		}
		projectPath := "/projects/" + proj.ID
		paths := []string{"/", "/about", "/blog", "/blog/first-post", "/blog/second-post", "/contact", "/projects",
			projectPath, "/projects/other", "/uses", "/now", "/talks", "/résumé", "/blog/third-post"}
		evs := generate(7, loc, paths)

		clock := foliotest.NewClock(evs[0].at)
		// Small odd batches so visitors and visits straddle batch boundaries.
		s, err := newTestService(db, Options{Location: loc, SiteURL: siteURL, Now: clock.Now, BatchSize: 37, FlushInterval: time.Hour, QueueSize: len(evs) + 1})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		bots := 0
		for _, e := range evs {
			clock.Advance(e.at.Sub(clock.Now()))
			in := e.in
			out, err := s.Collect(ctx, &in, e.ip, e.ua)
			if err != nil {
				t.Fatalf("collect %+v: %v", e.in, err)
			}
			if want := map[bool]Outcome{true: Bot, false: Queued}[e.bot]; out != want {
				t.Fatalf("collect %+v from %q: outcome %s, want %s", e.in, e.ua, out, want)
			}
			if e.bot {
				bots++
			}
			// Flush now and then, so batches and the salt window cross midnight at odd places.
			if e.at.Minute() == 17 {
				if err := s.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if bots == 0 {
			t.Fatal("the generator made no bot traffic")
		}
		if got := counterValue(t, s.received, string(Bot)); got != float64(bots) {
			t.Errorf("bot counter = %v, want %d", got, bots)
		}

		firstDay := evs[0].at.In(loc).Format(time.DateOnly)
		lastDay := evs[len(evs)-1].at.In(loc).Format(time.DateOnly)
		for _, tc := range []struct{ name, from, to string }{
			{"whole stream", firstDay, lastDay},
			{"middle days", "2026-03-06", "2026-03-09"}, // includes the 23-hour DST day
			{"one day", "2026-03-08", "2026-03-08"},
			{"before any data", "2026-02-01", "2026-02-10"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				want := computeReference(evs, loc, tc.from, tc.to, projectPath)
				rg, err := s.ParseRange(tc.from, tc.to)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.Report(ctx, rg)
				if err != nil {
					t.Fatal(err)
				}
				if tc.name == "whole stream" && (want.report.Visitors.Returning == 0 || want.report.Visitors.Total <= want.report.Visitors.Unique ||
					len(want.report.TopPages) != 10 || len(want.report.Referrers) < 3) {
					t.Fatalf("the generated stream does not exercise the definitions: %+v", want.report)
				}
				want.report.TimeRange = rg.TimeRange()
				if !reflect.DeepEqual(*got, want.report) {
					t.Errorf("report\n got %+v\nwant %+v", *got, want.report)
				}

				pr, err := s.ProjectReport(ctx, proj.ID, rg)
				if err != nil {
					t.Fatal(err)
				}
				want.project.ProjectID, want.project.TimeRange = proj.ID, rg.TimeRange()
				if !reflect.DeepEqual(*pr, want.project) {
					t.Errorf("project report\n got %+v\nwant %+v", *pr, want.project)
				}

				fr, err := s.Funnel(ctx, rg)
				if err != nil {
					t.Fatal(err)
				}
				prev, first := 0, want.funnel[folio.FunnelSteps[0]]
				for i, st := range fr.Steps {
					n := want.funnel[folio.FunnelSteps[i]]
					if st.Step != folio.FunnelSteps[i] || st.Visitors != n {
						t.Errorf("funnel step %d = %+v, want %s with %d visitors", i, st, folio.FunnelSteps[i], n)
					}
					if i > 0 && prev > 0 && math.Abs(st.ConversionFromPrevious-float64(n)/float64(prev)) > 0.00005 {
						t.Errorf("step %s conversion from previous = %v, want %v", st.Step, st.ConversionFromPrevious, float64(n)/float64(prev))
					}
					if first > 0 && math.Abs(st.ConversionFromStart-float64(n)/float64(first)) > 0.00005 {
						t.Errorf("step %s conversion from start = %v, want %v", st.Step, st.ConversionFromStart, float64(n)/float64(first))
					}
					prev = n
				}
				for i, g := range fr.Errors {
					w := want.errs[folio.FunnelErrorGroups[i]]
					if g.Group != folio.FunnelErrorGroups[i] || g.Count != w[0] || g.Visitors != w[1] {
						t.Errorf("error group %d = %+v, want %s %v", i, g, folio.FunnelErrorGroups[i], w)
					}
				}
			})
		}
	})
}

func TestProjectReportUnknownProject(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	s, err := newTestService(db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rg, _ := s.ParseRange("", "")
	if _, err := s.ProjectReport(context.Background(), "nope", rg); !folio.IsNotFound(err) {
		t.Errorf("unknown project: %v, want RESOURCE_NOT_FOUND", err)
	}
}

func TestParseRange(t *testing.T) {
	loc, _ := time.LoadLocation("Asia/Tokyo")
	// 2026-05-10 20:00 UTC is already 2026-05-11 in Tokyo.
	now := time.Date(2026, 5, 10, 20, 0, 0, 0, time.UTC)
	s := &Service{loc: loc, now: func() time.Time { return now }}
	for _, tc := range []struct {
		name, start, end string
		from, to         string
		status           int
		field            string
	}{
		{"defaults to the last 30 days in the owner's zone", "", "", "2026-04-12", "2026-05-11", 0, ""},
		{"explicit days", "2026-01-01", "2026-01-31", "2026-01-01", "2026-01-31", 0, ""},
		{"start only", "2026-05-01", "", "2026-05-01", "2026-05-11", 0, ""},
		{"end only", "", "2026-02-28", "2026-01-30", "2026-02-28", 0, ""},
		{"rfc3339 is the day in the owner's zone", "2026-03-01T16:00:00Z", "2026-03-02T00:00:00+09:00", "2026-03-02", "2026-03-02", 0, ""},
		{"one day", "2026-03-02", "2026-03-02", "2026-03-02", "2026-03-02", 0, ""},
		{"bad start", "yesterday", "", "", "", 400, "start"},
		{"bad end", "", "2026-02-30", "", "", 400, "end"},
		{"end before start", "2026-03-02", "2026-03-01", "", "", 422, "end"},
		{"too long", "2000-01-01", "2026-01-01", "", "", 422, "start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := s.ParseRange(tc.start, tc.end)
			if tc.status != 0 {
				fe, ok := err.(*folio.Error)
				if !ok || fe.Code != folio.EINVALID || fe.RuleBroken != (tc.status == 422) || len(fe.Details) == 0 || fe.Details[0].Field != tc.field {
					t.Fatalf("got %v, want %d on %s", err, tc.status, tc.field)
				}
				return
			}
			if err != nil || r.From != tc.from || r.To != tc.to {
				t.Fatalf("got %+v %v, want %s..%s", r, err, tc.from, tc.to)
			}
		})
	}
	r, _ := s.ParseRange("2026-03-01", "2026-03-02")
	if tr := r.TimeRange(); tr.Start != "2026-03-01T00:00:00+09:00" || tr.End != "2026-03-03T00:00:00+09:00" {
		t.Errorf("time range = %+v", tr)
	}
}

func mustDate(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}
