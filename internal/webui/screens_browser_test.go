package webui_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// axeScript is axe-core's browser build, installed by `npm ci --prefix internal/webui/testdata/axe`
// (.ci/run does it).
const axeScript = "testdata/axe/node_modules/axe-core/axe.min.js"

// screen is one page of the dashboard (or the booking page, or the sign-in page): where it is
// and what shows that it has loaded.
type screen struct {
	name, path, ready string
}

// dashboardScreens are every screen of the dashboard, signed in as the owner.
func dashboardScreens(postID, projectID string) []screen {
	return []screen{
		{"overview", "/admin/#/overview", "#stat-views"},
		{"analytics", "/admin/#/analytics", "#panel-source .rowbtn"},
		{"posts", "/admin/#/posts", "#posts-table"},
		{"post-editor", "/admin/#/posts/" + postID, "#post-form #post-content"},
		{"post-new", "/admin/#/posts/new", "#post-form"},
		{"projects", "/admin/#/projects", "#projects-table"},
		{"project-editor", "/admin/#/projects/" + projectID, "#project-form"},
		{"media", "/admin/#/media", "#media-grid"},
		{"inbox", "/admin/#/inbox", "#messages"},
		{"comments", "/admin/#/comments", "#fediverse-followers"},
		{"subscribers", "/admin/#/subscribers", "#subscribers-table"},
		{"bookings", "/admin/#/bookings", "#bookings-table"},
		{"meeting-types", "/admin/#/schedule/types", "#types-table"},
		{"days-off", "/admin/#/schedule/availability", "#overrides-calendar button"},
		{"settings-site", "/admin/#/settings/site", "#settings-site"},
		{"settings-booking", "/admin/#/settings/booking", "#settings-booking #hours-editor"},
		{"settings-mail", "/admin/#/settings/mail", "#settings-mail"},
		{"settings-contact", "/admin/#/settings/contact", "#settings-contact"},
		{"settings-analytics", "/admin/#/settings/analytics", "#settings-analytics"},
		{"settings-newsletter", "/admin/#/settings/newsletter", "#settings-newsletter"},
		{"settings-signin", "/admin/#/settings/signin", "#provider-list"},
		{"settings-keys", "/admin/#/settings/keys", "#keys-table"},
		{"settings-webhooks", "/admin/#/settings/webhooks", "#webhooks-table"},
		{"settings-features", "/admin/#/settings/features", "#features-list"},
		{"settings-export", "/admin/#/settings/export", "#export-link"},
		{"settings-audit", "/admin/#/settings/audit", "#audit-table"},
		{"settings-profile", "/admin/#/settings/profile", "#profile-form"},
		{"settings-security", "/admin/#/settings/security", "#password-form"},
		{"book", "/book", "#slots button, #step-when"},
	}
}

