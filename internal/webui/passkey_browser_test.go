package webui_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"

	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/oidc/oidctest"
)

// Ensure passkeys work end to end in Chromium with the DevTools virtual authenticator (a real
// ceremony against the real library): register one on the Security screen, sign in with it on
// the sign-in page (no email typed), use it as the second step of a two-factor sign-in, and
// remove it. The page is opened at localhost: a WebAuthn relying party cannot be an IP address.
func TestBrowserPasskeys(t *testing.T) {
	browserCtx := newBrowser(t)
	s := startFolio(t)
	base := strings.Replace(s.base, "127.0.0.1", "localhost", 1)
	desk := newTab(t, browserCtx, "UTC")
	if _, err := chromedp.Call(desk.ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatalf("WebAuthn.enable: %v", err)
	}
	if _, err := chromedp.Call(desk.ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true,
		HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true}}); err != nil {
		t.Fatalf("WebAuthn.addVirtualAuthenticator: %v", err)
	}
	signOut := func() {
		t.Helper()
		desk.do(t, "sign out", chromedp.Evaluate[chromedp.Void](`fetch('/api/auth/logout', {method: 'POST'}).then(() => null)`, chromedp.EvalAwaitPromise),
			chromedp.Navigate(base+"/admin/"), chromedp.WaitVisible(css("#login-form")))
	}
	signedInAs := func() string {
		t.Helper()
		desk.waitFor(t, "the dashboard", `document.querySelector('.sidebar') !== null`)
		v, err := chromedp.Run(desk.ctx, chromedp.Evaluate[string](`fetch('/api/auth/session').then(r => r.json()).then(s => s.user ? s.user.email : '')`,
			chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("session: %v", err)
		}
		return v
	}

	desk.do(t, "open the dashboard", chromedp.Navigate(base+"/admin/"), chromedp.WaitVisible(css("#passkey-signin")))
	signInForm(t, desk, adminEmail, adminPassword)
	desk.do(t, "open Security", chromedp.WaitVisible(css("#main")), chromedp.Navigate(base+"/admin/#/settings/security"),
		chromedp.WaitVisible(css("#passkey-add")))
	desk.do(t, "add a passkey", chromedp.SendKeys(css("#passkey-name"), "Virtual laptop"), chromedp.Click(css("#passkey-add")))
	desk.waitText(t, "#passkey-list", "Virtual laptop")
	desk.waitText(t, "#passkeys-panel .status", "Passkey added")
	desk.screenshot(t, s, "passkeys-01-registered")

	signOut()
	desk.screenshot(t, s, "passkeys-02-sign-in-page")
	desk.do(t, "sign in with the passkey", chromedp.Click(css("#passkey-signin")))
	if got := signedInAs(); got != adminEmail {
		t.Fatalf("signed in with the passkey as %q", got)
	}

	// Two-factor on (through the API, which needs a fresh sign-in: the passkey ended the others).
	if res := s.api(t, "POST", "/api/auth/login", map[string]string{"email": adminEmail, "password": adminPassword}, nil); res.status != 200 {
		t.Fatalf("API login: %d %s", res.status, res.body)
	}
	var setup struct{ Secret string }
	s.api(t, "POST", "/api/auth/totp/setup", nil, nil).decode(t, &setup)
	code, _ := auth.TOTPCode(setup.Secret, time.Now())
	if res := s.api(t, "POST", "/api/auth/totp/enable", map[string]string{"code": code}, nil); res.status != 200 {
		t.Fatalf("enable TOTP: %d %s", res.status, res.body)
	}
	signOut()
	signInForm(t, desk, adminEmail, adminPassword)
	desk.do(t, "use the passkey as the second step", chromedp.WaitVisible(css("#totp-use-passkey")))
	desk.screenshot(t, s, "passkeys-03-second-step")
	desk.do(t, "click Use a passkey", chromedp.Click(css("#totp-use-passkey")))
	if got := signedInAs(); got != adminEmail {
		t.Fatalf("second step with the passkey signed in %q", got)
	}

	desk.do(t, "open Security again", chromedp.Navigate(base+"/admin/#/settings/security"), chromedp.WaitVisible(css("#passkey-list .passkey")))
	desk.do(t, "remove the passkey", chromedp.Click(css("#passkey-list .passkey button.danger")), chromedp.WaitVisible(css("#confirm-dialog")),
		chromedp.Click(css("#confirm-ok")))
	desk.waitText(t, "#passkey-list", "No passkeys yet.")
	desk.screenshot(t, s, "passkeys-04-removed")
}

// Ensure the sign-in page offers a configured identity provider and signing in with it (a real
// OpenID provider run in the test) lands on the dashboard; the Sign-in settings page shows the
// provider with its secret write-only and turns sign-in links on.
func TestBrowserProviderSignIn(t *testing.T) {
	browserCtx := newBrowser(t)
	s := startFolio(t)
	op := oidctest.Start(t)
	base := strings.Replace(s.base, "127.0.0.1", "localhost", 1)
	body := map[string]any{"auth": map[string]any{"providers": []map[string]string{{"id": "test", "name": "Test IdP",
		"issuer": op.URL, "clientId": op.ClientID, "clientSecret": op.ClientSecret}}}}
	if res := s.api(t, "PUT", "/api/settings", body, nil); res.status != 200 {
		t.Fatalf("settings: %d %s", res.status, res.body)
	}
	desk := newTab(t, browserCtx, "UTC")
	desk.do(t, "open the sign-in page", chromedp.Navigate(base+"/admin/"), chromedp.WaitVisible(css("#provider-test")))
	desk.screenshot(t, s, "providers-01-sign-in-page")
	desk.do(t, "sign in with the provider", chromedp.Click(css("#provider-test")), chromedp.WaitVisible(css(".sidebar")))

	desk.do(t, "open Sign-in settings", chromedp.Navigate(base+"/admin/#/settings/signin"), chromedp.WaitVisible(css("#provider-0")))
	if ph := eval[string](t, desk, `document.querySelector('#provider-0-clientSecret').placeholder`); !strings.Contains(ph, "set") {
		t.Errorf("secret placeholder %q", ph)
	}
	desk.do(t, "turn sign-in links on", chromedp.Click(css("#set-auth-emailLinks")), chromedp.Click(css("#signin-settings-save")))
	desk.waitText(t, "#signin-settings-form .status", "Saved.")
	desk.screenshot(t, s, "providers-02-settings")
	var got struct {
		Auth struct {
			EmailLinks bool
			Providers  []struct{ ClientSecret string }
		}
	}
	s.api(t, "GET", "/api/settings", nil, nil).decode(t, &got)
	if !got.Auth.EmailLinks || len(got.Auth.Providers) != 1 || got.Auth.Providers[0].ClientSecret != "set" {
		t.Errorf("after saving: %+v", got.Auth)
	}
}
