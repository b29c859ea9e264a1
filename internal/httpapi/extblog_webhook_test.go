package httpapi

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/extblog"
	"github.com/foliohq/folio/internal/extblog/extblogfake"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// nativeEvent is a delivery in the platform's own shape.
func nativeEvent(uuid, publicationID, postID, eventType string) []byte {
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"uuid": uuid},
		"data": map[string]any{"publication": map[string]any{"id": publicationID}, "post": map[string]any{"id": postID}, "eventType": eventType}})
	return b
}

// specEvent is a delivery in the spec's shape.
func specEvent(event, postID, slug, title string) []byte {
	b, _ := json.Marshal(map[string]any{"event": event,
		"data": map[string]any{"postId": postID, "slug": slug, "title": title, "publishedAt": "2026-05-04T09:30:00Z"}})
	return b
}

// webhook delivers body signed as the platform signs (t in milliseconds) unless sig is given.
func (e *extblogEnv) webhook(t *testing.T, body []byte, sig string) response {
	t.Helper()
	if sig == "" {
		sig = extblog.SignWebhook(testWebhookSecret, body, e.clock.Now())
	}
	res := e.call("POST", "/api/extblog/webhook", "", body, "X-Extblog-Signature", sig)
	if res.Status != 204 && sig == extblog.SignWebhook(testWebhookSecret, body, e.clock.Now()) {
		t.Errorf("webhook: %d %s", res.Status, res.Body)
	}
	return res
}

func hexMAC(secret string, parts ...[]byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	for _, p := range parts {
		m.Write(p)
	}
	return hex.EncodeToString(m.Sum(nil))
}

func TestExtblogWebhookSignatures(t *testing.T) {
	e := newExtblogEnv(t, foliotest.MustOpenSQLite(t))
	v := newOpenAPIValidator(t, e.testServer)
	id := e.fake.AddPost(extblogfake.Post{Title: "Signed", Slug: "signed", ContentMarkdown: "Signed body."})
	body := nativeEvent("sig-1", extblogfake.DefaultPublicationID, id, "post_updated")
	now := e.clock.Now()
	ms, s := strconv.FormatInt(now.UnixMilli(), 10), strconv.FormatInt(now.Unix(), 10)
	old := strconv.FormatInt(now.Add(-10*time.Minute).UnixMilli(), 10)
	for _, tc := range []struct {
		name, sig string
		body      []byte
		status    int
		code      string
	}{
		{"t in milliseconds", "t=" + ms + ",v1=" + hexMAC(testWebhookSecret, []byte(ms+"."), body), body, 204, ""},
		{"t in seconds", "t=" + s + ",v1=" + hexMAC(testWebhookSecret, []byte(s+"."), body), body, 204, ""},
		{"plain hex of the body", hexMAC(testWebhookSecret, body), body, 204, ""},
		{"sha256= prefixed", "sha256=" + hexMAC(testWebhookSecret, body), body, 204, ""},
		{"expired timestamp", "t=" + old + ",v1=" + hexMAC(testWebhookSecret, []byte(old+"."), body), body, 401, "AUTHENTICATION_REQUIRED"},
		{"forged with another secret", "t=" + ms + ",v1=" + hexMAC("guess", []byte(ms+"."), body), body, 401, "AUTHENTICATION_REQUIRED"},
		{"signature of another body", hexMAC(testWebhookSecret, []byte("{}")), body, 401, "AUTHENTICATION_REQUIRED"},
		{"missing signature", "", body, 401, "AUTHENTICATION_REQUIRED"},
		{"malformed signature", "t=abc,v1=zz", body, 400, "VALIDATION_ERROR"},
		{"bad JSON", hexMAC(testWebhookSecret, []byte(`{"event":`)), []byte(`{"event":`), 400, "VALIDATION_ERROR"},
		{"unknown event", hexMAC(testWebhookSecret, specEvent("POST_LIKED", id, "", "")), specEvent("POST_LIKED", id, "", ""), 400, "VALIDATION_ERROR"},
		{"no post id", hexMAC(testWebhookSecret, []byte(`{"event":"POST_UPDATED","data":{}}`)), []byte(`{"event":"POST_UPDATED","data":{}}`), 400, "VALIDATION_ERROR"},
		{"static page event is ignored", hexMAC(testWebhookSecret, nativeEvent("sp", extblogfake.DefaultPublicationID, id, "static_page_edited")),
			nativeEvent("sp", extblogfake.DefaultPublicationID, id, "static_page_edited"), 204, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res response
			if tc.sig == "" {
				res = e.call("POST", "/api/extblog/webhook", "", tc.body)
			} else {
				res = e.call("POST", "/api/extblog/webhook", "", tc.body, "X-Extblog-Signature", tc.sig)
			}
			v.check("POST", "/api/extblog/webhook", res)
			if res.Status != tc.status {
				t.Fatalf("got %d %s, want %d", res.Status, res.Body, tc.status)
			}
			if tc.code != "" && res.errorCode(t) != tc.code {
				t.Errorf("code %s, want %s", res.errorCode(t), tc.code)
			}
		})
	}
	big := append([]byte(`{"event":"POST_UPDATED","data":{"postId":"x","title":"`), bytes.Repeat([]byte("a"), 1<<20)...)
	if res := e.call("POST", "/api/extblog/webhook", "", big, "X-Extblog-Signature", hexMAC(testWebhookSecret, big)); res.Status != 413 {
		t.Errorf("1 MiB body: %d", res.Status)
	}
	if strings.Contains(e.logs.String(), testWebhookSecret) {
		t.Error("the webhook secret appears in the log")
	}
}

