package httpapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/markdown"
	"github.com/foliohq/folio/internal/newsletter"
	"github.com/foliohq/folio/internal/sqldb"
)

// testEventsSecret signs the provider events of the newsletter tests.
var testEventsSecret = "whsec_" + base64.StdEncoding.EncodeToString([]byte("newsletter-events-test-secret-32b"))

// newsletterRig is a test server whose subscribers are mailed through a real SMTP server, with
// the job scheduler that sends the newsletters, all on one pinned clock.
type newsletterRig struct {
	ts     *testServer
	svc    *newsletter.Service
	smtp   *smtptest.Server
	outbox *mail.Outbox
	sched  *jobs.Scheduler
	clock  *foliotest.Clock
	seen   int
}

func newNewsletterRig(t *testing.T, db *sqldb.DB) *newsletterRig {
	t.Helper()
	clock := foliotest.NewClock(time.Now().UTC().Truncate(time.Second))
	db.Now = clock.Now
	smtp := smtptest.Start(t)
	from := folio.MailAddress{Name: "folio", Email: "folio@example.org"}
	mailer, err := mail.NewSMTP(mail.SMTPConfig{Host: smtp.Host, Port: smtp.Port, From: from, TLS: mail.TLSNone, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	outbox := mail.NewOutbox(db.Outbox, mailer, from, nil)
	outbox.Now = clock.Now
	svc := &newsletter.Service{Store: db.Subscribers, Mail: outbox, Outbox: db.Outbox, SiteURL: "https://site.test",
		ListMailto: folio.MailAddress{Email: "owner@example.org"}, Now: clock.Now,
		EraseKey: []byte("erase-key"), EventsSecret: testEventsSecret,
		SendConfig: newsletter.SendConfig{Sends: db.Subscribers, Posts: content.New(db.Content), Mailer: mailer,
			Markdown: markdown.New(), Owner: "instance-a"}}
	ts := newTestServer(t, db, func(s *Server) {
		s.Now = clock.Now
		s.Limits.Helper = 1000
		s.Subscribers = svc
		auth := testAuth{}
		for k, v := range testActors {
			auth[k] = v
		}
		auth["owner"] = folio.Actor{Level: folio.LevelAdmin, Role: "owner", KeyID: "k-owner", UserID: "u1", Email: "owner@example.org", Name: "Owner"}
		s.Auth = auth
	})
	sched := jobs.New(db.Jobs, nil)
	sched.Now = clock.Now
	sched.Handle(folio.JobPublishPost, jobs.PublishPost(content.New(db.Content), nil, nil))
	sched.Handle(folio.JobNewsletterIssue, svc.HandleIssue)
	sched.Handle(folio.JobNewsletterDigest, svc.DigestHandler(db.Jobs))
	return &newsletterRig{ts: ts, svc: svc, smtp: smtp, outbox: outbox, sched: sched, clock: clock}
}

// run runs the due jobs and returns the messages the SMTP server got since the last call.
func (r *newsletterRig) run(t *testing.T) []smtptest.Message {
	t.Helper()
	if _, err := r.sched.RunDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.outbox.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	msgs := r.smtp.Messages()
	out := msgs[r.seen:]
	r.seen = len(msgs)
	return out
}

// importActive puts addresses on the list as active subscribers (CSV with consent).
func (r *newsletterRig) importActive(t *testing.T, emails ...string) {
	t.Helper()
	csv := "email,consent\n"
	for _, e := range emails {
		csv += e + ",yes\n"
	}
	res := r.ts.do("POST", "/api/subscribers/import", "admin", csv, "Content-Type", "text/csv")
	if res.Status != 200 || res.json(t)["imported"] != float64(len(emails)) {
		t.Fatalf("import: %d %s", res.Status, res.Body)
	}
}

func (r *newsletterRig) newPost(t *testing.T, title, md string) string {
	t.Helper()
	res := r.ts.do("POST", "/api/posts", "write", map[string]any{"title": title, "content": md})
	if res.Status != 201 {
		t.Fatalf("create post: %d %s", res.Status, res.Body)
	}
	return res.json(t)["id"].(string)
}

func (r *newsletterRig) options(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	res := r.ts.do("POST", "/api/articles/publishing-options", "write", body)
	if res.Status != 200 {
		t.Fatalf("publishing-options %v: %d %s", body, res.Status, res.Body)
	}
	return res.json(t)["article"].(map[string]any)
}

func (r *newsletterRig) progress(t *testing.T, id string) map[string]any {
	t.Helper()
	res := r.ts.do("GET", "/api/posts/"+id+"/newsletter", "write", nil)
	if res.Status != 200 {
		t.Fatalf("progress: %d %s", res.Status, res.Body)
	}
	return res.json(t)
}

func recipients(msgs []smtptest.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.To...)
	}
	sort.Strings(out)
	return out
}

