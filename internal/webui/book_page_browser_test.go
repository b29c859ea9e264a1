package webui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// bookLook is one way a visitor sees /book: a 390 px phone or a desktop window, in the light or
// the dark theme of their system.
type bookLook struct {
	name  string
	phone bool
	dark  bool
}

// TestBrowserBookPage drives /book as a new visitor does, in each look: the host card names the
// host and the meeting; an empty submit marks the field where it is; a chosen time waits for
// Confirm, when booking and when moving the booking; the done page says "booked" once and offers
// Join meeting and Add to calendar. Every screen fits the viewport, meets WCAG AA contrast, and
// leaves the console clean; the embed script still sizes its frame.
func TestBrowserBookPage(t *testing.T) {
	findChromium(t) // skip before starting anything when there is no browser
	// An embedding site: a page of another origin that puts /book in a frame with embed.js.
	var folioBase atomic.Pointer[string]
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Elsewhere</title><h1>Book with me</h1><div id="booking"></div>
<script src="%s/book/embed.js" data-target="#booking" async></script>`, *folioBase.Load())
	}))
	t.Cleanup(host.Close)
	s := startFolioWith(t, map[string]string{"BOOKING_EMBED_ORIGINS": host.URL})
	folioBase.Store(&s.base)

	// The host card's sources: the owner's profile and the one meeting type.
	if res := s.api(t, "PUT", "/api/user/profile", map[string]string{"name": "Olive Owner"}, nil); res.status != 200 {
		t.Fatalf("profile: %d %s", res.status, res.body)
	}
	if res := s.api(t, "POST", "/api/schedule/types", map[string]any{"title": "Portfolio review", "durationMinutes": 45,
		"description": "We look at your site together."}, nil); res.status != 201 {
		t.Fatalf("meeting type: %d %s", res.status, res.body)
	}

	browserCtx := newBrowser(t)
	axe := axeSource(t)
	for i, look := range []bookLook{{"phone-light", true, false}, {"phone-dark", true, true}, {"desktop-light", false, false}, {"desktop-dark", false, true}} {
		t.Run(look.name, func(t *testing.T) {
			// One address per look: BOOKING_MAX_PER_EMAIL_PER_DAY counts per address.
			browseBookPage(t, s, newLookTab(t, browserCtx, look), look, fmt.Sprintf("visitor%d@example.com", i), axe)
		})
	}

	t.Run("embedded", func(t *testing.T) {
		tb := newLookTab(t, browserCtx, bookLook{name: "desktop-light"})
		tb.do(t, "open the embedding page", chromedp.Navigate(host.URL), chromedp.WaitReady(css("#booking iframe")))
		// The booking page reports its height once it has drawn its host card and month (the
		// frame starts at 36rem, 576 px).
		tb.waitFor(t, "the frame to be sized by the booking page", `parseInt(document.querySelector('#booking iframe').style.height) > 700`)
		tb.screenshot(t, s, "book-embedded-desktop-light")
	})
}

// newLookTab opens a tab in the visitor's zone with look's viewport and colour scheme.
func newLookTab(t *testing.T, browserCtx context.Context, look bookLook) *tab {
	t.Helper()
	viewport := chromedp.EmulateViewport(1280, 900)
	if look.phone {
		viewport = phoneViewport(844)
	}
	tb := newTab(t, browserCtx, visitorZone, viewport)
	scheme := "light"
	if look.dark {
		scheme = "dark"
	}
	if _, err := chromedp.Call(tb.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		t.Fatalf("emulate %s: %v", scheme, err)
	}
	return tb
}

// phoneViewport is a 390 px wide phone showing height px of the page.
func phoneViewport(height int64) chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(390, height, chromedp.EmulateScale(2), chromedp.EmulateMobile)
}

// browseBookPage books a meeting on /book in one look as email, then moves it from the manage
// link, checking each screen.
func browseBookPage(t *testing.T, s *site, tb *tab, look bookLook, email, axe string) {
	shot := func(screen string) {
		t.Helper()
		checkBookScreen(t, tb, screen, look, axe)
		tb.screenshot(t, s, fmt.Sprintf("book-%s-%s", look.name, screen))
	}
	date := bookingDate(t)
	tb.do(t, "open /book", chromedp.Navigate(s.base+"/book"), chromedp.WaitVisible(css("#step-when")))
	if look.dark != eval[bool](t, tb, `matchMedia('(prefers-color-scheme: dark)').matches`) {
		t.Fatalf("the page's colour scheme is not %s", look.name)
	}

	// The host card: who, what, how long, where.
	tb.waitText(t, "#host-name", "Olive Owner")
	for sel, want := range map[string]string{"#title": "Portfolio review", "#fact-length": "45 minutes", "#fact-place": "Video call",
		"#type-about": "We look at your site together.", "#host-avatar": "OO"} {
		if got := tb.text(t, sel); strings.TrimSpace(got) != want {
			t.Errorf("host card %s: got %q, want %q", sel, got, want)
		}
	}
	if got := eval[string](t, tb, `document.title`); got != "Book a meeting with Olive Owner" {
		t.Errorf("page title: %q", got)
	}

	// A chosen time is marked and waits for Confirm.
	pickBookingDay(t, tb, date)
	start := eval[string](t, tb, `document.querySelector('#slots button').dataset.start`)
	chooseTime(t, tb, start)
	shot("1-time-chosen")
	tb.do(t, "confirm the time", chromedp.Click(css("#time-confirm")), chromedp.WaitVisible(css("#details-form")))
	if got := eval[string](t, tb, `document.activeElement.id`); got != "h-details" {
		t.Errorf("focus after Confirm: #%s, want the details heading", got)
	}
	// A heading focused by the script shows no ring; a control reached with the keyboard does.
	if got := eval[string](t, tb, `getComputedStyle(document.activeElement).outlineStyle`); got != "none" {
		t.Errorf("the focused heading has an outline (%s)", got)
	}
	tb.do(t, "tab to the first control", chromedp.KeyEvent(kb.Tab))
	if got := eval[string](t, tb, `document.activeElement.matches(':focus-visible') ? getComputedStyle(document.activeElement).outlineStyle : 'not focus-visible'`); got == "none" || got == "not focus-visible" {
		t.Errorf("a control reached by Tab shows no focus ring (%s, on #%s)", got, eval[string](t, tb, `document.activeElement.id`))
	}

	// An empty submit: the name field is marked, described by its message, in a live region,
	// and on screen even when the visitor had scrolled to the button — on a phone with its
	// on-screen keyboard open, which leaves 400 px of the page.
	if look.phone {
		tb.do(t, "open the keyboard", phoneViewport(400))
	}
	tb.do(t, "scroll to the bottom", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.documentElement.scrollHeight)`))
	nameInView := `(() => { const r = document.querySelector('#name').closest('.field').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`
	if look.phone && eval[bool](t, tb, nameInView) {
		t.Error("the name field is on screen with the page scrolled to its end: the test does not show the scroll")
	}
	tb.do(t, "submit empty", chromedp.Evaluate[chromedp.Void](`document.querySelector('#confirm').click()`))
	tb.waitText(t, "#name-error", "Please enter your name.")
	checks := map[string]string{
		`document.querySelector('#name').getAttribute('aria-invalid')`:                                                      "true",
		`document.querySelector('#name').getAttribute('aria-describedby').split(' ').includes('name-error') ? 'yes' : 'no'`: "yes",
		`document.querySelector('#name-error').closest('[aria-live]') ? 'yes' : 'no'`:                                       "yes",
		`document.querySelector('#email').getAttribute('aria-invalid')`:                                                     "true",
		`document.activeElement.id`: "name",
		`document.querySelector('#status').textContent + document.querySelector('#details-status').textContent`: "",
	}
	for expr, want := range checks {
		if got := eval[string](t, tb, expr); got != want {
			t.Errorf("after an empty submit, %s: got %q, want %q", expr, got, want)
		}
	}
	if !eval[bool](t, tb, nameInView) {
		t.Error("after an empty submit the name field is not on screen")
	}
	if look.phone {
		tb.do(t, "close the keyboard", phoneViewport(844))
	}
	shot("2-empty-submit")
	tb.do(t, "details", chromedp.SendKeys(css("#name"), "Vic Visitor"), chromedp.SendKeys(css("#email"), email))
	if got := eval[string](t, tb, `(document.querySelector('#name').getAttribute('aria-invalid') || '') + document.querySelector('#name-error').textContent`); got != "" {
		t.Errorf("the name field is still marked after typing a name: %q", got)
	}
	tb.do(t, "book", chromedp.Click(css("#confirm")), chromedp.WaitVisible(css("#step-done")))

	// One done page: "booked" once, a short Join meeting button, Add to calendar.
	if n := eval[int](t, tb, `(document.querySelector('main').innerText.match(/booked/gi) || []).length`); n != 1 {
		t.Errorf("the done page says \"booked\" %d times, want once:\n%s", n, eval[string](t, tb, `document.querySelector('main').innerText`))
	}
	tb.waitText(t, "#done-summary", "Portfolio review with Olive Owner")
	tb.waitText(t, "#done-mail", email)
	if got := strings.TrimSpace(tb.text(t, "#meet-link")); got != "Join meeting" {
		t.Errorf("join button text %q", got)
	}
	if href := eval[string](t, tb, `document.querySelector('#meet-link').href`); !strings.HasPrefix(href, "https://meet.jit.si/folio-") {
		t.Errorf("join button link %q", href)
	}
	if got := eval[float64](t, tb, `document.querySelector('#meet-link').getBoundingClientRect().height`); got > 60 {
		t.Errorf("the join button is %.0f px high: the link wraps", got)
	}
	if got := strings.TrimSpace(tb.text(t, "#ics-link")); got != "Add to calendar" {
		t.Errorf("calendar button text %q", got)
	}
	ics, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`fetch(document.querySelector('#ics-link').href).then(async (r) => r.headers.get('content-type') + '\n' + await r.text())`, chromedp.EvalAwaitPromise))
	if err != nil || !strings.HasPrefix(ics, "text/calendar") || !strings.Contains(ics, "BEGIN:VEVENT") || !strings.Contains(ics, "SUMMARY:Meeting with ") {
		t.Errorf("Add to calendar: %v\n%s", err, ics)
	}
	shot("3-done")

	// Move it from the manage link: again a chosen time waits for Confirm.
	manage := eval[string](t, tb, `document.querySelector('#manage-link').href`)
	tb.do(t, "open the manage link", chromedp.Navigate(manage), chromedp.WaitVisible(css("#step-manage")))
	tb.waitText(t, "#manage-summary", "Vic Visitor")
	tb.waitText(t, "#title", "Portfolio review")
	if got := strings.TrimSpace(tb.text(t, "#manage-meet")) + "|" + strings.TrimSpace(tb.text(t, "#manage-ics")); got != "Join meeting|Add to calendar" {
		t.Errorf("manage view buttons: %q", got)
	}
	shot("4-manage")
	tb.do(t, "pick a new time", chromedp.Click(css("#manage-reschedule")), chromedp.WaitVisible(css("#step-when")))
	next, _ := time.Parse("2006-01-02", date)
	pickBookingDay(t, tb, next.AddDate(0, 0, 1).Format("2006-01-02"))
	target := eval[string](t, tb, `document.querySelector('#slots button').dataset.start`)
	chooseTime(t, tb, target)
	tb.waitText(t, "#time-confirm", "Confirm new time")
	token := manage[strings.LastIndex(manage, "/")+1:]
	var st struct{ StartTime string }
	s.api(t, "GET", "/api/schedule/bookings/"+token, nil, nil).decode(t, &st)
	if st.StartTime != start {
		t.Errorf("choosing a time moved the booking before Confirm: %s, booked %s", st.StartTime, start)
	}
	shot("5-move-chosen")
	tb.do(t, "confirm the move", chromedp.Click(css("#time-confirm")), chromedp.WaitVisible(css("#step-manage")))
	tb.waitText(t, "#status", "Moved to")
	s.api(t, "GET", "/api/schedule/bookings/"+token, nil, nil).decode(t, &st)
	if st.StartTime != target {
		t.Errorf("after Confirm the booking starts at %s, want %s", st.StartTime, target)
	}
	shot("6-moved")
}

