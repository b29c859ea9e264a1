package analytics

import (
	"archive/zip"
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// plausibleZip builds an export as Plausible documents it: a zip of imported_<table>_<from>_<to>.csv
// files with a header row each (CSVWithNames).
func plausibleZip(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A hand-made Plausible export of two days (the columns of Plausible's CSV importer).
var plausibleExport = map[string]string{
	"imported_visitors_20260301_20260302.csv": "date,visitors,pageviews,bounces,visits,visit_duration\n" +
		"2026-03-01,10,25,4,12,600\n2026-03-02,5,8,2,6,120\n",
	"imported_pages_20260301_20260302.csv": "date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors\n" +
		"2026-03-01,me.example,/,10,9,15,,0\n2026-03-01,me.example,/blog/hello?x=1,3,3,10,,0\n2026-03-02,me.example,/,6,5,8,,0\n",
	"imported_sources_20260301_20260302.csv": "date,source,referrer,utm_source,utm_medium,utm_campaign,utm_content,utm_term,pageviews,visitors,visits,visit_duration,bounces\n" +
		"2026-03-01,Google,https://www.google.com/,,,,,,20,8,9,500,3\n2026-03-01,,,,,,,,5,2,3,100,1\n" +
		"2026-03-01,Newsletter,,Newsletter,Email,spring-launch,,,4,2,2,60,0\n",
	"imported_browsers_20260301_20260302.csv": "date,browser,browser_version,visitors,visits,visit_duration,bounces,pageviews\n" +
		"2026-03-01,Firefox,128,4,5,100,1,9\n2026-03-01,Microsoft Edge,120.0.2210,3,4,50,1,10\n",
	// Device, system, location, entry, exit and event files, with the columns of Plausible's CSV
	// importer (lib/plausible/imported/csv_importer.ex, input_structures).
	"imported_devices_20260301_20260302.csv": "date,device,visitors,visits,visit_duration,bounces,pageviews\n" +
		"2026-03-01,Desktop,6,7,300,2,15\n2026-03-01,Mobile,4,4,100,1,8\n",
	"imported_operating_systems_20260301_20260302.csv": "date,operating_system,operating_system_version,visitors,visits,visit_duration,bounces,pageviews\n" +
		"2026-03-01,GNU/Linux,,5,6,200,2,12\n2026-03-01,Mac,14.5,3,4,100,1,9\n",
	"imported_locations_20260301_20260302.csv": "date,country,region,city,visitors,visits,visit_duration,bounces,pageviews\n" +
		"2026-03-01,FR,FR-IDF,2988507,3,4,100,1,8\n2026-03-01,FR,FR-ARA,2996944,2,2,50,0,5\n2026-03-01,DE,DE-BE,2950159,4,5,100,2,10\n",
	"imported_entry_pages_20260301_20260302.csv": "date,entry_page,visitors,entrances,visit_duration,bounces,pageviews\n" +
		"2026-03-01,/,8,9,400,3,18\n2026-03-01,/blog/hello,3,3,100,1,7\n",
	"imported_exit_pages_20260301_20260302.csv": "date,exit_page,visitors,visit_duration,exits,bounces,pageviews\n" +
		"2026-03-01,/blog/hello,5,200,7,2,15\n2026-03-01,/,4,100,5,2,10\n",
	"imported_custom_events_20260301_20260302.csv": "date,name,link_url,path,visitors,events\n" +
		"2026-03-01,Outbound Link: Click,https://github.com/ada,,2,3\n2026-03-01,Outbound Link: Click,https://x.com/ada,,1,1\n" +
		"2026-03-01,Signup,,,2,2\n",
}

func TestParsePlausible(t *testing.T) {
	days, err := ParsePlausible(plausibleZip(t, plausibleExport))
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 2 {
		t.Fatalf("days %+v", days)
	}
	d := days[0]
	if d.Day != "2026-03-01" || d.Visitors != 10 || d.Visits != 12 || d.PageViews != 25 || d.Bounces != 4 {
		t.Errorf("first day %+v", d)
	}
	if len(d.Pages) != 2 || d.Pages[0] != (folio.ImportedCount{Value: "/", Visitors: 9, Visits: 10, PageViews: 15}) || d.Pages[1].Value != "/blog/hello" {
		t.Errorf("pages %+v", d.Pages)
	}
	if src := d.Dims["source"]; len(src) != 3 || src[0].Value != "Google" || src[1].Value != "Direct / None" || src[0].Bounces != 3 {
		t.Errorf("sources %+v", src)
	}
	for dim, want := range map[string][]folio.ImportedCount{
		"device": {{Value: "desktop", Visits: 7, PageViews: 15, Bounces: 2}, {Value: "mobile", Visits: 4, PageViews: 8, Bounces: 1},
			{Value: "unknown", Visits: 1, PageViews: 2, Bounces: 1}},
		"browser_version": {{Value: "Edge 120", Visits: 4, PageViews: 10, Bounces: 1}, {Value: "Firefox 128", Visits: 5, PageViews: 9, Bounces: 1}},
		"os_version":      {{Value: "Linux", Visits: 6, PageViews: 12, Bounces: 2}, {Value: "macOS 14", Visits: 4, PageViews: 9, Bounces: 1}},
		"country":         {{Value: "FR", Visits: 6, PageViews: 13, Bounces: 1}, {Value: "DE", Visits: 5, PageViews: 10, Bounces: 2}},
		"utm_source":      {{Value: "", Visits: 12, PageViews: 25, Bounces: 4}, {Value: "newsletter", Visits: 2, PageViews: 4}},
	} {
		if got := d.Dims[dim]; !slices.Equal(got, want) {
			t.Errorf("%s: %+v, want %+v", dim, got, want)
		}
	}
	if len(d.Events) != 2 || d.Events[0] != (folio.ImportedCount{Value: folio.MeasureOutbound, Visitors: 3, Events: 4}) {
		t.Errorf("events %+v", d.Events)
	}
	if len(d.Referrers) != 1 || d.Referrers[0] != (folio.ImportedCount{Value: "google.com", Visits: 9}) {
		t.Errorf("referrers %+v", d.Referrers)
	}
	for name, files := range map[string]map[string]string{
		"no visitors file": {"imported_pages_20260301_20260302.csv": "date,page,pageviews\n"},
		"bad date":         {"imported_visitors_20260301_20260302.csv": "date,visitors\n01/03/2026,4\n"},
		"bad count":        {"imported_visitors_20260301_20260302.csv": "date,visitors\n2026-03-01,-4\n"},
		"bad CSV":          {"imported_visitors_20260301_20260302.csv": "date,visitors\n\"2026-03-01,4\n"},
	} {
		if _, err := ParsePlausible(plausibleZip(t, files)); folio.ErrorCode(err) != folio.EINVALID {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ParsePlausible([]byte("not a zip")); folio.ErrorCode(err) != folio.EINVALID {
		t.Errorf("not a zip: %v", err)
	}
}

// TestImportInflationIsBounded: a small zip that inflates beyond the bound is refused (413)
// whatever sizes its headers declare.
func TestImportInflationIsBounded(t *testing.T) {
	defer func(n int64) { importInflateLimit = n }(importInflateLimit)
	importInflateLimit = 1 << 20
	big := "date,visitors\n" + strings.Repeat("2026-03-01,1\n", 200_000) // 2.4 MB, a few KB deflated
	body := plausibleZip(t, map[string]string{"imported_visitors_20260301_20260302.csv": big})
	if len(body) > 100_000 {
		t.Fatalf("the test zip is %d bytes", len(body))
	}
	if _, err := ParsePlausible(body); folio.ErrorCode(err) != folio.ETOOLARGE {
		t.Errorf("inflating zip: %v", err)
	}
	if _, err := ParseUmami(strings.NewReader("created_at,session_id,visit_id,url_path\n"+strings.Repeat("2026-03-01 10:00:00,s,v,/\n", 60_000)), time.UTC); folio.ErrorCode(err) != folio.ETOOLARGE {
		t.Errorf("large CSV: %v", err)
	}
}

const umamiExport = "website_id,session_id,visit_id,event_id,hostname,browser,os,device,screen,language,country,region,city,url_path,url_query,utm_source,utm_medium,utm_campaign,utm_content,utm_term,referrer_path,referrer_query,referrer_domain,page_title,event_type,event_name,created_at\n" +
	"w,s1,v1,e1,me.example,firefox,Linux,desktop,1920x1080,en,FR,,,/,,,,,,,/,,news.ycombinator.com,Home,1,,2026-03-01 23:30:00\n" +
	"w,s1,v1,e2,me.example,firefox,Linux,desktop,1920x1080,en,FR,,,/blog/a,,,,,,,,,,A,1,,2026-03-01 23:35:00\n" +
	"w,s1,v1,e3,me.example,firefox,Linux,desktop,1920x1080,en,FR,,,/blog/a,,,,,,,,,,A,2,signup,2026-03-01 23:36:00\n" +
	"w,s2,v2,e4,me.example,safari,iOS,mobile,390x844,en,US,,,/,,,,,,,,,,Home,1,,2026-03-02 08:00:00\n"

func TestParseUmami(t *testing.T) {
	days, err := ParseUmami(strings.NewReader(umamiExport), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 2 || days[0].Day != "2026-03-01" || days[0].PageViews != 2 || days[0].Visitors != 1 || days[0].Visits != 1 ||
		len(days[0].Pages) != 2 || len(days[0].Referrers) != 1 || days[0].Referrers[0].Value != "news.ycombinator.com" || days[1].PageViews != 1 {
		t.Errorf("days %+v", days)
	}
	// In the owner's zone (UTC+1) the first two page views fall on 2 March.
	berlin, _ := time.LoadLocation("Europe/Berlin")
	if days, err := ParseUmami(strings.NewReader(umamiExport), berlin); err != nil || len(days) != 1 || days[0].PageViews != 3 {
		t.Errorf("in Berlin: %+v, %v", days, err)
	}
	if _, err := ParseUmami(strings.NewReader("created_at,url_path\nyesterday,/\n"), time.UTC); folio.ErrorCode(err) != folio.EINVALID {
		t.Errorf("bad time: %v", err)
	}
}

// TestImport imports a Plausible export and an Umami one on both engines: the days count in the
// report and are marked imported; a day imported again, or tracked, is skipped.
func TestImport(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
		s, err := newTestService(db, Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Import(ctx, ImportPlausible, plausibleZip(t, plausibleExport))
		if err != nil {
			t.Fatal(err)
		}
		// 2 March is today: left out.
		if res.Days != 1 || res.PageViews != 25 || len(res.SkippedDays) != 1 || res.SkippedDays[0] != "2026-03-02" {
			t.Errorf("first import: %+v", res)
		}
		now = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
		res, err = s.Import(ctx, ImportPlausible, plausibleZip(t, plausibleExport))
		if err != nil || res.Days != 1 || res.PageViews != 8 || len(res.SkippedDays) != 1 || res.SkippedDays[0] != "2026-03-01" {
			t.Errorf("second import: %+v, %v", res, err)
		}
		res, err = s.Import(ctx, ImportUmami, []byte(umamiExport))
		if err != nil || res.Days != 0 || len(res.SkippedDays) != 2 {
			t.Errorf("umami over imported days: %+v, %v", res, err)
		}
		rg, _ := s.ParseRange("2026-02-28", "2026-03-02")
		rep, err := s.Report(ctx, rg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.PageViews.Total != 33 || rep.Visitors.Total != 18 || rep.Visitors.Unique != 15 || len(rep.ImportedDays) != 2 ||
			rep.Daily[0].Imported || !rep.Daily[1].Imported || rep.Daily[1].PageViews != 25 || rep.Daily[1].Visitors != 10 {
			t.Errorf("report: %+v", rep)
		}
		if len(rep.TopPages) == 0 || rep.TopPages[0].Path != "/" || rep.TopPages[0].Views != 23 || len(rep.Referrers) != 1 || rep.Referrers[0].Domain != "google.com" {
			t.Errorf("pages %+v, referrers %+v", rep.TopPages, rep.Referrers)
		}
		b, err := s.Breakdown(ctx, BreakdownParams{Dimension: "source", Range: rg, Page: 1, Limit: 10})
		if err != nil || len(b.Rows) != 3 || b.Rows[0].Value != "Google" || b.Rows[0].Visits != 9 {
			t.Errorf("sources: %+v, %v", b, err)
		}
		// Umami on days without figures.
		s2, _ := newTestService(foliotest.MustOpenSQLite(t), Options{Now: func() time.Time { return now }})
		if res, err := s2.Import(ctx, ImportUmami, []byte(umamiExport)); err != nil || res.Days != 2 || res.PageViews != 3 {
			t.Errorf("umami: %+v, %v", res, err)
		}
		if _, err := s.Import(ctx, "matomo", nil); folio.ErrorCode(err) != folio.EINVALID {
			t.Errorf("matomo: %v", err)
		}
	})
}

// umamiApril is a hand-made Umami export of one day: s1's first visit (its rows out of order,
// from Hacker News, with an event), s2's visit from a newsletter campaign and s1's second visit.
const umamiApril = "website_id,session_id,visit_id,event_id,hostname,browser,os,device,screen,language,country,region,city,url_path,url_query,utm_source,utm_medium,utm_campaign,utm_content,utm_term,referrer_path,referrer_query,referrer_domain,page_title,event_type,event_name,created_at\n" +
	"w,s1,v1,e2,me.example,firefox,Linux,desktop,1920x1080,en,FR,,,/blog/a,,,,,,,,,,A,1,,2026-04-01 10:05:00\n" +
	"w,s1,v1,e1,me.example,firefox,Linux,desktop,1920x1080,en,FR,,,/,,,,,,,/item,,news.ycombinator.com,Home,1,,2026-04-01 10:00:00\n" +
	"w,s1,v1,e3,me.example,firefox,Linux,desktop,1920x1080,en,FR,,,/blog/a,,,,,,,,,,A,2,signup,2026-04-01 10:06:00\n" +
	"w,s2,v2,e4,me.example,ios,iOS,mobile,390x844,en,US,,,/blog/a,utm_source=Newsletter,Newsletter,Email,spring,,,,,,A,1,,2026-04-01 11:00:00\n" +
	"w,s1,v3,e5,me.example,firefox,Mac OS,desktop,1920x1080,en,FR,,,/,,,,,,,,,,Home,1,,2026-04-01 12:00:00\n"

func TestParseUmamiDimensions(t *testing.T) {
	days, err := ParseUmami(strings.NewReader(umamiApril), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 {
		t.Fatalf("days %+v", days)
	}
	d := days[0]
	if d.Visitors != 2 || d.Visits != 3 || d.PageViews != 4 || d.Bounces != 2 {
		t.Errorf("totals %+v", d)
	}
	for dim, want := range map[string][]folio.ImportedCount{
		"source":     {{Value: "Hacker News", Visits: 1, PageViews: 2}, {Value: "Direct / None", Visits: 1, PageViews: 1, Bounces: 1}, {Value: "newsletter", Visits: 1, PageViews: 1, Bounces: 1}},
		"entry_page": {{Value: "/", Visits: 2, PageViews: 3, Bounces: 1}, {Value: "/blog/a", Visits: 1, PageViews: 1, Bounces: 1}},
		"exit_page":  {{Value: "/blog/a", Visits: 2, PageViews: 3, Bounces: 1}, {Value: "/", Visits: 1, PageViews: 1, Bounces: 1}},
		"os_version": {{Value: "Linux", Visits: 1, PageViews: 2}, {Value: "iOS", Visits: 1, PageViews: 1, Bounces: 1}, {Value: "macOS", Visits: 1, PageViews: 1, Bounces: 1}},
		"browser":    {{Value: "Firefox", Visits: 2, PageViews: 3, Bounces: 1}, {Value: "Safari", Visits: 1, PageViews: 1, Bounces: 1}},
		"device":     {{Value: "desktop", Visits: 2, PageViews: 3, Bounces: 1}, {Value: "mobile", Visits: 1, PageViews: 1, Bounces: 1}},
		"country":    {{Value: "FR", Visits: 2, PageViews: 3, Bounces: 1}, {Value: "US", Visits: 1, PageViews: 1, Bounces: 1}},
		"utm_medium": {{Value: "", Visits: 2, PageViews: 3, Bounces: 1}, {Value: "email", Visits: 1, PageViews: 1, Bounces: 1}},
	} {
		if got := d.Dims[dim]; !slices.Equal(got, want) {
			t.Errorf("%s: %+v, want %+v", dim, got, want)
		}
	}
	if len(d.Pages) != 2 || d.Pages[1] != (folio.ImportedCount{Value: "/blog/a", Visits: 2, PageViews: 2}) ||
		len(d.Events) != 1 || d.Events[0] != (folio.ImportedCount{Value: "signup", Visitors: 1, Events: 1}) ||
		len(d.Referrers) != 1 || d.Referrers[0] != (folio.ImportedCount{Value: "news.ycombinator.com", Visits: 1}) {
		t.Errorf("pages %+v, events %+v, referrers %+v", d.Pages, d.Events, d.Referrers)
	}
}

// TestImportedBreakdowns imports the hand-made Plausible export and the Umami one on both
// engines and reads every breakdown: unfiltered, each answers with the imported figures (beside
// a tracked visit) and names the imported days; filtered, the imported days are left out and
// named so.
func TestImportedBreakdowns(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		now := time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)
		s, err := newTestService(db, Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		t.Cleanup(func() { s.Close(context.Background()) })
		// One tracked visit on 5 March: Firefox on Linux, a desktop.
		if _, err := s.Collect(ctx, &folio.CollectInput{Type: folio.CollectPageView, Path: "/", VisitorID: "t1"}, "192.0.2.1", browserUA); err != nil {
			t.Fatal(err)
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		now = time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
		if res, err := s.Import(ctx, ImportPlausible, plausibleZip(t, plausibleExport)); err != nil || res.Days != 2 {
			t.Fatalf("plausible: %+v, %v", res, err)
		}
		if res, err := s.Import(ctx, ImportUmami, []byte(umamiApril)); err != nil || res.Days != 1 || res.PageViews != 4 {
			t.Fatalf("umami: %+v, %v", res, err)
		}
		type row struct {
			value                   string
			visits, views, visitors int
		}
		check := func(from, to, dim string, filters map[string]string, want ...row) *folio.Breakdown {
			t.Helper()
			rg, err := s.ParseRange(from, to)
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.Breakdown(ctx, BreakdownParams{Dimension: dim, Range: rg, Filters: filters, Page: 1, Limit: 10})
			if err != nil {
				t.Fatalf("%s: %v", dim, err)
			}
			var got []row
			for _, r := range b.Rows {
				g := row{r.Value, r.Visits, r.PageViews, 0}
				if dim == "event" {
					g.views, g.visitors = *r.Events, r.Visitors
				}
				got = append(got, g)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s %v: %+v, want %+v", dim, filters, got, want)
			}
			return b
		}
		// 1 March (Plausible) alone.
		check("2026-03-01", "2026-03-01", "device", nil, row{"desktop", 7, 15, 0}, row{"mobile", 4, 8, 0}, row{"unknown", 1, 2, 0})
		check("2026-03-01", "2026-03-01", "browser", nil, row{"Firefox", 5, 9, 0}, row{"Edge", 4, 10, 0})
		check("2026-03-01", "2026-03-01", "browser_version", nil, row{"Firefox 128", 5, 9, 0}, row{"Edge 120", 4, 10, 0})
		check("2026-03-01", "2026-03-01", "os", nil, row{"Linux", 6, 12, 0}, row{"macOS", 4, 9, 0})
		check("2026-03-01", "2026-03-01", "os_version", nil, row{"Linux", 6, 12, 0}, row{"macOS 14", 4, 9, 0})
		check("2026-03-01", "2026-03-01", "country", nil, row{"FR", 6, 13, 0}, row{"DE", 5, 10, 0})
		check("2026-03-01", "2026-03-01", "entry_page", nil, row{"/", 9, 18, 0}, row{"/blog/hello", 3, 7, 0})
		check("2026-03-01", "2026-03-01", "exit_page", nil, row{"/blog/hello", 7, 15, 0}, row{"/", 5, 10, 0})
		check("2026-03-01", "2026-03-01", "utm_source", nil, row{"", 12, 25, 0}, row{"newsletter", 2, 4, 0})
		check("2026-03-01", "2026-03-01", "utm_medium", nil, row{"", 12, 25, 0}, row{"email", 2, 4, 0})
		check("2026-03-01", "2026-03-01", "utm_campaign", nil, row{"", 12, 25, 0}, row{"spring-launch", 2, 4, 0})
		check("2026-03-01", "2026-03-01", "referrer", nil, row{"google.com", 9, 20, 0}, row{"", 5, 9, 0})
		check("2026-03-01", "2026-03-01", "event", nil, row{folio.MeasureOutbound, 0, 4, 3}, row{"Signup", 0, 2, 2})
		// 1–5 March: imported and tracked together; the date breakdown has each day.
		b := check("2026-03-01", "2026-03-05", "device", nil, row{"desktop", 8, 16, 0}, row{"unknown", 7, 10, 0}, row{"mobile", 4, 8, 0})
		if !slices.Equal(b.ImportedDays, []string{"2026-03-01", "2026-03-02"}) || b.ImportedDaysLeftOut != nil {
			t.Errorf("unfiltered: imported %v, left out %v", b.ImportedDays, b.ImportedDaysLeftOut)
		}
		check("2026-03-01", "2026-03-05", "date", nil, row{"2026-03-01", 12, 25, 0}, row{"2026-03-02", 6, 8, 0}, row{"2026-03-05", 1, 1, 0})
		check("2026-03-01", "2026-03-05", "browser", nil, row{"Firefox", 6, 10, 0}, row{"Edge", 4, 10, 0})
		// Filtered, only the tracked visit answers, and the imported days are named left out.
		for _, f := range []map[string]string{{"device": "desktop"}, {"page": "/"}} {
			b = check("2026-03-01", "2026-03-05", "browser", f, row{"Firefox", 1, 1, 0})
			if b.ImportedDays != nil || !slices.Equal(b.ImportedDaysLeftOut, []string{"2026-03-01", "2026-03-02"}) {
				t.Errorf("filtered %v: imported %v, left out %v", f, b.ImportedDays, b.ImportedDaysLeftOut)
			}
		}
		// Umami's day.
		check("2026-04-01", "2026-04-01", "source", nil, row{"Hacker News", 1, 2, 0}, row{"Direct / None", 1, 1, 0}, row{"newsletter", 1, 1, 0})
		check("2026-04-01", "2026-04-01", "entry_page", nil, row{"/", 2, 3, 0}, row{"/blog/a", 1, 1, 0})
		check("2026-04-01", "2026-04-01", "exit_page", nil, row{"/blog/a", 2, 3, 0}, row{"/", 1, 1, 0})
		check("2026-04-01", "2026-04-01", "device", nil, row{"desktop", 2, 3, 0}, row{"mobile", 1, 1, 0})
		check("2026-04-01", "2026-04-01", "browser", nil, row{"Firefox", 2, 3, 0}, row{"Safari", 1, 1, 0})
		check("2026-04-01", "2026-04-01", "os", nil, row{"Linux", 1, 2, 0}, row{"iOS", 1, 1, 0}, row{"macOS", 1, 1, 0})
		check("2026-04-01", "2026-04-01", "country", nil, row{"FR", 2, 3, 0}, row{"US", 1, 1, 0})
		check("2026-04-01", "2026-04-01", "utm_campaign", nil, row{"", 2, 3, 0}, row{"spring", 1, 1, 0})
		check("2026-04-01", "2026-04-01", "referrer", nil, row{"", 2, 2, 0}, row{"news.ycombinator.com", 1, 2, 0})
		check("2026-04-01", "2026-04-01", "page", nil, row{"/", 2, 2, 0}, row{"/blog/a", 2, 2, 0})
		check("2026-04-01", "2026-04-01", "event", nil, row{"signup", 0, 1, 1})
		b = check("2026-04-01", "2026-04-01", "country", map[string]string{"device": "mobile"})
		if !slices.Equal(b.ImportedDaysLeftOut, []string{"2026-04-01"}) {
			t.Errorf("umami filtered: left out %v", b.ImportedDaysLeftOut)
		}
	})
}

func FuzzParsePlausible(f *testing.F) {
	f.Add(plausibleZip(f, plausibleExport))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, body []byte) {
		days, err := ParsePlausible(body)
		if err == nil {
			for _, d := range days {
				if _, perr := time.Parse(time.DateOnly, d.Day); perr != nil || len(d.Pages) > maxImportValues || !importedDimsBounded(d) {
					t.Fatalf("day %+v", d)
				}
			}
		} else if c := folio.ErrorCode(err); c != folio.EINVALID && c != folio.ETOOLARGE {
			t.Fatalf("error %v", err)
		}
	})
}

func FuzzParseUmami(f *testing.F) {
	f.Add([]byte(umamiExport))
	f.Add([]byte("created_at,url_path\n2026-03-01T10:00:00Z,/a\n"))
	f.Add([]byte(umamiApril))
	f.Fuzz(func(t *testing.T, body []byte) {
		days, err := ParseUmami(bytes.NewReader(body), time.UTC)
		if err == nil {
			for _, d := range days {
				if _, perr := time.Parse(time.DateOnly, d.Day); perr != nil || d.PageViews < 1 && len(d.Events) == 0 || !importedDimsBounded(d) {
					t.Fatalf("day %+v", d)
				}
			}
		} else if c := folio.ErrorCode(err); c != folio.EINVALID && c != folio.ETOOLARGE {
			t.Fatalf("error %v", err)
		}
	})
}

// importedDimsBounded checks what the fuzz targets promise of a day's dimensions: known names,
// bounded lists, no negative counts.
func importedDimsBounded(d folio.ImportedDay) bool {
	if len(d.Events) > maxImportValues {
		return false
	}
	for name, l := range d.Dims {
		if !slices.Contains(folio.ImportedDims, name) || len(l) > maxImportValues {
			return false
		}
		for _, c := range l {
			if c.Visits < 0 || c.PageViews < 0 || c.Bounces < 0 || len(c.Value) > maxImportValueLen {
				return false
			}
		}
	}
	return true
}
