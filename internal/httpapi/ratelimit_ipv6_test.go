package httpapi

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking/bookingtest"
	"github.com/foliohq/folio/internal/clientip"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/ratelimit"
)

// Ensure an IPv6 client rotating addresses inside its /64 draws on one public budget, whether
// the address is the socket peer or comes from a trusted proxy's X-Forwarded-For, in memory and
// through Redis (two servers sharing it); IPv4 clients stay per address; the headers count down
// and stay within the documented bounds.
func TestRateLimitIPv6PrefixSharesBudget(t *testing.T) {
	limiters := map[string]func(t *testing.T) (folio.Limiter, folio.Limiter){
		"memory": func(t *testing.T) (folio.Limiter, folio.Limiter) {
			m := ratelimit.NewMemory(time.Now)
			return m, m
		},
		"redis": func(t *testing.T) (folio.Limiter, folio.Limiter) {
			c, prefix := redisTestClient(t)
			return ratelimit.NewRedis(c, prefix), ratelimit.NewRedis(c, prefix)
		},
	}
	for name, mk := range limiters {
		for _, via := range []string{"socket peer", "trusted X-Forwarded-For"} {
			t.Run(name+"/"+via, func(t *testing.T) {
				la, lb := mk(t)
				db := foliotest.MustOpenSQLite(t)
				handler := func(l folio.Limiter) http.Handler {
					s := &Server{Auth: testActors, Limiter: l, ClientIP: clientip.New([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}),
						Limits: Limits{Public: 3, Authenticated: 1000, Admin: 5000, Helper: 5, Window: time.Hour}}
					withStores(t, s, db)
					return s.Handler()
				}
				a, b := handler(la), handler(lb)
				get := func(h http.Handler, client string) *httptest.ResponseRecorder {
					r := httptest.NewRequest("GET", "/api/projects", nil)
					if via == "socket peer" {
						r.RemoteAddr = netip.AddrPortFrom(netip.MustParseAddr(client), 40000).String()
					} else {
						r.RemoteAddr = "10.1.2.3:40000"
						r.Header.Set("X-Forwarded-For", "192.0.2.200, "+client)
					}
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					return w
				}
				var got []string
				for i, client := range []string{"2001:db8:1:2::1", "2001:db8:1:2:aaaa::7", "2001:db8:1:2:ffff:ffff:ffff:fffe", "2001:db8:1:2::9"} {
					h := []http.Handler{a, b}[i%2]
					w := get(h, client)
					got = append(got, strconv.Itoa(w.Code)+"/"+w.Header().Get("X-RateLimit-Remaining"))
					reset, err := strconv.ParseInt(w.Header().Get("X-RateLimit-Reset"), 10, 64)
					now := time.Now()
					if err != nil || reset < now.Unix() || reset > now.Add(time.Hour+time.Hour/ratelimit.Buckets+2*time.Second).Unix() {
						t.Errorf("request %d: X-RateLimit-Reset %q not within (now, now+window+window/%d]", i+1, w.Header().Get("X-RateLimit-Reset"), ratelimit.Buckets)
					}
					if w.Code == 429 {
						if ra, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || ra < 1 || ra > 3600+3600/ratelimit.Buckets+2 {
							t.Errorf("429 Retry-After %q", w.Header().Get("Retry-After"))
						}
					}
				}
				if want := []string{"200/2", "200/1", "200/0", "429/0"}; !equalStrings(got, want) {
					t.Errorf("four addresses of one /64: status/remaining %v, want %v", got, want)
				}
				if w := get(b, "2001:db8:1:3::1"); w.Code != 200 || w.Header().Get("X-RateLimit-Remaining") != "2" {
					t.Errorf("the next /64: %d remaining %q, want 200 with its own budget", w.Code, w.Header().Get("X-RateLimit-Remaining"))
				}
				for _, v4 := range []string{"192.0.2.1", "192.0.2.2"} {
					if w := get(a, v4); w.Code != 200 || w.Header().Get("X-RateLimit-Remaining") != "2" {
						t.Errorf("IPv4 %s: %d remaining %q, want 200 with a budget of its own", v4, w.Code, w.Header().Get("X-RateLimit-Remaining"))
					}
				}
				// An IPv4-mapped IPv6 peer is the IPv4 client, not a /64.
				if w := get(a, "::ffff:192.0.2.1"); w.Code != 200 || w.Header().Get("X-RateLimit-Remaining") != "1" {
					t.Errorf("::ffff:192.0.2.1: %d remaining %q, want the budget of 192.0.2.1", w.Code, w.Header().Get("X-RateLimit-Remaining"))
				}
			})
		}
	}
}

