package httpapi

import (
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking/bookingtest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/ratelimit"
	"github.com/foliohq/folio/internal/sqldb"
)

// Ensure a booking that loses its slot (409) does not use up the visitor's helper budget, while
// bookings that go through still do, on both engines and with the in-memory and Redis limiters.
func TestBookingConflictsDoNotUseTheHelperBudget(t *testing.T) {
	limiters := map[string]func(t *testing.T) folio.Limiter{
		"memory": func(t *testing.T) folio.Limiter { return ratelimit.NewMemory(time.Now) },
	}
	if foliotest.RedisURL() != "" {
		limiters["redis"] = func(t *testing.T) folio.Limiter {
			c, prefix := redisTestClient(t)
			return ratelimit.NewRedis(c, prefix)
		}
	}
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		for name, mk := range limiters {
			t.Run(name, func(t *testing.T) {
				lim := mk(t)
				ts := newTestServer(t, db, func(s *Server) {
					s.Bookings = newBookingService(t, db, &bookingtest.Calendar{})
					s.Now = func() time.Time { return bookingNow }
					s.Limiter = lim
					s.Limits.Helper = 2
				})
				date := "2026-03-0" + map[string]string{"memory": "4", "redis": "5"}[name]
				starts := slotStarts(t, ts.do("GET", "/api/schedule/available?date="+date+"&timezone=Europe/London", "", nil))
				if len(starts) < 3 {
					t.Fatalf("need three slots on %s, got %v", date, starts)
				}
				if res := ts.do("POST", "/api/schedule/book", "", bookBody(starts[0])); res.Status != 200 {
					t.Fatalf("first booking: %d %s", res.Status, res.Body)
				}
				// The same slot again, more often than the budget: every answer is 409, none 429.
				for i := range 4 {
					res := ts.do("POST", "/api/schedule/book", "", bookBody(starts[0]))
					if res.Status != 409 || res.errorCode(t) != folio.ECONFLICT {
						t.Fatalf("conflicting booking %d: %d %s, want 409 (conflicts are free)", i+1, res.Status, res.Body)
					}
					// The headers are written before the answer is known, so they say what would be left
					// if this request counted (one of two used, this one would be the last).
					if got := res.Header.Get("X-RateLimit-Remaining"); got != "0" {
						t.Errorf("conflicting booking %d: X-RateLimit-Remaining %q, want 0", i+1, got)
					}
				}
				if res := ts.do("POST", "/api/schedule/book", "", bookBody(starts[1])); res.Status != 200 {
					t.Fatalf("second booking: %d %s", res.Status, res.Body)
				}
				res := ts.do("POST", "/api/schedule/book", "", bookBody(starts[2]))
				if res.Status != 429 || res.errorCode(t) != folio.ERATELIMIT || res.Header.Get("Retry-After") == "" {
					t.Fatalf("third booking with a budget of two: %d %s (Retry-After %q), want 429", res.Status, res.Body, res.Header.Get("Retry-After"))
				}
				if got := res.Header.Get("X-RateLimit-Remaining"); got != "0" {
					t.Errorf("after the budget is spent: X-RateLimit-Remaining %q, want 0", got)
				}
			})
		}
	})
}
