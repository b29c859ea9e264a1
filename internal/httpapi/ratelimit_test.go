package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"net/netip"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/foliohq/folio/internal/clientip"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/ratelimit"
)

// Ensure each kind of caller draws on its own tier, headers count down, and a spent budget gives
// the 429 of docs/api.md ("Authentication and permissions").
func TestRateLimitTiers(t *testing.T) {
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{}, func(s *Server) {
		s.Limits = Limits{Public: 10, Authenticated: 20, Admin: 30, Helper: 1000}
	})
	for _, tc := range []struct {
		who   string
		limit int
	}{{"", 10}, {"read", 20}, {"write", 20}, {"editor", 20}, {"admin", 30}, {"owner", 30}} {
		res := f.as(tc.who, "GET", "/api/projects", nil)
		if got := res.Header.Get("X-RateLimit-Limit"); got != strconv.Itoa(tc.limit) {
			t.Errorf("%s: X-RateLimit-Limit %q, want %d", callerName(tc.who), got, tc.limit)
		}
		reset, err := strconv.ParseInt(res.Header.Get("X-RateLimit-Reset"), 10, 64)
		if err != nil || reset < time.Now().Unix() || reset > time.Now().Add(time.Hour+time.Minute).Unix() {
			t.Errorf("%s: X-RateLimit-Reset %q is not epoch seconds within the window", callerName(tc.who), res.Header.Get("X-RateLimit-Reset"))
		}
	}
	r1 := f.as("read", "GET", "/api/projects", nil).Header.Get("X-RateLimit-Remaining")
	r2 := f.as("read", "GET", "/api/projects", nil).Header.Get("X-RateLimit-Remaining")
	if a, _ := strconv.Atoi(r1); strconv.Itoa(a-1) != r2 {
		t.Errorf("X-RateLimit-Remaining went %s then %s, want a count down by one", r1, r2)
	}

	// Spend the read key's budget: it gets 429, the write key (another credential) does not.
	var last response
	for i := 0; i < 25; i++ {
		if last = f.as("read", "GET", "/api/projects", nil); last.Status == 429 {
			break
		}
	}
	if last.Status != 429 || last.errorCode(t) != "RATE_LIMIT_EXCEEDED" {
		t.Fatalf("read key after its budget: %d %s", last.Status, last.Body)
	}
	retry, ok := last.json(t)["error"].(map[string]any)["retryAfter"].(float64)
	if !ok || retry < 1 || last.Header.Get("Retry-After") != strconv.Itoa(int(retry)) || last.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("429 envelope: retryAfter %v, Retry-After %q, remaining %q", retry, last.Header.Get("Retry-After"), last.Header.Get("X-RateLimit-Remaining"))
	}
	if res := f.as("write", "GET", "/api/projects", nil); res.Status != 200 {
		t.Errorf("another credential is limited too: %d", res.Status)
	}
	if res := f.as("", "GET", "/api/projects", nil); res.Status != 200 {
		t.Errorf("anonymous callers are limited by a key's budget: %d", res.Status)
	}
}

