package httpapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/audit"
	"github.com/foliohq/folio/internal/clientip"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The tests of this file replay hostile traffic (junk parameters, huge bodies, forged labels)
// against the HTTP layer.

// Ensure junk query parameters on a cached public route change nothing and cost no render: the
// entry of the declared-parameter key is served (the same body and ETag, counted as a hit), and
// only the parameters a route declares make up the key, in any order or spelling.
func TestResponseCacheIgnoresUndeclaredParams(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newBlogServer(t, db)
		ts.do("POST", "/api/blog", "write", map[string]any{"title": "Long", "content": strings.Repeat("word ", 20000), "status": "published"})
		first := ts.do("GET", "/api/blog/long", "", nil)
		if first.Status != 200 || first.Header.Get("Etag") == "" {
			t.Fatalf("GET: %d, ETag %q", first.Status, first.Header.Get("Etag"))
		}
		hits := counterValue(ts.metrics.cacheHit)
		for i := range 200 {
			res := ts.do("GET", fmt.Sprintf("/api/blog/long?cb=%d", i), "", nil)
			if res.Status != 200 || string(res.Body) != string(first.Body) || res.Header.Get("Etag") != first.Header.Get("Etag") {
				t.Fatalf("junk query %d: %d, ETag %q", i, res.Status, res.Header.Get("Etag"))
			}
		}
		if got := counterValue(ts.metrics.cacheHit) - hits; got != 200 {
			t.Errorf("%v of 200 junk queries answered from the cache; the rest were rendered", got)
		}
		if n, _ := ts.cache.Stats(); n != 1 {
			t.Errorf("%d cache entries after 200 junk queries, want 1", n)
		}
		// Declared parameters share one entry whatever their order, escaping, repetition and
		// company, and the answer is the declared query's.
		want := ts.do("GET", "/api/blog?page=1&limit=5", "", nil)
		for _, q := range []string{"?limit=5&page=1", "?limit=%35&page=1", "?page=1&&limit=5", "?page=1&limit=5&x=1",
			"?page=1&limit=5&page=2", "?page=1;x=1&page=1&limit=5", "?page=%zz&page=1&limit=5", "?pag%65=1&limit=5"} {
			res := ts.do("GET", "/api/blog"+q, "", nil)
			if res.Status != 200 || string(res.Body) != string(want.Body) {
				t.Fatalf("%s: %d %s", q, res.Status, res.Body)
			}
		}
		if n, _ := ts.cache.Stats(); n != 2 {
			t.Errorf("%d cache entries after one list query spelled many ways, want 2", n)
		}
	})
}

// counterValue reads a counter.
func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	c.Write(&m)
	return m.GetCounter().GetValue()
}

// Ensure the handler of a route with a cache scope is given its declared parameters only,
// whoever asks and whether or not the cache is on, so an undeclared parameter never changes the
// answer.
func TestCachedRoutesSeeDeclaredParamsOnly(t *testing.T) {
	for _, size := range []int{0, 100} {
		s := &Server{Auth: testActors, PublicCacheSize: size}
		var seen string
		h := s.adapt(route{Method: "GET", Pattern: "/echo", Cache: scopePosts, Query: []param{pageParam},
			Handle: func(w http.ResponseWriter, r *http.Request) error {
				seen = r.URL.RawQuery
				return writeJSON(w, 200, seen)
			}})
		s.Handler() // the metrics and the cache
		for _, token := range []string{"", "write"} {
			req := httptest.NewRequest("GET", "/echo?utm_x=1&page=2&page=3&cb=9", nil)
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			if seen != "page=2" {
				t.Errorf("cache size %d, caller %q: the handler saw %q", size, token, seen)
			}
		}
	}
}