// Ensure RATE_LIMIT_IPV6_PREFIX widens the group, and the helper limit (contact form) groups by
// it too.
func TestRateLimitIPv6PrefixConfigurable(t *testing.T) {
	ts := newTestServer(t, foliotest.MustOpenSQLite(t), func(s *Server) {
		s.Limits.IPv6Prefix = 48
		s.Limits.Public = 2
		s.ClientIP = clientip.New([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
	})
	var statuses []int
	for _, xff := range []string{"2001:db8:1:1::1", "2001:db8:1:2::1", "2001:db8:1:ffff::1"} {
		statuses = append(statuses, ts.do("GET", "/api/projects", "", nil, "X-Forwarded-For", xff).Status)
	}
	if want := []int{200, 200, 429}; statuses[0] != want[0] || statuses[1] != want[1] || statuses[2] != want[2] {
		t.Errorf("three /64s of one /48 with RATE_LIMIT_IPV6_PREFIX=48: %v, want %v", statuses, want)
	}
	if res := ts.do("GET", "/api/projects", "", nil, "X-Forwarded-For", "2001:db8:2::1"); res.Status != 200 {
		t.Errorf("another /48: %d, want 200", res.Status)
	}
}

func TestLimitID(t *testing.T) {
	for _, tc := range []struct {
		addr string
		bits int
		want string
	}{
		{"203.0.113.9", 64, "203.0.113.9"},
		{"::ffff:203.0.113.9", 64, "203.0.113.9"},
		{"2001:db8:1:2:3:4:5:6", 64, "2001:db8:1:2::/64"},
		{"2001:db8:1:2:3:4:5:6", 56, "2001:db8:1::/56"},
		{"2001:db8:1:2:3:4:5:6", 128, "2001:db8:1:2:3:4:5:6/128"},
		{"2001:db8:1:2:3:4:5:6", 0, "2001:db8:1:2:3:4:5:6/128"},
		{"fe80::1%eth0", 64, "fe80::/64"},
	} {
		if got := clientip.LimitID(netip.MustParseAddr(tc.addr), tc.bits); got != tc.want {
			t.Errorf("LimitID(%s, %d) = %q, want %q", tc.addr, tc.bits, got, tc.want)
		}
	}
	if got := clientip.LimitID(netip.Addr{}, 64); got != "" {
		t.Errorf("LimitID(zero) = %q, want empty", got)
	}
}

// Ensure a booking that loses to a taken slot gives its helper-limit count back for IPv6 clients
// as for IPv4 ones: the refund names the client as the limit counts it (the /64), so seven tries
// at a taken time are seven 409s, in memory and through Redis.
func TestConflictRefundCountsTheClientAsTheLimitDoes(t *testing.T) {
	limiters := map[string]func(t *testing.T) folio.Limiter{
		"memory": func(t *testing.T) folio.Limiter { return ratelimit.NewMemory(time.Now) },
		"redis": func(t *testing.T) folio.Limiter {
			c, prefix := redisTestClient(t)
			return ratelimit.NewRedis(c, prefix)
		},
	}
	for name, mk := range limiters {
		t.Run(name, func(t *testing.T) {
			db := foliotest.MustOpenSQLite(t)
			ts := newTestServer(t, db, func(s *Server) {
				s.Bookings = newBookingService(t, db, &bookingtest.Calendar{})
				s.Now = func() time.Time { return bookingNow }
				s.Limiter = mk(t)
				s.ClientIP = clientip.New([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
			})
			start := "2026-03-04T15:00:00Z"
			if res := ts.do("POST", "/api/schedule/book", "", bookBody(start), "X-Forwarded-For", "198.51.100.1"); res.Status != 200 {
				t.Fatalf("first booking: %d %s", res.Status, res.Body)
			}
			for _, client := range []string{"203.0.113.9", "2001:db8:5:6::1"} {
				var got []int
				for range 7 {
					got = append(got, ts.do("POST", "/api/schedule/book", "", bookBody(start), "X-Forwarded-For", client).Status)
				}
				for i, st := range got {
					if st != 409 {
						t.Errorf("%s: statuses %v, want seven 409s (try %d is %d)", client, got, i+1, st)
						break
					}
				}
			}
		})
	}
}
