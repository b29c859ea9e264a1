package httpapi

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

const testBrowserUA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"

func newAnalyticsServer(t *testing.T, db *sqldb.DB) (*testServer, *analytics.Service) {
	t.Helper()
	a, err := analytics.New(analyticsdb.New(db), db.Content, analytics.Options{SiteURL: "http://folio.test", FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	a.Start()
	t.Cleanup(func() { a.Close(context.Background()) })
	ts := newTestServer(t, db, func(s *Server) { s.Analytics = a })
	return ts, a
}

func TestAnalyticsCollect(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts, a := newAnalyticsServer(t, db)
		ua := []string{"User-Agent", testBrowserUA}
		for _, tc := range []struct {
			name    string
			body    any
			headers []string
			status  int
			field   string
		}{
			{"json page view", map[string]any{"type": "pageview", "path": "/blog?utm_source=x", "referrer": "https://t.co/a", "visitorId": "v-1"}, ua, 202, ""},
			{"sendBeacon text/plain", `{"type":"pageview","path":"/about","title":"About"}`, append([]string{"Content-Type", "text/plain;charset=UTF-8"}, ua...), 202, ""},
			{"named event", map[string]any{"type": "event", "path": "/contact", "name": "modal_opened", "visitorId": "v-1"}, ua, 202, ""},
			{"bot is accepted and dropped", map[string]any{"type": "pageview", "path": "/bot"}, []string{"User-Agent", "Googlebot/2.1 (+http://www.google.com/bot.html)"}, 202, ""},
			{"empty body", "", ua, 400, ""},
			{"not json", "type=pageview", ua, 400, ""},
			{"missing path", map[string]any{"type": "pageview"}, ua, 400, "path"},
			{"wrong type of field", `{"type":"pageview","path":7}`, ua, 400, "path"},
			{"unknown type", map[string]any{"type": "click", "path": "/"}, ua, 422, "type"},
			{"bad visitor id", map[string]any{"type": "pageview", "path": "/", "visitorId": "a b"}, ua, 422, "visitorId"},
			{"too large", map[string]any{"type": "pageview", "path": "/", "title": strings.Repeat("x", 3000)}, ua, 413, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := ts.do("POST", "/api/analytics/collect", "", tc.body, append([]string{"Origin", "https://elsewhere.example"}, tc.headers...)...)
				if res.Status != tc.status {
					t.Fatalf("status %d, want %d: %s", res.Status, tc.status, res.Body)
				}
				if got := res.Header.Get("Access-Control-Allow-Origin"); got != "*" {
					t.Errorf("Access-Control-Allow-Origin = %q, want *", got)
				}
				if c := res.Header.Values("Set-Cookie"); len(c) > 0 {
					t.Errorf("collect set cookies: %v", c)
				}
				if tc.status == 202 {
					if len(res.Body) != 0 {
						t.Errorf("202 with a body: %s", res.Body)
					}
					return
				}
				if code := res.errorCode(t); code != folio.EINVALID && code != folio.ETOOLARGE {
					t.Errorf("code %s", code)
				}
				if tc.field != "" {
					if d := res.json(t)["error"].(map[string]any)["details"].([]any); len(d) == 0 || d[0].(map[string]any)["field"] != tc.field {
						t.Errorf("details %v do not name %s", d, tc.field)
					}
				}
			})
		}

		// The preflight a browser sends before a JSON fetch from another origin.
		pre := ts.do("OPTIONS", "/api/analytics/collect", "", nil, "Origin", "https://elsewhere.example",
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type")
		if pre.Status != http.StatusNoContent || pre.Header.Get("Access-Control-Allow-Origin") != "*" ||
			!strings.Contains(pre.Header.Get("Access-Control-Allow-Methods"), "POST") ||
			!strings.Contains(strings.ToLower(pre.Header.Get("Access-Control-Allow-Headers")), "content-type") {
			t.Errorf("preflight: %d %v", pre.Status, pre.Header)
		}

		if err := a.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		rep := ts.do("GET", "/api/analytics", "admin", nil).json(t)
		pv := rep["pageViews"].(map[string]any)
		if pv["total"].(float64) != 2 {
			t.Errorf("page views = %v, want the 2 human ones: %v", pv["total"], rep)
		}
		pages := rep["topPages"].([]any)
		if len(pages) != 2 || pages[0].(map[string]any)["path"] != "/about" || pages[0].(map[string]any)["title"] != "About" ||
			pages[1].(map[string]any)["path"] != "/blog" {
			t.Errorf("top pages = %v", pages)
		}
		if refs := rep["referrers"].([]any); len(refs) != 1 || refs[0].(map[string]any)["domain"] != "t.co" {
			t.Errorf("referrers = %v", refs)
		}
	})
}

