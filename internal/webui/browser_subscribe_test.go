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
// gets the welcome mail with the one-click unsubscribe headers, unsubscribes through its link;
// the owner sees them unsubscribed on the dashboard's Subscribers screen.
func TestBrowserSubscribe(t *testing.T) {
	browserCtx := startBrowser(t)
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
	unsub := unsubscribeLinkRE.FindString(welcome)
	if unsub == "" {
		t.Fatalf("no unsubscribe link in the welcome mail:\n%s", welcome)
	}
	reader.do(t, "unsubscribe", chromedp.Navigate(unsub))
	reader.waitText(t, "#h-unsubscribe", "You are unsubscribed")
	reader.screenshot(t, s, "subscribe-02-unsubscribed")

	desk := newTab(t, browserCtx, "UTC")
	desk.do(t, "dashboard", chromedp.Navigate(s.base+"/admin/#/subscribers"))
	signInForm(t, desk, adminEmail, adminPassword)
	desk.do(t, "subscribers", chromedp.WaitVisible(css("#subscribers-table")))
	desk.waitText(t, `#subscribers-table tr[data-email="reader@example.com"]`, "Unsubscribed")
	desk.screenshot(t, s, "subscribe-03-dashboard")
}
