package webui_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/foliohq/folio/internal/cli"
)

// The browser tests run the whole folio program in-process (cli.Run, SQLite in a temp dir, mail
// as .eml files) and drive Debian's Chromium headless through the DevTools protocol. They skip
// when no Chromium is installed (apt-get install -y chromium, or FOLIO_CHROMIUM=/path).

const (
	adminEmail    = "owner@example.com"
	adminPassword = "browser-test-password-42"
	// ownerZone is BOOKING_TIMEZONE; the browser pretends to be in visitorZone so the page has
	// to convert.
	ownerZone   = "America/New_York"
	visitorZone = "Asia/Tokyo"
	// chromeUA is sent by the test's own API calls so analytics does not drop them as a bot.
	chromeUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36"
)

func findChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("FOLIO_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("browser tests skipped: Chromium is not installed (apt-get install -y chromium, or set FOLIO_CHROMIUM to its path)")
	return ""
}

// newBrowser starts a headless Chromium for one test; it is stopped when the test ends. The test
// is skipped when no Chromium is installed.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	chromium := findChromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true), chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("metrics-recording-only", true), chromedp.Flag("safebrowsing-disable-auto-update", true),
		chromedp.Flag("lang", "en-US"), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
		// Headless Chromium says "HeadlessChrome", which analytics rightly drops as a bot.
		chromedp.UserAgent(chromeUA),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(browserCtx); err != nil { // starts the browser, with no time limit
		t.Fatalf("start chromium %s: %v", chromium, err)
	}
	return browserCtx
}

// signIn signs the owner in on the dashboard of base in tab and waits for the overview.
func signIn(t *testing.T, tb *tab, base string) {
	t.Helper()
	tb.do(t, "open the dashboard", chromedp.Navigate(base+"/admin/"))
	signInForm(t, tb, adminEmail, adminPassword)
	tb.do(t, "wait for the overview", chromedp.WaitVisible(css("#stat-views, #overview-empty")))
}

// site is one running folio and what the test knows about it.
type site struct {
	base    string
	dataDir string
	shots   string
	client  *http.Client // an owner session, for checks through the API
}

func startFolio(t *testing.T) *site {
	t.Helper()
	return startFolioWith(t, nil)
}

// startFolioWith starts folio with extra variables on top of startFolio's (DATABASE_URL for
// PostgreSQL, say), signed in through the API as its owner.
func startFolioWith(t *testing.T, extra map[string]string) *site {
	t.Helper()
	env := map[string]string{
		"IMAGE_API_BASE_URL":         fakeImageAPI(t),
		"IMAGE_API_KEY":              "test-image-key",
		"IMAGE_MODEL":                "gpt-image-1",
		"FOLIO_ADMIN_EMAIL":          adminEmail,
		"FOLIO_ADMIN_PASSWORD":       adminPassword,
		"RATE_LIMIT_HELPER_PER_HOUR": "100",
		"RATE_LIMIT_PUBLIC_PER_HOUR": "10000",
	}
	maps.Copy(env, extra)
	s, _ := launchFolio(t, env)
	res := s.api(t, "POST", "/api/auth/login", map[string]string{"email": adminEmail, "password": adminPassword}, nil)
	if res.status != 200 {
		t.Fatalf("API login: got %d %s", res.status, res.body)
	}
	return s
}

