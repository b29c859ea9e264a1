package e2e

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/extblog/extblogfake"
)

// idList is the part of every list response the tests read.
type idList struct {
	Projects []struct{ ID, Title string } `json:"projects"`
	Posts    []struct {
		ID, Title, Slug string
	} `json:"posts"`
	Total int `json:"total"`
}

func listHas(t *testing.T, r reply, id string) bool {
	t.Helper()
	if r.err != nil || r.status != http.StatusOK {
		return false
	}
	var l idList
	r.decode(t, &l)
	for _, p := range l.Projects {
		if p.ID == id {
			return true
		}
	}
	for _, p := range l.Posts {
		if p.ID == id {
			return true
		}
	}
	return false
}

// signWebhook signs body as the platform does: t=<ms>,v1=hex(HMAC-SHA256("<t>.<body>")).
func signWebhook(body []byte, at time.Time) string {
	ts := strconv.FormatInt(at.UnixMilli(), 10)
	m := hmac.New(sha256.New, []byte(webhookSecret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// webhookBody is the platform's native delivery for a post event.
func webhookBody(delivery, postID, eventType string) []byte {
	return fmt.Appendf(nil, `{"metadata":{"uuid":%q},"data":{"publication":{"id":%q},"post":{"id":%q},"eventType":%q}}`,
		delivery, extblogfake.DefaultPublicationID, postID, eventType)
}

// pngBytes is a small distinct PNG.
func pngBytes(t *testing.T, seed int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 8+seed, 6))
	img.Set(1, 1, color.NRGBA{R: uint8(seed * 40), G: 90, B: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func multipartFile(t *testing.T, name string, data []byte) ([]byte, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	part, err := w.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	part.Write(data)
	w.Close()
	return b.Bytes(), w.FormDataContentType()
}

type slot struct{ Start, End string }

// bookableSlots finds the first business day ahead with at least n free slots that stay
// bookable for the whole test: a slot just past the default 24-hour notice falls inside it a
// few seconds later, and the booking is then refused as not offered.
func bookableSlots(t *testing.T, base string, n int) []slot {
	t.Helper()
	ny, _ := time.LoadLocation("America/New_York")
	day := time.Now().In(ny)
	safe := time.Now().Add(24*time.Hour + time.Hour)
	for range 21 {
		day = day.AddDate(0, 0, 1)
		r := call("GET", base+"/api/schedule/available?date="+day.Format("2006-01-02")+"&duration=30&timezone=America/New_York",
			nil, "X-Forwarded-For", "198.51.100.1")
		r.want(t, http.StatusOK, "available slots")
		var v struct{ Slots []slot }
		r.decode(t, &v)
		var later []slot
		for _, s := range v.Slots {
			start, err := time.Parse(time.RFC3339, s.Start)
			if err != nil {
				t.Fatalf("slot start %q: %v", s.Start, err)
			}
			if start.After(safe) {
				later = append(later, s)
			}
		}
		if len(later) >= n {
			return later[:n]
		}
	}
	t.Fatalf("no day in three weeks offers %d slots", n)
	return nil
}

// TestScriptedDay plays a day on two instances sharing PostgreSQL, Redis and S3, then checks
// the invariants of scale-out: one event per slot, global limits, caches invalidated on every
// instance, scheduled publications and mails done exactly once, every acknowledged write kept.
func TestScriptedDay(t *testing.T) {
	st := newStack(t, true)
	a, b := st.instance("A", nil), st.instance("B", nil)
	startAll(t, a, b) // concurrent migrations and first-owner bootstrap
	key := a.adminKey()
	inst := []*instance{a, b}
	other := func(i int) *instance { return inst[(i+1)%2] }
	admin := bearer(key)

	// The owner logs in on A; the session works on B (one NEXTAUTH_SECRET).
	login := call("POST", a.base+"/api/auth/login", map[string]string{"email": ownerEmail, "password": ownerPassword})
	login.want(t, http.StatusOK, "owner login on A")
	var cookies []string
	for _, c := range (&http.Response{Header: login.header}).Cookies() {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	session := []string{"Cookie", strings.Join(cookies, "; ")}

	// Warm both instances' public caches, so the checks below see invalidation, not a cold miss.
	for _, in := range inst {
		call("GET", in.base+"/api/projects?limit=100", nil).want(t, http.StatusOK, "warm projects")
		call("GET", in.base+"/api/blog?limit=100", nil).want(t, http.StatusOK, "warm blog")
	}

	// Projects: written alternately on A and B (key and session); each is on the other
	// instance's cached public list within a bounded poll.
	var projectIDs []string
	for i := range 6 {
		creds := admin
		if i%3 == 2 {
			creds = session
		}
		r := call("POST", inst[i%2].base+"/api/projects", map[string]any{"title": fmt.Sprintf("Project %d", i),
			"description": "Built during the scripted day", "status": "published", "technologies": []string{"Go"}}, creds...)
		r.want(t, http.StatusCreated, "create project")
		var p struct{ ID string }
		r.decode(t, &p)
		projectIDs = append(projectIDs, p.ID)
		peer := other(i)
		eventually(t, "project written on one instance is on the other's public list", 15*time.Second, func() bool {
			return listHas(t, call("GET", peer.base+"/api/projects?limit=100", nil), p.ID)
		})
	}

	// Posts: three published ones, one for cross-publishing now, one scheduled.
	newPost := func(in *instance, title, status string) string {
		r := call("POST", in.base+"/api/blog", map[string]any{"title": title, "content": "# " + title + "\n\nBody of " + title + ".",
			"status": status, "tags": []string{"e2e"}}, admin...)
		r.want(t, http.StatusCreated, "create post "+title)
		var p struct{ ID string }
		r.decode(t, &p)
		return p.ID
	}
	var postIDs []string
	for i := range 3 {
		id := newPost(inst[i%2], fmt.Sprintf("Daily note %d", i), "published")
		postIDs = append(postIDs, id)
		peer := other(i)
		eventually(t, "post written on one instance is on the other's public blog list", 15*time.Second, func() bool {
			return listHas(t, call("GET", peer.base+"/api/blog?limit=100", nil), id)
		})
	}
	crossID := newPost(a, "Cross-published essay", "draft")
	scheduledID := newPost(b, "Scheduled announcement", "draft")
	postIDs = append(postIDs, crossID, scheduledID)

	type outcome struct {
		Article  struct{ ID, Status, ExtblogID string }
		Platform struct{ Status, ExtblogID, Error string }
	}
	r := call("POST", b.base+"/api/articles/publishing-options", map[string]any{"articleId": crossID, "status": "published",
		"crossPlatformPublishing": map[string]bool{"extblog": true}}, admin...)
	r.want(t, http.StatusOK, "cross-publish now")
	var cross outcome
	r.decode(t, &cross)
	if cross.Platform.Status != "published" || cross.Platform.ExtblogID == "" {
		t.Fatalf("cross-publication: %s", r)
	}
	scheduledAt := time.Now().Add(4 * time.Second).UTC().Truncate(time.Second)
	r = call("POST", a.base+"/api/articles/publishing-options", map[string]any{"articleId": scheduledID, "status": "published",
		"scheduledAt": scheduledAt.Format(time.RFC3339), "crossPlatformPublishing": map[string]bool{"extblog": true}}, admin...)
	r.want(t, http.StatusOK, "schedule a post")
	var sched outcome
	r.decode(t, &sched)
	if sched.Platform.Status != "scheduled" || sched.Article.Status != "draft" {
		t.Fatalf("scheduling: %s", r)
	}

	// The platform: a post written there reaches folio by a signed webhook, delivered twice
	// (to A and, as a retry, to B); our own publication echoes back too.
	listing := func(in *instance) reply { return call("GET", in.base+"/api/posts?limit=20", nil) }
	for _, in := range inst {
		listing(in).want(t, http.StatusOK, "platform listing")
	}
	native := st.blog.AddPost(extblogfake.Post{Title: "Written on the platform", Slug: "written-on-the-platform",
		ContentMarkdown: "A post the owner wrote in the platform's editor."})
	delivery := "delivery-" + randomHex(6)
	for _, in := range inst {
		body := webhookBody(delivery, native, "post_published")
		call("POST", in.base+"/api/extblog/webhook", body, "X-Extblog-Signature", signWebhook(body, time.Now())).
			want(t, http.StatusNoContent, "webhook delivery to "+in.name)
	}
	echo := webhookBody("delivery-"+randomHex(6), cross.Platform.ExtblogID, "post_published")
	call("POST", a.base+"/api/extblog/webhook", echo, "X-Extblog-Signature", signWebhook(echo, time.Now())).
		want(t, http.StatusNoContent, "echo of our own publication")
	forged := webhookBody("delivery-"+randomHex(6), native, "post_deleted")
	call("POST", b.base+"/api/extblog/webhook", forged, "X-Extblog-Signature", signWebhook([]byte("something else"), time.Now())).
		want(t, http.StatusUnauthorized, "forged webhook")
	for _, in := range inst {
		eventually(t, "the platform listing shows the new post on "+in.name, 15*time.Second, func() bool {
			return listHas(t, listing(in), native)
		})
	}

	// Visitors browse through both instances and send page views; one crawler is dropped.
	const visitors, views = 6, 4
	var wg sync.WaitGroup
	var mu sync.Mutex
	var browseErrs []string
	for v := range visitors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ip := fmt.Sprintf("198.51.100.%d", 10+v)
			for i := range views {
				in := inst[(v+i)%2]
				path := "/projects/" + projectIDs[(v+i)%len(projectIDs)]
				for _, rr := range []reply{
					call("GET", in.base+"/api/projects?limit=10", nil, "X-Forwarded-For", ip),
					call("GET", in.base+"/api/blog", nil, "X-Forwarded-For", ip),
					call("POST", in.base+"/api/analytics/collect", map[string]any{"type": "pageview", "path": path,
						"visitorId": fmt.Sprintf("visitor-%d", v), "referrer": "https://news.example.org/item"},
						"X-Forwarded-For", ip, "User-Agent", browserUA),
				} {
					if rr.err != nil || rr.status >= 300 {
						mu.Lock()
						browseErrs = append(browseErrs, rr.String())
						mu.Unlock()
					}
				}
			}
		}()
	}
	wg.Wait()
	if len(browseErrs) > 0 {
		t.Fatalf("visitors got errors: %v", browseErrs)
	}
	call("POST", b.base+"/api/analytics/collect", map[string]any{"type": "pageview", "path": "/"},
		"User-Agent", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)").
		want(t, http.StatusAccepted, "crawler page view")

	// Visitors book the same three slots at once through both instances, each from its own
	// address (the helper limit is per client IP).
	slots := bookableSlots(t, a.base, 3)
	const perSlot = 8
	type bookingResult struct {
		slot   int
		status int
		id     string
		err    string
	}
	results := make(chan bookingResult, len(slots)*perSlot)
	start := make(chan struct{})
	for si, sl := range slots {
		for i := range perSlot {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				in := inst[i%2]
				rr := call("POST", in.base+"/api/schedule/book", map[string]any{"startISO": sl.Start, "durationMinutes": 30,
					"timeZone": "America/New_York", "attendeeEmail": fmt.Sprintf("guest%d-%d@example.org", si, i),
					"attendeeName": fmt.Sprintf("Guest %d-%d", si, i)}, "X-Forwarded-For", fmt.Sprintf("192.0.2.%d", 10+si*perSlot+i))
				res := bookingResult{slot: si, status: rr.status}
				if rr.err != nil {
					res.err = rr.err.Error()
				}
				var ok struct{ EventID string }
				if rr.status == http.StatusOK {
					rr.decode(t, &ok)
					res.id = ok.EventID
				} else if rr.status != http.StatusConflict {
					res.err = rr.String()
				}
				results <- res
			}()
		}
	}
	close(start)
	wg.Wait()
	close(results)
	wins := make([]int, len(slots))
	var eventIDs []string
	for res := range results {
		switch {
		case res.err != "":
			t.Errorf("booking slot %d: %s", res.slot, res.err)
		case res.status == http.StatusOK:
			wins[res.slot]++
			eventIDs = append(eventIDs, res.id)
		}
	}
	for si, n := range wins {
		if n != 1 {
			t.Errorf("slot %d (%s): %d bookings succeeded, want exactly 1 (the rest 409)", si, slots[si].Start, n)
		}
	}
	if ev := st.google.Events(calendarID); len(ev) != len(slots) {
		t.Errorf("calendar holds %d events, want %d (one per slot)", len(ev), len(slots))
	}

	// Contact: eight messages from one address, alternating instances: the helper limit of 5
	// per hour is shared through Redis, so exactly five get through.
	var contactOK, contactLimited int
	for i := range 8 {
		rr := call("POST", inst[i%2].base+"/api/contact", map[string]string{"name": "Visitor", "email": "visitor@example.org",
			"subject": fmt.Sprintf("Hello %d", i), "message": "I liked your projects."}, "X-Forwarded-For", "203.0.113.50")
		switch rr.status {
		case http.StatusOK:
			contactOK++
		case http.StatusTooManyRequests:
			contactLimited++
		default:
			t.Errorf("contact %d: %s", i, rr)
		}
	}
	if contactOK != 5 || contactLimited != 3 {
		t.Errorf("contact from one IP across two instances: %d sent, %d limited; want 5 and 3", contactOK, contactLimited)
	}

	// Media: the owner uploads one image on each instance and generates one; all land in S3.
	var mediaURLs []string
	for i, in := range inst {
		body, ct := multipartFile(t, fmt.Sprintf("shot-%d.png", i), pngBytes(t, i))
		rr := call("POST", in.base+"/api/media/upload", body, append(admin, "Content-Type", ct)...)
		rr.want(t, http.StatusCreated, "upload on "+in.name)
		var m struct{ URL string }
		rr.decode(t, &m)
		mediaURLs = append(mediaURLs, m.URL)
	}
	rr := call("POST", b.base+"/api/ai/generate-image", map[string]string{"prompt": "a lighthouse at dawn"}, admin...)
	rr.want(t, http.StatusOK, "generate an image")
	var gen struct {
		ImageURL string `json:"imageUrl"`
	}
	rr.decode(t, &gen)
	mediaURLs = append(mediaURLs, gen.ImageURL)

	// Invariant: the scheduled post is published once, at its time, locally and on the platform.
	eventually(t, "the scheduled post is public on both instances", 30*time.Second, func() bool {
		return call("GET", a.base+"/api/posts/"+scheduledID, nil).status == http.StatusOK &&
			call("GET", b.base+"/api/posts/"+scheduledID, nil).status == http.StatusOK
	})
	var published struct {
		PublishedAt time.Time
		ExtblogID   string
		Status      string
	}
	call("GET", b.base+"/api/posts/"+scheduledID, nil, admin...).decode(t, &published)
	if !published.PublishedAt.Equal(scheduledAt) || published.Status != "published" {
		t.Errorf("scheduled post: status %q publishedAt %v, want published at %v", published.Status, published.PublishedAt, scheduledAt)
	}
	eventually(t, "the scheduled post reaches the platform", 30*time.Second, func() bool {
		call("GET", a.base+"/api/posts/"+scheduledID, nil, admin...).decode(t, &published)
		return published.ExtblogID != ""
	})
	for _, in := range inst {
		eventually(t, "the scheduled post is on the public blog list of "+in.name, 15*time.Second, func() bool {
			return listHas(t, call("GET", in.base+"/api/blog?limit=100", nil), scheduledID)
		})
	}

	// Invariant: every mail in the outbox is delivered, exactly once.
	type outboxItem struct{ ID, Status, Subject string }
	var outbox struct{ Items []outboxItem }
	eventually(t, "every outbox mail is sent (booking confirmations wait for a worker poll)", 60*time.Second, func() bool {
		call("GET", a.base+"/api/mail/outbox?limit=100", nil, admin...).decode(t, &outbox)
		for _, it := range outbox.Items {
			if it.Status != "sent" {
				return false
			}
		}
		return len(outbox.Items) == contactOK+2*len(slots)
	})
	time.Sleep(2 * time.Second) // let a duplicate delivery, if any, arrive before counting
	msgs := st.smtp.Messages()
	seen := map[string]int{}
	for _, m := range msgs {
		parsed, err := mail.ReadMessage(bytes.NewReader(m.Data))
		if err != nil {
			t.Fatalf("delivered mail does not parse: %v", err)
		}
		seen[parsed.Header.Get("Message-Id")]++
	}
	if len(msgs) != len(outbox.Items) || len(seen) != len(outbox.Items) {
		t.Errorf("SMTP server received %d messages (%d distinct Message-IDs) for %d outbox rows", len(msgs), len(seen), len(outbox.Items))
	}

	// Invariant: the platform holds each cross-published post once.
	titles := map[string]int{}
	for _, p := range st.blog.Posts() {
		titles[p.Title]++
	}
	for _, title := range []string{"Cross-published essay", "Scheduled announcement", "Written on the platform"} {
		if titles[title] != 1 {
			t.Errorf("platform holds %d posts titled %q, want 1", titles[title], title)
		}
	}
	// Each of our publications reached the platform in exactly one mutation.
	for _, title := range []string{"Cross-published essay", "Scheduled announcement"} {
		n := 0
		for _, c := range st.blog.Calls() {
			in, _ := c.Variables["input"].(map[string]any)
			if !c.Fault && (c.OperationName == "PublishPost" || c.OperationName == "UpdatePost") && in["title"] == title {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d publish/update mutations for %q reached the platform, want 1", n, title)
		}
	}
	// The platform's post became one local article, although delivered twice; our own
	// publication's echo created nothing.
	var all struct {
		Posts []struct{ ID, Title string }
	}
	call("GET", a.base+"/api/blog?limit=100", nil, admin...).decode(t, &all)
	localTitles := map[string]int{}
	for _, p := range all.Posts {
		localTitles[p.Title]++
	}
	if localTitles["Written on the platform"] != 1 || localTitles["Cross-published essay"] != 1 {
		t.Errorf("local articles after webhooks: %v", localTitles)
	}

	// Invariant: analytics counted every page view (and no crawler).
	var report struct {
		Visitors  struct{ Unique int }
		PageViews struct{ Total int }
	}
	eventually(t, "analytics has every page view", 20*time.Second, func() bool {
		call("GET", b.base+"/api/analytics", nil, admin...).decode(t, &report)
		return report.PageViews.Total >= visitors*views
	})
	if report.PageViews.Total != visitors*views {
		t.Errorf("analytics: %d page views, want %d", report.PageViews.Total, visitors*views)
	}
	if report.Visitors.Unique != visitors {
		// Each visitor's page views went through both instances; their batch writers read the
		// visitor's state and write the rollups in overlapping transactions, so both count
		// the visitor as new (internal/sqldb WriteAnalytics).
		t.Errorf("analytics counts %d unique visitors, want %d (each visitor's page views went through both instances)",
			report.Visitors.Unique, visitors)
	}

	// Invariant: every acknowledged write is there, read through both instances.
	for _, in := range inst {
		for _, id := range projectIDs {
			call("GET", in.base+"/api/projects/"+id, nil, admin...).want(t, http.StatusOK, "acknowledged project on "+in.name)
		}
		for _, id := range postIDs {
			call("GET", in.base+"/api/posts/"+id, nil, admin...).want(t, http.StatusOK, "acknowledged post on "+in.name)
		}
	}
	var booked struct {
		Bookings []struct{ ID, Start string }
	}
	call("GET", b.base+"/api/schedule/bookings?limit=100", nil, admin...).decode(t, &booked)
	if len(booked.Bookings) != len(slots) {
		t.Errorf("owner's booking list has %d bookings, want %d", len(booked.Bookings), len(slots))
	}
	for _, id := range eventIDs {
		if !slices.ContainsFunc(st.google.Events(calendarID), func(e googleEvent) bool { return e.ID == id }) {
			t.Errorf("acknowledged booking's event %s is not in the calendar", id)
		}
	}
	var inbox struct {
		Messages []struct{ ID string }
	}
	call("GET", a.base+"/api/contact/messages?limit=100", nil, admin...).decode(t, &inbox)
	if len(inbox.Messages) != contactOK {
		t.Errorf("contact inbox holds %d messages, want %d", len(inbox.Messages), contactOK)
	}
	prefix := strings.TrimSuffix(st.s3.URL("x"), "x")
	for _, u := range mediaURLs {
		k, ok := strings.CutPrefix(u, prefix)
		if !ok {
			t.Errorf("media URL %s is not in the S3 bucket (%s)", u, prefix)
			continue
		}
		if exists, err := st.s3.Exists(context.Background(), k); err != nil || !exists {
			t.Errorf("media object %s missing from S3 (%v)", k, err)
		}
	}
	var library struct {
		Media []struct{ URL string } `json:"media"`
	}
	call("GET", a.base+"/api/media?limit=100", nil, admin...).decode(t, &library)
	if len(library.Media) < len(mediaURLs) {
		t.Errorf("media library lists %d objects, want at least %d: %s", len(library.Media), len(mediaURLs), call("GET", a.base+"/api/media", nil, admin...))
	}
}
