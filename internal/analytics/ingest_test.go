package analytics

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

func counterValue(t *testing.T, v *prometheus.CounterVec, label string) float64 {
	t.Helper()
	var m dto.Metric
	if err := v.WithLabelValues(label).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

func countRows(t *testing.T, db *sqldb.DB, table string) int {
	t.Helper()
	var n int
	if err := db.Analytics().R.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func pageview(path string) *folio.CollectInput {
	return &folio.CollectInput{Type: folio.CollectPageView, Path: path}
}

func TestBotsAreDropped(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	s, err := newTestService(db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	ctx := context.Background()
	for _, tc := range []struct {
		ua  string
		bot bool
	}{
		{botUA, true},
		{"curl/8.5.0", true},
		{"python-requests/2.31", true},
		{"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", true},
		{"", true},
		{"   ", true},
		{browserUA, false},
		{phoneUA, false},
	} {
		out, err := s.Collect(ctx, pageview("/"), "192.0.2.1", tc.ua)
		if err != nil {
			t.Fatal(err)
		}
		if (out == Bot) != tc.bot {
			t.Errorf("UA %q: outcome %s, bot %v", tc.ua, out, tc.bot)
		}
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, "analytics_pageviews"); n != 2 {
		t.Errorf("stored %d page views, want only the 2 human ones", n)
	}
	if got := counterValue(t, s.received, "bot"); got != 6 {
		t.Errorf("bot counter = %v, want 6", got)
	}
}

func TestNormalizePath(t *testing.T) {
	for _, tc := range []struct{ in, path, query string }{
		{"/", "/", ""},
		{"/blog/post", "/blog/post", ""},
		{"/blog/post/", "/blog/post/", ""},
		{"/a?b=1&c=2", "/a", ""},
		{"/a?utm_source=hn&email=me%40x.org&utm_campaign=launch+day", "/a", "utm_campaign=launch+day&utm_source=hn"},
		{"/a?ref=producthunt&token=abc", "/a", "ref=producthunt"},
		{"/a?UTM_Medium=social", "/a", "utm_medium=social"},
		{"/a#frag?utm_source=x", "/a", ""},
		{"/a?utm_source=x#frag", "/a", "utm_source=x"},
		{"https://site.example/p?q=1&utm_term=go", "/p", "utm_term=go"},
		{"https://site.example", "/", ""},
		{"//evil.example/x", "/evil.example/x", ""},
		{"/%E2%9C%93?ref=%zz", "/✓", ""},
		{"/r%C3%A9sum%C3%A9", "/résumé", ""},
		{"https://site.example/r%C3%A9sum%C3%A9", "/résumé", ""},
		{"/a%3Fb", "/a%3Fb", ""},
		{"/a%00b", "/a%00b", ""},
		{"/a%zz", "/a%zz", ""},
		{"/a?" + strings.Repeat("utm_x=y&", 100), "/a", ""},
	} {
		p, q, ok := normalizePath(tc.in)
		if !ok || p != tc.path || q != tc.query {
			t.Errorf("normalizePath(%q) = %q, %q, %v; want %q, %q", tc.in, p, q, ok, tc.path, tc.query)
		}
	}
	if _, _, ok := normalizePath("https:///nohost"); ok {
		t.Error("a URL without host is accepted")
	}
}

func TestReferrerDomain(t *testing.T) {
	for _, rf := range referrerForms {
		if got := referrerDomain(rf.raw, "folio.example"); got != rf.domain {
			t.Errorf("referrerDomain(%q) = %q, want %q", rf.raw, got, rf.domain)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"android-app://com.slack/", "com.slack"},
		{"https://user:pw@mail.example.org/inbox", "mail.example.org"},
		{"https://[2001:db8::1]/x", ""},
		{"https://exa mple.org", ""},
		{"javascript:alert(1)", ""},
	} {
		if got := referrerDomain(tc.in, "folio.example"); got != tc.want {
			t.Errorf("referrerDomain(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzNormalizePath(f *testing.F) {
	for _, s := range []string{"/", "/a?utm_source=x&b=2#f", "https://x.org/p?ref=1", "//x", "/%zz?%zz=1", "/a?utm_=;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, q, ok := normalizePath(raw)
		if !ok {
			return
		}
		if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "?#") || len(p) > maxStoredPath {
			t.Fatalf("path %q from %q", p, raw)
		}
		if len(q) > maxStoredQuery {
			t.Fatalf("query %q too long", q)
		}
		for _, kv := range strings.Split(q, "&") {
			if kv == "" {
				continue
			}
			k, _, _ := strings.Cut(kv, "=")
			if !strings.HasPrefix(k, "utm_") && k != "ref" {
				t.Fatalf("kept parameter %q from %q", k, raw)
			}
		}
	})
}

func FuzzReferrerDomain(f *testing.F) {
	for _, rf := range referrerForms {
		f.Add(rf.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		d := referrerDomain(raw, "folio.example")
		if d == "folio.example" || strings.HasPrefix(d, "www.") || len(d) > 253 {
			t.Fatalf("domain %q from %q", d, raw)
		}
		for _, c := range d {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
				t.Fatalf("domain %q from %q has %q", d, raw, c)
			}
		}
	})
}

// keyOf collects one anonymous page view and returns the visitor key it was queued with.
func keyOf(t *testing.T, s *Service, ip, ua string) string {
	t.Helper()
	if out, err := s.Collect(context.Background(), pageview("/"), ip, ua); err != nil || out != Queued {
		t.Fatalf("collect: %s %v", out, err)
	}
	it := <-s.queue
	return it.pv.VisitorKey
}

func TestVisitorKeys(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		loc, _ := time.LoadLocation("Europe/Berlin")
		// Sunday 2026-03-01 23:30 Berlin; the next day is a Monday.
		clock := foliotest.NewClock(time.Date(2026, 3, 1, 23, 30, 0, 0, loc))
		newService := func(rotation string) *Service {
			s, err := newTestService(db, Options{Location: loc, Rotation: rotation, Now: clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		day, week, month := newService("day"), newService("week"), newService("month")
		other := newService("day") // a second instance on the same database

		a := keyOf(t, day, "192.0.2.7", browserUA)
		if b := keyOf(t, other, "192.0.2.7", browserUA); b != a {
			t.Errorf("two instances hash the same visitor differently: %s, %s", a, b)
		}
		if b := keyOf(t, day, "192.0.2.7", phoneUA); b == a {
			t.Error("a different User-Agent gives the same key")
		}
		if b := keyOf(t, day, "192.0.2.8", browserUA); b == a {
			t.Error("a different IP gives the same key")
		}
		if strings.Contains(a, "192.0.2.7") || len(a) != 23 {
			t.Errorf("key %q is not an opaque hash", a)
		}
		w1, m1 := keyOf(t, week, "192.0.2.7", browserUA), keyOf(t, month, "192.0.2.7", browserUA)

		// Sunday 23:59 is still the same day, week and month.
		clock.Advance(29 * time.Minute)
		if b := keyOf(t, day, "192.0.2.7", browserUA); b != a {
			t.Error("the daily key changed within the day")
		}
		// Past midnight: a new day and a new week, but the same month.
		clock.Advance(2 * time.Minute)
		if b := keyOf(t, day, "192.0.2.7", browserUA); b == a {
			t.Error("the daily key did not rotate at midnight in the owner's zone")
		}
		if b := keyOf(t, other, "192.0.2.7", browserUA); b != keyOf(t, day, "192.0.2.7", browserUA) {
			t.Error("instances disagree after the rotation")
		}
		if b := keyOf(t, week, "192.0.2.7", browserUA); b == w1 {
			t.Error("the weekly key did not rotate on Monday")
		}
		if b := keyOf(t, month, "192.0.2.7", browserUA); b != m1 {
			t.Error("the monthly key rotated within the month")
		}
		w2 := keyOf(t, week, "192.0.2.7", browserUA)
		clock.Advance(6 * 24 * time.Hour) // Sunday again
		if keyOf(t, week, "192.0.2.7", browserUA) != w2 {
			t.Error("the weekly key rotated within the week")
		}
		windows, err := analyticsdb.New(db).AnalyticsSaltWindows(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		// The last salt written was the weekly one: earlier windows and other kinds are gone.
		if len(windows) != 1 || windows[0] != "week:2026-03-02" {
			t.Errorf("stored salt windows = %v, want only the current one", windows)
		}

		// A client id is stable across windows and instances, and differs from the hash.
		id := &folio.CollectInput{Type: folio.CollectPageView, Path: "/", VisitorID: "f3c1a2b4-0000-4000-8000-123456789abc"}
		day.Collect(context.Background(), id, "192.0.2.7", browserUA)
		k1 := (<-day.queue).pv.VisitorKey
		clock.Advance(40 * 24 * time.Hour)
		other.Collect(context.Background(), id, "198.51.100.1", phoneUA)
		if k2 := (<-other.queue).pv.VisitorKey; k2 != k1 || !strings.HasPrefix(k1, "c") || strings.Contains(k1, "f3c1a2b4") {
			t.Errorf("client id keys %q, %q", k1, k2)
		}
	})
}

func TestQueueOverflowIsCounted(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		s, err := newTestService(db, Options{QueueSize: 4})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		outcomes := map[Outcome]int{}
		for i := 0; i < 10; i++ {
			out, err := s.Collect(ctx, pageview("/"), "192.0.2.1", browserUA)
			if err != nil {
				t.Fatal(err)
			}
			outcomes[out]++
		}
		if outcomes[Queued] != 4 || outcomes[Full] != 6 {
			t.Errorf("outcomes = %v, want 4 queued and 6 dropped", outcomes)
		}
		if got := counterValue(t, s.dropped, "queue_full"); got != 6 {
			t.Errorf("dropped{queue_full} = %v, want 6", got)
		}
		// Close runs the writer when it was never started, and drains the queue.
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, db, "analytics_pageviews"); n != 4 {
			t.Errorf("stored %d, want the 4 queued", n)
		}
	})
}

func TestShutdownDrainsEverything(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		// A batch never fills and the timer never fires: only Close writes.
		s, err := newTestService(db, Options{BatchSize: 1 << 20, FlushInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		ctx := context.Background()
		const n = 2500
		for i := 0; i < n; i++ {
			in := pageview("/p")
			if i%5 == 0 {
				in = &folio.CollectInput{Type: folio.CollectEvent, Path: "/contact", Name: "modal_opened", VisitorID: "v1"}
			}
			if out, err := s.Collect(ctx, in, "192.0.2.1", browserUA); err != nil || out != Queued {
				t.Fatalf("collect: %s %v", out, err)
			}
		}
		if got := countRows(t, db, "analytics_pageviews"); got != 0 {
			t.Fatalf("written before shutdown: %d", got)
		}
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if pv, ev := countRows(t, db, "analytics_pageviews"), countRows(t, db, "analytics_events"); pv != n*4/5 || ev != n/5 {
			t.Errorf("after shutdown: %d page views and %d events, want %d and %d", pv, ev, n*4/5, n/5)
		}
		if out, _ := s.Collect(ctx, pageview("/"), "192.0.2.1", browserUA); out != Shutdown {
			t.Errorf("collect after close: %s", out)
		}
		if got := counterValue(t, s.dropped, "shutdown"); got != 1 {
			t.Errorf("dropped{shutdown} = %v", got)
		}
	})
}

// TestBacklogGrowsBatches: events already waiting when a batch reaches BatchSize join it, up to
// BacklogBatches times BatchSize; without a backlog a batch is written at BatchSize.
func TestBacklogGrowsBatches(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		const size, n = 10, 200
		s, err := newTestService(db, Options{BatchSize: size, FlushInterval: time.Hour, QueueSize: 2 * n})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for range n { // queued before the writer starts: a backlog of n
			if out, err := s.Collect(ctx, pageview("/p"), "192.0.2.1", browserUA); err != nil || out != Queued {
				t.Fatalf("collect: %s %v", out, err)
			}
		}
		s.Start()
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		// 80 and 80 (the backlog bound); then 31 (or 32 when the flush request is queued by
		// then): fewer than BatchSize are left waiting; then those.
		if got := batchCount(t, s); got != 4 {
			t.Errorf("%d events waiting were written in %d batches, want 4", n, got)
		}
		for range size { // no backlog: written at BatchSize
			if out, err := s.Collect(ctx, pageview("/p"), "192.0.2.1", browserUA); err != nil || out != Queued {
				t.Fatalf("collect: %s %v", out, err)
			}
		}
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if got := batchCount(t, s); got != 5 {
			t.Errorf("%d batches after %d more events, want 5", got, size)
		}
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if got := countRows(t, db, "analytics_pageviews"); got != n+size {
			t.Errorf("stored %d page views, want %d", got, n+size)
		}
	})
}

func batchCount(t *testing.T, s *Service) uint64 {
	t.Helper()
	var m dto.Metric
	if err := s.batches.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

func TestCollectRejectsBadInput(t *testing.T) {
	s, err := newTestService(foliotest.MustOpenSQLite(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Collect(context.Background(), &folio.CollectInput{Type: "click", Path: "/"}, "192.0.2.1", browserUA)
	if fe, ok := err.(*folio.Error); !ok || fe.Code != folio.EINVALID || !fe.RuleBroken {
		t.Errorf("bad type: %v", err)
	}
	if len(s.queue) != 0 {
		t.Error("a rejected event was queued")
	}
}

func TestScriptIsSmallAndComplete(t *testing.T) {
	if len(Script) >= 1536 {
		t.Errorf("script.js is %d bytes, want under 1.5 KB", len(Script))
	}
	for _, want := range []string{"sendBeacon", "keepalive", "localStorage", "pushState", "replaceState", "popstate",
		"visitorId", "'pageview'", "'event'", "track", "collect"} {
		if !bytes.Contains(Script, []byte(want)) {
			t.Errorf("script.js lacks %q", want)
		}
	}
	if bytes.Contains(Script, []byte("cookie")) {
		t.Error("script.js touches cookies")
	}
}