func TestAnalyticsReports(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts, a := newAnalyticsServer(t, db)
		proj := ts.do("POST", "/api/projects", "write", map[string]any{"title": "Tidewater", "description": "d", "status": "published"}).json(t)
		id := proj["id"].(string)
		for _, body := range []map[string]any{
			{"type": "pageview", "path": "/projects/" + id, "referrer": "https://news.ycombinator.com/item?id=1", "visitorId": "v1"},
			{"type": "pageview", "path": "/projects/" + id + "?utm_source=mail", "visitorId": "v2"},
			{"type": "pageview", "path": "/projects/" + id, "visitorId": "v1"},
			{"type": "event", "path": "/contact", "name": "modal_opened", "visitorId": "v1"},
			{"type": "event", "path": "/contact", "name": "modal_opened", "visitorId": "v2"},
			{"type": "event", "path": "/contact", "name": "contact_info_submitted", "visitorId": "v1"},
			{"type": "event", "path": "/contact", "name": "booking_error", "props": map[string]any{"group": "conflict", "step": "time_selected"}, "visitorId": "v1"},
		} {
			if res := ts.do("POST", "/api/analytics/collect", "", body, "User-Agent", testBrowserUA); res.Status != 202 {
				t.Fatalf("collect: %d %s", res.Status, res.Body)
			}
		}
		if err := a.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		today := time.Now().UTC().Format(time.DateOnly)

		for _, tc := range []struct {
			name, path, token string
			status            int
			code              string
		}{
			{"report needs credentials", "/api/analytics", "", 401, folio.EUNAUTHORIZED},
			{"report needs admin", "/api/analytics", "write", 403, folio.EFORBIDDEN},
			{"report", "/api/analytics", "admin", 200, ""},
			{"report with range", "/api/analytics?start=2026-01-01&end=" + today, "admin", 200, ""},
			{"bad start", "/api/analytics?start=01/02/2026", "admin", 400, folio.EINVALID},
			{"bad end", "/api/analytics?end=2026-13-01", "admin", 400, folio.EINVALID},
			{"end before start", "/api/analytics?start=2026-02-02&end=2026-02-01", "admin", 422, folio.EINVALID},
			{"project report needs admin", "/api/analytics/projects/" + id, "read", 403, folio.EFORBIDDEN},
			{"project report", "/api/analytics/projects/" + id, "admin", 200, ""},
			{"unknown project", "/api/analytics/projects/nope", "admin", 404, folio.ENOTFOUND},
			{"project bad range", "/api/analytics/projects/" + id + "?start=x", "admin", 400, folio.EINVALID},
			{"funnel needs credentials", "/api/analytics/funnel", "", 401, folio.EUNAUTHORIZED},
			{"funnel", "/api/analytics/funnel", "admin", 200, ""},
			{"funnel end before start", "/api/analytics/funnel?start=2026-02-02&end=2026-02-01", "admin", 422, folio.EINVALID},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := ts.do("GET", tc.path, tc.token, nil)
				if res.Status != tc.status {
					t.Fatalf("status %d, want %d: %s", res.Status, tc.status, res.Body)
				}
				if tc.code != "" {
					if got := res.errorCode(t); got != tc.code {
						t.Errorf("code %s, want %s", got, tc.code)
					}
				}
			})
		}

		rep := ts.do("GET", "/api/analytics", "admin", nil).json(t)
		v := rep["visitors"].(map[string]any)
		if v["total"].(float64) != 2 || v["unique"].(float64) != 2 || v["returning"].(float64) != 0 {
			t.Errorf("visitors = %v, want 2 visits by 2 visitors", v)
		}
		if pv := rep["pageViews"].(map[string]any); pv["total"].(float64) != 3 || pv["average"].(float64) != 1.5 {
			t.Errorf("pageViews = %v, want 3 views, 1.5 per visit", pv)
		}
		tr := rep["timeRange"].(map[string]any)
		if _, err := time.Parse(time.RFC3339, tr["start"].(string)); err != nil {
			t.Errorf("timeRange.start %v", tr["start"])
		}

		pr := ts.do("GET", "/api/analytics/projects/"+id, "admin", nil).json(t)
		if pr["projectId"] != id || pr["views"].(float64) != 3 || pr["uniqueVisitors"].(float64) != 2 || len(pr["daily"].([]any)) != 30 {
			t.Errorf("project report = %v", pr)
		}
		daily := pr["daily"].([]any)
		if last := daily[len(daily)-1].(map[string]any); last["date"] != today || last["views"].(float64) != 3 {
			t.Errorf("last day = %v, want %s with 3 views", last, today)
		}
		if refs := pr["referrers"].([]any); len(refs) != 1 || refs[0].(map[string]any)["domain"] != "news.ycombinator.com" {
			t.Errorf("project referrers = %v", refs)
		}

		fr := ts.do("GET", "/api/analytics/funnel", "admin", nil).json(t)
		steps := fr["steps"].([]any)
		if len(steps) != len(folio.FunnelSteps) {
			t.Fatalf("steps = %v", steps)
		}
		s0, s1 := steps[0].(map[string]any), steps[1].(map[string]any)
		if s0["step"] != "modal_opened" || s0["visitors"].(float64) != 2 || s1["visitors"].(float64) != 1 || s1["conversionFromPrevious"].(float64) != 0.5 {
			t.Errorf("funnel steps = %v", steps)
		}
		errs := fr["errors"].([]any)
		if len(errs) != 4 || errs[0].(map[string]any)["group"] != "conflict" || errs[0].(map[string]any)["count"].(float64) != 1 {
			t.Errorf("funnel errors = %v", errs)
		}
		if ab := fr["abandonment"].([]any); len(ab) != 0 {
			t.Errorf("abandonment = %v", ab)
		}
	})
}