// chooseTime taps the time that starts at start and checks it is marked chosen, looks unlike
// the others, and waits for Confirm (in view) without leaving the time step.
func chooseTime(t *testing.T, tb *tab, start string) {
	t.Helper()
	sel := fmt.Sprintf(`#slots button[data-start=%s]`, jsString(start))
	tb.do(t, "choose a time", chromedp.Click(css(sel)), chromedp.WaitVisible(css("#time-confirm")))
	if got := eval[string](t, tb, fmt.Sprintf(`document.querySelector(%s).getAttribute('aria-pressed')`, jsString(sel))); got != "true" {
		t.Errorf("the chosen time's aria-pressed: %q", got)
	}
	if n := eval[int](t, tb, `document.querySelectorAll('#slots button[aria-pressed=true]').length`); n != 1 {
		t.Errorf("%d times are marked chosen", n)
	}
	other := `document.querySelector('#slots button[aria-pressed=false]')`
	if eval[bool](t, tb, other+` !== null`) && eval[bool](t, tb, fmt.Sprintf(`getComputedStyle(document.querySelector(%s)).backgroundColor === getComputedStyle(%s).backgroundColor`, jsString(sel), other)) {
		t.Error("the chosen time looks like the others")
	}
	if !eval[bool](t, tb, `!document.querySelector('#step-when').hidden && document.querySelector('#step-details').hidden`) {
		t.Error("one tap on a time left the time step")
	}
	if !eval[bool](t, tb, `(() => { const r = document.querySelector('#time-confirm').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`) {
		t.Error("the Confirm button is not on screen after choosing a time")
	}
	tb.waitText(t, "#when-live", "Chosen:")
}