// TestExtblogWebhookEvents covers the webhook rows of the synchronisation table, duplicate and
// out-of-order deliveries, and other publications.
func TestExtblogWebhookEvents(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		e := newExtblogEnv(t, db)
		ctx := context.Background()
		pid := e.fake.AddPost(extblogfake.Post{Title: "Written on the platform", Slug: "written-on-the-platform",
			ContentMarkdown: "First version.", Tags: []extblogfake.Tag{{Name: "Go", Slug: "go"}}})

		// POST_PUBLISHED inserts local metadata, with the content read from the platform.
		e.webhook(t, nativeEvent("d1", extblogfake.DefaultPublicationID, pid, "post_published"), "")
		p, err := db.Content.PostBySlug(ctx, "written-on-the-platform")
		if err != nil {
			t.Fatalf("no local article after POST_PUBLISHED: %v", err)
		}
		if p.ExtblogID != pid || p.Content != "First version." || p.Status != folio.PostPublished || p.Title != "Written on the platform" ||
			len(p.Tags) != 1 || p.Tags[0] != "Go" {
			t.Errorf("inserted article: %+v", p.PostSummary)
		}
		// The same delivery again is acknowledged and not applied twice.
		gets := e.fake.CallCount(extblog.OpGetPost)
		e.webhook(t, nativeEvent("d1", extblogfake.DefaultPublicationID, pid, "post_published"), "")
		if e.fake.CallCount(extblog.OpGetPost) != gets {
			t.Error("a duplicate delivery was applied again")
		}
		// A repeated event under a new delivery id (or the spec's shape) converges to the same state.
		e.webhook(t, specEvent("POST_PUBLISHED", pid, "written-on-the-platform", "Written on the platform"), "")
		if list, total, _ := db.Content.Posts(ctx, folio.PostFilter{Page: 1, Limit: 10}); total != 1 || len(list) != 1 {
			t.Errorf("%d articles after a repeated POST_PUBLISHED, want 1", total)
		}

		// POST_UPDATED refreshes the content.
		edit := `{"query":"mutation UpdatePost($input: UpdatePostInput!) { updatePost(input: $input) { post { id } } }",` +
			`"variables":{"input":{"id":"` + pid + `","title":"Rewritten","contentMarkdown":"Second version."}}}`
		req, _ := http.NewRequest("POST", e.platformURL, strings.NewReader(edit))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", testPlatformToken)
		if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 200 {
			t.Fatalf("editing on the fake: %v", err)
		}
		e.webhook(t, specEvent("POST_UPDATED", pid, "", ""), "")
		if p := mustPost(t, db, p.ID); p.Content != "Second version." || p.Title != "Rewritten" {
			t.Errorf("after POST_UPDATED: %q %q", p.Title, p.Content)
		}

		// Another publication's events are ignored.
		e.webhook(t, nativeEvent("d-other", "64f0c0ffee0000000000ffff", pid, "post_deleted"), "")
		if p := mustPost(t, db, p.ID); p.ArchivedAt != nil {
			t.Error("an event of another publication was applied")
		}

		// POST_DELETED archives the article and clears extblogId.
		e.webhook(t, nativeEvent("d2", extblogfake.DefaultPublicationID, pid, "post_deleted"), "")
		p = mustPost(t, db, p.ID)
		if p.ArchivedAt == nil || p.ExtblogID != "" {
			t.Errorf("after POST_DELETED: archivedAt %v extblogId %q", p.ArchivedAt, p.ExtblogID)
		}
		// Late deliveries of earlier events change nothing and create nothing.
		e.webhook(t, nativeEvent("d0", extblogfake.DefaultPublicationID, pid, "post_updated"), "")
		e.webhook(t, specEvent("POST_PUBLISHED", pid, "written-on-the-platform", "Written on the platform"), "")
		e.webhook(t, nativeEvent("d2", extblogfake.DefaultPublicationID, pid, "post_deleted"), "")
		if _, total, _ := db.Content.Posts(ctx, folio.PostFilter{Page: 1, Limit: 10}); total != 1 {
			t.Errorf("%d articles after late deliveries, want 1", total)
		}
		if p2 := mustPost(t, db, p.ID); p2.ArchivedAt == nil || p2.ExtblogID != "" || p2.Content != "Second version." {
			t.Errorf("late deliveries changed the archived article: %+v", p2.PostSummary)
		}

		// Out of order from the start: UPDATED before PUBLISHED ends where PUBLISHED then UPDATED ends.
		qid := e.fake.AddPost(extblogfake.Post{Title: "Second", Slug: "second", ContentMarkdown: "Two."})
		e.webhook(t, nativeEvent("q2", extblogfake.DefaultPublicationID, qid, "post_updated"), "")
		e.webhook(t, nativeEvent("q1", extblogfake.DefaultPublicationID, qid, "post_published"), "")
		if q, err := db.Content.PostBySlug(ctx, "second"); err != nil || q.ExtblogID != qid || q.Content != "Two." {
			t.Errorf("out-of-order UPDATED/PUBLISHED: %v %+v", err, q)
		}

		// A post whose POST_DELETED overtakes its POST_PUBLISHED is never created locally,
		// although the platform still serves a removed post by id.
		gid := e.fake.AddPost(extblogfake.Post{Title: "Gone", Slug: "gone", ContentMarkdown: "Gone.", Removed: true})
		e.webhook(t, nativeEvent("g2", extblogfake.DefaultPublicationID, gid, "post_deleted"), "")
		e.webhook(t, nativeEvent("g1", extblogfake.DefaultPublicationID, gid, "post_published"), "")
		if _, err := db.Content.PostBySlug(ctx, "gone"); !folio.IsNotFound(err) {
			t.Errorf("a deleted post was created by its late POST_PUBLISHED: %v", err)
		}

		// An unknown post id on the platform is acknowledged without a change.
		e.webhook(t, nativeEvent("u1", extblogfake.DefaultPublicationID, "65b24b924bf2eb3c0000beef", "post_updated"), "")

		// A platform failure while reading the post is a 503, and the delivery is not consumed.
		rid := e.fake.AddPost(extblogfake.Post{Title: "Third", Slug: "third", ContentMarkdown: "Three."})
		e.fake.FailNext(3, extblogfake.ServerError())
		body := nativeEvent("retry-me", extblogfake.DefaultPublicationID, rid, "post_published")
		res := e.call("POST", "/api/extblog/webhook", "", body, "X-Extblog-Signature", extblog.SignWebhook(testWebhookSecret, body, e.clock.Now()))
		if res.Status != 503 {
			t.Errorf("platform down during a webhook: %d %s", res.Status, res.Body)
		}
		e.webhook(t, body, "")
		if _, err := db.Content.PostBySlug(ctx, "third"); err != nil {
			t.Errorf("the retried delivery was not applied: %v", err)
		}
	})
}

