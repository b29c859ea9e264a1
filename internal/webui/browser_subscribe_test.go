package webui_test

import (
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
)

var (
	confirmLinkRE     = regexp.MustCompile(`https?://[^\s"<>]+/subscribe/confirm/[A-Za-z0-9_-]{43}`)
	unsubscribeLinkRE = regexp.MustCompile(`https?://[^\s"<>]+/unsubscribe/[A-Za-z0-9_-]{43}`)
)

// TestBrowserSubscribe: a reader subscribes on /subscribe, opens the confirm link of the .eml,
// gets the welcome mail with the one-click unsubscribe headers; the owner publishes a post with
// the newsletter on, the reader gets it and unsubscribes through its link, then chooses nothing
// on the preferences page; the owner sees them unsubscribed on the dashboard's Subscribers screen.
func TestBrowserSubscribe(t *testing.T) {
	browserCtx := newBrowser(t)
	s := startFolio(t)
	reader := newTab(t, browserCtx, "UTC")
	reader.do(t, "subscribe", chromedp.Navigate(s.base+"/subscribe"), chromedp.WaitVisible(css("#subscribe-form")),
		chromedp.SendKeys(css("#email"), "reader@example.com"), chromedp.SendKeys(css("#name"), "Rea Der"),
		chromedp.Click(css("#subscribe")), chromedp.WaitVisible(css("#step-sent")))
	reader.screenshot(t, s, "subscribe-01-sent")
	link := confirmLinkRE.FindString(waitForMail(t, s, "/subscribe/confirm/", "reader@example.com"))
	if link == "" {
		t.Fatal("no confirm link in the mail")
	}
	reader.do(t, "confirm", chromedp.Navigate(link))
	reader.waitText(t, "#h-confirm", "You are subscribed")
	welcome := waitForMail(t, s, "List-Unsubscribe-Post: List-Unsubscribe=One-Click", "reader@example.com")
	if unsubscribeLinkRE.FindString(welcome) == "" {
		t.Fatalf("no unsubscribe link in the welcome mail:\n%s", welcome)
	}

	// The owner publishes a post with the newsletter on: it comes by mail, and its one-click
	// link unsubscribes; the unsubscribe page leads to the preferences.
	res := s.api(t, "POST", "/api/posts", map[string]any{"title": "Browser news", "content": "Fresh from the press."}, nil)
	var created struct{ ID string }
	res.decode(t, &created)
	if res = s.api(t, "POST", "/api/articles/publishing-options", map[string]any{"articleId": created.ID, "status": "published",
		"newsletter": map[string]any{"send": true}}, nil); res.status != 200 {
		t.Fatalf("publish: %d %s", res.status, res.body)
	}
	letter := waitForMail(t, s, "Subject: Browser news", "reader@example.com", "Fresh from the press.")
	unsub := unsubscribeLinkRE.FindString(letter)
	if unsub == "" {
		t.Fatalf("no unsubscribe link in the newsletter:\n%s", letter)
	}
	reader.do(t, "unsubscribe", chromedp.Navigate(unsub))
	reader.waitText(t, "#h-unsubscribe", "You are unsubscribed")
	reader.screenshot(t, s, "subscribe-02-unsubscribed")
	reader.do(t, "preferences", chromedp.Click(css("#prefs-link")), chromedp.WaitVisible(css("#prefs-form")),
		chromedp.Click(css("#pref-none")), chromedp.Click(css("#prefs-save")))
	reader.waitText(t, "#status", "nothing more will be sent")
	reader.screenshot(t, s, "subscribe-03-preferences")

	desk := newTab(t, browserCtx, "UTC")
	desk.do(t, "dashboard", chromedp.Navigate(s.base+"/admin/#/subscribers"))
	signInForm(t, desk, adminEmail, adminPassword)
	desk.do(t, "subscribers", chromedp.WaitVisible(css("#subscribers-table")))
	desk.waitText(t, `#subscribers-table tr[data-email="reader@example.com"]`, "Unsubscribed")
	desk.screenshot(t, s, "subscribe-04-dashboard")
}