// Ensure login takes the sign-in failure limit per client and account (an email's letter case
// names the same account; an email without one is limited like one).
func TestLoginHelperLimit(t *testing.T) {
	f := newIdentityFixture(t, foliotest.MustOpenSQLite(t), IdentityConfig{}, func(s *Server) {
		s.Limits = Limits{Public: 1000, Authenticated: 1000, Admin: 1000, Helper: 3}
	})
	try := func(email string) response {
		return f.do("POST", "/api/auth/login", "", map[string]string{"email": email, "password": "wrong password!"})
	}
	for i := 0; i < 3; i++ {
		if res := try("victim@example.com"); res.Status != 401 {
			t.Fatalf("attempt %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	res := try("Victim@Example.com") // the same account in another case is the same identifier
	if res.Status != 429 || res.Header.Get("X-RateLimit-Limit") != "3" || res.Header.Get("Retry-After") == "" {
		t.Errorf("fourth attempt: %d %v", res.Status, res.Header)
	}
	if res := try("other@example.com"); res.Status != 401 {
		t.Errorf("another email from the same IP: %d, want 401 (its own budget)", res.Status)
	}
	if res := f.do("POST", "/api/auth/login", "", map[string]string{"email": "owner@example.com", "password": testPassword}); res.Status != 200 {
		t.Errorf("another account from the same IP: %d %s", res.Status, res.Body)
	}
}

// Ensure X-Forwarded-For counts only when the socket peer is a trusted proxy.
func TestForwardedForFromUntrustedPeerChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		// want429 says whether three requests with three different forwarded addresses share one
		// budget of two.
		want429 bool
	}{
		{"no trusted proxies", nil, true},
		{"another network trusted", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, true},
		{"loopback trusted", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, foliotest.MustOpenSQLite(t), func(s *Server) {
				s.ClientIP = clientip.New(tc.trusted)
				s.Limits.Public = 2
			})
			var statuses []int
			for _, xff := range []string{"203.0.113.1", "203.0.113.2", "198.51.100.7, 203.0.113.3"} {
				statuses = append(statuses, ts.do("GET", "/api/projects", "", nil, "X-Forwarded-For", xff).Status)
			}
			if got := statuses[2] == 429; got != tc.want429 {
				t.Errorf("statuses %v: third request limited = %v, want %v", statuses, got, tc.want429)
			}
		})
	}
}

func redisTestClient(t *testing.T) (*redis.Pool, string) {
	t.Helper()
	c := foliotest.RedisPool(t)
	var b [6]byte
	rand.Read(b[:])
	prefix := "folio-test:httpapi:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() { foliotest.RedisDeletePrefix(t, c, prefix) })
	return c, prefix
}

// Ensure two folio servers on one Redis share one budget per identifier.
func TestRateLimitSharedThroughRedis(t *testing.T) {
	c, prefix := redisTestClient(t)
	mk := func() *testServer {
		return newTestServer(t, foliotest.MustOpenSQLite(t), func(s *Server) {
			s.Limiter = ratelimit.NewRedis(c, prefix)
			s.Limits.Public = 3
		})
	}
	a, b := mk(), mk()
	var got []string
	for i, ts := range []*testServer{a, b, a, b, a} {
		res := ts.do("GET", "/api/projects", "", nil)
		got = append(got, strconv.Itoa(res.Status)+"/"+res.Header.Get("X-RateLimit-Remaining"))
		if i >= 3 && (res.Status != 429 || res.errorCode(t) != "RATE_LIMIT_EXCEEDED") {
			t.Errorf("request %d: %d, want 429 (the budget is global)", i+1, res.Status)
		}
	}
	if want := []string{"200/2", "200/1", "200/0", "429/0", "429/0"}; !equalStrings(got, want) {
		t.Errorf("status/remaining across two instances = %v, want %v", got, want)
	}
}

// Ensure an unreachable Redis leaves the site up, and the failure is counted in /metrics.
func TestRateLimiterDownFailsOpen(t *testing.T) {
	// Port 1 on loopback refuses connections: one dial per request, as serve configures.
	c := foliotest.UnreachableRedis(t)
	ts := newTestServer(t, foliotest.MustOpenSQLite(t), func(s *Server) { s.Limiter = ratelimit.NewRedis(c, "folio-test:") })
	counter := regexp.MustCompile(`(?m)^folio_ratelimit_errors_total (\d+)`)
	count := func() int {
		m := counter.FindStringSubmatch(string(ts.do("GET", "/metrics", "admin", nil).Body))
		if m == nil {
			t.Fatal("folio_ratelimit_errors_total missing from /metrics")
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	before := count()
	for i := 0; i < 3; i++ {
		if res := ts.do("GET", "/api/projects", "", nil); res.Status != 200 {
			t.Fatalf("with Redis down: %d %s", res.Status, res.Body)
		}
	}
	if res := ts.do("POST", "/api/projects", "write", map[string]any{"title": "t", "description": "d"}); res.Status != 201 {
		t.Errorf("write with Redis down: %d", res.Status)
	}
	if after := count(); after < before+4 {
		t.Errorf("fail-open counter went %d → %d, want +4", before, after)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