func TestNewsletterPublish(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		r := newNewsletterRig(t, db)
		active := []string{"ann@one.test", "bea@one.test", "cat@two.test", "dan@two.test", "eve@three.test"}
		r.importActive(t, active...)
		// A pending address (no consent) is never mailed.
		if res := r.ts.do("POST", "/api/subscribers/import", "admin", "email\npat@one.test\n", "Content-Type", "text/csv"); res.Status != 200 {
			t.Fatalf("import pending: %d %s", res.Status, res.Body)
		}

		id := r.newPost(t, "Hello readers", "Some *news*.\n\n![A picture](/media/pic.png)\n\nSee [the about page](/about).")
		if p := r.progress(t, id); p["status"] != "none" || p["send"] != false || p["total"] != 0.0 {
			t.Fatalf("before: %v", p)
		}
		art := r.options(t, map[string]any{"articleId": id, "status": "published", "newsletter": map[string]any{"send": true}})
		if nl, _ := art["newsletter"].(map[string]any); nl["send"] != true || art["status"] != "published" {
			t.Fatalf("article: %v", art)
		}
		if p := r.progress(t, id); p["status"] != "queued" || p["send"] != true {
			t.Fatalf("after publishing: %v", p)
		}
		msgs := r.run(t)
		if got := recipients(msgs); strings.Join(got, ",") != strings.Join(active, ",") {
			t.Fatalf("recipients %v, want %v", got, active)
		}
		for _, m := range msgs {
			hdr := m.Parsed(t).Header
			if hdr.Get("Subject") != "Hello readers" || hdr.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" ||
				!strings.HasPrefix(hdr.Get("List-Unsubscribe"), "<https://site.test/unsubscribe/") ||
				!strings.Contains(hdr.Get("List-Unsubscribe"), "<mailto:owner@example.org?subject=unsubscribe") ||
				!strings.HasPrefix(hdr.Get("Message-Id"), "<newsletter.post."+id+".") {
				t.Fatalf("headers: %v", hdr)
			}
			html := string(m.Data)
			for _, want := range []string{`src=3D"https://site.test/media/pic.png"`, `href=3D"https://site.test/about"`, `style=3D`} {
				if !strings.Contains(strings.ReplaceAll(html, "=\r\n", ""), want) {
					t.Fatalf("mail to %v lacks %s:\n%s", m.To, want, html)
				}
			}
			text := textBody(t, m)
			if !strings.Contains(text, "Unsubscribe: https://site.test/unsubscribe/") || !strings.Contains(text, "https://site.test/subscribe/preferences/") ||
				!strings.Contains(text, "(https://site.test/media/pic.png)") || !strings.Contains(text, "https://site.test/blog/hello-readers") {
				t.Fatalf("text part:\n%s", text)
			}
		}
		if p := r.progress(t, id); p["status"] != "sent" || p["sent"] != 5.0 || p["failed"] != 0.0 || p["total"] != 5.0 {
			t.Fatalf("after sending: %v", p)
		}

		// Published again after an unpublish: the post is not mailed twice.
		r.options(t, map[string]any{"articleId": id, "status": "draft"})
		r.options(t, map[string]any{"articleId": id, "status": "published"})
		if msgs := r.run(t); len(msgs) != 0 {
			t.Fatalf("mailed again on republishing: %v", recipients(msgs))
		}

		// Published by PUT /api/posts/{id}, the option set beforehand on the draft.
		put := r.newPost(t, "By PUT", "Body.")
		if art := r.options(t, map[string]any{"articleId": put, "status": "draft", "newsletter": map[string]any{"send": true}}); art["status"] != "draft" {
			t.Fatalf("draft: %v", art)
		}
		if msgs := r.run(t); len(msgs) != 0 {
			t.Fatal("a draft was mailed")
		}
		if res := r.ts.do("PUT", "/api/posts/"+put, "write", map[string]any{"status": "published"}); res.Status != 200 {
			t.Fatalf("PUT: %d %s", res.Status, res.Body)
		}
		if got := recipients(r.run(t)); len(got) != 5 {
			t.Fatalf("PUT publication mailed %v", got)
		}

		// At its scheduled time, by the scheduler.
		later := r.newPost(t, "Scheduled", "Later.")
		at := r.clock.Now().Add(time.Hour)
		r.options(t, map[string]any{"articleId": later, "status": "published", "scheduledAt": at.Format(time.RFC3339), "newsletter": map[string]any{"send": true}})
		if msgs := r.run(t); len(msgs) != 0 {
			t.Fatal("mailed before its time")
		}
		r.clock.Advance(time.Hour)
		if got := recipients(r.run(t)); len(got) != 5 {
			t.Fatalf("scheduled publication mailed %v", got)
		}
		if p := r.progress(t, later); p["status"] != "sent" || p["sent"] != 5.0 {
			t.Fatalf("scheduled progress: %v", p)
		}

		// Ticked after publishing: mailed then, once.
		late := r.newPost(t, "Ticked late", "Body.")
		r.options(t, map[string]any{"articleId": late, "status": "published"})
		if msgs := r.run(t); len(msgs) != 0 {
			t.Fatal("mailed without the option")
		}
		for range 2 {
			r.options(t, map[string]any{"articleId": late, "status": "published", "newsletter": map[string]any{"send": true}})
		}
		if got := recipients(r.run(t)); len(got) != 5 {
			t.Fatalf("ticked after publishing: %v", got)
		}

		// Send off: not mailed.
		off := r.newPost(t, "Quiet", "No mail.")
		r.options(t, map[string]any{"articleId": off, "status": "published", "newsletter": map[string]any{"send": false}})
		if msgs := r.run(t); len(msgs) != 0 {
			t.Fatal("a post with send off was mailed")
		}
		if res := r.ts.do("GET", "/api/posts/no-such-post/newsletter", "write", nil); res.Status != 404 {
			t.Fatalf("unknown post: %d", res.Status)
		}
		if res := r.ts.do("GET", "/api/posts/"+id+"/newsletter", "", nil); res.Status != 401 {
			t.Fatalf("anonymous progress: %d", res.Status)
		}
	})
}

