package analytics

import (
	"archive/zip"
	"bytes"
	"context"
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
		"2026-03-01,Google,https://www.google.com/,,,,,,20,8,9,500,3\n2026-03-01,,,,,,,,5,2,3,100,1\n",
	"imported_browsers_20260301_20260302.csv": "date,browser,browser_version,visitors,visits,visit_duration,bounces,pageviews\n2026-03-01,Firefox,128,4,5,100,1,9\n",
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
	if len(d.Sources) != 2 || d.Sources[0].Value != "Google" || d.Sources[1].Value != "Direct / None" || d.Sources[0].Bounces != 3 {
		t.Errorf("sources %+v", d.Sources)
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
		if err != nil || len(b.Rows) != 2 || b.Rows[0].Value != "Google" || b.Rows[0].Visits != 9 {
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

func FuzzParsePlausible(f *testing.F) {
	f.Add(plausibleZip(f, plausibleExport))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, body []byte) {
		days, err := ParsePlausible(body)
		if err == nil {
			for _, d := range days {
				if _, perr := time.Parse(time.DateOnly, d.Day); perr != nil || len(d.Pages) > maxImportValues {
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
	f.Fuzz(func(t *testing.T, body []byte) {
		days, err := ParseUmami(bytes.NewReader(body), time.UTC)
		if err == nil {
			for _, d := range days {
				if _, perr := time.Parse(time.DateOnly, d.Day); perr != nil || d.PageViews < 1 {
					t.Fatalf("day %+v", d)
				}
			}
		} else if c := folio.ErrorCode(err); c != folio.EINVALID && c != folio.ETOOLARGE {
			t.Fatalf("error %v", err)
		}
	})
}