// TestExtblogWebhookEchoOfPublish: the POST_PUBLISHED of our own publication links to our
// article through its canonical URL instead of creating a second article.
func TestExtblogWebhookEchoOfPublish(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	e := newExtblogEnv(t, db)
	a := createArticle(t, db, "Echoed")
	// Publish on the platform without recording the id, as when the echo overtakes the reply.
	post, err := e.svc.Blog.Publish(context.Background(), e.svc.Article(a))
	if err != nil {
		t.Fatal(err)
	}
	e.webhook(t, nativeEvent("echo", extblogfake.DefaultPublicationID, post.ID, "post_published"), "")
	if p := mustPost(t, db, a.ID); p.ExtblogID != post.ID {
		t.Errorf("echo did not link our article: extblogId %q", p.ExtblogID)
	}
	if _, total, _ := db.Content.Posts(context.Background(), folio.PostFilter{Page: 1, Limit: 10}); total != 1 {
		t.Errorf("%d articles, want 1", total)
	}
}

// TestExtblogWebhookWithoutSecret: without EXTBLOG_WEBHOOK_SECRET nothing can be verified, so
// every delivery is refused with 401 — unsigned or signed with any key — and nothing is applied.
func TestExtblogWebhookWithoutSecret(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		e := newExtblogEnv(t, db, func(eb *ExtBlog) { eb.WebhookSecret = "" })
		id := e.fake.AddPost(extblogfake.Post{Title: "Open", Slug: "open", ContentMarkdown: "Open."})
		body := specEvent("POST_PUBLISHED", id, "open", "Open")
		v := newOpenAPIValidator(t, e.testServer)
		remaining := ""
		for name, headers := range map[string][]string{
			"unsigned":          nil,
			"signed with a key": {"X-Extblog-Signature", extblog.SignWebhook("guessed", body, e.clock.Now())},
			"empty-key HMAC":    {"X-Extblog-Signature", hexMAC("", body)},
			"malformed header":  {"X-Extblog-Signature", "t=,v1="},
		} {
			res := e.call("POST", "/api/extblog/webhook", "", body, headers...)
			v.check("POST", "/api/extblog/webhook", res)
			if res.Status != 401 || res.errorCode(t) != "AUTHENTICATION_REQUIRED" || !strings.Contains(string(res.Body), "EXTBLOG_WEBHOOK_SECRET") {
				t.Errorf("%s delivery without a secret: %d %s", name, res.Status, res.Body)
			}
			// Exempt from the limits, yet it carries the headers every /api response has
			// (docs/api.md, "Conventions"), and deliveries spend nothing of the caller's budget.
			rem := res.Header.Get("X-RateLimit-Remaining")
			if res.Header.Get("X-RateLimit-Limit") == "" || rem == "" || res.Header.Get("X-RateLimit-Reset") == "" {
				t.Errorf("%s delivery: no X-RateLimit-* headers: %v", name, res.Header)
			}
			if remaining == "" {
				remaining = rem
			} else if rem != remaining {
				t.Errorf("%s delivery: X-RateLimit-Remaining %s after %s: a delivery spent the budget", name, rem, remaining)
			}
		}
		if _, total, _ := db.Content.Posts(context.Background(), folio.PostFilter{Page: 1, Limit: 10}); total != 0 {
			t.Errorf("a refused delivery was applied: %d articles", total)
		}
	})
}
