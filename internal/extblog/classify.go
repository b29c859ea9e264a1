package extblog

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

type gqlError struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}

type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
}

// Error extension codes the platform (an Apollo server) and GraphQL servers in general use,
// grouped by what they mean to us.
var (
	rateLimitCodes  = []string{"TOO_MANY_REQUESTS", "RATE_LIMITED", "RATE_LIMIT_EXCEEDED", "THROTTLED"}
	authCodes       = []string{"UNAUTHENTICATED", "UNAUTHORIZED", "FORBIDDEN"}
	notFoundCodes   = []string{"NOT_FOUND"}
	conflictCodes   = []string{"CONFLICT", "ALREADY_EXISTS"}
	validationCodes = []string{"BAD_USER_INPUT", "GRAPHQL_VALIDATION_FAILED", "GRAPHQL_PARSE_FAILED",
		"BAD_REQUEST", "VALIDATION_ERROR", "OPERATION_RESOLUTION_FAILURE"}
)

func hasCode(codes []string, c string) bool {
	for _, x := range codes {
		if x == c {
			return true
		}
	}
	return false
}

// classify turns one HTTP reply into nil (data decoded into out) or an error of one of
// folio.ExtBlogError's kinds: 429 or a rate-limit code is RATE_LIMIT; 401/403 or an
// authentication code is AUTH_ERROR; 400 or an input/validation code is VALIDATION_ERROR
// (NOT_FOUND and CONFLICT codes too, with their flags); 5xx and unreadable 2xx bodies are
// NETWORK_ERROR; anything else is UNKNOWN_ERROR.
func classify(op string, status int, h http.Header, raw []byte, out any, now time.Time) *folio.ExtBlogError {
	e := &folio.ExtBlogError{Op: op, Status: status, RetryAfter: parseRetryAfter(h.Get("Retry-After"), now)}
	var r gqlResponse
	jsonErr := json.Unmarshal(raw, &r)
	if jsonErr == nil && len(r.Errors) > 0 {
		e.Message, e.Code = truncate(r.Errors[0].Message), errCode(r.Errors[0])
	}
	switch {
	case status == http.StatusTooManyRequests:
		e.Kind = folio.ExtBlogRateLimit
		return withDefaultMessage(e, "rate limited by the platform")
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = folio.ExtBlogAuth
		return withDefaultMessage(e, "the platform refused the API token")
	case status >= 500:
		e.Kind = folio.ExtBlogNetwork
		return withDefaultMessage(e, "platform server error")
	}
	if jsonErr != nil {
		switch {
		case status == http.StatusBadRequest:
			e.Kind = folio.ExtBlogValidation
			return withDefaultMessage(e, "the platform rejected the request")
		case status >= 200 && status < 300:
			e.Kind = folio.ExtBlogNetwork
			e.Message = "malformed reply"
			return e
		}
		e.Kind = folio.ExtBlogUnknown
		e.Message = "unexpected HTTP status " + strconv.Itoa(status)
		return e
	}
	if len(r.Errors) > 0 {
		classifyErrors(e, r.Errors)
		return e
	}
	if status == http.StatusBadRequest {
		e.Kind = folio.ExtBlogValidation
		return withDefaultMessage(e, "the platform rejected the request")
	}
	if status < 200 || status >= 300 {
		e.Kind = folio.ExtBlogUnknown
		e.Message = "unexpected HTTP status " + strconv.Itoa(status)
		return e
	}
	if len(r.Data) == 0 || string(r.Data) == "null" {
		e.Kind = folio.ExtBlogUnknown
		e.Message = "reply carries no data"
		return e
	}
	if err := json.Unmarshal(r.Data, out); err != nil {
		e.Kind = folio.ExtBlogUnknown
		e.Message = "reply does not match the expected shape"
		return e
	}
	return nil
}

// classifyErrors picks the most telling of the GraphQL errors: a rate limit beats an
// authentication failure, which beats not-found, conflict and plain validation.
func classifyErrors(e *folio.ExtBlogError, errs []gqlError) {
	rank := func(code string) int {
		switch {
		case hasCode(rateLimitCodes, code):
			return 5
		case hasCode(authCodes, code):
			return 4
		case hasCode(notFoundCodes, code):
			return 3
		case hasCode(conflictCodes, code):
			return 2
		case hasCode(validationCodes, code):
			return 1
		}
		return 0
	}
	best, bestRank := errs[0], -1
	for _, ge := range errs {
		if r := rank(errCode(ge)); r > bestRank {
			best, bestRank = ge, r
		}
	}
	e.Code = errCode(best)
	e.Message = truncate(best.Message)
	switch bestRank {
	case 5:
		e.Kind = folio.ExtBlogRateLimit
		if e.RetryAfter == 0 {
			e.RetryAfter = extRetryAfter(best)
		}
	case 4:
		e.Kind = folio.ExtBlogAuth
	case 3:
		e.Kind, e.NotFound = folio.ExtBlogValidation, true
	case 2:
		e.Kind, e.Conflict = folio.ExtBlogValidation, true
	case 1:
		e.Kind = folio.ExtBlogValidation
	default:
		e.Kind = folio.ExtBlogUnknown
	}
}

func errCode(ge gqlError) string {
	c, _ := ge.Extensions["code"].(string)
	return strings.ToUpper(truncate(c))
}

// extRetryAfter reads a retryAfter (seconds) extension, which some rate limiters add.
func extRetryAfter(ge gqlError) time.Duration {
	if f, ok := ge.Extensions["retryAfter"].(float64); ok && f > 0 && f < 86400 {
		return time.Duration(f * float64(time.Second))
	}
	return 0
}

func withDefaultMessage(e *folio.ExtBlogError, msg string) *folio.ExtBlogError {
	if e.Message == "" {
		e.Message = msg
	}
	return e
}

func truncate(s string) string {
	const max = 300
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP-date. Unparseable,
// negative or past values give 0; values are capped at one day.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > 86400 {
			secs = 86400
		}
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	if d <= 0 {
		return 0
	}
	return min(d, 24*time.Hour)
}