func TestNewsletterBounce(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		r := newNewsletterRig(t, db)
		r.importActive(t, "ok@one.test", "gone@two.test")
		id := r.newPost(t, "Bounce", "Body.")
		r.smtp.RejectNext(1) // 550 5.1.1 for the first mail
		r.options(t, map[string]any{"articleId": id, "status": "published", "newsletter": map[string]any{"send": true}})
		if msgs := r.run(t); len(msgs) != 1 {
			t.Fatalf("delivered %d, want 1", len(msgs))
		}
		if p := r.progress(t, id); p["status"] != "sent" || p["sent"] != 1.0 || p["failed"] != 1.0 || p["total"] != 2.0 {
			t.Fatalf("progress: %v", p)
		}
		bounced := r.ts.do("GET", "/api/subscribers?status=bounced", "admin", nil).json(t)
		if bounced["total"] != 1.0 {
			t.Fatalf("bounced: %v", bounced)
		}
		// A bounced address gets no more mail.
		next := r.newPost(t, "After", "Body.")
		r.options(t, map[string]any{"articleId": next, "status": "published", "newsletter": map[string]any{"send": true}})
		if msgs := r.run(t); len(msgs) != 1 {
			t.Fatalf("after the bounce: %v", recipients(msgs))
		}
	})
}

func signedEvent(t *testing.T, r *newsletterRig, body string, mutate ...func(h map[string]string)) response {
	t.Helper()
	ts := r.clock.Now().Unix()
	h := map[string]string{"webhook-id": "msg_1", "webhook-timestamp": strconv.FormatInt(ts, 10),
		"webhook-signature": newsletter.SignEvent(newsletter.EventKey(testEventsSecret), "msg_1", ts, []byte(body)), "Content-Type": "application/json"}
	for _, m := range mutate {
		m(h)
	}
	var hs []string
	for k, v := range h {
		hs = append(hs, k, v)
	}
	return r.ts.do("POST", "/api/subscribers/events", "", body, hs...)
}