func TestAnalyticsScript(t *testing.T) {
	ts, _ := newAnalyticsServer(t, foliotest.MustOpenSQLite(t))
	res := ts.do("GET", "/api/analytics/script.js", "", nil)
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("script.js: %d %s", res.Status, res.Header.Get("Content-Type"))
	}
	if len(res.Body) >= 1536 {
		t.Errorf("script.js is %d bytes, want under 1.5 KB", len(res.Body))
	}
	if !strings.Contains(string(res.Body), "collect") || res.Header.Get("Cache-Control") == "" {
		t.Errorf("script.js body or caching wrong: %v", res.Header)
	}
}

// Ensure the script served follows the storage mode in force, switched without a restart.
func TestAnalyticsScriptFollowsStorageMode(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	var mode atomic.Value // the setting, as another instance may change it
	mode.Store(analytics.StorageLocal)
	a, err := analytics.New(analyticsdb.New(db), db.Content, analytics.Options{Storage: func() string { return mode.Load().(string) }})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, db, func(s *Server) { s.Analytics = a })
	for _, m := range []string{analytics.StorageLocal, analytics.StorageNone, analytics.StorageLocal} {
		mode.Store(m)
		body := string(ts.do("GET", "/api/analytics/script.js", "", nil).Body)
		if keeps := strings.Contains(body, "keep = true"); keeps != (m == analytics.StorageLocal) {
			t.Errorf("mode %s: the script keeps an id: %v", m, keeps)
		}
	}
}