// launchFolio runs `folio serve` in-process on a free loopback port with a fresh data directory
// and env (which it completes with the address, site URL, data directory, development mode and
// the owner's zone unless env sets them), stopped when the test ends. It returns the site and a
// reader of the server's log so far.
func launchFolio(t *testing.T, env map[string]string) (*site, func() string) {
	t.Helper()
	dataDir := t.TempDir()
	// Media URLs are absolute under FOLIO_SITE_URL, so the site URL must be this server's own
	// address: take a free port first.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listenAddr := ln.Addr().String()
	ln.Close()
	defaults := map[string]string{
		"FOLIO_ADDR":       listenAddr,
		"FOLIO_SITE_URL":   "http://" + listenAddr,
		"FOLIO_DATA_DIR":   dataDir,
		"FOLIO_ENV":        "development",
		"BOOKING_TIMEZONE": ownerZone,
	}
	for k, v := range defaults {
		if _, set := env[k]; !set {
			env[k] = v
		}
	}
	var logs bytes.Buffer
	var logMu sync.Mutex
	readLogs := func() string {
		logMu.Lock()
		defer logMu.Unlock()
		return logs.String()
	}
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, []string{"serve"}, cli.Env{
			Getenv: func(k string) string { return env[k] },
			Stdout: io.Discard,
			Stderr: lockedWriter{&logs, &logMu},
			Ready:  func(addr string) { ready <- addr },
		})
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("folio did not start: %v\n%s", err, readLogs())
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatal("folio did not start within a minute")
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("folio serve: %v", err)
		}
		if t.Failed() {
			t.Logf("folio log:\n%s", readLogs())
		}
	})
	// Screenshots go to FOLIO_SCREENSHOTS when it is set (to look at them), else to a temporary
	// directory.
	s := &site{base: "http://" + addr, dataDir: env["FOLIO_DATA_DIR"], shots: os.Getenv("FOLIO_SCREENSHOTS")}
	if s.shots == "" {
		s.shots = t.TempDir()
	}
	if err := os.MkdirAll(s.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	s.client = &http.Client{Jar: jar, Timeout: 30 * time.Second}
	return s, readLogs
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type apiResult struct {
	status int
	body   []byte
}

func (r apiResult) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// api calls the API as the owner (session cookie), or with the given headers.
func (s *site) api(t *testing.T, method, path string, body any, headers map[string]string) apiResult {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", s.base)
	req.Header.Set("User-Agent", chromeUA)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return apiResult{status: res.StatusCode, body: b}
}

// tab is one browser tab with its console watched for script errors and CSP violations.
// Failed loads (a 409 or 503 some steps expect) are kept apart, for the tests that allow none.
type tab struct {
	ctx         context.Context
	mu          sync.Mutex
	problems    []string
	failedLoads []string
}

func newTab(t *testing.T, parent context.Context, zone string, emulate ...chromedp.Action[chromedp.Void]) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(parent)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // opens the tab
		t.Fatalf("open tab: %v", err)
	}
	tb := &tab{ctx: ctx}
	if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone}); err != nil {
		t.Fatalf("time zone override: %v", err)
	}
	if len(emulate) > 0 {
		if err := chromedp.Do(ctx, emulate...); err != nil {
			t.Fatalf("emulate: %v", err)
		}
	}
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			// Confirm every "Delete …?" question.
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type != chromedp.ConsoleError && m.Type != chromedp.ConsoleException {
				continue
			}
			msg := fmt.Sprintf("%s (%s:%d)", m.Text, m.URL, m.Line+1)
			tb.mu.Lock()
			// Answers like 409 and 503 are expected in some steps; the pages handle them.
			if strings.HasPrefix(m.Text, "Failed to load resource") {
				tb.failedLoads = append(tb.failedLoads, msg)
			} else {
				tb.problems = append(tb.problems, msg)
			}
			tb.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, p := range tb.problems {
			t.Errorf("browser console: %s", p)
		}
	})
	return tb
}

// do runs actions with a time limit, failing the test with what it was doing.
func (tb *tab) do(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 45*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// text returns the text of the first element matching a CSS selector.
func (tb *tab) text(t *testing.T, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 45*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// eval evaluates a JavaScript expression and decodes its value.
func eval[T any](t *testing.T, tb *tab, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 45*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitText waits until the element matching sel contains want.
func (tb *tab) waitText(t *testing.T, sel, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 45*time.Second)
	defer cancel()
	js := fmt.Sprintf(`(document.querySelector(%s)?.textContent || '').includes(%s)`, jsString(sel), jsString(want))
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(40*time.Second))); err != nil {
		got := eval[string](t, tb, fmt.Sprintf(`document.querySelector(%s)?.textContent || '(no element)'`, jsString(sel)))
		t.Fatalf("waiting for %q in %s: %v; it says %q", want, sel, err, got)
	}
}

