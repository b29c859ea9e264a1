package webui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/foliohq/folio/internal/cli"
)

// The first hour: a brand-new folio (no user, nothing configured but the defaults, the default
// rate limits) walked by a browser from the first start to a published post and a booked
// meeting, through every state the dashboard has: the "no user yet" sign-in, a rate-limited
// sign-in that says when to retry, empty states, features that are not configured, the demo
// data and its chart, a session that ends during an edit, the dashboard's own dialogs, toasts,
// validation messages and keyboard shortcuts, on a desktop and on a phone in dark mode.

const firstOwnerPassword = "first-hour-password-1234"

// freshSite runs folio in-process on an empty data directory with the given extra variables.
type freshSite struct {
	*site
	env  map[string]string
	logs func() string
}

func startFresh(t *testing.T, extra map[string]string) *freshSite {
	t.Helper()
	env := maps.Clone(extra)
	if env == nil {
		env = map[string]string{}
	}
	s, logs := launchFolio(t, env)
	return &freshSite{site: s, env: env, logs: logs}
}

// command runs a folio subcommand against the site's configuration (as its owner would in a
// second terminal), with stdin as standard input.
func (f *freshSite) command(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	err := cli.Run(context.Background(), args, cli.Env{Getenv: func(k string) string { return f.env[k] },
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatalf("folio %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// darkMode makes the tab report prefers-color-scheme: dark.
func darkMode(t *testing.T, tb *tab) {
	t.Helper()
	if _, err := chromedp.Call(tb.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatalf("dark mode: %v", err)
	}
}

// top scrolls to the top so full-page screenshots show the page from its start.
func (tb *tab) top(t *testing.T) {
	t.Helper()
	tb.do(t, "scroll to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
}

// evalAwait evaluates a JavaScript expression that returns a promise and decodes its value.
func evalAwait[T any](t *testing.T, tb *tab, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 45*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// noOverlap fails when two of the elements matching sel overlap on screen.
func noOverlap(t *testing.T, tb *tab, sel, what string) {
	t.Helper()
	js := fmt.Sprintf(`(() => {
		const r = [...document.querySelectorAll(%s)].map((e) => e.getBoundingClientRect()).filter((b) => b.width > 0);
		for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++) {
			const a = r[i], b = r[j];
			if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) return i + ' and ' + j;
		}
		return r.length ? '' : 'none drawn';
	})()`, jsString(sel))
	if got := eval[string](t, tb, js); got != "" {
		t.Errorf("%s: %s overlap", what, got)
	}
}

func TestFirstHour(t *testing.T) {
	f := startFresh(t, nil) // the default rate limits: the walk must not lock anybody out
	browser := newBrowser(t)
	desk := newTab(t, browser, visitorZone)
	phone := newTab(t, browser, visitorZone, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	darkMode(t, phone)

	t.Run("first start", func(t *testing.T) {
		logs := f.logs()
		for _, want := range []string{"the dashboard is at " + f.base + "/admin/", "no owner exists yet", "folio user create", "RATE_LIMIT_HELPER_PER_HOUR"} {
			if !strings.Contains(logs, want) {
				t.Errorf("the start log does not say %q", want)
			}
		}
		// / leads to the dashboard, which says that nobody can sign in yet and how to change that.
		desk.do(t, "open the site", chromedp.Navigate(f.base+"/"), chromedp.WaitVisible(css("#login-form")))
		if u := eval[string](t, desk, `location.pathname`); u != "/admin/" {
			t.Errorf("/ led to %s, want /admin/", u)
		}
		desk.waitText(t, "#setup-notice", "No user exists yet")
		desk.waitText(t, "#setup-notice", "folio user create")
		if !eval[bool](t, desk, `!!document.querySelector('link[rel=icon]') && getComputedStyle(document.body).colorScheme !== ''`) {
			t.Error("no favicon link")
		}
		desk.screenshot(t, f.site, "30-first-start-no-owner")
		phone.do(t, "open the site on a phone", chromedp.Navigate(f.base+"/"), chromedp.WaitVisible(css("#setup-notice")))
		if w := eval[int](t, phone, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("sign-in page width on a 390 px phone: %d px", w)
		}
		phone.screenshot(t, f.site, "30-first-start-no-owner-phone-dark")

		// Someone guessing at an address runs into the login limit, and the form says when to
		// try again; that address's limit does not touch the owner's.
		for i := 0; i < 6; i++ {
			desk.do(t, "guess", chromedp.Evaluate[chromedp.Void](`document.querySelector('#login-form input[name=password]').value = ''`),
				chromedp.Evaluate[chromedp.Void](`document.querySelector('#login-form input[name=email]').value = 'intruder@example.com'`),
				chromedp.SendKeys(css("#login-form input[name=password]"), fmt.Sprintf("guess-%d", i)),
				chromedp.Click(css("#login-form button[type=submit]")))
			desk.waitFor(t, "the answer", `!document.querySelector('#login-form button[type=submit]').disabled && document.querySelector('#login-form .status').textContent !== ''`)
			if strings.Contains(desk.text(t, "#login-form .status"), "Try again in") {
				break
			}
			desk.do(t, "clear", chromedp.Evaluate[chromedp.Void](`document.querySelector('#login-form .status').textContent = ''`))
		}
		desk.waitText(t, "#login-form .status", "Try again in")
		desk.waitText(t, "#login-form .status", "(at ")
		desk.screenshot(t, f.site, "31-sign-in-rate-limited")

		// The owner is made in a second terminal, the password on stdin (not in shell history).
		out := f.command(t, firstOwnerPassword+"\n", "user", "create", "--email", adminEmail, "--name", "Olive Owner", "--role", "owner")
		if !strings.Contains(out, "created owner") {
			t.Fatalf("user create: %q", out)
		}
		desk.do(t, "check again", chromedp.Click(css("#setup-recheck")))
		desk.waitFor(t, "the notice to go", `!document.querySelector('#setup-notice')`)
		desk.do(t, "sign in",
			chromedp.Evaluate[chromedp.Void](`document.querySelector('#login-form input[name=email]').value = ''; document.querySelector('#login-form input[name=password]').value = ''`),
			chromedp.SendKeys(css("#login-form input[name=email]"), adminEmail),
			chromedp.SendKeys(css("#login-form input[name=password]"), firstOwnerPassword),
			chromedp.Click(css("#login-form button[type=submit]")),
			chromedp.WaitVisible(css("#overview-empty")))
		res := f.api(t, "POST", "/api/auth/login", map[string]string{"email": adminEmail, "password": firstOwnerPassword}, nil)
		if res.status != 200 {
			t.Fatalf("API sign-in of the owner: %d %s", res.status, res.body)
		}
	})

	t.Run("empty states and features", func(t *testing.T) {
		// The overview without data shows the tracking snippet instead of zeros.
		snippet := desk.text(t, "#tracking-snippet")
		if want := `<script defer src="` + f.base + `/api/analytics/script.js"></script>`; snippet != want {
			t.Errorf("tracking snippet: %q, want %q", snippet, want)
		}
		desk.screenshot(t, f.site, "32-overview-empty")
		phone.do(t, "overview on a phone", chromedp.Navigate(f.base+"/admin/#/overview"), chromedp.Reload(), chromedp.WaitVisible(css("#overview-empty")))
		if w := eval[int](t, phone, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("empty overview width on a 390 px phone: %d px", w)
		}
		phone.screenshot(t, f.site, "32-overview-empty-phone-dark")
		phone.do(t, "media on a phone", chromedp.Navigate(f.base+"/admin/#/media"), chromedp.WaitVisible(css("#ai-note")))
		phone.screenshot(t, f.site, "38-media-not-configured-phone-dark")
		for _, c := range []struct{ hash, sel, want, shot string }{
			{"#/posts", "#posts-empty", "Write a post", "33-posts-empty"},
			{"#/projects", "#projects-empty", "Add a project", "34-projects-empty"},
			{"#/inbox", "#inbox-empty", "contact form", "35-inbox-empty"},
			{"#/bookings", "#bookings-empty", "booking page", "36-bookings-empty"},
			{"#/settings/keys", "#keys-empty", "Create one above", "37-keys-empty"},
		} {
			desk.do(t, "open "+c.hash, chromedp.Navigate(f.base+"/admin/"+c.hash), chromedp.WaitVisible(css(c.sel)))
			desk.waitText(t, c.sel, c.want)
			desk.screenshot(t, f.site, c.shot)
		}
		// Image generation is not configured: instead of its form, one line names the variable.
		desk.do(t, "media", chromedp.Navigate(f.base+"/admin/#/media"), chromedp.WaitVisible(css("#media-empty")))
		desk.waitText(t, "#ai-note", "IMAGE_API_KEY")
		if eval[bool](t, desk, `!!document.querySelector('#ai-form')`) {
			t.Error("the image generation form is shown without IMAGE_API_KEY")
		}
		desk.screenshot(t, f.site, "38-media-not-configured")
		desk.do(t, "features", chromedp.Navigate(f.base+"/admin/#/settings/features"), chromedp.WaitVisible(css("#features-list")))
		for _, want := range []string{"IMAGE_API_KEY", "EXTBLOG_API_TOKEN", "SMTP_HOST", "REDIS_URL", "S3_BUCKET"} {
			desk.waitText(t, "#features-list", want)
		}
		desk.screenshot(t, f.site, "39-features")
	})

	t.Run("demo data and the chart", func(t *testing.T) {
		out := f.command(t, "", "seed", "--demo")
		if !strings.Contains(out, "sample analytics events") {
			t.Fatalf("seed --demo: %q", out)
		}
		desk.do(t, "overview", chromedp.Navigate(f.base+"/admin/#/overview/30"), chromedp.Reload(), chromedp.WaitVisible(css(".chart svg")))
		if v := desk.text(t, "#stat-views .value"); v == "0" {
			t.Errorf("page views after seed --demo: %s", v)
		}
		// Ticks are whole numbers in round steps, from 0; labels never overlap.
		ticks := eval[[]string](t, desk, `[...document.querySelectorAll('.chart .y-tick')].map((e) => e.textContent)`)
		if len(ticks) < 2 || ticks[0] != "0" {
			t.Errorf("y ticks: %v", ticks)
		}
		for _, tk := range ticks {
			if strings.ContainsAny(tk, ".,") {
				t.Errorf("y tick %q is not a whole number", tk)
			}
		}
		noOverlap(t, desk, ".chart .x-tick", "x labels on a desktop")
		noOverlap(t, desk, ".chart .y-tick", "y labels on a desktop")
		desk.do(t, "point at a day", chromedp.Click(css(".chart svg")))
		desk.waitText(t, ".chart .readout", "visitors")
		desk.screenshot(t, f.site, "40-overview-demo")
	})

	t.Run("phone, dark", func(t *testing.T) {
		phone.do(t, "overview on a phone", chromedp.Navigate(f.base+"/admin/#/overview/30"), chromedp.Reload(), chromedp.WaitVisible(css(".chart svg")))
		if bg := eval[string](t, phone, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(14, 17, 22)" {
			t.Errorf("dark mode background: %s, want the dark theme's rgb(14, 17, 22)", bg)
		}
		if w := eval[int](t, phone, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("overview width on a 390 px phone: %d px", w)
		}
		noOverlap(t, phone, ".chart .x-tick", "x labels on a phone")
		// Labels are at least 11 CSS px tall on the phone's screen.
		if px := eval[float64](t, phone, `document.querySelector('.chart .x-tick').getBoundingClientRect().height`); px < 11 {
			t.Errorf("chart labels on a phone are %.1f px tall, want ≥ 11", px)
		}
		phone.do(t, "tap the chart", chromedp.Click(css(".chart svg")))
		phone.waitText(t, ".chart .readout", "page views")
		phone.top(t)
		phone.screenshot(t, f.site, "41-overview-phone-dark")
		phone.do(t, "posts on a phone", chromedp.Navigate(f.base+"/admin/#/posts"), chromedp.WaitVisible(css("#posts-table")))
		phone.screenshot(t, f.site, "42-posts-phone-dark")
		phone.do(t, "editor on a phone", chromedp.Navigate(f.base+"/admin/#/posts/new"), chromedp.WaitVisible(css("#post-form")))
		if w := eval[int](t, phone, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("editor width on a 390 px phone: %d px", w)
		}
		phone.screenshot(t, f.site, "43-editor-phone-dark")
	})

	var slug string
	t.Run("write and publish a post, surviving the end of the session", func(t *testing.T) {
		desk.do(t, "posts", chromedp.Navigate(f.base+"/admin/#/posts"), chromedp.WaitVisible(css("#posts-table")))
		// "n" opens a new post.
		desk.do(t, "press n", chromedp.KeyEvent("n"), chromedp.WaitVisible(css("#post-form")))
		desk.do(t, "write",
			chromedp.SendKeys(css("#post-form input[name=title]"), "My first hour"),
			chromedp.SendKeys(css("#post-content"), "Setting up folio:\n\n- [x] start it\n- [ ] tell everyone\n"),
			chromedp.Click(css(`#editor-view [data-value="split"]`)))
		// The preview comes from the server's renderer: task lists are checkboxes, as published.
		desk.waitFor(t, "the task list in the preview", `document.querySelectorAll('#post-preview input[type=checkbox]').length === 2`)
		if !eval[bool](t, desk, `document.querySelector('#post-preview input[type=checkbox]').checked && document.querySelector('#post-preview input[type=checkbox]').disabled`) {
			t.Error("the preview's first task is not a checked, disabled checkbox")
		}
		// The session ends while the post is being written (another tab signed out).
		if ok := evalAwait[bool](t, desk, `fetch('/api/auth/logout', { method: 'POST', credentials: 'same-origin' }).then((r) => r.ok)`); !ok {
			t.Fatal("signing out from the page failed")
		}
		desk.do(t, "keep writing", chromedp.SendKeys(css("#post-content"), "\nWritten before the session ended."))
		// The live preview notices quietly; the sign-in dialog waits for an action of the writer's.
		desk.waitText(t, "#post-preview", "session has ended")
		if eval[bool](t, desk, `!!document.querySelector('#reauth-dialog')`) {
			t.Error("the sign-in dialog opened while the writer was typing")
		}
		desk.do(t, "publish with one save",
			chromedp.SetValue(css("#publish-status"), "published"),
			chromedp.Click(css("#save-post")),
			chromedp.WaitVisible(css("#reauth-dialog")))
		if got := eval[string](t, desk, `document.querySelector('#post-content').value`); !strings.Contains(got, "Written before the session ended.") {
			t.Errorf("the editor lost its content when the session ended: %q", got)
		}
		desk.screenshot(t, f.site, "44-session-ended-dialog")
		desk.do(t, "sign in again", chromedp.SendKeys(css("#reauth-dialog input[name=password]"), firstOwnerPassword),
			chromedp.Click(css("#reauth-submit")))
		desk.waitText(t, "#toasts", "“My first hour” is published.")
		desk.waitText(t, "#publish-state", "Published")
		desk.top(t)
		desk.screenshot(t, f.site, "45-post-published")
		slug = eval[string](t, desk, `document.querySelector('#post-form input[name=slug]').value`)

		pub := &http.Client{Timeout: 10 * time.Second}
		res, err := pub.Get(f.base + "/api/blog/" + slug)
		if err != nil {
			t.Fatal(err)
		}
		var post struct{ Status, Content, ContentHTML string }
		json.NewDecoder(res.Body).Decode(&post)
		res.Body.Close()
		if res.StatusCode != 200 || post.Status != "published" || !strings.Contains(post.Content, "Written before the session ended.") {
			t.Fatalf("public post %s: %d %+v", slug, res.StatusCode, post)
		}
		if strings.Count(post.ContentHTML, `type="checkbox"`) != 2 {
			t.Errorf("published HTML lacks the task list: %s", post.ContentHTML)
		}
	})

	t.Run("dialogs, validation, shortcuts", func(t *testing.T) {
		desk.do(t, "new project", chromedp.Navigate(f.base+"/admin/#/projects/new"), chromedp.WaitVisible(css("#project-form")),
			chromedp.SendKeys(css("#project-form input[name=demoUrl]"), "not a url"),
			chromedp.Click(css("#project-form button[type=submit]")))
		// The message names the form's labels, not the JSON fields.
		desk.waitText(t, "main .status", "Title:")
		if s := desk.text(t, "main .status"); strings.Contains(s, "demoUrl") {
			t.Errorf("the validation message names a JSON field: %q", s)
		}
		desk.screenshot(t, f.site, "46-validation")
		desk.do(t, "fix and save",
			chromedp.SendKeys(css("#project-form input[name=title]"), "Short-lived project"),
			chromedp.SendKeys(css("#project-form textarea[name=description]"), "Made to be deleted."),
			chromedp.Evaluate[chromedp.Void](`document.querySelector('#project-form input[name=demoUrl]').value = ''`),
			chromedp.KeyEvent("s", chromedp.KeyModifiers(chromedp.ModifierCtrl)), // Ctrl+S saves the form
		)
		desk.waitText(t, "#toasts", "Created “Short-lived project”")
		desk.do(t, "projects", chromedp.Navigate(f.base+"/admin/#/projects"), chromedp.WaitVisible(css("#projects-table")))
		// Row actions are in the row's menu; Delete is marked as the dangerous one.
		menu := `#projects-table button[aria-label="Actions for Short-lived project"]`
		desk.openMenu(t, menu)
		desk.do(t, "delete", chromedp.Click(css(`.menu:popover-open [id^="delete-"]`)), chromedp.WaitVisible(css("#confirm-dialog")))
		if cls := eval[string](t, desk, `document.querySelector('#projects-table .menu [id^="delete-"]').className`); cls != "menu-item danger" {
			t.Errorf("the menu's delete item is %q, want the danger style", cls)
		}
		desk.screenshot(t, f.site, "47-confirm-dialog")
		desk.do(t, "cancel", chromedp.Click(css("#confirm-cancel")))
		desk.waitFor(t, "the dialog to close", `!document.querySelector('#confirm-dialog')`)
		desk.waitText(t, "#projects-table", "Short-lived project")
		desk.openMenu(t, menu)
		desk.do(t, "delete for real", chromedp.Click(css(`.menu:popover-open [id^="delete-"]`)), chromedp.WaitVisible(css("#confirm-dialog")),
			chromedp.Click(css("#confirm-ok")))
		desk.waitText(t, "#toasts", "Deleted “Short-lived project”")
		desk.waitFor(t, "the row to go", `!document.querySelector('#projects-table')?.textContent.includes('Short-lived project')`)

		desk.do(t, "press ?", chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`), chromedp.KeyEvent("?"), chromedp.WaitVisible(css("#shortcuts-dialog")))
		desk.waitText(t, "#shortcuts-dialog", "Go to Overview")
		desk.screenshot(t, f.site, "48-shortcuts")
		desk.do(t, "close", chromedp.Click(css("#shortcuts-close")))
		desk.waitFor(t, "the dialog to close", `!document.querySelector('#shortcuts-dialog')`)
		desk.do(t, "g then b", chromedp.KeyEvent("g"), chromedp.KeyEvent("b"))
		desk.waitFor(t, "the bookings page", `location.hash === '#/bookings'`)
	})

	t.Run("book a meeting", func(t *testing.T) {
		date := bookingDate(t)
		phone.do(t, "open /book", chromedp.Navigate(f.base+"/book"), chromedp.WaitVisible(css("#step-when")))
		pickBookingDay(t, phone, date)
		phone.do(t, "choose the first time", chromedp.Click(css("#slots button")), chromedp.Click(css("#time-confirm")), chromedp.WaitVisible(css("#details-form")),
			chromedp.SendKeys(css("#name"), "Grace Visitor"), chromedp.SendKeys(css("#email"), "grace@example.com"),
			chromedp.Click(css("#confirm")), chromedp.WaitVisible(css("#step-done")))
		phone.screenshot(t, f.site, "49-booked-phone-dark")
		desk.do(t, "bookings", chromedp.Navigate(f.base+"/admin/#/bookings"), chromedp.Reload(), chromedp.WaitVisible(css("#bookings-table")))
		desk.waitText(t, "#bookings-table", "Grace Visitor")
		desk.screenshot(t, f.site, "50-bookings")
	})

	t.Run("chart helpers", func(t *testing.T) {
		got := evalAwait[string](t, desk, `import('/admin/chart.js').then((m) => JSON.stringify({
			t0: m.niceTicks(0), t3: m.niceTicks(3), t7: m.niceTicks(7), t37: m.niceTicks(37), t1234: m.niceTicks(1234),
			l30: m.labelIndexes(30, 24, 55), l7: m.labelIndexes(7, 100, 55), f: [m.formatCount(1500), m.formatCount(20000), m.formatCount(40)],
		}))`)
		want := `{"t0":[0,1],"t3":[0,1,2,3],"t7":[0,2,4,6,8],"t37":[0,10,20,30,40],"t1234":[0,500,1000,1500],` +
			`"l30":[0,3,6,9,12,15,18,21,24,29],"l7":[0,1,2,3,4,5,6],"f":["1.5k","20k","40"]}`
		if got != want {
			t.Errorf("chart helpers:\n got %s\nwant %s", got, want)
		}
	})
}