func TestAnalyticsUnavailableWithoutService(t *testing.T) {
	ts := newTestServer(t, foliotest.MustOpenSQLite(t))
	if res := ts.do("GET", "/api/analytics", "admin", nil); res.Status != 503 || res.errorCode(t) != folio.EUNAVAILABLE {
		t.Errorf("report without service: %d %s", res.Status, res.Body)
	}
	if res := ts.do("POST", "/api/analytics/collect", "", map[string]any{"type": "pageview", "path": "/"}); res.Status != 503 {
		t.Errorf("collect without service: %d", res.Status)
	}
}

func TestAnalyticsResponsesMatchOpenAPI(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ts, a := newAnalyticsServer(t, db)
	v := newOpenAPIValidator(t, ts)
	id := ts.do("POST", "/api/projects", "write", map[string]any{"title": "A", "description": "B"}).json(t)["id"].(string)
	v.check("POST", "/api/analytics/collect", ts.do("POST", "/api/analytics/collect", "", map[string]any{"type": "pageview", "path": "/projects/" + id, "title": "A", "referrer": "https://t.co/x"}, "User-Agent", testBrowserUA))
	v.check("POST", "/api/analytics/collect", ts.do("POST", "/api/analytics/collect", "", map[string]any{"type": "x", "path": "/"}, "User-Agent", testBrowserUA))
	v.check("POST", "/api/analytics/collect", ts.do("POST", "/api/analytics/collect", "", map[string]any{"type": "pageview"}, "User-Agent", testBrowserUA))
	v.check("POST", "/api/analytics/collect", ts.do("POST", "/api/analytics/collect", "", strings.Repeat(" ", 3000), "User-Agent", testBrowserUA))
	if err := a.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	v.check("GET", "/api/analytics", ts.do("GET", "/api/analytics", "admin", nil))
	v.check("GET", "/api/analytics", ts.do("GET", "/api/analytics?start=bad", "admin", nil))
	v.check("GET", "/api/analytics", ts.do("GET", "/api/analytics?start=2026-02-02&end=2026-02-01", "admin", nil))
	v.check("GET", "/api/analytics", ts.do("GET", "/api/analytics", "", nil))
	v.check("GET", "/api/analytics", ts.do("GET", "/api/analytics", "read", nil))
	v.check("GET", "/api/analytics/projects/{id}", ts.do("GET", "/api/analytics/projects/"+id, "admin", nil))
	v.check("GET", "/api/analytics/projects/{id}", ts.do("GET", "/api/analytics/projects/missing", "admin", nil))
	v.check("GET", "/api/analytics/funnel", ts.do("GET", "/api/analytics/funnel", "admin", nil))
	v.check("GET", "/api/analytics/script.js", ts.do("GET", "/api/analytics/script.js", "", nil))
}

// A report read right after a collect counts it: the read routes write the queued batch first
// (the writer here waits an hour for a batch to fill, and the test never calls Flush).
func TestAnalyticsReadsSeeQueuedEvents(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts, _ := newAnalyticsServer(t, db)
		res := ts.do("POST", "/api/analytics/collect", "", map[string]any{"type": "pageview", "path": "/queued", "visitorId": "v-q"},
			"User-Agent", testBrowserUA)
		if res.Status != http.StatusAccepted {
			t.Fatalf("collect: %d %s", res.Status, res.Body)
		}
		rep := ts.do("GET", "/api/analytics", "admin", nil).json(t)
		if pv := rep["pageViews"].(map[string]any)["total"]; pv != float64(1) {
			t.Errorf("report page views = %v, want 1: %v", pv, rep)
		}
		bd := ts.do("GET", "/api/analytics/breakdown?dimension=page", "admin", nil).json(t)
		rows := bd["rows"].([]any)
		if len(rows) != 1 || rows[0].(map[string]any)["value"] != "/queued" {
			t.Errorf("breakdown rows = %v, want the /queued page", rows)
		}
		rt := ts.do("GET", "/api/analytics/realtime", "admin", nil).json(t)
		if rt["visitors"] != float64(1) {
			t.Errorf("realtime visitors = %v, want 1: %v", rt["visitors"], rt)
		}
	})
}