// waitFor waits until a JavaScript expression is truthy.
func (tb *tab) waitFor(t *testing.T, what, js string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 45*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(40*time.Second))); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func (tb *tab) screenshot(t *testing.T, s *site, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 45*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(s.shots, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func css(s string) chromedp.CSS { return chromedp.CSS(s) }

// bookingDate is a Tuesday to Thursday at least three days ahead in the owner's zone, so the
// visitor's day (in Tokyo, 14 hours ahead) covers business hours of two working days.
func bookingDate(t *testing.T) string {
	t.Helper()
	loc, err := time.LoadLocation(ownerZone)
	if err != nil {
		t.Fatal(err)
	}
	d := time.Now().In(loc).AddDate(0, 0, 3)
	for d.Weekday() < time.Tuesday || d.Weekday() > time.Thursday {
		d = d.AddDate(0, 0, 1)
	}
	return d.Format("2006-01-02")
}

func TestBrowser(t *testing.T) {
	findChromium(t) // skip before starting anything when there is no browser
	s := startFolio(t)

	browserCtx := newBrowser(t)

	seedAnalytics(t, s)
	desk := newTab(t, browserCtx, visitorZone)

	t.Run("login", func(t *testing.T) {
		desk.do(t, "open the dashboard", chromedp.Navigate(s.base+"/admin/"), chromedp.WaitVisible(css("#login-form")))
		desk.screenshot(t, s, "01-login")
		// A wrong password is refused with a message, and nothing else changes.
		desk.do(t, "sign in with a wrong password",
			chromedp.SendKeys(css("#login-form input[name=email]"), adminEmail),
			chromedp.SendKeys(css("#login-form input[name=password]"), "not-the-password"),
			chromedp.Click(css("#login-form button[type=submit]")))
		desk.waitText(t, "#login-form .status", "Wrong email or password")
		desk.do(t, "sign in",
			chromedp.Evaluate[chromedp.Void](`document.querySelector('#login-form input[name=password]').value = ''`),
			chromedp.SendKeys(css("#login-form input[name=password]"), adminPassword),
			chromedp.Click(css("#login-form button[type=submit]")),
			chromedp.WaitVisible(css("#stat-views")))
		if got := desk.text(t, "#stat-views .value"); got == "0" {
			t.Errorf("overview page views: got %s, want the seeded views", got)
		}
		desk.waitText(t, "main", "/projects/seeded")
		if n := eval[int](t, desk, `document.querySelectorAll('.chart svg polyline').length`); n != 2 {
			t.Errorf("overview chart: got %d lines, want 2 (visitors and page views)", n)
		}
		desk.screenshot(t, s, "02-overview")
	})

	t.Run("projects", func(t *testing.T) {
		desk.do(t, "new project",
			chromedp.Navigate(s.base+"/admin/#/projects/new"), chromedp.WaitVisible(css("#project-form")),
			chromedp.SendKeys(css("#project-form input[name=title]"), "Browser-made project"),
			chromedp.SendKeys(css("#project-form textarea[name=description]"), "Created by the browser test."),
			chromedp.SendKeys(css("#project-form input[name=technologies]"), "Go, SQLite"),
			chromedp.SetValue(css("#project-form select[name=status]"), "published"),
			chromedp.Click(css("#project-form button[type=submit]")))
		desk.waitText(t, "#toasts", "Created “Browser-made project”")
		desk.screenshot(t, s, "04-project-edit")
		desk.do(t, "project list", chromedp.Navigate(s.base+"/admin/#/projects"), chromedp.WaitVisible(css("#projects-table")))
		desk.waitText(t, "#projects-table", "Browser-made project")
		desk.screenshot(t, s, "03-projects")
	})

	t.Run("create and publish a post", func(t *testing.T) {
		desk.do(t, "write a post",
			chromedp.Navigate(s.base+"/admin/#/posts/new"), chromedp.WaitVisible(css("#post-form")),
			chromedp.SendKeys(css("#post-form input[name=title]"), "Hello from the browser"),
			chromedp.SendKeys(css("#post-content"), "# A heading\n\nSome **bold** words and a [link](https://example.com).\n\n- one\n- two\n"),
			chromedp.Click(css(`#editor-view [data-value="split"]`)))
		desk.waitText(t, "#post-preview strong", "bold")
		if got := eval[string](t, desk, `document.querySelector('#post-preview h1')?.textContent || ''`); got != "A heading" {
			t.Errorf("preview heading: got %q, want %q", got, "A heading")
		}
		// One save: the content and the publishing options (in the settings drawer, open on a
		// wide window) go together.
		desk.do(t, "publish",
			chromedp.WaitVisible(css("#post-drawer")),
			chromedp.SetValue(css("#publish-status"), "published"),
			chromedp.SendKeys(css("#post-form input[name=series]"), "Browser tests"),
			chromedp.Click(css("#save-post")))
		desk.waitText(t, "#toasts", "is published")
		desk.waitText(t, "#publish-state", "Published")
		desk.screenshot(t, s, "05-post-editor")

		// The public API now serves the post.
		pub := &http.Client{Timeout: 10 * time.Second}
		res, err := pub.Get(s.base + "/api/blog/hello-from-the-browser")
		if err != nil {
			t.Fatal(err)
		}
		var post struct{ Status, Series, Title string }
		if err := json.NewDecoder(res.Body).Decode(&post); err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 || post.Status != "published" || post.Series != "Browser tests" {
			t.Errorf("public GET /api/blog/hello-from-the-browser: got %d %+v, want 200, published, series set", res.StatusCode, post)
		}

		// The external platform is not configured here: its controls stay out of the way, and
		// one line says how to turn it on.
		desk.waitText(t, "#extblog-note", "EXTBLOG_API_TOKEN")
		if eval[bool](t, desk, `!!document.querySelector('#extblog-publish, #opt-crossPlatform, #extblog-panel')`) {
			t.Error("the external blog's controls are shown although the platform is not configured")
		}

		desk.do(t, "post list", chromedp.Navigate(s.base+"/admin/#/posts"), chromedp.WaitVisible(css("#posts-table")))
		desk.waitText(t, "#posts-table", "Hello from the browser")
		desk.screenshot(t, s, "06-posts")
	})

	t.Run("create and revoke an API key", func(t *testing.T) {
		desk.do(t, "create a key",
			chromedp.Navigate(s.base+"/admin/#/settings/keys"), chromedp.WaitVisible(css("#key-form")),
			chromedp.SendKeys(css("#key-name"), "browser-ci"),
			chromedp.SetValue(css("#key-level"), "write"),
			chromedp.SetValue(css("#key-expires"), "30"),
			chromedp.Click(css("#key-form button[type=submit]")),
			chromedp.WaitVisible(css("#new-key-secret")))
		secret := strings.TrimSpace(desk.text(t, "#new-key-secret"))
		if len(secret) < 20 {
			t.Fatalf("shown secret: got %q, want a key", secret)
		}
		desk.waitText(t, "#keys-table", "browser-ci")
		desk.waitText(t, `#keys-table tr[data-key-name="browser-ci"]`, "Write")
		desk.screenshot(t, s, "10-keys")

		bearer := map[string]string{"Authorization": "Bearer " + secret}
		noCookies := &site{base: s.base, client: &http.Client{Timeout: 10 * time.Second}}
		if res := noCookies.api(t, "GET", "/api/user/profile", nil, bearer); res.status != 200 {
			t.Fatalf("profile with the new key: got %d %s", res.status, res.body)
		}
		// The secret is shown once: closing the box removes it, and the list has only the prefix.
		desk.do(t, "dismiss the secret", chromedp.Click(css("#new-key-done")))
		if html := eval[string](t, desk, `document.body.textContent`); strings.Contains(html, secret) {
			t.Error("the secret is still on the page after it was dismissed")
		}
		desk.openMenu(t, `#keys-table tr[data-key-name="browser-ci"] .menu-button`)
		desk.do(t, "revoke", chromedp.Click(css(`#keys-table tr[data-key-name="browser-ci"] [id^="revoke-"]`)), chromedp.WaitVisible(css("#confirm-dialog")))
		desk.do(t, "confirm the revocation", chromedp.Click(css("#confirm-ok")))
		desk.waitText(t, "#toasts", "Revoked “browser-ci”")
		desk.waitFor(t, "the key's row to go", `!document.querySelector('tr[data-key-name="browser-ci"]')`)
		if res := noCookies.api(t, "GET", "/api/user/profile", nil, bearer); res.status != 401 {
			t.Fatalf("profile with the revoked key: got %d, want 401", res.status)
		}
	})

	t.Run("media", func(t *testing.T) {
		img := filepath.Join(t.TempDir(), "square.png")
		writePNG(t, img)
		desk.do(t, "upload",
			chromedp.Navigate(s.base+"/admin/#/media"), chromedp.WaitVisible(css("#upload-form")),
			chromedp.SetUploadFiles(css("#upload-file"), []string{img}))
		desk.waitText(t, "#toasts", "Uploaded")
		desk.waitFor(t, "the uploaded image to load", `[...document.querySelectorAll('#media-grid img')].some((i) => i.complete && i.naturalWidth === 64)`)
		desk.do(t, "generate", chromedp.SendKeys(css("#ai-prompt"), "a lighthouse at dusk"), chromedp.Click(css("#ai-form button[type=submit]")))
		desk.waitText(t, "#toasts", "Image generated")
		desk.waitFor(t, "the generated image", `document.querySelector('#ai-result img')?.naturalWidth === 64`)
		desk.waitFor(t, "the generated image in the library", `[...document.querySelectorAll('#media-grid figcaption')].some((c) => c.textContent.includes('lighthouse'))`)
		desk.screenshot(t, s, "07-media")
	})

	t.Run("inbox and profile", func(t *testing.T) {
		if res := s.api(t, "POST", "/api/contact", map[string]string{"name": "Ada", "email": "ada@example.com",
			"subject": "Hello", "message": "Line one\nLine two <b>not bold</b>"}, nil); res.status != 200 {
			t.Fatalf("contact: got %d %s", res.status, res.body)
		}
		desk.do(t, "inbox", chromedp.Navigate(s.base+"/admin/#/inbox"), chromedp.WaitVisible(css("#messages")))
		desk.waitText(t, "#messages", "<b>not bold</b>") // shown as text, not markup
		desk.screenshot(t, s, "09-inbox")
		desk.do(t, "profile", chromedp.Navigate(s.base+"/admin/#/profile"), chromedp.WaitVisible(css("#profile-form")),
			chromedp.SetValue(css("#profile-name"), "Olive Owner"),
			chromedp.SendKeys(css("#profile-form input[name=website]"), "not a url"),
			chromedp.Click(css("#profile-form button[type=submit]")))
		desk.waitText(t, "main .status", "Website:") // the form's label, not the JSON field
		if inv := eval[bool](t, desk, `document.querySelector('#profile-form input[name=website]').getAttribute('aria-invalid') === 'true'`); !inv {
			t.Error("the website field is not marked invalid after a 422")
		}
		desk.do(t, "fix the website",
			chromedp.SetValue(css("#profile-form input[name=website]"), "https://olive.example.com"),
			chromedp.Click(css("#profile-form button[type=submit]")))
		desk.waitText(t, "#toasts", "Profile saved")
		desk.screenshot(t, s, "11-profile")
	})

	date := bookingDate(t)
	phone := newTab(t, browserCtx, visitorZone, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))

	// openBooking opens /book, picks the date in the month view and waits for its free times
	// (the time comes first, the details last).
	openBooking := func(t *testing.T) {
		t.Helper()
		phone.do(t, "open /book", chromedp.Navigate(s.base+"/book"), chromedp.WaitVisible(css("#step-when")))
		phone.waitFor(t, "the time zone list", `document.querySelector('#timezone').options.length > 100`)
		if got := eval[string](t, phone, `document.querySelector('#timezone').value`); got != visitorZone {
			t.Errorf("detected time zone: got %q, want %q", got, visitorZone)
		}
		pickBookingDay(t, phone, date)
	}

	// fillDetails enters the visitor's details once a time is chosen.
	fillDetails := func(t *testing.T, name, email string) {
		t.Helper()
		if got := eval[string](t, phone, `document.activeElement.id`); got != "h-details" && got != "name" {
			t.Errorf("focus after choosing a time: got #%s, want the details step's heading (or the name after a refusal)", got)
		}
		phone.do(t, "details", chromedp.SendKeys(css("#name"), name), chromedp.SendKeys(css("#email"), email))
	}

	var bookedStart string
	t.Run("book a slot", func(t *testing.T) {
		openBooking(t)
		if w := eval[int](t, phone, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("page width on a 390 px phone: got %d px, want no horizontal scrolling", w)
		}
		phone.screenshot(t, s, "21-book-times-phone")
		bookedStart = eval[string](t, phone, `document.querySelector('#slots button').dataset.start`)
		if !strings.HasSuffix(bookedStart, "+09:00") {
			t.Errorf("slot start %q is not at the visitor's UTC offset (+09:00)", bookedStart)
		}
		phone.do(t, "choose the first time", chromedp.Click(css("#slots button")), chromedp.Click(css("#time-confirm")), chromedp.WaitVisible(css("#details-form")))
		phone.waitText(t, "#summary", visitorZone)
		phone.screenshot(t, s, "20-book-details-phone")
		// Validation happens on the page before anything is sent.
		phone.do(t, "empty details", chromedp.Click(css("#confirm")))
		phone.waitText(t, "#name-error", "Please enter your name")
		fillDetails(t, "Grace Visitor", "grace@example.com")
		phone.screenshot(t, s, "22-book-confirm-phone")
		phone.do(t, "confirm", chromedp.Click(css("#confirm")), chromedp.WaitVisible(css("#step-done")))
		meet := eval[string](t, phone, `document.querySelector('#meet-link').href`)
		if !strings.HasPrefix(meet, "https://meet.jit.si/folio-") {
			t.Errorf("meeting link: got %q, want the local provider's Jitsi link", meet)
		}
		ics := eval[string](t, phone, `document.querySelector('#ics-link').href`)
		if !strings.Contains(ics, "/api/schedule/bookings/") || !strings.HasSuffix(ics, "/invite.ics") {
			t.Errorf("Add to calendar: got %q, want the booking's .ics on folio", ics)
		}
		phone.screenshot(t, s, "23-book-done-phone")

		// The confirmation mails with the .ics arrive in the outbox directory.
		var invite string
		deadline := time.Now().Add(40 * time.Second)
		for invite == "" && time.Now().Before(deadline) {
			files, _ := filepath.Glob(filepath.Join(s.dataDir, "outbox", "*.eml"))
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err == nil && strings.Contains(string(b), "text/calendar") && strings.Contains(string(b), "grace@example.com") {
					invite = calendarPart(t, b)
				}
			}
			if invite == "" {
				time.Sleep(200 * time.Millisecond)
			}
		}
		if invite == "" {
			t.Fatalf("no .eml with a text/calendar part for grace@example.com in %s/outbox", s.dataDir)
		}
		for _, want := range []string{"BEGIN:VCALENDAR", "METHOD:REQUEST", "BEGIN:VEVENT", "grace@example.com", "meet.jit.si"} {
			if !strings.Contains(unfoldICS(invite), want) {
				t.Errorf("the invitation lacks %q:\n%s", want, invite)
			}
		}

		// The funnel events reached analytics.
		deadline = time.Now().Add(40 * time.Second)
		var completed int
		for time.Now().Before(deadline) {
			var rep struct {
				Steps []struct {
					Step     string
					Visitors int
				}
			}
			s.api(t, "GET", "/api/analytics/funnel", nil, nil).decode(t, &rep)
			for _, st := range rep.Steps {
				if st.Step == "booking_completed" {
					completed = st.Visitors
				}
			}
			if completed > 0 {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		if completed == 0 {
			t.Error("the funnel report has no booking_completed visitor")
		}
	})

	t.Run("lost race", func(t *testing.T) {
		openBooking(t)
		start := eval[string](t, phone, `document.querySelector('#slots button').dataset.start`)
		if start == bookedStart {
			t.Fatalf("the booked slot %s is still offered", start)
		}
		phone.do(t, "choose a time", chromedp.Click(css("#slots button")), chromedp.Click(css("#time-confirm")), chromedp.WaitVisible(css("#details-form")))
		fillDetails(t, "Linus Late", "linus@example.com")
		// Someone else books the same time through the API first.
		res := s.api(t, "POST", "/api/schedule/book", map[string]any{"startISO": start, "durationMinutes": 30,
			"timeZone": visitorZone, "attendeeName": "Quick Quinn", "attendeeEmail": "quinn@example.com"}, nil)
		if res.status != 200 {
			t.Fatalf("API booking of %s: got %d %s", start, res.status, res.body)
		}
		phone.do(t, "confirm", chromedp.Click(css("#confirm")))
		phone.waitText(t, "#when-status", "someone else just booked that time")
		phone.waitFor(t, "the time step", `!document.querySelector('#step-when').hidden && document.querySelector('#step-details').hidden`)
		if role := eval[string](t, phone, `document.querySelector('#when-status').getAttribute('role')`); role != "alert" {
			t.Errorf("the lost-race message has role %q, want alert", role)
		}
		phone.screenshot(t, s, "24-book-lost-race-phone")
		// The page reloads the day's times: the lost one is gone.
		phone.waitFor(t, "the taken time to disappear", fmt.Sprintf(`!!document.querySelector('#slots button') && !document.querySelector('#slots button[data-start=%s]')`, jsString(start)))
	})

	t.Run("bookings page", func(t *testing.T) {
		desk.do(t, "bookings", chromedp.Navigate(s.base+"/admin/#/bookings"), chromedp.WaitVisible(css("#bookings-table")))
		desk.waitText(t, "#bookings-table", "Grace Visitor")
		desk.waitText(t, "#bookings-table", "Quick Quinn")
		desk.screenshot(t, s, "08-bookings")
		// The mail the bookings sent is listed with the mail settings.
		desk.do(t, "sent mail", chromedp.Navigate(s.base+"/admin/#/settings/mail"), chromedp.WaitVisible(css("#outbox-table")))
		desk.waitText(t, "#outbox-table", "grace@example.com")
		// The funnel, in words, is on the analytics page's Goals card.
		desk.do(t, "funnel", chromedp.Navigate(s.base+"/admin/#/analytics"), chromedp.WaitVisible(css("#tab-funnel")),
			chromedp.Click(css("#tab-funnel")), chromedp.WaitVisible(css("#funnel")))
		desk.waitText(t, "#funnel", "Booked a meeting")
		if got := desk.text(t, "#funnel"); strings.Contains(got, "booking_") || strings.Contains(got, "api_failure") {
			t.Errorf("the funnel shows event names instead of words: %q", got)
		}
	})

	t.Run("dashboard on a phone", func(t *testing.T) {
		// The phone tab shares the browser's cookies, so it is signed in too.
		phone.do(t, "posts on a phone", chromedp.Navigate(s.base+"/admin/#/posts"), chromedp.WaitVisible(css("#posts-table")))
		if w := eval[int](t, phone, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("dashboard width on a 390 px phone: got %d px, want no horizontal scrolling", w)
		}
		if vis := eval[bool](t, phone, `getComputedStyle(document.querySelector('#nav')).display !== 'none'`); vis {
			t.Error("the navigation is open on a phone before the menu button is pressed")
		}
		phone.do(t, "open the menu", chromedp.Click(css(".menu-toggle")))
		if got := eval[string](t, phone, `document.querySelector('.menu-toggle').getAttribute('aria-expanded')`); got != "true" {
			t.Errorf("menu button aria-expanded: got %q, want true", got)
		}
		phone.screenshot(t, s, "12-admin-menu-phone")
	})

	t.Run("sign out", func(t *testing.T) {
		desk.do(t, "sign out", chromedp.Click(css("#sign-out")), chromedp.WaitVisible(css("#login-form")))
		desk.do(t, "reload", chromedp.Reload(), chromedp.WaitVisible(css("#login-form")))
	})
}

// seedAnalytics records page views and a referrer so the overview has something to draw.
func seedAnalytics(t *testing.T, s *site) {
	t.Helper()
	for i, p := range []string{"/", "/", "/projects/seeded", "/blog/hello", "/projects/seeded"} {
		body := map[string]string{"type": "pageview", "path": p, "title": "Seeded " + p, "visitorId": fmt.Sprintf("seed%d", i%3)}
		if i == 0 {
			body["referrer"] = "https://news.example.org/item"
		}
		if res := s.api(t, "POST", "/api/analytics/collect", body, nil); res.status != 202 {
			t.Fatalf("collect: got %d %s", res.status, res.body)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var rep struct{ PageViews struct{ Total int } }
		s.api(t, "GET", "/api/analytics", nil, nil).decode(t, &rep)
		if rep.PageViews.Total >= 5 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("the seeded page views never showed in GET /api/analytics")
}

// calendarPart returns the decoded text/calendar part of a raw mail ("" when it has none).
func calendarPart(t *testing.T, raw []byte) string {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse mail: %v", err)
	}
	var walk func(ct string, te string, body io.Reader) string
	walk = func(ct string, te string, body io.Reader) string {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			return ""
		}
		if strings.HasPrefix(mt, "multipart/") {
			mr := multipart.NewReader(body, params["boundary"])
			for {
				part, err := mr.NextRawPart()
				if err != nil {
					return ""
				}
				if got := walk(part.Header.Get("Content-Type"), part.Header.Get("Content-Transfer-Encoding"), part); got != "" {
					return got
				}
			}
		}
		if mt != "text/calendar" {
			return ""
		}
		switch strings.ToLower(te) {
		case "base64":
			body = base64.NewDecoder(base64.StdEncoding, body)
		case "quoted-printable":
			body = quotedprintable.NewReader(body)
		}
		b, _ := io.ReadAll(body)
		return string(b)
	}
	return walk(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
}

// unfoldICS joins RFC 5545 folded lines.
func unfoldICS(s string) string {
	return strings.NewReplacer("\r\n ", "", "\r\n\t", "").Replace(s)
}

// fakeImageAPI is an OpenAI-compatible images endpoint (POST /images/generations) answering a
// 64×64 PNG as b64_json; it rejects a missing key, a wrong path and a request without a prompt.
func fakeImageAPI(t *testing.T) string {
	t.Helper()
	var img bytes.Buffer
	// Not the uploaded square: media is content-addressed, and the same bytes keep one record.
	if err := png.Encode(&img, square(200)); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Model, Prompt, Size string }
		switch {
		case r.Method != http.MethodPost || r.URL.Path != "/images/generations":
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		case r.Header.Get("Authorization") != "Bearer test-image-key":
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Prompt == "" || in.Model == "" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"created": time.Now().Unix(),
			"data": []map[string]string{{"b64_json": base64.StdEncoding.EncodeToString(img.Bytes())}}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// square is a 64×64 gradient; green varies it, so two squares are different files.
func square(green uint8) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			img.Set(x, y, color.RGBA{R: uint8(x * 4), G: green, B: uint8(y * 4), A: 255})
		}
	}
	return img
}

func writePNG(t *testing.T, path string) {
	t.Helper()
	img := square(90)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// openMenu presses a row's menu button (a CSS selector) until its menu is open and placed. A
// press that lands while the page is still settling (a thumbnail or a late banner moving the
// row) opens nothing, so it is tried again, up to three times, before the test fails.
//
// The menu is open as soon as the press lands, but it is moved beside its button by its toggle
// event, which comes a task later; a click aimed at an item before then lands where the menu
// no longer is and light-dismisses it. The toggle handler focuses the first item after placing
// the menu, so focus inside the open menu is the sign that it stands where it will stay.
func (tb *tab) openMenu(t *testing.T, button string) {
	t.Helper()
	var err error
	for range 3 {
		ctx, cancel := context.WithTimeout(tb.ctx, 15*time.Second)
		err = chromedp.Do(ctx, chromedp.Click(css(button)),
			menuPlaced())
		cancel()
		if err == nil {
			return
		}
	}
	t.Fatalf("opening the menu %s: %v", button, err)
}

// menuPlaced waits until an open row menu has been placed beside its button (see openMenu).
func menuPlaced() chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`!!document.activeElement?.closest('.menu:popover-open')`, chromedp.WithPollingTimeout(5*time.Second))
}
