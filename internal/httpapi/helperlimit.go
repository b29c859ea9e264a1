package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/foliohq/folio"
)

// A helper limit that counts only some answers. The route's row lists the statuses that are free
// (route.HelperFree): the budget is peeked before the handler runs (a spent budget is still 429),
// and the request is counted once the answer is known, unless its status is free. Booking uses it
// so that losing a race for a slot (409) does not cost the visitor one of their few attempts.
// Concurrent requests can all pass the peek before any is counted; the overshoot is bounded by
// the concurrency of one client, which is what a limit meant to stop repeated abuse can accept.

type deferredHelperKey struct{}

// deferredHelper carries the helper key from rateLimit (which peeks) to countHelperAfter (which
// counts).
type deferredHelper struct{ key string }

func deferredHelperOf(r *http.Request) *deferredHelper {
	d, _ := r.Context().Value(deferredHelperKey{}).(*deferredHelper)
	return d
}

// countHelperAfter wraps the adapted handler of a route with HelperFree statuses: rateLimit only
// peeks at the helper budget, and the request is counted here once its status is known.
func (s *Server) countHelperAfter(rt route, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := &deferredHelper{}
		r = r.WithContext(context.WithValue(r.Context(), deferredHelperKey{}, d))
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		if d.key == "" || s.Limiter == nil || slices.Contains(rt.HelperFree, status) || status == http.StatusTooManyRequests {
			return
		}
		// The answer is sent; counting it must not depend on the client still being there.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 5*time.Second)
		defer cancel()
		if _, err := s.Limiter.Allow(ctx, d.key, folio.RateLimit{Limit: s.Limits.Helper, Window: s.Limits.Window}); err != nil {
			s.metrics.limiterErrors.Inc()
			s.log(r).Warn("rate limiter unavailable; request not counted", "error", err.Error())
		}
	})
}

// peekHelper answers 429 when the helper budget of key is spent, without counting the request,
// and otherwise lowers the X-RateLimit-* headers to the helper budget when it is the tighter one.
func (s *Server) peekHelper(w http.ResponseWriter, r *http.Request, key string) error {
	if s.Limits.Helper <= 0 {
		return nil
	}
	d, err := s.Limiter.Peek(r.Context(), key, folio.RateLimit{Limit: s.Limits.Helper, Window: s.Limits.Window})
	if err != nil {
		s.metrics.limiterErrors.Inc()
		s.log(r).Warn("rate limiter unavailable; request allowed", "error", err.Error())
		return nil
	}
	h := w.Header()
	if cur, err := strconv.Atoi(h.Get("X-RateLimit-Remaining")); err != nil || d.Remaining < cur || !d.Allowed {
		h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(max(d.Remaining, 0)))
		reset := d.Reset.Unix()
		if d.Reset.Nanosecond() > 0 {
			reset++
		}
		h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
	}
	if !d.Allowed {
		secs := int((d.RetryAfter + time.Second - 1) / time.Second)
		return &folio.Error{Code: folio.ERATELIMIT, Message: "Too many requests; try again later.", RetryAfter: max(secs, 1)}
	}
	return nil
}
