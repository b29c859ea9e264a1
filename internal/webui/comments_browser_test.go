package webui_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserComments drives Content → Comments: a Webmention from a page on loopback (its
// h-entry by Wendy links to a published post) arrives pending; the owner approves it in the
// queue and it shows in the post's public comments. On the way, its domain is blocked and
// unblocked from the same screen.
func TestBrowserComments(t *testing.T) {
	findChromium(t) // skip before starting anything when there is no browser
	s := startFolioWith(t, map[string]string{"FEDIVERSE_ALLOW_PRIVATE": "true"})
	if r := s.api(t, "POST", "/api/blog", map[string]any{"title": "Talk to me", "content": "Say hello.", "status": "published"}, nil); r.status != 201 {
		t.Fatalf("create post: %d %s", r.status, r.body)
	}
	target := s.base + "/blog/talk-to-me"
	source := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>A reply</title><article class="h-entry">
			<a class="p-author h-card" href="https://wendy.example/">Wendy</a>
			<div class="e-content"><p>Hello from <b>Wendy</b>, replying to <a href="%s">your post</a>.</p></div></article>`, html.EscapeString(target))
	}))
	defer source.Close()
	res, err := http.PostForm(s.base+"/webmention", url.Values{"source": {source.URL + "/reply"}, "target": {target}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /webmention: %d", res.StatusCode)
	}
	// The job queue verifies it in the background (it polls every second): wait for the comment.
	var id string
	for deadline := time.Now().Add(40 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var list struct {
			Comments []struct{ ID, Status string }
		}
		s.api(t, "GET", "/api/comments?status=pending", nil, nil).decode(t, &list)
		if len(list.Comments) == 1 {
			id = list.Comments[0].ID
		}
	}
	if id == "" {
		t.Fatal("the Webmention never became a pending comment")
	}

	browserCtx := newBrowser(t)
	desk := newTab(t, browserCtx, ownerZone)
	signIn(t, desk, s.base)

	desk.do(t, "open Comments", chromedp.Navigate(s.base+"/admin/#/comments"), chromedp.WaitVisible(css("#comments-status")))
	card := fmt.Sprintf("article[data-comment=%q]", id)
	desk.waitText(t, card, "Hello from Wendy")
	desk.waitText(t, card, "Pending")
	desk.waitText(t, card, "via Webmention")
	if n := eval[int](t, desk, `document.querySelectorAll('article[data-comment] script, article[data-comment] [onclick]').length`); n != 0 {
		t.Fatalf("the comment brought %d scripts or handlers", n)
	}
	// A Webmention has no actor to answer or block, only its domain.
	if n := eval[int](t, desk, fmt.Sprintf(`document.querySelectorAll('#reply-%s, #block-actor-%s').length`, id, id)); n != 0 {
		t.Fatalf("a Webmention offers a fediverse reply or an actor block")
	}
	desk.waitText(t, "#block-domain-"+id, "Block wendy.example")
	desk.screenshot(t, s, "comments-01-pending")
	checkAxe(t, desk, "comments")

	desk.waitText(t, "#fediverse-followers", "Nobody follows")
	desk.do(t, "block the domain", chromedp.Click(css("#block-domain-"+id)))
	desk.waitText(t, "main", "Blocked wendy.example.")
	desk.waitText(t, "#fediverse-blocks", "wendy.example")
	desk.do(t, "unblock it", chromedp.Click(css("#unblock-0")))
	desk.waitText(t, "main", "wendy.example is no longer blocked.")
	desk.waitText(t, "#fediverse-blocks", "No actor or domain is blocked.")

	desk.do(t, "approve", chromedp.Click(css("#approve-"+id)))
	desk.waitText(t, "main", "Comment approved.")
	// The queue shows the pending ones by default: the approved comment left it.
	desk.waitText(t, "main", "No comments here.")
	desk.do(t, "show the approved ones", chromedp.SetValue(css("#comments-status"), "approved"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#comments-status').dispatchEvent(new Event('change'))`))
	desk.waitText(t, card, "Approved")

	pub, err := http.Get(s.base + "/api/blog/talk-to-me/comments")
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Body.Close()
	var public struct {
		Comments []struct{ ID, AuthorName, AuthorURL, Content, Source string }
	}
	if err := json.NewDecoder(pub.Body).Decode(&public); err != nil || pub.StatusCode != 200 {
		t.Fatalf("public comments: %d %v", pub.StatusCode, err)
	}
	if len(public.Comments) != 1 {
		t.Fatalf("public comments: %+v", public.Comments)
	}
	c := public.Comments[0]
	if c.ID != id || c.AuthorName != "Wendy" || c.AuthorURL != "https://wendy.example/" || c.Source != "webmention" ||
		!strings.Contains(c.Content, "<b>Wendy</b>") {
		t.Fatalf("public comment: %+v", c)
	}
}

// checkAxe fails on any serious or critical accessibility violation axe-core finds on the page
// (skipped, with a note, where axe-core is not installed: .ci/run installs it).
func checkAxe(t *testing.T, tb *tab, name string) {
	t.Helper()
	axe, err := os.ReadFile(axeScript)
	if err != nil {
		t.Logf("%s: accessibility check skipped: axe-core is not installed", name)
		return
	}
	tb.do(t, "inject axe-core", chromedp.Evaluate[chromedp.Void](string(axe)))
	res := evalAwait[[]axeViolation](t, tb, `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
		.filter((v) => v.impact === 'serious' || v.impact === 'critical')
		.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 4).map((n) => n.target.join(' ')) })))`)
	for _, v := range res {
		t.Errorf("%s: accessibility (%s) %s: %s\n\t%s", name, v.Impact, v.ID, v.Help, strings.Join(v.Targets, "\n\t"))
	}
}
