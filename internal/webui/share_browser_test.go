package webui_test

import (
	"archive/zip"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserSharedAnalytics opens a shared analytics link with a password in a browser that is
// not signed in: the page asks for the password, then shows the figures read-only, without the
// owner-only cards; a revoked link shows nothing.
func TestBrowserSharedAnalytics(t *testing.T) {
	findChromium(t) // skip before starting anything when there is no browser
	s := startFolioWith(t, nil)
	browserCtx := newBrowser(t)
	if res := s.api(t, "POST", "/api/analytics/collect", map[string]any{"type": "pageview", "path": "/projects/a",
		"referrer": "https://github.com/someone", "visitorId": "gh1"}, nil); res.status != 202 {
		t.Fatalf("collect: %d %s", res.status, res.body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var b struct{ Total int }
		s.api(t, "GET", "/api/analytics/breakdown?dimension=source", nil, nil).decode(t, &b)
		if b.Total >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the page view never showed in the source breakdown")
		}
		time.Sleep(200 * time.Millisecond)
	}
	res := s.api(t, "POST", "/api/analytics/shares", map[string]any{"password": "open sesame"}, nil)
	if res.status != 201 {
		t.Fatalf("create share: %d %s", res.status, res.body)
	}
	var share struct{ ID, URL string }
	res.decode(t, &share)
	_, token, ok := strings.Cut(share.URL, "/share/")
	if !ok {
		t.Fatalf("share URL %q", share.URL)
	}

	tb := newTab(t, browserCtx, visitorZone)
	tb.do(t, "open the link", chromedp.Navigate(s.base+"/share/"+token), chromedp.WaitVisible(css("#share-form")))
	if got := eval[string](t, tb, `document.querySelector('meta[name=robots]').content`); got != "noindex, nofollow" {
		t.Errorf("robots meta = %q", got)
	}
	tb.do(t, "give a wrong password", chromedp.SendKeys(css("#share-password"), "guess"), chromedp.Click(css("#share-form button")))
	tb.waitText(t, "#share-status", "not right")
	eval[bool](t, tb, `(document.querySelector('#share-password').value = '', true)`)
	tb.do(t, "give the password", chromedp.SendKeys(css("#share-password"), "open sesame"),
		chromedp.Click(css("#share-form button")), chromedp.WaitVisible(css("#panel-source")))
	tb.waitText(t, "#panel-source", "GitHub")
	if n := eval[int](t, tb, `document.querySelectorAll('#card-conversions, #tab-funnel').length`); n != 0 {
		t.Errorf("the shared page shows %d owner-only cards or tabs", n)
	}
	tb.waitText(t, "#realtime", "1 visitor now")
	// Clicking a row filters, as on the owner's page.
	tb.do(t, "filter by GitHub", chromedp.Click(css(`#panel-source .rowbtn[data-value="GitHub"]`)))
	tb.waitFor(t, "the filtered page", `location.hash.includes('source=GitHub') && document.querySelector('#analytics-filters .chip') !== null`)

	if res := s.api(t, "DELETE", "/api/analytics/shares/"+share.ID, nil, nil); res.status != 204 {
		t.Fatalf("revoke: %d %s", res.status, res.body)
	}
	tb.do(t, "reload the revoked link", chromedp.Reload())
	if got := tb.text(t, "body"); !strings.Contains(got, "does not exist or was revoked") {
		t.Errorf("revoked link shows %q", got)
	}
}

// TestBrowserAnalyticsSettings turns the weekly report and the spike alert on in the dashboard
// and makes a shared link there; the API reads both back.
func TestBrowserAnalyticsSettings(t *testing.T) {
	browser := newBrowser(t)
	s := startFolioWith(t, nil)
	tb := newTab(t, browser, visitorZone)
	signIn(t, tb, s.base)
	tb.do(t, "analytics settings", chromedp.Navigate(s.base+"/admin/#/settings/analytics"), chromedp.WaitVisible(css("#settings-analytics")),
		chromedp.WaitVisible(css("#share-create")),
		chromedp.Click(css(`#settings-analytics input[name="analytics.reports.weekly"]`)),
		chromedp.SendKeys(css(`#settings-analytics input[name="analytics.alert.visitorsPerHour"]`), "250"),
		chromedp.Click(css("#save-analytics")))
	deadline := time.Now().Add(20 * time.Second)
	for {
		var st struct {
			Analytics struct {
				Reports struct{ Weekly, Monthly bool }
				Alert   struct{ VisitorsPerHour int }
			}
		}
		s.api(t, "GET", "/api/settings", nil, nil).decode(t, &st)
		if st.Analytics.Reports.Weekly && !st.Analytics.Reports.Monthly && st.Analytics.Alert.VisitorsPerHour == 250 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("settings not saved: %+v", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
	tb.do(t, "make a link", chromedp.Click(css("#share-create")))
	tb.waitText(t, "#share-made", "/share/")
	if n := eval[int](t, tb, `document.querySelectorAll('#share-list li').length`); n != 1 {
		t.Errorf("%d links listed, want 1", n)
	}

	// Import a Plausible export of one day; the analytics page then says the day is imported.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("imported_visitors_20250101_20250101.csv")
	w.Write([]byte("date,visitors,pageviews,bounces,visits,visit_duration\n2025-01-01,7,20,3,9,100\n"))
	zw.Close()
	file := filepath.Join(t.TempDir(), "plausible.zip")
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	tb.do(t, "import", chromedp.SetUploadFiles(css("#import-file"), []string{file}), chromedp.Click(css("#import-send")))
	tb.waitText(t, "#import-status", "Imported 1 days (20 page views)")
	var rep struct{ ImportedDays []string }
	s.api(t, "GET", "/api/analytics?start=2025-01-01&end=2025-01-02", nil, nil).decode(t, &rep)
	if len(rep.ImportedDays) != 1 || rep.ImportedDays[0] != "2025-01-01" {
		t.Errorf("imported days %v", rep.ImportedDays)
	}

	// A day of the last 30 imported with its devices: the analytics page counts it and says so;
	// filtered, it says the imported day is left out.
	day := time.Now().UTC().AddDate(0, 0, -3)
	buf.Reset()
	zw = zip.NewWriter(&buf)
	stamp := day.Format("20060102") + "_" + day.Format("20060102")
	w, _ = zw.Create("imported_visitors_" + stamp + ".csv")
	w.Write([]byte("date,visitors,pageviews,bounces,visits,visit_duration\n" + day.Format(time.DateOnly) + ",5,9,1,6,100\n"))
	w, _ = zw.Create("imported_devices_" + stamp + ".csv")
	w.Write([]byte("date,device,visitors,visits,visit_duration,bounces,pageviews\n" + day.Format(time.DateOnly) + ",Mobile,5,6,100,1,9\n"))
	zw.Close()
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	tb.do(t, "import a recent day", chromedp.SetUploadFiles(css("#import-file"), []string{file}), chromedp.Click(css("#import-send")))
	tb.waitText(t, "#import-status", "Imported 1 days (9 page views)")
	eval[bool](t, tb, `(location.hash = '#/analytics/days=30', true)`)
	tb.waitText(t, "#imported-note", "1 day of this period ("+day.Format(time.DateOnly)+") come from an import")
	tb.waitText(t, "#panel-device", "Phone")
	eval[bool](t, tb, `(location.hash = '#/analytics/days=30&device=mobile', true)`)
	tb.waitText(t, "#imported-left-out", "are left out: imported figures cannot be filtered")
}

// TestBrowserMeasurements loads the tracker and the measurements script on a page of another
// origin (a site on another port), with data-outbound and data-404: the page counts as not found, and a click on an
// outbound link is counted without its query.
func TestBrowserMeasurements(t *testing.T) {
	browser := newBrowser(t)
	s := startFolioWith(t, nil)
	tb := newTab(t, browser, visitorZone)
	page := `<!doctype html><title>Lost</title>` +
		`<script src="` + s.base + `/api/analytics/script.js"></script>` +
		`<script src="` + s.base + `/api/analytics/measure.js" data-outbound data-404></script>` +
		`<a id="out" href="https://elsewhere.example/repo?token=secret" onclick="return false">repo</a>`
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	}))
	defer site.Close()
	tb.do(t, "open the page", chromedp.Navigate(site.URL+"/missing"), chromedp.WaitVisible(css("#out")))
	tb.waitFor(t, "the tracker", `!!window.folio && typeof window.folio.visitor === 'string'`)
	tb.do(t, "click the outbound link", chromedp.Click(css("#out")))
	// The site counts days in its own time zone (America/New_York here), whose date is not
	// always the UTC one: the days around today's UTC date hold today's everywhere.
	now := time.Now().UTC()
	start, end := now.AddDate(0, 0, -1).Format(time.DateOnly), now.AddDate(0, 0, 1).Format(time.DateOnly)
	deadline := time.Now().Add(30 * time.Second)
	for _, kind := range []string{"not_found", "outbound_link"} {
		for {
			res := s.api(t, "GET", "/api/analytics/measurements?kind="+kind+"&start="+start+"&end="+end, nil, nil)
			if kind == "outbound_link" && strings.Contains(string(res.body), `"value":"elsewhere.example/repo"`) ||
				kind == "not_found" && strings.Contains(string(res.body), `"events":1`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never counted: %d %s", kind, res.status, res.body)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}