func TestSubscriberEvents(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		r := newNewsletterRig(t, db)
		r.importActive(t, "spam@one.test", "hard@two.test", "soft@three.test")
		if res := signedEvent(t, r, `{"type":"complaint","data":{"email":"Spam@One.test"}}`); res.Status != 204 {
			t.Fatalf("complaint: %d %s", res.Status, res.Body)
		}
		if res := signedEvent(t, r, `{"type":"email.bounced","data":{"to":["hard@two.test"],"bounce":{"type":"Permanent"}}}`); res.Status != 204 {
			t.Fatalf("bounce: %d %s", res.Status, res.Body)
		}
		if res := signedEvent(t, r, `{"type":"email.bounced","data":{"to":"soft@three.test","bounce":{"type":"Transient"}}}`); res.Status != 204 {
			t.Fatalf("transient bounce: %d %s", res.Status, res.Body)
		}
		if res := signedEvent(t, r, `{"type":"bounce","data":{"email":"stranger@nowhere.test"}}`); res.Status != 204 {
			t.Fatalf("unknown address: %d %s", res.Status, res.Body)
		}
		for status, want := range map[string]float64{"complained": 1, "bounced": 1, "active": 1} {
			if got := r.ts.do("GET", "/api/subscribers?status="+status, "admin", nil).json(t)["total"]; got != want {
				t.Errorf("%s: %v, want %v", status, got, want)
			}
		}
		cases := []struct {
			name   string
			body   string
			mutate func(h map[string]string)
			want   int
		}{
			{"tampered body", `{"type":"bounce","data":{"email":"soft@three.test"}}`, func(h map[string]string) {
				h["webhook-signature"] = newsletter.SignEvent(newsletter.EventKey(testEventsSecret), "msg_1", r.clock.Now().Unix(), []byte(`{}`))
			}, 401},
			{"other key", `{"type":"bounce","data":{"email":"soft@three.test"}}`, func(h map[string]string) {
				h["webhook-signature"] = newsletter.SignEvent([]byte("another key"), "msg_1", r.clock.Now().Unix(), []byte(`{"type":"bounce","data":{"email":"soft@three.test"}}`))
			}, 401},
			{"old timestamp", `{"type":"bounce","data":{"email":"soft@three.test"}}`, func(h map[string]string) {
				old := r.clock.Now().Add(-time.Hour).Unix()
				h["webhook-timestamp"] = strconv.FormatInt(old, 10)
				h["webhook-signature"] = newsletter.SignEvent(newsletter.EventKey(testEventsSecret), "msg_1", old, []byte(`{"type":"bounce","data":{"email":"soft@three.test"}}`))
			}, 401},
			{"no signature", `{"type":"bounce","data":{"email":"soft@three.test"}}`, func(h map[string]string) { delete(h, "webhook-signature") }, 401},
			{"bad address", `{"type":"bounce","data":{"email":"not an address"}}`, nil, 422},
			{"not JSON", `nope`, nil, 400},
		}
		for _, c := range cases {
			var m []func(map[string]string)
			if c.mutate != nil {
				m = append(m, c.mutate)
			}
			if res := signedEvent(t, r, c.body, m...); res.Status != c.want {
				t.Errorf("%s: %d %s, want %d", c.name, res.Status, res.Body, c.want)
			}
		}
		if got := r.ts.do("GET", "/api/subscribers?status=active", "admin", nil).json(t)["total"]; got != 1.0 {
			t.Errorf("a refused event changed the list: %v active", got)
		}
		r.svc.EventsSecret = ""
		if res := signedEvent(t, r, `{"type":"bounce","data":{"email":"soft@three.test"}}`); res.Status != 401 || !strings.Contains(string(res.Body), "NEWSLETTER_EVENTS_SECRET") {
			t.Errorf("without a secret: %d %s", res.Status, res.Body)
		}
	})
}

