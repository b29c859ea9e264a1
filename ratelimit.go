package folio

import (
	"context"
	"time"
)

// RateLimit is one rate-limit rule: at most Limit requests per identifier in any span of Window
// (docs/api.md, "Rate limits": the tiers are Limit per hour, the helper limit is 5 per 3600 s).
type RateLimit struct {
	Limit  int
	Window time.Duration
}

// RateDecision is the outcome of one Limiter.Allow call, carrying everything the X-RateLimit-*
// and Retry-After headers need.
type RateDecision struct {
	// Allowed reports whether the request may proceed. A denied request is not counted.
	Allowed bool
	// Limit is the rule's Limit, for X-RateLimit-Limit.
	Limit int
	// Remaining is how many more requests the identifier may make right now, after this one;
	// for X-RateLimit-Remaining. It is 0 on a denial.
	Remaining int
	// Reset is the moment the limiter next frees a request (internal/ratelimit: at most Window
	// plus Window/8 ahead); X-RateLimit-Reset is Reset as Unix epoch seconds, rounded up.
	Reset time.Time
	// RetryAfter is zero when Allowed; otherwise how long until a request would be allowed
	// (> 0), for Retry-After and the 429 envelope's retryAfter, rounded up to whole seconds.
	RetryAfter time.Duration
}

// Limiter counts requests per identifier. Implementations: internal/ratelimit.Memory (one
// instance) and internal/ratelimit.Redis (shared by every instance on one Redis).
type Limiter interface {
	// Allow counts one request for key under rl and says whether it may proceed. key names the
	// tier and the identifier (for example "public:203.0.113.7"); the same key must always be
	// used with the same rl. An error means the limiter could not decide (for example Redis is
	// unreachable); callers fail open. A non-positive Limit or Window is a configuration bug and
	// also gives an error.
	Allow(ctx context.Context, key string, rl RateLimit) (RateDecision, error)
	// Peek says whether a request for key under rl would be allowed now, without counting it.
	// With Allow it makes a limit that counts only some outcomes: the sign-in limit peeks before
	// checking a password and counts only a failed attempt (docs/api.md, "Rate limits"), so a correct password
	// never locks its owner out. Remaining is what Allow would leave after counting one more.
	Peek(ctx context.Context, key string, rl RateLimit) (RateDecision, error)
}
