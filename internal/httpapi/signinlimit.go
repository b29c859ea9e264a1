package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/foliohq/folio"
)

// signInAttempts is the failure limit of sign-in for one request (identity.Attempts; docs/api.md,
// "Rate limits"). Every step that checks a password or code — login, login/totp, totp/disable,
// password — asks it about the account it is about to check, and it counts per account and client:
// never per a field the caller chooses, so no made-up value in a body buys more guesses. The budget
// (RATE_LIMIT_HELPER_PER_HOUR) is peeked before the check and spent only when the check fails.
type signInAttempts struct {
	s   *Server
	w   http.ResponseWriter
	r   *http.Request
	key string // the account and client checked last
}

func (s *Server) signInAttempts(w http.ResponseWriter, r *http.Request) *signInAttempts {
	return &signInAttempts{s: s, w: w, r: r}
}

// Check refuses the attempt (429, saying when to retry) when the client has used up its failed
// attempts on the account. It counts nothing.
func (a *signInAttempts) Check(account string) error {
	a.key = "signin:" + account + "|" + a.s.limitIP(a.r)
	return a.s.peekSignIn(a.w, a.r, a.key)
}

// Failed spends one of the client's attempts on the account checked last.
func (a *signInAttempts) Failed() {
	s, r := a.s, a.r
	if s.Limiter == nil || s.Limits.Helper <= 0 || a.key == "" {
		return
	}
	if _, err := s.Limiter.Allow(context.WithoutCancel(r.Context()), a.key,
		folio.RateLimit{Limit: s.Limits.Helper, Window: s.Limits.Window}); err != nil {
		s.log(r).Warn("rate limiter unavailable; failed sign-in not counted", "error", err.Error())
	}
}

// peekSignIn refuses a sign-in attempt when the client has used up its failed attempts, saying
// when to retry. It counts nothing.
func (s *Server) peekSignIn(w http.ResponseWriter, r *http.Request, key string) error {
	if s.Limiter == nil || s.Limits.Helper <= 0 {
		return nil
	}
	d, err := s.Limiter.Peek(r.Context(), key, folio.RateLimit{Limit: s.Limits.Helper, Window: s.Limits.Window})
	if err != nil {
		s.metrics.limiterErrors.Inc()
		s.log(r).Warn("rate limiter unavailable; sign-in allowed", "error", err.Error())
		return nil
	}
	if d.Allowed {
		return nil
	}
	secs := max(int((d.RetryAfter+time.Second-1)/time.Second), 1)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Duration(secs)*time.Second).Unix(), 10))
	// The way back in before then is the operator's (docs/operations.md, "Locked out"): the
	// message names it, so an owner who locked themselves out is not left to wait.
	return &folio.Error{Code: folio.ERATELIMIT, RetryAfter: secs,
		Message: fmt.Sprintf("Too many failed sign-in attempts. Try again in %s, or have the site's operator run "+
			"`folio user unlock --email <your email>` on the server.", humanDuration(secs))}
}

// humanDuration says a wait in words: "45 seconds", "12 minutes", "1 hour".
func humanDuration(secs int) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return strconv.Itoa(n) + " " + unit + "s"
	}
	switch {
	case secs < 60:
		return plural(secs, "second")
	case secs < 3600:
		return plural((secs+59)/60, "minute")
	default:
		return plural((secs+3599)/3600, "hour")
	}
}