// checkBookScreen checks what every screen of /book must be: no wider than the viewport, and
// every visible text at WCAG AA contrast (with axe-core's rules as well when it is installed).
func checkBookScreen(t *testing.T, tb *tab, screen string, look bookLook, axe string) {
	t.Helper()
	if w := eval[int](t, tb, `document.documentElement.scrollWidth - innerWidth`); w > 0 {
		t.Errorf("%s: the page is %d px wider than the %s viewport", screen, w, look.name)
	}
	if bad := eval[[]string](t, tb, contrastJS); len(bad) > 0 {
		t.Errorf("%s: text below WCAG AA contrast:\n%s", screen, strings.Join(bad, "\n"))
	}
	if axe == "" {
		return
	}
	violations, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](axe+`;
		axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa'] }).then((r) => r.violations.map((v) =>
			v.id + ': ' + v.help + ' — ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: axe-core: %v", screen, err)
	}
	for _, v := range violations {
		t.Errorf("%s: axe-core: %s", screen, v)
	}
}

// axeSource is axe-core's script when it is installed under testdata/axe (npm ci --prefix
// internal/webui/testdata/axe), else "" and a note: the contrast check of checkBookScreen
// still runs.
func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "axe", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Log("axe-core is not installed under testdata/axe: /book is checked with the built-in contrast check only")
		return ""
	}
	return string(b)
}

// contrastJS lists each visible text whose colour on its background is below WCAG 2 AA (4.5:1,
// or 3:1 for large text). The background is the element's and its ancestors' background
// colours blended; text of disabled controls is exempt, as WCAG exempts inactive components.
const contrastJS = `(() => {
  const parse = (c) => { const p = c.match(/[\d.]+/g).map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
  const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.a > 0) layers.push(c);
      if (c.a === 1) break;
    }
    return layers.reduceRight((under, top) => over(top, under), { r: 255, g: 255, b: 255, a: 1 });
  };
  const bad = [];
  const seen = new Set();
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const el = walk.currentNode.parentElement;
    if (!walk.currentNode.textContent.trim() || seen.has(el)) continue;
    seen.add(el);
    const cs = getComputedStyle(el);
    if (!el.getClientRects().length || cs.visibility === 'hidden' || el.closest('.visually-hidden, :disabled, option')) continue;
    const bg = background(el);
    let fg = parse(cs.color);
    if (fg.a < 1) fg = over(fg, bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(cs.fontSize);
    const need = size >= 24 || (parseInt(cs.fontWeight, 10) >= 700 && size >= 18.66) ? 3 : 4.5;
    if (ratio < need) bad.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' "' + el.textContent.trim().slice(0, 40) + '": ' + ratio.toFixed(2) + ' < ' + need);
  }
  return bad;
})()`
