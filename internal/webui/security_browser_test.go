package webui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/foliohq/folio/internal/auth"
)

// signInForm fills and submits the dashboard's sign-in form.
func signInForm(t *testing.T, tb *tab, email, password string) {
	t.Helper()
	tb.do(t, "fill the sign-in form", chromedp.WaitVisible(css("#login-form")),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#login-form input[name=email]').value = ''; document.querySelector('#login-form input[name=password]').value = ''`),
		chromedp.SendKeys(css("#login-form input[name=email]"), email),
		chromedp.SendKeys(css("#login-form input[name=password]"), password),
		chromedp.Click(css("#login-form button[type=submit]")))
}

// Ensure the Security screens work end to end in a browser: a locked-out sign-in says when to
// retry, TOTP enrolment with a server-made QR code and recovery codes shown once, the two-factor
// sign-in step (with a recovery code), the password change on the Profile page ending the other
// sessions, the audit log page, turning TOTP off, and "sign out everywhere".
func TestBrowserSecurity(t *testing.T) {
	browserCtx := newBrowser(t)
	s := startFolio(t)
	desk := newTab(t, browserCtx, "UTC")

	t.Run("locked-out sign-in says when to retry", func(t *testing.T) {
		// Spend the sign-in budget (RATE_LIMIT_HELPER_PER_HOUR=100 in startFolio) of one email
		// from this address; only failures count.
		for i := range 100 {
			if res := s.api(t, "POST", "/api/auth/login", map[string]string{"email": "locked@example.com", "password": "wrong password"}, nil); res.status != 401 {
				t.Fatalf("failed sign-in %d: %d %s", i+1, res.status, res.body)
			}
		}
		desk.do(t, "open the dashboard", chromedp.Navigate(s.base+"/admin/"), chromedp.WaitVisible(css("#login-form")))
		signInForm(t, desk, "locked@example.com", "wrong password")
		desk.waitText(t, "#login-form .status", "Too many failed sign-in attempts. Try again in 60 minutes")
		desk.waitText(t, "#login-form .status", "(at ")
		desk.screenshot(t, s, "security-01-locked-out")
	})

	var recovery []string
	t.Run("enrol TOTP", func(t *testing.T) {
		signInForm(t, desk, adminEmail, adminPassword)
		desk.do(t, "open Security", chromedp.WaitVisible(css("#main")), chromedp.Navigate(s.base+"/admin/#/settings/security"),
			chromedp.WaitVisible(css("#totp-start")))
		desk.screenshot(t, s, "security-02-page")
		desk.do(t, "start enrolment", chromedp.Click(css("#totp-start")), chromedp.WaitVisible(css("#totp-qr")))
		desk.waitFor(t, "the QR code image", `document.querySelector('#totp-qr').complete && document.querySelector('#totp-qr').naturalWidth > 100`)
		secret := strings.TrimSpace(desk.text(t, "#totp-secret"))
		desk.screenshot(t, s, "security-03-qr")
		code, err := auth.TOTPCode(secret, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		desk.do(t, "enter the code", chromedp.SendKeys(css("#totp-code"), code), chromedp.Click(css("#totp-enable-form button[type=submit]")),
			chromedp.WaitVisible(css("#totp-recovery-codes")))
		recovery = eval[[]string](t, desk, `[...document.querySelectorAll('#totp-recovery-codes li')].map((li) => li.textContent)`)
		if len(recovery) != 10 {
			t.Fatalf("%d recovery codes shown", len(recovery))
		}
		desk.screenshot(t, s, "security-04-recovery-codes")
		desk.do(t, "codes saved", chromedp.Click(css("#totp-codes-done")))
		desk.waitText(t, "#totp-panel", "10 recovery codes left")
		// Shown once: the page no longer has them.
		if eval[bool](t, desk, `document.body.textContent.includes(`+jsString(recovery[0])+`)`) {
			t.Error("recovery codes still on the page after enrolment")
		}
	})

	t.Run("two-factor sign-in with a recovery code", func(t *testing.T) {
		desk.do(t, "sign out", chromedp.Click(css("#sign-out")))
		signInForm(t, desk, adminEmail, adminPassword)
		desk.do(t, "second step", chromedp.WaitVisible(css("#login-totp-form")))
		desk.screenshot(t, s, "security-05-totp-step")
		desk.do(t, "wrong code", chromedp.SendKeys(css("#login-totp-code"), "000000"), chromedp.Click(css("#login-totp-form button[type=submit]")))
		desk.waitText(t, "#login-totp-form .status", "not right")
		desk.do(t, "recovery code", chromedp.Click(css("#use-recovery-code")), chromedp.WaitVisible(css("#login-recovery-code")),
			chromedp.SendKeys(css("#login-recovery-code"), recovery[0]), chromedp.Click(css("#login-totp-form button[type=submit]")),
			chromedp.WaitVisible(css("#main")))
		desk.do(t, "security again", chromedp.Navigate(s.base+"/admin/#/settings/security"))
		desk.waitText(t, "#totp-panel", "9 recovery codes left")
	})

	t.Run("change password on the Security page", func(t *testing.T) {
		if res := s.api(t, "GET", "/api/user/profile", nil, nil); res.status != 200 {
			t.Fatalf("the API session before: %d", res.status)
		}
		// The password is changed in one place: Security (the Profile page only points there).
		desk.do(t, "profile", chromedp.Navigate(s.base+"/admin/#/settings/profile"), chromedp.WaitVisible(css("#profile-form")))
		if eval[bool](t, desk, `!!document.querySelector('#password-form')`) {
			t.Error("the Profile page has a password form too")
		}
		desk.do(t, "security", chromedp.Navigate(s.base+"/admin/#/settings/security"), chromedp.WaitVisible(css("#password-form")))
		desk.do(t, "too short", chromedp.SendKeys(css("#password-current"), adminPassword), chromedp.SendKeys(css("#password-new"), "short"),
			chromedp.SendKeys(css("#password-again"), "short"), chromedp.Click(css("#password-form button[type=submit]")))
		desk.waitText(t, "#password-form .status", "at least 12 characters")
		newPW := "a fresh browser password"
		desk.do(t, "change",
			chromedp.Evaluate[chromedp.Void](`for (const el of document.querySelectorAll('#password-form input')) el.value = ''`),
			chromedp.SendKeys(css("#password-current"), adminPassword), chromedp.SendKeys(css("#password-new"), newPW),
			chromedp.SendKeys(css("#password-again"), newPW), chromedp.Click(css("#password-form button[type=submit]")))
		desk.waitText(t, "#password-form .status", "Password changed")
		desk.screenshot(t, s, "security-06-password-changed")
		if res := s.api(t, "GET", "/api/user/profile", nil, nil); res.status != 401 {
			t.Errorf("another session after the password change: %d", res.status)
		}
		// This browser stays signed in.
		desk.do(t, "still signed in", chromedp.Navigate(s.base+"/admin/#/projects"), chromedp.WaitVisible(css("#main")))
		desk.waitFor(t, "the projects page", `document.querySelector('main')?.dataset.page === 'projects' && !document.querySelector('#login-form')`)
	})

	t.Run("audit log page", func(t *testing.T) {
		desk.do(t, "audit", chromedp.Navigate(s.base+"/admin/#/settings/audit"), chromedp.WaitVisible(css("#audit-table")))
		for _, action := range []string{"auth.login", "auth.totp.enable", "auth.login.totp", "auth.password.change"} {
			desk.waitText(t, "#audit-table", action)
		}
		desk.do(t, "filter", chromedp.SendKeys(css("#audit-action"), "auth.totp.*"), chromedp.Click(css("#audit-filter button[type=submit]")))
		desk.waitFor(t, "filtered rows", `[...document.querySelectorAll('#audit-table tbody tr')].every((r) => r.dataset.action.startsWith('auth.totp.'))`)
		desk.screenshot(t, s, "security-07-audit")
	})

	t.Run("turn TOTP off, then sign out everywhere", func(t *testing.T) {
		desk.do(t, "security", chromedp.Navigate(s.base+"/admin/#/settings/security"), chromedp.WaitVisible(css("#totp-disable-form")),
			chromedp.SendKeys(css("#totp-disable-password"), "a fresh browser password"),
			chromedp.Click(css("#totp-disable-form button[type=submit]")))
		desk.waitText(t, "#totp-panel", "Off.")
		desk.do(t, "sign out everywhere", chromedp.Click(css("#sign-out-everywhere")), chromedp.WaitVisible(css("#confirm-dialog")))
		desk.screenshot(t, s, "security-07b-confirm-sign-out")
		desk.do(t, "confirm signing out everywhere", chromedp.Click(css("#confirm-ok")), chromedp.WaitVisible(css("#login-form")))
		desk.screenshot(t, s, "security-08-signed-out")
	})

	t.Run("phone", func(t *testing.T) {
		phone := newTab(t, browserCtx, "UTC", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
		phone.do(t, "open the dashboard", chromedp.Navigate(s.base+"/admin/"))
		signInForm(t, phone, adminEmail, "a fresh browser password")
		for _, pg := range []struct{ hash, sel, shot string }{
			{"settings/security", "#totp-start", "security-09-phone-security"},
			{"settings/audit", "#audit-table", "security-10-phone-audit"},
		} {
			phone.do(t, "open "+pg.hash, chromedp.WaitVisible(css("#main")), chromedp.Navigate(s.base+"/admin/#/"+pg.hash), chromedp.WaitVisible(css(pg.sel)))
			if over := eval[bool](t, phone, `document.documentElement.scrollWidth > window.innerWidth + 1`); over {
				t.Errorf("%s scrolls sideways on a phone", pg.hash)
			}
			phone.screenshot(t, s, pg.shot)
		}
	})
}
