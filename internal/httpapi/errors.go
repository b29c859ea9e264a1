package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/foliohq/folio"
)

// statusOf maps every error code to its HTTP status (docs/api.md, Conventions); a VALIDATION_ERROR that
// breaks a rule is 422 (httpStatus).
var statusOf = map[string]int{
	folio.EINVALID:      http.StatusBadRequest,
	folio.EUNAUTHORIZED: http.StatusUnauthorized,
	folio.EFORBIDDEN:    http.StatusForbidden,
	folio.ENOTFOUND:     http.StatusNotFound,
	folio.EMETHOD:       http.StatusMethodNotAllowed,
	folio.ECONFLICT:     http.StatusConflict,
	folio.EPRECONDITION: http.StatusPreconditionFailed,
	folio.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	folio.EUNSUPPORTED:  http.StatusUnsupportedMediaType,
	folio.ERATELIMIT:    http.StatusTooManyRequests,
	folio.EINTERNAL:     http.StatusInternalServerError,
	folio.EUPSTREAM:     http.StatusBadGateway,
	folio.EUNAVAILABLE:  http.StatusServiceUnavailable,
}

// errorBody is the error envelope (docs/api.md, "Conventions").
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code       string             `json:"code"`
	Message    string             `json:"message"`
	Details    []folio.FieldError `json:"details"`
	Timestamp  time.Time          `json:"timestamp"`
	RetryAfter *int               `json:"retryAfter,omitempty"`
}

// writeError renders err in the envelope. Errors that are not a *folio.Error become a generic
// SERVER_ERROR; their cause is logged once here, with the request id, and never sent.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var fe *folio.Error
	if !errors.As(err, &fe) {
		switch {
		case errors.Is(err, errRequestTimeout) || errors.Is(context.Cause(r.Context()), errRequestTimeout):
			fe = folio.Errorf(folio.EUNAVAILABLE, "The request took too long; please try again.")
		case s.Unavailable != nil && s.Unavailable(err):
			s.log(r).Warn("database unavailable", "error", err.Error())
			fe = folio.Errorf(folio.EUNAVAILABLE, "The database is unreachable right now; please try again shortly.")
		default:
			s.log(r).Error("request failed", "error", err.Error())
			fe = folio.Errorf(folio.EINTERNAL, "An internal error occurred. Quote the X-Request-Id header when reporting it.")
		}
	}
	fe = fe.CapDetails()
	status := httpStatus(fe)
	body := errorBody{Error: errorDetail{Code: fe.Code, Message: fe.Message, Details: fe.Details, Timestamp: s.now().UTC()}}
	if body.Error.Details == nil {
		body.Error.Details = []folio.FieldError{}
	}
	if fe.Code == folio.ERATELIMIT {
		ra := max(fe.RetryAfter, 1)
		body.Error.RetryAfter = &ra
		w.Header().Set("Retry-After", strconv.Itoa(ra))
	}
	var me *methodError
	if errors.As(err, &me) {
		w.Header().Set("Allow", me.allow)
	}
	if status >= 500 && fe.Code != folio.EINTERNAL {
		s.log(r).Warn("request failed", "code", fe.Code, "message", fe.Message)
	}
	writeJSON(w, status, body)
}

// httpStatus is the one place an error's code becomes its HTTP status.
func httpStatus(fe *folio.Error) int {
	if fe.Code == folio.EINVALID && fe.RuleBroken {
		return http.StatusUnprocessableEntity
	}
	if status, ok := statusOf[fe.Code]; ok {
		return status
	}
	return http.StatusInternalServerError
}

// methodError is the 405 of a path served for other methods; Allow lists them.
type methodError struct {
	err   *folio.Error
	allow string
}

func (e *methodError) Error() string { return e.err.Error() }
func (e *methodError) Unwrap() error { return e.err }

// writeJSON writes v as the JSON response body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, err = w.Write(b)
	return err
}

func (s *Server) log(r *http.Request) *slog.Logger {
	return s.Logger.With("request_id", requestIDFrom(r.Context()))
}