func TestNewsletterPreferencesAndDigest(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		r := newNewsletterRig(t, db)
		r.importActive(t, "posts@one.test", "weekly@two.test", "quiet@three.test")
		tokens := map[string]string{}
		subs, _, err := db.Subscribers.Subscribers(context.Background(), folio.SubscriberFilter{}, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range subs {
			tokens[s.Email] = s.UnsubscribeToken
		}
		prefs := func(email string) string { return "/api/subscribers/preferences/" + tokens[email] }
		if got := r.ts.do("GET", prefs("weekly@two.test"), "", nil).json(t); got["preference"] != "posts" || got["email"] != "weekly@two.test" {
			t.Fatalf("preferences: %v", got)
		}
		for email, p := range map[string]string{"weekly@two.test": "digest", "quiet@three.test": "none"} {
			if res := r.ts.do("PUT", prefs(email), "", map[string]any{"preference": p}); res.Status != 200 || res.json(t)["preference"] != p {
				t.Fatalf("PUT %s: %d %s", p, res.Status, res.Body)
			}
		}
		if res := r.ts.do("PUT", prefs("quiet@three.test"), "", map[string]any{"preference": "hourly"}); res.Status != 422 {
			t.Fatalf("bad preference: %d %s", res.Status, res.Body)
		}
		if res := r.ts.do("GET", "/api/subscribers/preferences/unknown-token-aaaaaaaaaaaa", "", nil); res.Status != 404 {
			t.Fatalf("unknown token: %d", res.Status)
		}

		for _, title := range []string{"First of the week", "Second of the week"} {
			id := r.newPost(t, title, "Body of "+title+".")
			r.options(t, map[string]any{"articleId": id, "status": "published", "newsletter": map[string]any{"send": true}})
		}
		if got := recipients(r.run(t)); strings.Join(got, ",") != "posts@one.test,posts@one.test" {
			t.Fatalf("post mails went to %v", got)
		}

		// The weekly digest, once however many instances make it.
		end := r.clock.Now().Add(24 * time.Hour)
		for range 2 {
			if id, err := r.svc.MakeDigest(context.Background(), end); err != nil || id != newsletter.DigestIssueID(end.AddDate(0, 0, -7)) {
				t.Fatalf("MakeDigest: %q %v", id, err)
			}
		}
		msgs := r.run(t)
		if got := recipients(msgs); strings.Join(got, ",") != "weekly@two.test" {
			t.Fatalf("digest went to %v", got)
		}
		text := textBody(t, msgs[0])
		if !strings.Contains(text, "First of the week") || !strings.Contains(text, "Second of the week") || !strings.Contains(text, "Unsubscribe: https://site.test/unsubscribe/"+tokens["weekly@two.test"]) {
			t.Fatalf("digest text:\n%s", text)
		}
		if id, err := r.svc.MakeDigest(context.Background(), end.AddDate(0, 0, 14)); err != nil || id != "" {
			t.Fatalf("a week without posts made %q, %v", id, err)
		}

		// Unsubscribed, then choosing the digest again on the preferences page: active again.
		if res := r.ts.do("POST", "/unsubscribe/"+tokens["posts@one.test"], "", "List-Unsubscribe=One-Click", "Content-Type", "application/x-www-form-urlencoded"); res.Status != 200 {
			t.Fatalf("unsubscribe: %d", res.Status)
		}
		if got := r.ts.do("PUT", prefs("posts@one.test"), "", map[string]any{"preference": "digest"}).json(t); got["status"] != "active" || got["preference"] != "digest" {
			t.Fatalf("back: %v", got)
		}
	})
}

