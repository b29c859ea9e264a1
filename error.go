package folio

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes of the API (docs/api.md, Conventions). httpapi maps each to its HTTP status (one, but for
// VALIDATION_ERROR: see Error.RuleBroken).
const (
	EINVALID      = "VALIDATION_ERROR"        // 400 unparseable/missing, 422 rule broken (see Error.RuleBroken)
	EUNAUTHORIZED = "AUTHENTICATION_REQUIRED" // 401
	EFORBIDDEN    = "PERMISSION_DENIED"       // 403
	ENOTFOUND     = "RESOURCE_NOT_FOUND"      // 404
	ECONFLICT     = "CONFLICT"                // 409
	ETOOLARGE     = "PAYLOAD_TOO_LARGE"       // 413
	EUNSUPPORTED  = "UNSUPPORTED_MEDIA_TYPE"  // 415
	ERATELIMIT    = "RATE_LIMIT_EXCEEDED"     // 429
	EINTERNAL     = "SERVER_ERROR"            // 500
	EUPSTREAM     = "UPSTREAM_ERROR"          // 502
	EUNAVAILABLE  = "SERVICE_UNAVAILABLE"     // 503
	EMETHOD       = "METHOD_NOT_ALLOWED"      // 405
	EPRECONDITION = "PRECONDITION_FAILED"     // 412
)

// FieldError names one offending input field. ID and Title are set when the detail is about
// another resource: the posts and projects that still use a media object (409 of
// DELETE /api/media/{key}).
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	ID      string `json:"id,omitempty"`
	Title   string `json:"title,omitempty"`
}

// Error is the one application error type. Anything else that reaches the HTTP layer is an
// internal error and is never shown to the caller.
type Error struct {
	Code    string
	Message string
	Details []FieldError
	// RuleBroken marks a VALIDATION_ERROR whose input was read but breaks a rule (HTTP 422);
	// without it the input could not be parsed or a required field is missing (HTTP 400).
	RuleBroken bool
	// RetryAfter is set on RATE_LIMIT_EXCEEDED, in seconds.
	RetryAfter int
}

func (e *Error) Error() string {
	if len(e.Details) > 0 {
		return fmt.Sprintf("folio: %s: %s (%s: %s)", e.Code, e.Message, e.Details[0].Field, e.Details[0].Message)
	}
	return fmt.Sprintf("folio: %s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of an *Error in err's chain, or EINTERNAL.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// IsNotFound reports whether err carries ENOTFOUND.
func IsNotFound(err error) bool { return ErrorCode(err) == ENOTFOUND }

// MaxErrorDetails is the most field errors one error lists. A body of a thousand bad array items
// would otherwise answer with a thousand details — a response many times larger than the
// request, for anyone to ask for. The message says how many more there were.
const MaxErrorDetails = 20

// Validation collects field errors. Missing marks a missing required field (400); Invalid marks a
// present field that breaks a rule (422). Err returns nil when nothing was recorded. It keeps the
// first MaxErrorDetails details and counts the rest.
type Validation struct {
	missing bool
	details []FieldError
	dropped int
}

func (v *Validation) add(field, message string) {
	if len(v.details) >= MaxErrorDetails {
		v.dropped++
		return
	}
	v.details = append(v.details, FieldError{Field: field, Message: message})
}

// Missing records a required field that is absent or empty.
func (v *Validation) Missing(field string) {
	v.missing = true
	v.add(field, "is required")
}

// Invalid records a field that is present but breaks a rule.
func (v *Validation) Invalid(field, format string, args ...any) {
	if len(v.details) >= MaxErrorDetails {
		v.dropped++ // not even formatted
		return
	}
	v.add(field, fmt.Sprintf(format, args...))
}

// Err returns the collected errors as one *Error, or nil.
func (v *Validation) Err() error {
	if len(v.details) == 0 {
		return nil
	}
	msg := "Validation failed."
	if v.missing {
		msg = "Required fields are missing."
	}
	return (&Error{Code: EINVALID, Message: msg, Details: v.details, RuleBroken: !v.missing}).capDetails(v.dropped)
}

// CapDetails keeps at most MaxErrorDetails details, saying in the message how many were left
// out. The HTTP layer applies it to every error it renders; Validation applies it as it goes.
func (e *Error) CapDetails() *Error {
	if len(e.Details) <= MaxErrorDetails {
		return e
	}
	c := *e
	c.Details = e.Details[:MaxErrorDetails:MaxErrorDetails]
	return c.capDetails(len(e.Details) - MaxErrorDetails)
}

func (e *Error) capDetails(dropped int) *Error {
	if dropped > 0 {
		e.Message = fmt.Sprintf("%s; %d more problems are not listed (at most %d are).", strings.TrimSuffix(e.Message, "."), dropped, MaxErrorDetails)
	}
	return e
}

// BadRequest returns a 400 VALIDATION_ERROR naming one field (empty field: the whole input).
func BadRequest(field, format string, args ...any) *Error {
	e := &Error{Code: EINVALID, Message: fmt.Sprintf(format, args...)}
	if field != "" {
		e.Details = []FieldError{{Field: field, Message: e.Message}}
	}
	return e
}