// TestBrowserScreens visits every screen in light and dark mode and on a 390 px phone, with the
// demo data and hostile data (a 161-character title without spaces, long slugs and names). On
// each it saves a screenshot (to FOLIO_SCREENSHOTS, else a temporary directory), and fails on a
// console error or a failed load, on a page wider than the window, and on any serious or
// critical accessibility violation axe-core finds.
func TestBrowserScreens(t *testing.T) {
	findChromium(t)
	axe, err := os.ReadFile(axeScript)
	if err != nil {
		t.Skip("accessibility checks skipped: axe-core is not installed (npm ci --prefix internal/webui/testdata/axe)")
	}
	f := startFresh(t, map[string]string{
		"FOLIO_ADMIN_EMAIL": adminEmail, "FOLIO_ADMIN_PASSWORD": adminPassword,
		"RATE_LIMIT_HELPER_PER_HOUR": "1000", "RATE_LIMIT_PUBLIC_PER_HOUR": "100000", "RATE_LIMIT_ADMIN_PER_HOUR": "100000",
	})
	f.command(t, "", "seed", "--demo")
	postID, projectID := hostileData(t, f.site)

	browserCtx := newBrowser(t)
	desk := newTab(t, browserCtx, visitorZone)
	check := func(t *testing.T, tb *tab, name string, width int) {
		t.Helper()
		tb.mu.Lock()
		problems := append(append([]string{}, tb.problems...), tb.failedLoads...)
		tb.problems, tb.failedLoads = nil, nil
		tb.mu.Unlock()
		for _, p := range problems {
			t.Errorf("%s: browser console: %s", name, p)
		}
		if w := eval[int](t, tb, `Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)`); w > width {
			wide := eval[string](t, tb, fmt.Sprintf(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > %d + 1)
				.slice(0, 5).map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + [...e.classList].join('.')).join(', ')`, width))
			t.Errorf("%s: the page is %d px wide in a %d px window (too wide: %s)", name, w, width, wide)
		}
		tb.top(t)
		tb.screenshot(t, f.site, "screen-"+name)
		if eval[string](t, tb, `typeof axe`) == "undefined" {
			tb.do(t, "inject axe-core", chromedp.Evaluate[chromedp.Void](string(axe)))
		}
		res := evalAwait[[]axeViolation](t, tb, `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
			.filter((v) => v.impact === 'serious' || v.impact === 'critical')
			.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ' — ' + (n.failureSummary || '').split('\n').slice(1, 2).join('')) })))`)
		for _, v := range res {
			t.Errorf("%s: accessibility (%s) %s: %s\n\t%s", name, v.Impact, v.ID, v.Help, strings.Join(v.Targets, "\n\t"))
		}
	}
	visit := func(t *testing.T, tb *tab, sc screen, name string, width int) {
		t.Helper()
		tb.do(t, "open "+sc.path, chromedp.Navigate(f.base+sc.path))
		tb.waitFor(t, name+" to load", fmt.Sprintf(`!!document.querySelector(%s) && !document.querySelector('[aria-busy=true]') && document.readyState === 'complete'`, jsString(sc.ready)))
		// Lazy images and the flags sprite: wait until every image on screen has loaded.
		tb.waitFor(t, name+"'s images", `[...document.images].every((i) => i.complete)`)
		check(t, tb, name, width)
	}

	// Signed out: the sign-in page (the site's root leads there too).
	t.Run("sign-in", func(t *testing.T) {
		visit(t, desk, screen{path: "/", ready: "#login-form"}, "sign-in-light", 1280)
		darkMode(t, desk)
		visit(t, desk, screen{path: "/admin/", ready: "#login-form"}, "sign-in-dark", 1280)
		lightMode(t, desk)
	})
	desk.do(t, "sign in",
		chromedp.SendKeys(css("#login-form input[name=email]"), adminEmail),
		chromedp.SendKeys(css("#login-form input[name=password]"), adminPassword),
		chromedp.Click(css("#login-form button[type=submit]")),
		chromedp.WaitVisible(css("#stat-views")))

	screens := dashboardScreens(postID, projectID)
	t.Run("light", func(t *testing.T) {
		for _, sc := range screens {
			visit(t, desk, sc, sc.name+"-light", 1280)
		}
	})
	t.Run("dark", func(t *testing.T) {
		darkMode(t, desk)
		defer lightMode(t, desk)
		for _, sc := range screens {
			visit(t, desk, sc, sc.name+"-dark", 1280)
		}
	})
	t.Run("phone", func(t *testing.T) {
		// The phone tab shares the browser's cookies, so it is signed in too.
		phone := newTab(t, browserCtx, visitorZone, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
		for _, sc := range screens {
			visit(t, phone, sc, sc.name+"-phone", 390)
		}
		phone.do(t, "open the dashboard", chromedp.Navigate(f.base+"/admin/#/posts"), chromedp.WaitVisible(css("#posts-table")))
		phone.do(t, "open the menu", chromedp.Click(css(".menu-toggle")), chromedp.WaitVisible(css("#nav")), chromedp.WaitVisible(css("#sign-out")))
		check(t, phone, "menu-phone", 390)
	})
}

type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// lightMode undoes darkMode.
func lightMode(t *testing.T, tb *tab) {
	t.Helper()
	if _, err := chromedp.Call(tb.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}}); err != nil {
		t.Fatalf("light mode: %v", err)
	}
}

// hostileData adds what breaks layouts: a post and a project whose titles are 161 characters
// without a space, long slugs and file names, an image in both, a contact message, a
// subscriber, a booking, a key and a webhook. It returns the post's and the project's ids.
func hostileData(t *testing.T, s *site) (postID, projectID string) {
	t.Helper()
	if res := s.api(t, "POST", "/api/auth/login", map[string]string{"email": adminEmail, "password": adminPassword}, nil); res.status != 200 {
		t.Fatalf("API login: %d %s", res.status, res.body)
	}
	long := strings.Repeat("Unbreakable", 14) + "Title" // 159 characters…
	long += "XY"                                        // …161, and not one space
	img := uploadPNG(t, s, strings.Repeat("a-very-long-file-name-", 6)+"photo.png")

	res := s.api(t, "POST", "/api/posts", map[string]any{"title": long, "slug": strings.Repeat("long-slug-", 9) + "end",
		"content": "Intro.\n\n![A square](" + img + ")\n\nMore text.", "tags": []string{"layout"}}, nil)
	if res.status != 201 {
		t.Fatalf("post: %d %s", res.status, res.body)
	}
	var post struct{ ID string }
	res.decode(t, &post)

	res = s.api(t, "POST", "/api/projects", map[string]any{"title": long, "description": strings.Repeat("word ", 60),
		"status": "published", "technologies": []string{"Go", "SQLite", "A-technology-with-a-very-long-name"},
		"images": []map[string]string{{"url": img, "alt": "A square", "type": "screenshot"}}}, nil)
	if res.status != 201 {
		t.Fatalf("project: %d %s", res.status, res.body)
	}
	var project struct{ ID string }
	res.decode(t, &project)

	if res := s.api(t, "POST", "/api/contact", map[string]string{"name": "Ada " + long, "email": "ada@example.com",
		"subject": long, "message": "Hello.\n" + long}, nil); res.status != 200 {
		t.Fatalf("contact: %d %s", res.status, res.body)
	}
	if res := s.api(t, "POST", "/api/subscribers", map[string]string{"email": "reader@example.com", "name": "Reader " + long,
		"source": long}, nil); res.status != 202 {
		t.Fatalf("subscribe: %d %s", res.status, res.body)
	}
	if res := s.api(t, "POST", "/api/keys", map[string]any{"name": long[:100], "level": "read"}, nil); res.status != 201 {
		t.Fatalf("key: %d %s", res.status, res.body)
	}
	if res := s.api(t, "POST", "/api/webhooks", map[string]any{"url": "https://hooks.example.invalid/" + strings.Repeat("path", 30),
		"events": []string{"booking.created", "contact.received", "post.published"}, "description": long}, nil); res.status != 201 {
		t.Fatalf("webhook: %d %s", res.status, res.body)
	}
	date := bookingDate(t)
	var av struct{ Slots []struct{ Start string } }
	s.api(t, "GET", "/api/schedule/available?date="+date+"&timezone="+visitorZone, nil, nil).decode(t, &av)
	if len(av.Slots) == 0 {
		t.Fatalf("no free time on %s", date)
	}
	if res := s.api(t, "POST", "/api/schedule/book", map[string]any{"startISO": av.Slots[0].Start, "durationMinutes": 30,
		"timeZone": visitorZone, "attendeeName": "Grace " + long, "attendeeEmail": "grace@example.com"}, nil); res.status != 200 {
		t.Fatalf("book: %d %s", res.status, res.body)
	}
	return post.ID, project.ID
}

// uploadPNG uploads a small PNG under name through the API and returns its URL.
func uploadPNG(t *testing.T, s *site, name string) string {
	t.Helper()
	var img bytes.Buffer
	if err := png.Encode(&img, square(150)); err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	part.Write(img.Bytes())
	mw.Close()
	req, _ := http.NewRequest("POST", s.base+"/api/media/upload", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", s.base)
	res, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 201 {
		t.Fatalf("upload %s: %d %s", name, res.StatusCode, b)
	}
	var m struct{ URL string }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.URL
}
