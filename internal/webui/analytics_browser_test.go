package webui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserAnalytics drives the analytics page (analytics.js): ranked lists per dimension in
// tabbed cards (each tab loaded when shown), the chart with the previous period, the realtime
// count, click-to-filter across the whole page (and undoing it), the note of a sampled
// breakdown and its link to exact figures, and the CSV download.
func TestBrowserAnalytics(t *testing.T) {
	findChromium(t) // skip before starting anything when there is no browser
	// Above 3 page views in the range, unfiltered breakdowns read the rollups and those filtered
	// by a page read a sample of the visitors (ANALYTICS_EXACT_LIMIT).
	s := startFolioWith(t, map[string]string{"ANALYTICS_EXACT_LIMIT": "3"})
	browserCtx := newBrowser(t)

	// Three visitors: two arrive from GitHub on a phone (one reads two pages), one comes from a
	// newsletter campaign on a desktop and sends a goal event.
	const phoneUA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	for _, c := range []struct {
		body map[string]any
		ua   string
	}{
		{map[string]any{"type": "pageview", "path": "/projects/a", "referrer": "https://github.com/someone", "visitorId": "gh1"}, phoneUA},
		{map[string]any{"type": "pageview", "path": "/about", "visitorId": "gh1"}, phoneUA},
		{map[string]any{"type": "pageview", "path": "/projects/a", "referrer": "https://github.com/other", "visitorId": "gh2"}, phoneUA},
		{map[string]any{"type": "pageview", "path": "/blog/spring?utm_source=newsletter&utm_medium=email&utm_campaign=spring", "visitorId": "nl1"}, chromeUA},
		{map[string]any{"type": "event", "path": "/blog/spring", "name": "signup", "visitorId": "nl1"}, chromeUA},
		{map[string]any{"type": "event", "path": "/blog/spring", "name": "outbound_link", "visitorId": "nl1", "props": map[string]any{"url": "https://github.com/ada?ref=x"}}, chromeUA},
	} {
		if res := s.api(t, "POST", "/api/analytics/collect", c.body, map[string]string{"User-Agent": c.ua}); res.status != 202 {
			t.Fatalf("collect: %d %s", res.status, res.body)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var b struct{ Total int }
		s.api(t, "GET", "/api/analytics/breakdown?dimension=source", nil, nil).decode(t, &b)
		if b.Total >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the collected page views never showed in the source breakdown")
		}
		time.Sleep(200 * time.Millisecond)
	}

	// The campaign visitor then writes through the contact form, naming its tracker id.
	if res := s.api(t, "POST", "/api/contact", map[string]any{"name": "Nel", "email": "nel@example.com", "message": "Hi"},
		map[string]string{"User-Agent": chromeUA, "X-Folio-Visitor": "nl1"}); res.status != 200 {
		t.Fatalf("contact: %d %s", res.status, res.body)
	}

	tb := newTab(t, browserCtx, visitorZone)
	signIn(t, tb, s.base)
	tb.do(t, "open analytics", chromedp.Click(css(`nav a[data-page="analytics"]`)), chromedp.WaitVisible(css("#panel-source")))

	rowValues := func(dim string) []string {
		return eval[[]string](t, tb, fmt.Sprintf(`[...document.querySelectorAll('#panel-%s .rowbtn')].map((b) => b.dataset.value)`, dim))
	}
	// loaded waits until the list of a dimension is on the page.
	loaded := func(t *testing.T, dim string) {
		t.Helper()
		tb.waitFor(t, "the "+dim+" list", fmt.Sprintf(`(() => { const p = document.querySelector('#panel-%s'); return !!p && !p.hidden && !p.closest('[aria-busy]') && p.children.length > 0; })()`, dim))
	}
	// show opens the tab of a dimension and waits for its list.
	show := func(t *testing.T, tabID, dim string) {
		t.Helper()
		tb.do(t, "show "+tabID, chromedp.Click(css("#"+tabID)))
		loaded(t, dim)
	}
	tb.waitText(t, "#panel-source", "GitHub")
	if got := rowValues("source"); len(got) != 2 || got[0] != "GitHub" || got[1] != "newsletter" {
		t.Errorf("sources = %v, want GitHub then newsletter", got)
	}
	tb.waitText(t, "#panel-device", "Phone")
	if got := strings.Join(rowValues("device"), ","); got != "mobile,desktop" {
		t.Errorf("devices = %s", got)
	}
	show(t, "tab-browser", "browser")
	if got := tb.text(t, "#panel-browser"); !strings.Contains(got, "Safari") || !strings.Contains(got, "Chrome") {
		t.Errorf("browsers panel = %q", got)
	}
	show(t, "tab-os", "os")
	if got := tb.text(t, "#panel-os"); !strings.Contains(got, "iOS") || !strings.Contains(got, "Linux") {
		t.Errorf("OS panel = %q", got)
	}
	// Loopback clients have no country: the unknown row shows a globe (an icon, not an emoji a
	// font may lack) and "Unknown".
	tb.waitText(t, "#panel-country", "Unknown")
	if !eval[bool](t, tb, `!!document.querySelector('#panel-country .rowbtn[data-value="ZZ"] svg.icon-globe')`) {
		t.Error("the unknown country has no globe")
	}
	show(t, "tab-utm", "utm")
	tb.waitText(t, "#panel-utm_campaign", "spring")
	// The goal row shows visitors and the conversion rate: 1 of 3 visitors.
	show(t, "tab-event", "event")
	if got := tb.text(t, "#panel-event"); !strings.Contains(got, "signup") || !strings.Contains(got, "33.3%") {
		t.Errorf("goals panel = %q", got)
	}
	// The Conversions card: the message came from the spring campaign, 1 of its 1 visits.
	show(t, "tab-conv-utm_campaign", "conv-utm_campaign")
	tb.waitText(t, "#panel-conv-utm_campaign", "spring")
	if got := tb.text(t, "#panel-conv-utm_campaign tbody tr"); !strings.Contains(got, "spring") || !strings.Contains(got, "100%") {
		t.Errorf("conversions by campaign = %q", got)
	}
	show(t, "tab-conv-post", "conv-post")
	tb.waitText(t, "#panel-conv-post", "/blog/spring")
	// The measurements card: the outbound click, without its query.
	tb.waitText(t, "#panel-measure-outbound_link", "github.com/ada")
	if got := tb.text(t, "#realtime"); got != "3 visitors now" {
		t.Errorf("realtime = %q", got)
	}
	if got := tb.text(t, "#stat-unique .value"); got != "3" {
		t.Errorf("unique visitors = %q", got)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('.chart svg polyline').length`); n != 2 {
		t.Errorf("chart lines = %d, want this period and the previous one", n)
	}
	if got := tb.text(t, ".chart .legend"); !strings.Contains(got, "Previous period") {
		t.Errorf("chart legend = %q", got)
	}
	tb.screenshot(t, s, "analytics-01")

	// Clicking GitHub filters every panel. The page panel is then a sample of the visitors, and
	// says so; its link counts every visit.
	// The tabs chosen are kept when the page is drawn again (filtered): sources, top pages and
	// devices are the ones to read below.
	show(t, "tab-source", "source")
	show(t, "tab-page", "page")
	show(t, "tab-device", "device")
	tb.do(t, "filter by GitHub", chromedp.Click(css(`#panel-source .rowbtn[data-value="GitHub"]`)))
	tb.waitFor(t, "the filtered page", `location.hash.includes('source=GitHub') && document.querySelector('#analytics-filters .chip') !== null && document.querySelectorAll('#panel-source .rowbtn').length === 1`)
	loaded(t, "page")
	if got := tb.text(t, "#panel-page .sampled"); !strings.Contains(got, "sample of 1 in 8 visitors") {
		t.Errorf("page panel's sample note = %q", got)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#panel-source .sampled').length`); n != 0 {
		t.Errorf("the source panel (a rollup) says it is sampled")
	}
	tb.do(t, "count every visit", chromedp.Click(css("#panel-page .sampled a")))
	tb.waitFor(t, "the exact page", `location.hash.includes('exact=1') && document.querySelectorAll('.sampled').length === 0 && document.querySelectorAll('#panel-page .rowbtn').length === 2`)
	// Only the phone visitors' pages and device remain.
	loaded(t, "device")
	loaded(t, "event")
	if got := strings.Join(rowValues("device"), ","); got != "mobile" {
		t.Errorf("devices after the filter = %s", got)
	}
	if got := strings.Join(rowValues("page"), ","); got != "/projects/a,/about" {
		t.Errorf("pages after the filter = %s", got)
	}
	if got := tb.text(t, "#stat-visits .value"); got != "2" {
		t.Errorf("filtered visits = %q", got)
	}
	if got := rowValues("event"); len(got) != 0 {
		t.Errorf("goals after the filter = %v, want none (the goal came from the newsletter)", got)
	}
	// A second filter narrows further; the chips say what is applied.
	show(t, "tab-exit_page", "exit_page")
	tb.do(t, "filter by exit page", chromedp.Click(css(`#panel-exit_page .rowbtn[data-value="/about"]`)))
	tb.waitFor(t, "two filters", `document.querySelectorAll('#analytics-filters .chip').length === 2 && document.querySelector('#stat-visits .value').textContent === '1'`)
	show(t, "tab-page", "page")
	tb.waitFor(t, "the filtered pages", `document.querySelectorAll('#panel-page .rowbtn').length === 2`)
	tb.screenshot(t, s, "analytics-02-filtered")

	// The CSV link downloads the same breakdown, filters included, as text/csv.
	href := eval[string](t, tb, `document.querySelector('#panel-page a.csv').getAttribute('href')`)
	if !strings.Contains(href, "format=csv") || !strings.Contains(href, "source=GitHub") || !strings.Contains(href, "exit_page=%2Fabout") {
		t.Errorf("csv link = %q", href)
	}
	eval[bool](t, tb, `(window.csvDownload = null, fetch(document.querySelector('#panel-page a.csv').href)
		.then(async (r) => { window.csvDownload = r.headers.get('content-type') + '\n' + await r.text(); }), true)`)
	tb.waitFor(t, "the CSV download", `window.csvDownload !== null`)
	csv := eval[string](t, tb, `window.csvDownload`)
	if !strings.HasPrefix(csv, "text/csv") || !strings.Contains(csv, "value,visitors,pageViews,visits") || !strings.Contains(csv, "/about,1,1,1") {
		t.Errorf("csv download = %q", csv)
	}

	// Removing the filters brings every visitor back.
	tb.do(t, "clear the filters", chromedp.Click(css("#clear-filters")))
	tb.waitFor(t, "the unfiltered page", `document.querySelectorAll('#analytics-filters .chip').length === 0 && document.querySelectorAll('#panel-source .rowbtn').length === 2`)
	if got := tb.text(t, "#stat-unique .value"); got != "3" {
		t.Errorf("unique visitors after clearing = %q", got)
	}

	// Filtered by a page without exact=1, the headline figures (the date breakdown) are a sample
	// too, and say so under the chart.
	eval[bool](t, tb, `(location.hash = '#/analytics/days=30&page=%2Fabout', true)`)
	tb.waitFor(t, "the page-filtered view", `document.querySelector('#analytics-filters .chip') !== null && document.querySelector('.analytics > .sampled') !== null`)
	if got := tb.text(t, ".analytics > .sampled"); !strings.Contains(got, "sample of 1 in 8 visitors") {
		t.Errorf("headline sample note = %q", got)
	}
}
