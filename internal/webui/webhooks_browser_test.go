package webui_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserWebhooks drives Settings → Webhooks: create a webhook (the secret shows once and
// is not in the list), send a test delivery and see it in the delivery log, find the export
// link, delete the webhook.
func TestBrowserWebhooks(t *testing.T) {
	findChromium(t) // skip before starting anything when there is no browser
	s := startFolio(t)
	browserCtx := newBrowser(t)
	desk := newTab(t, browserCtx, ownerZone)
	signIn(t, desk, s.base)

	desk.do(t, "open Settings → Webhooks", chromedp.Navigate(s.base+"/admin/#/settings/webhooks"), chromedp.WaitVisible(css("#webhook-form")))
	// A loopback URL is refused by the server (WEBHOOK_ALLOW_PRIVATE is off) and the form says why.
	desk.do(t, "try a loopback URL",
		chromedp.SendKeys(css("#webhook-url"), "http://127.0.0.1:9/hook"),
		chromedp.Click(css("#webhook-form button[type=submit]")))
	desk.waitText(t, "main", "not a public address")

	desk.do(t, "create a webhook",
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#webhook-url').value = ''`),
		chromedp.SendKeys(css("#webhook-url"), "https://hooks.example.invalid/folio"),
		chromedp.SendKeys(css("#webhook-description"), "phone"),
		chromedp.Click(css("#webhook-events input[value='post.published']")),
		chromedp.Click(css("#webhook-form button[type=submit]")),
		chromedp.WaitVisible(css("#new-webhook-secret")))
	secret := desk.text(t, "#new-webhook-secret")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret shown: %q", secret)
	}
	desk.waitText(t, "#webhooks-table", "https://hooks.example.invalid/folio")
	desk.waitText(t, "#webhooks-table", "A post is published")
	desk.screenshot(t, s, "webhooks-01-created")
	desk.do(t, "dismiss the secret", chromedp.Click(css("#new-webhook-done")))
	if n := eval[int](t, desk, `document.querySelectorAll('#new-webhook-secret').length`); n != 0 {
		t.Fatal("the secret is still on the page")
	}
	if strings.Contains(eval[string](t, desk, `document.body.textContent`), secret[6:]) {
		t.Fatal("the secret is shown again")
	}
	res := s.api(t, "GET", "/api/webhooks", nil, nil)
	if res.status != 200 || strings.Contains(string(res.body), secret[6:]) || !strings.Contains(string(res.body), `"description":"phone"`) {
		t.Fatalf("GET /api/webhooks: %d %s", res.status, res.body)
	}

	desk.openMenu(t, "#webhooks-table .menu-button")
	desk.do(t, "send a test delivery", chromedp.Click(css("#webhooks-table [id^='test-']")))
	desk.waitText(t, "#deliveries-table", "webhook.test")
	desk.waitFor(t, "the test delivery in the log", `document.querySelector('#deliveries-table tr[data-status]') !== null`)
	desk.screenshot(t, s, "webhooks-02-log")
	desk.openMenu(t, "#webhooks-table .menu-button")
	desk.do(t, "delete the webhook", chromedp.Click(css("#webhooks-table [id^='delete-']")),
		chromedp.WaitVisible(css("#confirm-dialog")), chromedp.Click(css("#confirm-ok")))
	desk.waitText(t, "main", "No webhooks yet.")

	// Export (and how to import) is a settings page of its own.
	desk.do(t, "open Settings → Import and export", chromedp.Navigate(s.base+"/admin/#/settings/export"), chromedp.WaitVisible(css("#export-link")))
	if href := eval[string](t, desk, `document.querySelector('#export-link').getAttribute('href')`); href != "/api/export" {
		t.Fatalf("export link %q", href)
	}
	desk.waitText(t, "#import-panel", "folio import")
}