// Ensure the cache never holds more than its byte bound, keeps exact-size copies, and frees
// a scope's entries when it is invalidated (not only marks them stale).
func TestResponseCacheBoundedInBytes(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		const bound = 1 << 20
		ts := newBlogServer(t, db, func(s *Server) { s.PublicCacheBytes = bound; s.PublicCacheSize = 1 << 20 })
		for i := range 30 {
			ts.do("POST", "/api/blog", "write", map[string]any{"title": fmt.Sprintf("Post %d", i),
				"content": strings.Repeat(fmt.Sprintf("w%d ", i), 10000), "status": "published"})
		}
		ts.do("POST", "/api/projects", "write", map[string]any{"title": "P", "description": "d", "status": "published"})
		ts.do("GET", "/api/projects", "", nil)
		for i := range 30 {
			if res := ts.do("GET", fmt.Sprintf("/api/blog/post-%d", i), "", nil); res.Status != 200 {
				t.Fatalf("post %d: %d", i, res.Status)
			}
			if _, b := ts.cache.Stats(); b > bound {
				t.Fatalf("cache holds %d bytes, over its %d-byte bound", b, bound)
			}
		}
		ts.do("GET", "/api/projects", "", nil) // cached again if the sweeps evicted it
		n, b := ts.cache.Stats()
		if n < 3 || b < bound/4 {
			t.Errorf("cache holds %d entries, %d bytes: it should still cache", n, b)
		}
		// Exact-size copies: respcache.TestNewEntryKeepsAnExactSizeCopy.

		// A write to posts frees every posts entry at once; the projects entry stays.
		ts.do("PUT", "/api/blog/post-0", "write", map[string]any{"content": "short"})
		n, b = ts.cache.Stats()
		if n != 1 || b > 64<<10 {
			t.Errorf("after a posts write: %d entries, %d bytes; want only the projects entry", n, b)
		}
		ts.Invalidate("*")
		if n, b := ts.cache.Stats(); n != 0 || b != 0 {
			t.Errorf("after invalidating everything: %d entries, %d bytes", n, b)
		}
		// A response larger than an eighth of the bound is served but not kept.
		ts.do("POST", "/api/blog", "write", map[string]any{"title": "Huge", "content": strings.Repeat("x", 200<<10), "status": "published"})
		if res := ts.do("GET", "/api/blog/huge", "", nil); res.Status != 200 {
			t.Fatalf("huge: %d", res.Status)
		}
		if n, _ := ts.cache.Stats(); n != 0 {
			t.Errorf("a response over an eighth of the bound was cached (%d entries)", n)
		}
	})
}

// metricsSeries counts the folio_http_requests_total series.
func metricsSeries(t *testing.T, ts *testServer) (int, string) {
	t.Helper()
	res := ts.do("GET", "/metrics", "admin", nil)
	if res.Status != 200 {
		t.Fatalf("/metrics: %d", res.Status)
	}
	return strings.Count(string(res.Body), "\nfolio_http_requests_total{"), string(res.Body)
}

