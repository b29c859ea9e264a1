package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/foliohq/folio"
)

// Limits are the per-hour request budgets (docs/api.md, Authentication and permissions).
type Limits struct {
	Public, Authenticated, Admin, Helper int
	Window                               time.Duration
	// IPv6Prefix is the prefix length an IPv6 client is counted by in per-IP limits
	// (RATE_LIMIT_IPV6_PREFIX); 0 means 64.
	IPv6Prefix int
}

// limitClass says which rate limits a route takes beyond the caller's tier.
type limitClass int

const (
	limitTier      limitClass = iota // the caller's tier only
	limitHelperIP                    // tier, plus the helper limit per client IP
	limitHelperKey                   // tier, plus the helper limit per credential
	limitExempt                      // no limit (signed webhooks)
	limitSignIn                      // tier, plus the failure limit of sign-in per account and client (signinlimit.go), applied by the step that checks a password or code
)

// rateLimit counts the request against the caller's tier (and the helper limit where the route
// takes it), sets the X-RateLimit-* headers and answers 429 when a budget is spent. When the
// limiter cannot decide (Redis down), the request is served: a limiter outage must not take the
// site down. It is logged and counted.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, actor folio.Actor, class limitClass) error {
	if s.Limiter == nil {
		return nil
	}
	tierKey, tierLimit := "public:"+s.limitIP(r), s.Limits.Public
	switch {
	case actor.AtLeast(folio.LevelAdmin):
		tierKey, tierLimit = "admin:"+credentialID(actor), s.Limits.Admin
	case actor.Authenticated():
		tierKey, tierLimit = "auth:"+credentialID(actor), s.Limits.Authenticated
	}
	type check struct {
		key   string
		limit int
	}
	var room [2]check // on the stack: at most two checks apply
	checks := append(room[:0], check{tierKey, tierLimit})
	switch class {
	case limitHelperIP:
		checks = append(checks, check{s.helperIPKey(r), s.Limits.Helper})
	case limitHelperKey:
		checks = append(checks, check{"helper:" + r.Pattern + ":" + credentialID(actor), s.Limits.Helper})
	}
	var shown folio.RateDecision
	counted := false
	for _, c := range checks {
		if c.limit <= 0 {
			continue
		}
		d, err := s.Limiter.Allow(r.Context(), c.key, folio.RateLimit{Limit: c.limit, Window: s.Limits.Window})
		if err != nil {
			s.metrics.limiterErrors.Inc()
			s.log(r).Warn("rate limiter unavailable; request allowed", "error", err.Error())
			return nil
		}
		// The headers describe the tightest budget that applies.
		if !counted || !d.Allowed || d.Remaining < shown.Remaining {
			shown, counted = d, true
		}
		if !d.Allowed {
			break
		}
	}
	if !counted {
		return nil
	}
	setRateHeaders(w.Header(), shown)
	if !shown.Allowed {
		secs := int((shown.RetryAfter + time.Second - 1) / time.Second)
		return &folio.Error{Code: folio.ERATELIMIT, Message: "Too many requests; try again later.", RetryAfter: max(secs, 1)}
	}
	return nil
}

// exemptRateHeaders gives a route exempt from the limits (the signed webhook) the X-RateLimit-*
// headers every /api response carries (docs/api.md): the caller's public-tier budget, read
// with Peek so that deliveries never spend it.
func (s *Server) exemptRateHeaders(w http.ResponseWriter, r *http.Request) {
	if s.Limiter == nil || s.Limits.Public <= 0 {
		return
	}
	d, err := s.Limiter.Peek(r.Context(), "public:"+s.limitIP(r), folio.RateLimit{Limit: s.Limits.Public, Window: s.Limits.Window})
	if err != nil {
		return
	}
	setRateHeaders(w.Header(), d)
}

func setRateHeaders(h http.Header, d folio.RateDecision) {
	reset := d.Reset.Unix()
	if d.Reset.Nanosecond() > 0 {
		reset++
	}
	// The three values are cut from one string and share one backing array (two allocations,
	// not six), under canonical keys set directly: Set would canonicalize them on every request.
	var buf [64]byte
	b := strconv.AppendInt(buf[:0], int64(d.Limit), 10)
	n1 := len(b)
	b = strconv.AppendInt(b, int64(d.Remaining), 10)
	n2 := len(b)
	b = strconv.AppendInt(b, reset, 10)
	text := string(b)
	vals := []string{text[:n1], text[n1:n2], text[n2:]}
	h["X-Ratelimit-Limit"] = vals[0:1:1]
	h["X-Ratelimit-Remaining"] = vals[1:2:2]
	h["X-Ratelimit-Reset"] = vals[2:3:3]
}

// credentialID names the credential a tier budget belongs to: the key, else the user.
func credentialID(a folio.Actor) string {
	if a.KeyID != "" {
		return "key:" + a.KeyID
	}
	return "user:" + a.UserID
}
