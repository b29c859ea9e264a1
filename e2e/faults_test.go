package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/extblog/extblogfake"
	"github.com/foliohq/folio/internal/imagegen/imagegenfake"
)

// writeStream posts projects from several goroutines, each making at most perWorker requests
// to target(worker, i). Once afterAcks writes were acknowledged, fault runs (once, while the
// other writers keep going). It returns the ids of every acknowledged (201) write and how many
// of them were acknowledged after fault returned.
func writeStream(key string, target func(worker, i int) *instance, workers, perWorker, afterAcks int, fault func()) (acked []string, ackedAfter int) {
	var (
		mu       sync.Mutex
		faultRun sync.Once
		faulted  atomic.Bool
		wg       sync.WaitGroup
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				in := target(w, i)
				after := faulted.Load()
				r := call("POST", in.base+"/api/projects", map[string]any{"title": fmt.Sprintf("Stream %d-%d", w, i),
					"description": "written while something breaks"}, bearer(key)...)
				if r.err != nil || r.status != http.StatusCreated {
					continue // not acknowledged: the writer may or may not have committed it
				}
				var p struct{ ID string }
				if err := json.Unmarshal(r.body, &p); err != nil || p.ID == "" {
					continue
				}
				mu.Lock()
				acked = append(acked, p.ID)
				if after {
					ackedAfter++
				}
				n := len(acked)
				mu.Unlock()
				if n >= afterAcks {
					faultRun.Do(func() {
						fault()
						faulted.Store(true)
					})
				}
			}
		}()
	}
	wg.Wait()
	return acked, ackedAfter
}