func TestNewsletterPreviewTestMailErase(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		r := newNewsletterRig(t, db)
		id := r.newPost(t, "Draft to try", "Hello **there**.")
		res := r.ts.do("GET", "/api/posts/"+id+"/newsletter/preview", "write", nil)
		if res.Status != 200 {
			t.Fatalf("preview: %d %s", res.Status, res.Body)
		}
		pv := res.json(t)
		if pv["subject"] != "Draft to try" || !strings.Contains(pv["html"].(string), "<strong") || !strings.Contains(pv["text"].(string), "Unsubscribe:") {
			t.Fatalf("preview: %v", pv)
		}
		res = r.ts.do("POST", "/api/posts/"+id+"/newsletter/test", "owner", nil)
		if res.Status != 202 || res.json(t)["to"] != "owner@example.org" {
			t.Fatalf("test mail: %d %s", res.Status, res.Body)
		}
		msgs := r.run(t)
		if len(msgs) != 1 || msgs[0].To[0] != "owner@example.org" || msgs[0].Parsed(t).Header.Get("Subject") != "[Test] Draft to try" {
			t.Fatalf("test mails: %+v", msgs)
		}
		if res := r.ts.do("POST", "/api/posts/"+id+"/newsletter/test", "write", nil); res.Status != 422 {
			t.Fatalf("test mail without an address: %d %s", res.Status, res.Body)
		}

		// Erase keeps a keyed hash: a re-import of the address is refused.
		r.importActive(t, "erase.me@one.test")
		subs, _, _ := db.Subscribers.Subscribers(context.Background(), folio.SubscriberFilter{Q: "erase.me"}, 1, 10)
		if res := r.ts.do("DELETE", "/api/subscribers/"+subs[0].ID, "admin", nil); res.Status != 204 {
			t.Fatalf("erase: %d %s", res.Status, res.Body)
		}
		res = r.ts.do("POST", "/api/subscribers/import", "admin", "email,consent\nErase.Me@one.test,yes\nnew@one.test,yes\n", "Content-Type", "text/csv")
		got := res.json(t)
		inv, _ := got["invalid"].([]any)
		if res.Status != 200 || got["imported"] != 1.0 || len(inv) != 1 || !strings.Contains(fmt.Sprint(inv[0]), "erased") || !strings.Contains(fmt.Sprint(inv[0]), "line:2") {
			t.Fatalf("re-import of an erased address: %d %s", res.Status, res.Body)
		}
		if total := r.ts.do("GET", "/api/subscribers?q=erase.me", "admin", nil).json(t)["total"]; total != 0.0 {
			t.Fatalf("erased address listed again: %v", total)
		}
		// The person subscribing again, and confirming, lifts the mark.
		if res := r.ts.do("POST", "/api/subscribers", "", map[string]any{"email": "erase.me@one.test"}); res.Status != 202 {
			t.Fatalf("subscribe: %d", res.Status)
		}
		msgs = r.run(t)
		m := confirmLink.FindStringSubmatch(textBody(t, msgs[len(msgs)-1]))
		if m == nil {
			t.Fatal("no confirmation link")
		}
		if res := r.ts.do("POST", "/api/subscribers/confirm/"+m[1], "", nil); res.Status != 200 {
			t.Fatalf("confirm: %d %s", res.Status, res.Body)
		}
		if erased, _ := db.Subscribers.ErasedAmong(context.Background(), []string{r.svc.EmailHash("erase.me@one.test")}); len(erased) != 0 {
			t.Fatal("the erased mark stayed after the person subscribed again")
		}
	})
}

// The owner writes the welcome mail in the settings; a confirmed subscriber gets that text.
func TestWelcomeMailEditable(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		r := newNewsletterRig(t, db)
		r.svc.Settings = r.ts.Settings.Current
		res := r.ts.do("PUT", "/api/settings", "admin", map[string]any{"site": map[string]any{"url": "https://site.test", "name": "Field Notes"},
			"newsletter": map[string]any{"welcomeSubject": "You are in, {site}", "welcomeText": "Hello!\n\nFirst line,\nsecond line of {site} <3."}})
		if res.Status != 200 {
			t.Fatalf("settings: %d %s", res.Status, res.Body)
		}
		if nl := res.json(t)["newsletter"].(map[string]any); nl["welcomeSubject"] != "You are in, {site}" {
			t.Fatalf("settings answer: %v", nl)
		}
		if res := r.ts.do("PUT", "/api/settings", "admin", map[string]any{"newsletter": map[string]any{"welcomeSubject": "two\nlines"}}); res.Status != 422 {
			t.Fatalf("a subject on two lines: %d %s", res.Status, res.Body)
		}
		if res := r.ts.do("POST", "/api/subscribers", "", map[string]any{"email": "new@one.test"}); res.Status != 202 {
			t.Fatalf("subscribe: %d", res.Status)
		}
		m := confirmLink.FindStringSubmatch(textBody(t, r.run(t)[0]))
		if m == nil {
			t.Fatal("no confirm link")
		}
		if res := r.ts.do("POST", "/api/subscribers/confirm/"+m[1], "", nil); res.Status != 200 {
			t.Fatalf("confirm: %d", res.Status)
		}
		msgs := r.run(t)
		if len(msgs) != 1 || msgs[0].Parsed(t).Header.Get("Subject") != "You are in, Field Notes" {
			t.Fatalf("welcome: %+v", msgs)
		}
		text := textBody(t, msgs[0])
		if !strings.HasPrefix(text, "Hello!") || !strings.Contains(text, "second line of Field Notes <3.") || !strings.Contains(text, "Unsubscribe: https://site.test/unsubscribe/") {
			t.Fatalf("welcome text:\n%s", text)
		}
		if html := strings.ReplaceAll(string(msgs[0].Data), "=\r\n", ""); !strings.Contains(html, "First line,<br>second line of Field Notes &lt;3.") {
			t.Fatalf("welcome HTML:\n%s", html)
		}
	})
}