// Ensure methods, routes and statuses a stranger chooses do not become label values: whatever
// the requests, the number of series stays put.
func TestMetricsLabelsComeFromFixedSets(t *testing.T) {
	ts := newTestServer(t, foliotest.MustOpenSQLite(t))
	send := func(method, path string) {
		req, _ := http.NewRequest(method, ts.URL+path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	for i := range 5 {
		send(fmt.Sprintf("M%d", i), "/api/projects")
		send(fmt.Sprintf("M%d", i), fmt.Sprintf("/api/nothing-%d", i))
		send("GET", fmt.Sprintf("/nothing/%d", i))
	}
	metricsSeries(t, ts) // the /metrics request's own series
	before, _ := metricsSeries(t, ts)
	for i := range 300 {
		send(fmt.Sprintf("X%dY%s", i, strings.Repeat("Z", 200)), "/api/projects")
		send(fmt.Sprintf("BREW%d", i), fmt.Sprintf("/api/nothing-%d", i))
		send("GET", fmt.Sprintf("/random/%d", i))
	}
	after, body := metricsSeries(t, ts)
	if after != before {
		t.Errorf("series went from %d to %d after 900 requests with new methods and paths", before, after)
	}
	if strings.Contains(body, "ZZZ") || strings.Contains(body, "BREW") || strings.Contains(body, "/random/") {
		t.Error("a request's method or path became a label value")
	}
	if !strings.Contains(body, `method="OTHER"`) || !strings.Contains(body, `route="unmatched"`) {
		t.Errorf("no OTHER method or unmatched route series:\n%s", body)
	}
	for _, tc := range []struct {
		in   int
		want string
	}{{200, "200"}, {404, "404"}, {299, "2xx"}, {799, "other"}, {0, "other"}} {
		if got := statusLabel(tc.in); got != tc.want {
			t.Errorf("statusLabel(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Ensure /metrics needs METRICS_TOKEN or an admin key, and with METRICS_ADDR is served only by
// the separate handler.
func TestMetricsAccess(t *testing.T) {
	const token = "metrics-token-0123456789abcdef0123456789"
	ts := newTestServer(t, foliotest.MustOpenSQLite(t), func(s *Server) { s.MetricsToken = token })
	for _, tc := range []struct {
		name, auth string
		status     int
		code       string
	}{
		{"no credentials", "", 401, "AUTHENTICATION_REQUIRED"},
		{"read key", "Bearer read", 403, "PERMISSION_DENIED"},
		{"write key", "Bearer write", 403, "PERMISSION_DENIED"},
		{"editor session", "Bearer editor", 403, "PERMISSION_DENIED"},
		{"wrong token", "Bearer " + token[:len(token)-1] + "x", 401, "AUTHENTICATION_REQUIRED"},
		{"admin key", "Bearer admin", 200, ""},
		{"METRICS_TOKEN", "Bearer " + token, 200, ""},
	} {
		res := ts.do("GET", "/metrics", "", nil, "Authorization", tc.auth)
		if res.Status != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, res.Status, tc.status)
			continue
		}
		if tc.code != "" && res.errorCode(t) != tc.code {
			t.Errorf("%s: code %s", tc.name, res.errorCode(t))
		}
		if tc.status == 200 && !strings.Contains(string(res.Body), "folio_http_requests_total") {
			t.Errorf("%s: no metrics", tc.name)
		}
		if tc.status == 401 && res.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", tc.name)
		}
	}

	sep := newTestServer(t, foliotest.MustOpenSQLite(t), func(s *Server) { s.MetricsSeparate = true })
	if res := sep.do("GET", "/metrics", "admin", nil); res.Status != 404 {
		t.Errorf("/metrics on the main listener with METRICS_ADDR set: %d", res.Status)
	}
	ms := httptest.NewServer(sep.MetricsHandler())
	defer ms.Close()
	res, err := http.Get(ms.URL + "/metrics")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("separate listener without a token: %v %v", err, res)
	}
	res.Body.Close()
	sep.MetricsToken = token
	res, _ = http.Get(ms.URL + "/metrics")
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("separate listener with METRICS_TOKEN set, none sent: %d", res.StatusCode)
	}
	req, _ := http.NewRequest("GET", ms.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, _ = http.DefaultClient.Do(req)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("separate listener with the token: %d", res.StatusCode)
	}
}

// Ensure every access-log line names the request's user and key (they were once empty on
// every line, because the actor was set on a copy of the request the log never saw).
func TestAccessLogNamesActor(t *testing.T) {
	logs := &syncBuffer{}
	ts := newTestServer(t, foliotest.MustOpenSQLite(t), func(s *Server) {
		s.AccessLog = true
		s.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	})
	ts.do("GET", "/api/projects", "write", nil, "X-Request-Id", "req-write")
	ts.do("POST", "/api/projects", "admin", map[string]any{"title": "t", "description": "d"}, "X-Request-Id", "req-admin")
	ts.do("GET", "/api/projects", "", nil, "X-Request-Id", "req-anon")
	ts.do("DELETE", "/api/projects/x", "read", nil, "X-Request-Id", "req-denied")
	ts.do("GET", "/metrics", "admin", nil, "X-Request-Id", "req-metrics")
	want := map[string][2]string{"req-write": {"u1", "k-write"}, "req-admin": {"u1", "k-admin"}, "req-anon": {"", ""},
		"req-denied": {"u1", "k-read"}, "req-metrics": {"u1", "k-admin"}}
	seen := 0
	for _, line := range accessLogLines(logs.String()) {
		w, ok := want[fmt.Sprint(line["request_id"])]
		if !ok {
			continue
		}
		seen++
		if line["user_id"] != w[0] || line["key_id"] != w[1] {
			t.Errorf("%s: user_id %v key_id %v, want %q %q", line["request_id"], line["user_id"], line["key_id"], w[0], w[1])
		}
	}
	if seen != len(want) {
		t.Errorf("%d access-log lines found, want %d:\n%s", seen, len(want), logs)
	}
}

// Ensure the client address a request resolves once (from X-Forwarded-For behind a trusted
// proxy) is the one its rate limit counts and its access-log line names, and that the line is
// written only at a level the logger keeps: a warn-level logger sees the 429, not the 200s.
func TestAccessLogClientAddress(t *testing.T) {
	logs := &syncBuffer{}
	ts := newTestServer(t, foliotest.MustOpenSQLite(t), func(s *Server) {
		s.AccessLog = true
		s.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
		s.ClientIP = clientip.New([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
		s.Limits.Public = 2
	})
	for i, want := range []int{200, 200, 429} {
		if res := ts.do("GET", "/api/projects", "", nil, "X-Forwarded-For", "203.0.113.7", "X-Request-Id", fmt.Sprintf("req-%d", i)); res.Status != want {
			t.Fatalf("request %d from 203.0.113.7: %d, want %d", i, res.Status, want)
		}
	}
	if res := ts.do("GET", "/api/projects", "", nil, "X-Forwarded-For", "203.0.113.8"); res.Status != 200 {
		t.Errorf("another forwarded client: %d, want 200 (a budget of its own)", res.Status)
	}
	lines := accessLogLines(logs.String())
	if len(lines) != 1 || lines[0]["request_id"] != "req-2" || lines[0]["status"] != float64(429) || lines[0]["client_ip"] != "203.0.113.7" {
		t.Errorf("access-log lines %v, want only req-2's 429 from 203.0.113.7", lines)
	}
}

// Ensure a body of a thousand bad items answers with at most 20 details, and says how many more.
func TestValidationDetailsCapped(t *testing.T) {
	ts := newTestServer(t, foliotest.MustOpenSQLite(t))
	techs := make([]string, 20000)
	for i := range techs {
		techs[i] = "go"
	}
	body, _ := json.Marshal(map[string]any{"title": "t", "description": "d", "technologies": techs})
	res := ts.do("POST", "/api/projects", "write", body)
	if res.Status != 422 || res.errorCode(t) != "VALIDATION_ERROR" {
		t.Fatalf("%d %.200s", res.Status, res.Body)
	}
	d := res.json(t)["error"].(map[string]any)["details"].([]any)
	if len(d) != folio.MaxErrorDetails {
		t.Errorf("%d details, want %d", len(d), folio.MaxErrorDetails)
	}
	if len(res.Body) > 4096 {
		t.Errorf("a %d-byte request answered with %d bytes", len(body), len(res.Body))
	}
	if !regexp.MustCompile(`\d+ more problems are not listed`).Match(res.Body) {
		t.Errorf("message does not say more were left out: %s", res.Body)
	}
	// The error writer caps errors built elsewhere too.
	var fe folio.Error
	for i := range 50 {
		fe.Details = append(fe.Details, folio.FieldError{Field: fmt.Sprint(i), Message: "bad"})
	}
	fe.Code, fe.Message = folio.EINVALID, "Bad."
	rec := httptest.NewRecorder()
	ts.writeError(rec, httptest.NewRequest("GET", "/", nil), &fe)
	var env errorBody
	json.Unmarshal(rec.Body.Bytes(), &env)
	if len(env.Error.Details) != folio.MaxErrorDetails || len(fe.Details) != 50 {
		t.Errorf("writeError: %d details (the error's own list: %d)", len(env.Error.Details), len(fe.Details))
	}
}

// FuzzMetricsLabels: whatever method or status a request has, its labels come from fixed sets.
func FuzzMetricsLabels(f *testing.F) {
	f.Add("GET", 200)
	f.Add("BREW", 418)
	f.Add(strings.Repeat("X", 1000), -1)
	f.Add("get", 999)
	allowed := map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true,
		"OPTIONS": true, "CONNECT": true, "TRACE": true, "OTHER": true}
	statuses := map[string]bool{"other": true, "0xx": true, "1xx": true, "2xx": true, "3xx": true, "4xx": true, "5xx": true}
	for _, v := range statusCodes {
		statuses[v] = true
	}
	f.Fuzz(func(t *testing.T, method string, status int) {
		if m := methodLabel(method); !allowed[m] || (m != "OTHER" && m != method) {
			t.Fatalf("methodLabel(%q) = %q", method, m)
		}
		if s := statusLabel(status); !statuses[s] {
			t.Fatalf("statusLabel(%d) = %q", status, s)
		}
	})
}

// FuzzMetricsToken: only the exact METRICS_TOKEN as a bearer token opens /metrics.
func FuzzMetricsToken(f *testing.F) {
	const token = "metrics-token-0123456789abcdef0123456789"
	f.Add("Bearer " + token)
	f.Add("bearer  " + token + " ")
	f.Add("Bearer " + token[:10])
	f.Add("Basic " + token)
	f.Add(token)
	s := &Server{MetricsToken: token}
	f.Fuzz(func(t *testing.T, header string) {
		r := httptest.NewRequest("GET", "/metrics", nil)
		r.Header.Set("Authorization", header)
		scheme, tok, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		want := strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(tok) == token
		if got := s.metricsTokenOK(r); got != want {
			t.Fatalf("metricsTokenOK(%q) = %v, want %v", header, got, want)
		}
		if (&Server{}).metricsTokenOK(r) {
			t.Fatal("an unset METRICS_TOKEN matched")
		}
	})
}

// Ensure a flood of refused sign-ins writes no audit row per request (docs/api.md, "Audit
// log"): 200 rapid anonymous attempts from one client, refused by the sign-in limit and then by
// the public tier, leave one row per client and route for the refusals, whose detail carries
// the count; the attempts that were answered keep a row each. A client rotating its IPv6
// address inside its /64 is one client, and a new rate-limit window starts a new row.
func TestRefusedSignInsAreCounted(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		f := newIdentityFixture(t, db, IdentityConfig{}, func(s *Server) {
			s.ClientIP = clientip.New([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
			s.Limits.Public = 30
		})
		w := audit.New(db.Audit, audit.Options{Now: f.Clock.Now})
		f.Audit = w
		login := func(client, email string) int {
			t.Helper()
			return f.do("POST", "/api/auth/login", "", map[string]string{"email": email, "password": "wrong password"},
				"X-Forwarded-For", client).Status
		}
		statuses := map[int]int{}
		// 100 on one account: 5 failures, then the sign-in limit refuses until the public tier
		// (30; every attempt that reaches the sign-in step spends it) is spent, then the tier.
		for range 100 {
			statuses[login("203.0.113.7", "owner@example.com")]++
		}
		// 100 on made-up accounts: the tier refuses them all.
		for i := range 100 {
			statuses[login("203.0.113.7", fmt.Sprintf("guess%d@example.com", i))]++
		}
		if statuses[401] != 5 || statuses[429] != 195 {
			t.Fatalf("statuses %v, want 5×401 and 195×429", statuses)
		}
		entries := func(action string) []folio.AuditEntry {
			t.Helper()
			if err := w.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
			es, _, err := db.Audit.AuditEntries(t.Context(), folio.AuditFilter{Action: action, Page: 1, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			return es
		}
		byStatus := func(es []folio.AuditEntry, status int) []folio.AuditEntry {
			var out []folio.AuditEntry
			for _, e := range es {
				if e.Status == status {
					out = append(out, e)
				}
			}
			return out
		}
		all := entries("auth.login")
		if n := len(byStatus(all, 401)); n != 5 {
			t.Errorf("%d rows for the 5 answered failures, want one each", n)
		}
		refused := byStatus(all, 429)
		if len(refused) != 1 {
			t.Fatalf("%d audit rows for 195 refused sign-ins, want 1", len(refused))
		}
		if e := refused[0]; e.Refused != 195 || e.Detail != "195 attempts refused" || e.IP != "203.0.113.0/24" ||
			e.Action != "auth.login" || e.Actor != (folio.AuditActor{}) {
			t.Errorf("the refusals' row: %+v", e)
		}

		// More refusals in the same window add to that row's count, flushed or not.
		for range 20 {
			login("203.0.113.7", "owner@example.com")
		}
		refused = byStatus(entries("auth.login"), 429)
		if len(refused) != 1 || refused[0].Refused != 215 || refused[0].Detail != "215 attempts refused" {
			t.Errorf("after 20 more refusals: %+v, want one row of 215", refused)
		}

		// An IPv6 client rotating addresses inside its /64 is one client: one row.
		for i := range 60 {
			login(fmt.Sprintf("2001:db8:1:2::%x", i+1), "owner@example.com")
		}
		v6 := byStatus(entries("auth.login"), 429)
		var v6rows []folio.AuditEntry
		for _, e := range v6 {
			if e.IP == "2001:db8:1::/48" {
				v6rows = append(v6rows, e)
			}
		}
		if len(v6rows) != 1 || v6rows[0].Refused != 55 {
			t.Errorf("IPv6 refusals: %+v, want one row of 55", v6rows)
		}

		// The next window starts a row of its own.
		f.Clock.Advance(time.Hour)
		for range 10 {
			login("203.0.113.7", "owner@example.com")
		}
		refused = byStatus(entries("auth.login"), 429)
		if len(refused) != 3 {
			t.Fatalf("%d refusal rows after a new window, want 3: %+v", len(refused), refused)
		}
		if refused[0].Refused != 10 || refused[0].At.Sub(f.Clock.Now()).Abs() > time.Millisecond {
			t.Errorf("the new window's row: %+v", refused[0])
		}
		// Nothing was dropped, and /metrics says so.
		if res := f.as("admin", "GET", "/metrics", nil); !strings.Contains(string(res.Body), "folio_audit_dropped_total 0") {
			t.Errorf("/metrics lacks folio_audit_dropped_total 0: %d", res.Status)
		}
	})
}

// Ensure refusals are counted per credential for a caller with one, and per network for an
// anonymous one: the audit log's /24 or /48, or the per-IP limits' IPv6 prefix when wider.
func TestRefusalClient(t *testing.T) {
	for _, tc := range []struct {
		addr       string
		v6Prefix   int
		actor      folio.Actor
		client, ip string
	}{
		{"203.0.113.7", 0, folio.Actor{}, "203.0.113.0/24", "203.0.113.0/24"},
		{"2001:db8:1:2::7", 0, folio.Actor{}, "2001:db8:1::/48", "2001:db8:1::/48"},
		{"2001:db8:1:2::7", 56, folio.Actor{}, "2001:db8:1::/48", "2001:db8:1::/48"},
		{"2001:db8:1:2::7", 32, folio.Actor{}, "2001:db8::/32", "2001:db8::/32"},
		{"203.0.113.7", 0, folio.Actor{Level: folio.LevelWrite, KeyID: "k1", UserID: "u1"}, "key:k1", "203.0.113.0/24"},
		{"2001:db8:1:2::7", 32, folio.Actor{Level: folio.LevelRead, Session: true, UserID: "u1"}, "user:u1", "2001:db8:1::/48"},
	} {
		s := &Server{Limits: Limits{IPv6Prefix: tc.v6Prefix}}
		r := httptest.NewRequest("POST", "/api/auth/login", nil)
		r.RemoteAddr = netip.AddrPortFrom(netip.MustParseAddr(tc.addr), 40000).String()
		e := folio.AuditEntry{IP: audit.Network(tc.addr)}
		if got := s.refusalClient(r, tc.actor, &e); got != tc.client || e.IP != tc.ip {
			t.Errorf("%s /%d %+v: client %q ip %q, want %q %q", tc.addr, tc.v6Prefix, tc.actor, got, e.IP, tc.client, tc.ip)
		}
	}
}

// Ensure a bearer token in a path (a booking's manage link, API and page) reaches no log: the
// access log shows the route pattern and the token's digest, the messages of 404 and 405 answers
// (logged) and the audit entry's resourceId too; a misspelt manage address is caught as well.
func TestTokensInPathsReachNoLog(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	logs := &syncBuffer{}
	const token = "Qx7_d2VhbGx5LXNlY3JldA-f9"
	w := audit.New(db.Audit, audit.Options{})
	ts := newTestServer(t, db, func(s *Server) {
		s.AccessLog = true
		s.Logger = slog.New(slog.NewJSONHandler(logs, nil))
		s.UI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("page")) })
		s.Audit = w
	})
	for _, rq := range [][2]string{{"GET", "/api/schedule/bookings/" + token}, {"POST", "/api/schedule/bookings/" + token + "/cancel"},
		{"POST", "/api/schedule/bookings/" + token + "/reschedule"}, {"GET", "/book/manage/" + token},
		{"DELETE", "/api/schedule/bookings/" + token}, {"GET", "/api/schedule/bookings/" + token + "/cancel/x"},
		{"GET", "/book/manage/" + token + "/x"}} {
		ts.do(rq[0], rq[1], "", nil)
	}
	ts.do("POST", "/api/schedule/bookings/"+token+"/cancel", "admin", map[string]any{}) // audited
	if err := w.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	es, _, err := db.Audit.AuditEntries(t.Context(), folio.AuditFilter{Page: 1, Limit: 100})
	if err != nil || len(es) != 1 {
		t.Fatalf("audit entries %v, %v; want the admin's cancel", es, err)
	}
	digest := tokenDigest(token)
	if es[0].ResourceID != digest {
		t.Errorf("the audit entry's resourceId is %q, want the digest %q", es[0].ResourceID, digest)
	}
	wantNoToken(t, logs.String(), token)
	lines := accessLogLines(logs.String())
	for _, line := range lines {
		if !strings.Contains(fmt.Sprint(line["path"]), digest) {
			t.Errorf("path %v does not carry the token's digest %s", line["path"], digest)
		}
	}
	wantRoutesLogged(t, lines, "GET /api/schedule/bookings/{token}", "POST /api/schedule/bookings/{token}/cancel", "GET /book/manage/{token}")
	// Slugs, ids and content hashes are not tokens.
	for _, p := range []string{"/api/blog/a-rather-long-post-slug-2", "/api/posts/0198a3f2-7c1e-7b3a-9c4d-2f1e0a9b8c7d", "/media/3f9a1c02d4e5b6a7.png"} {
		u, _ := url.Parse(p)
		if got := logPath("", u); got != p {
			t.Errorf("logPath(%q) = %q", p, got)
		}
	}
}