// mustHaveAll fails unless every id reads back (200) through in.
func mustHaveAll(t *testing.T, in *instance, key string, ids []string) {
	t.Helper()
	var missing []string
	for _, id := range ids {
		if r := call("GET", in.base+"/api/projects/"+id, nil, bearer(key)...); r.status != http.StatusOK {
			missing = append(missing, id+" ("+r.String()+")")
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d acknowledged writes are missing on %s: %v", len(missing), len(ids), in.name, missing)
	}
}

// TestFaultInstanceKilled kills one of two instances with SIGKILL while writes go through
// both: the other carries on, and every write either acknowledged is there afterwards.
func TestFaultInstanceKilled(t *testing.T) {
	st := newStack(t, false)
	a, b := st.instance("A", nil), st.instance("B", nil)
	startAll(t, a, b)
	key := a.adminKey()

	acked, ackedAfter := writeStream(key, func(w, i int) *instance {
		if (w+i)%2 == 0 {
			return a
		}
		return b
	}, 4, 40, 30, a.kill)
	if a.running() {
		t.Fatal("instance A survived SIGKILL")
	}
	if ackedAfter == 0 {
		t.Fatal("instance B acknowledged no write after A was killed")
	}
	t.Logf("%d writes acknowledged, %d of them after A was killed", len(acked), ackedAfter)
	mustHaveAll(t, b, key, acked)

	// A starts again on the same database and sees everything too.
	a.start()
	mustHaveAll(t, a, key, acked)
	var list struct{ Total int }
	call("GET", b.base+"/api/projects?status=draft&limit=1", nil, bearer(key)...).decode(t, &list)
	if list.Total < len(acked) {
		t.Errorf("list total %d < %d acknowledged writes", list.Total, len(acked))
	}
}

// TestFaultRedisRestart stops the shared Redis: both instances keep answering without limits
// (fail open, counted in folio_ratelimit_errors_total); once Redis is back the limits hold
// again across both instances.
func TestFaultRedisRestart(t *testing.T) {
	const limit = 10
	st := newStack(t, false)
	vars := map[string]string{"RATE_LIMIT_PUBLIC_PER_HOUR": fmt.Sprint(limit)}
	a, b := st.instance("A", vars), st.instance("B", vars)
	startAll(t, a, b)

	// burst sends n public requests from ip, alternating instances.
	burst := func(ip string, n int) (ok, limited int, other []string) {
		for i := range n {
			in := []*instance{a, b}[i%2]
			r := call("GET", in.base+"/api/projects", nil, "X-Forwarded-For", ip)
			switch {
			case r.err == nil && r.status == http.StatusOK:
				ok++
			case r.err == nil && r.status == http.StatusTooManyRequests:
				limited++
			default:
				other = append(other, in.name+": "+r.String())
			}
		}
		return
	}

	ok, limited, other := burst("203.0.113.1", limit+3)
	if ok != limit || limited != 3 || len(other) > 0 {
		t.Fatalf("with Redis up: %d ok, %d limited, others %v; want %d and 3", ok, limited, other, limit)
	}

	st.redis.stop()
	ok, limited, other = burst("203.0.113.2", 3*limit)
	if ok != 3*limit || limited != 0 || len(other) > 0 {
		t.Fatalf("with Redis down: %d ok, %d limited, others %v; want all %d served (fail open)", ok, limited, other, 3*limit)
	}
	for _, in := range []*instance{a, b} {
		if n := metric(t, in.base, "folio_ratelimit_errors_total"); n < 1 {
			t.Errorf("%s: folio_ratelimit_errors_total = %v while Redis is down", in.name, n)
		}
	}

	st.redis.start()
	round := 0
	eventually(t, "limits are enforced again after Redis restarts", 30*time.Second, func() bool {
		round++
		ok, limited, other := burst(fmt.Sprintf("203.0.114.%d", round), limit+1)
		if len(other) > 0 {
			t.Fatalf("after Redis restart: %v", other)
		}
		return ok == limit && limited == 1
	})
}

// TestFaultDatabaseCut cuts the link to PostgreSQL: /readyz says 503, API calls fail with a
// 5xx envelope (never a wrong 2xx/4xx), the processes stay up, and everything recovers when
// the link returns, without a restart (including cross-instance cache invalidation).
func TestFaultDatabaseCut(t *testing.T) {
	st := newStack(t, false)
	a, b := st.instance("A", nil), st.instance("B", nil)
	startAll(t, a, b)
	key := a.adminKey()
	admin := bearer(key)
	project := func(in *instance, title string) reply {
		return call("POST", in.base+"/api/projects", map[string]any{"title": title, "description": "d", "status": "published"}, admin...)
	}
	var p0 struct{ ID string }
	project(a, "Before the cut").want(t, http.StatusCreated, "write before the cut").decode(t, &p0)
	for _, in := range []*instance{a, b} {
		call("GET", in.base+"/readyz", nil).want(t, http.StatusOK, "readyz before the cut")
		// An admin key is looked up before the cut, so the calls below are not about it.
		call("GET", in.base+"/api/projects/"+p0.ID, nil, admin...).want(t, http.StatusOK, "read before the cut")
	}

	st.proxy.Cut()
	for _, in := range []*instance{a, b} {
		eventually(t, in.name+" /readyz reports the database unreachable", 20*time.Second, func() bool {
			r := call("GET", in.base+"/readyz", nil)
			return r.status == http.StatusServiceUnavailable && r.code() == "SERVICE_UNAVAILABLE"
		})
		call("GET", in.base+"/healthz", nil).want(t, http.StatusOK, "liveness while the database is away")
	}
	cases := []struct {
		in           *instance
		method, path string
		body         any
		hdr          []string
	}{
		{a, "POST", "/api/projects", map[string]any{"title": "During the cut", "description": "d"}, admin},
		{b, "GET", "/api/projects?status=draft", nil, admin},
		{b, "GET", "/api/blog?status=draft", nil, admin},
		{a, "GET", "/api/schedule/bookings", nil, admin},
		{b, "POST", "/api/blog", map[string]any{"title": "During the cut", "content": "x"}, admin},
		{a, "POST", "/api/contact", map[string]string{"name": "V", "email": "v@example.org", "message": "hi"}, []string{"X-Forwarded-For", "198.51.100.99"}},
	}
	var contactReply reply
	for _, c := range cases {
		r := call(c.method, c.in.base+c.path, c.body, c.hdr...)
		route := c.method + " " + c.path
		if r.err != nil || r.status < 500 {
			t.Errorf("%s on %s while the database is unreachable: %s; want a 5xx", route, c.in.name, r)
			continue
		}
		t.Logf("database unreachable: %s → %s", route, strings.TrimSpace(r.String()))
		if c.path == "/api/contact" {
			contactReply = r // its own {"error"} shape (docs/api.md, "Contact and mail")
			continue
		}
		if r.status != http.StatusServiceUnavailable || r.code() != "SERVICE_UNAVAILABLE" {
			t.Errorf("%s while the database is unreachable: %d %s, want 503 SERVICE_UNAVAILABLE", route, r.status, r.code())
		}
	}
	if !a.running() || !b.running() {
		t.Fatal("an instance exited while the database was unreachable")
	}

	st.proxy.Restore()
	var p1 struct{ ID string }
	for _, in := range []*instance{a, b} {
		eventually(t, in.name+" /readyz recovers", 30*time.Second, func() bool {
			return call("GET", in.base+"/readyz", nil).status == http.StatusOK
		})
	}
	eventually(t, "writes succeed again after the link returns", 30*time.Second, func() bool {
		r := project(a, "After the cut")
		if r.status == http.StatusCreated {
			r.decode(t, &p1)
			return true
		}
		return false
	})
	// B's listener reconnected: A's write reaches B's cached public list.
	eventually(t, "B's public list sees A's write after recovery", 30*time.Second, func() bool {
		return listHas(t, call("GET", b.base+"/api/projects?limit=100", nil), p1.ID)
	})
	// A contact message the visitor was told is saved must be in the inbox.
	if strings.Contains(string(contactReply.body), "delivered later") {
		var inbox struct{ Messages []struct{ Message string } }
		call("GET", a.base+"/api/contact/messages", nil, admin...).decode(t, &inbox)
		if len(inbox.Messages) == 0 {
			t.Errorf("POST /api/contact answered %s while the database was unreachable, but the inbox is empty after recovery", contactReply)
		}
	}
	var p2 struct{ ID string }
	project(b, "After the cut, on B").want(t, http.StatusCreated, "write on B after recovery").decode(t, &p2)
	eventually(t, "A's public list sees B's write after recovery", 30*time.Second, func() bool {
		return listHas(t, call("GET", a.base+"/api/projects?limit=100", nil), p2.ID)
	})
}

// TestFaultUpstreams makes each outside system slow, failing or rate-limiting: folio answers
// the documented 502/503 within its request deadline, and stays up for the next request.
func TestFaultUpstreams(t *testing.T) {
	st := newStack(t, false)
	a := st.instance("A", map[string]string{"FOLIO_REQUEST_TIMEOUT": "2s", "IMAGE_TIMEOUT": "1s",
		"EXTBLOG_MAX_ATTEMPTS": "1", "RATE_LIMIT_HELPER_PER_HOUR": "1000"})
	a.start()
	key := a.adminKey()
	admin := bearer(key)
	expect := func(what string, r reply, statuses ...int) {
		t.Helper()
		if r.err != nil {
			t.Errorf("%s: %v (no answer within the client's 60 s)", what, r.err)
			return
		}
		t.Logf("%s → %s", what, strings.TrimSpace(r.String()))
		for _, s := range statuses {
			if r.status == s {
				want := map[int]string{502: "UPSTREAM_ERROR", 503: "SERVICE_UNAVAILABLE"}[s]
				if want != "" && r.code() != want {
					t.Errorf("%s: status %d with code %q, want %s", what, s, r.code(), want)
				}
				return
			}
		}
		t.Errorf("%s: got %s, want one of %v", what, r, statuses)
	}

	// The platform's listing, with no cached copy (each case asks for another page size).
	listing := []struct {
		name  string
		fault extblogfake.Fault
		want  int
	}{
		{"rate limited", extblogfake.RateLimited("1"), 503},
		{"server error", extblogfake.ServerError(), 503},
		{"slow", extblogfake.Slow(30 * time.Second), 503},
		{"malformed", extblogfake.Malformed(), 503},
		{"token refused", extblogfake.Unauthorized(), 502},
	}
	for i, c := range listing {
		st.blog.FailNext(1, c.fault)
		expect("GET /api/posts, platform "+c.name, call("GET", fmt.Sprintf("%s/api/posts?limit=%d", a.base, 30+i), nil), c.want)
	}
	// With a stale copy, a failing platform is hidden.
	st.blog.AddPost(extblogfake.Post{Title: "On the platform", Slug: "on-the-platform", ContentMarkdown: "Text."})
	first := call("GET", a.base+"/api/posts?limit=9", nil).want(t, http.StatusOK, "listing")
	var l idList
	first.decode(t, &l)
	body := webhookBody("delivery-"+randomHex(6), l.Posts[0].ID, "post_updated")
	call("POST", a.base+"/api/extblog/webhook", body, "X-Extblog-Signature", signWebhook(body, time.Now())).
		want(t, http.StatusNoContent, "webhook invalidating the listing")
	st.blog.FailNext(1, extblogfake.ServerError())
	if r := call("GET", a.base+"/api/posts?limit=9", nil); r.status != http.StatusOK || r.header.Get("X-Cache") != "STALE" {
		t.Errorf("listing with a stale copy and a failing platform: %s (X-Cache %q), want 200 STALE", r, r.header.Get("X-Cache"))
	}

	// Cross-publishing through the dashboard route.
	r := call("POST", a.base+"/api/blog", map[string]any{"title": "Going out", "content": "Body.", "status": "published"}, admin...)
	r.want(t, http.StatusCreated, "create post")
	var post struct{ ID string }
	r.decode(t, &post)
	for _, c := range []struct {
		name  string
		fault extblogfake.Fault
	}{
		{"server error", extblogfake.ServerError()},
		{"rate limited", extblogfake.RateLimited("1")},
		{"slow", extblogfake.Slow(30 * time.Second)},
	} {
		st.blog.FailNext(1, c.fault)
		expect("POST /api/extblog/publish, platform "+c.name,
			call("POST", a.base+"/api/extblog/publish", map[string]string{"articleId": post.ID}, admin...), 502, 503)
	}
	call("POST", a.base+"/api/extblog/publish", map[string]string{"articleId": post.ID}, admin...).
		want(t, http.StatusOK, "publish once the platform is healthy")

	// AI images.
	for _, c := range []struct {
		name string
		mode imagegenfake.Mode
	}{
		{"server error", imagegenfake.ModeServerError},
		{"rate limited", imagegenfake.ModeRateLimit},
		{"slow", imagegenfake.ModeSlow},
		{"malformed", imagegenfake.ModeMalformed},
	} {
		st.images.SetMode(c.mode)
		expect("POST /api/ai/generate-image, images API "+c.name,
			call("POST", a.base+"/api/ai/generate-image", map[string]string{"prompt": "a red kite"}, admin...), 502)
	}
	st.images.SetMode(imagegenfake.ModeAuto)
	call("POST", a.base+"/api/ai/generate-image", map[string]string{"prompt": "a red kite"}, admin...).
		want(t, http.StatusOK, "generate once the images API is healthy")

	// The calendar.
	slots := bookableSlots(t, a.base, 2)
	book := func(start string, n int) reply {
		return call("POST", a.base+"/api/schedule/book", map[string]any{"startISO": start, "durationMinutes": 30,
			"timeZone": "America/New_York", "attendeeEmail": "g@example.org", "attendeeName": "Guest"},
			"X-Forwarded-For", fmt.Sprintf("192.0.2.%d", n))
	}
	day := slots[0].Start[:10]
	for i, c := range []struct {
		name   string
		status int
		delay  time.Duration
	}{
		{"server error", http.StatusInternalServerError, 0},
		{"unavailable", http.StatusServiceUnavailable, 0},
		{"rate limited", http.StatusTooManyRequests, 0},
		{"slow", 0, 30 * time.Second},
	} {
		st.google.FailAPI(c.status, -1)
		st.google.SetDelay(c.delay)
		expect("GET /api/schedule/available, calendar "+c.name,
			call("GET", a.base+"/api/schedule/available?date="+day+"&duration=30&timezone=America/New_York", nil), 502, 503)
		expect("POST /api/schedule/book, calendar "+c.name, book(slots[0].Start, 10+i), 502, 503)
	}
	st.google.FailAPI(0, 0)
	st.google.SetDelay(0)
	book(slots[0].Start, 50).want(t, http.StatusOK, "booking once the calendar is healthy")
	if n := len(st.google.Events(calendarID)); n != 1 {
		t.Errorf("calendar holds %d events after the failed attempts and one success, want 1", n)
	}

	call("GET", a.base+"/healthz", nil).want(t, http.StatusOK, "liveness after upstream faults")
	if !a.running() {
		t.Fatal("folio exited")
	}
}

// TestSQLiteCrashSafety kills a single SQLite instance with SIGKILL during a stream of writes
// and starts it again on the same data directory: every acknowledged write is there.
func TestSQLiteCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end tests skipped in -short mode")
	}
	a := newInstance(t, "sqlite", map[string]string{"FOLIO_ADMIN_EMAIL": ownerEmail, "FOLIO_ADMIN_PASSWORD": ownerPassword,
		"NEXTAUTH_SECRET": sessionSecret})
	a.start()
	key := a.adminKey() // a second process on the same SQLite file while serve runs

	acked, _ := writeStream(key, func(int, int) *instance { return a }, 4, 100, 150, a.kill)
	if a.running() {
		t.Fatal("folio survived SIGKILL")
	}
	t.Logf("%d writes acknowledged before the kill", len(acked))
	a.start()
	call("GET", a.base+"/readyz", nil).want(t, http.StatusOK, "readyz after restart")
	mustHaveAll(t, a, key, acked)
}
