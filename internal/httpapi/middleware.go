package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/clientip"
)

func requestIDFrom(ctx context.Context) string {
	if rec := recordOf(ctx); rec != nil {
		return rec.ID
	}
	return ""
}

// validRequestID accepts a caller's X-Request-Id only when it is short and plain, so it can be
// logged and echoed without injection.
func validRequestID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusWriter records the status and size of a response for the access log and metrics.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	// rec is the request's record (requestrecord.go), kept here to share one allocation.
	rec requestRecord
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (flush, deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

var errRequestTimeout = errors.New("request deadline exceeded")

// The values of the security headers every response carries.
var (
	nosniff        = []string{"nosniff"}
	frameDeny      = []string{"DENY"}
	referrerPolicy = []string{"strict-origin-when-cross-origin"}
)

// outer wraps the whole mux: request id, panic recovery, security headers, request deadline,
// one access-log line and the metrics of every request.
func (s *Server) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			id = newRequestID()
		}
		sw := &statusWriter{ResponseWriter: w, rec: requestRecord{ID: id}}
		rec := &sw.rec
		// The request's deadline is set where work is done (Server.bounded), not here: a
		// response served from the cache needs none.
		r = r.WithContext(withRequestRecord(r.Context(), rec))
		h := w.Header()
		// Canonical keys and shared values set directly (Set would canonicalize and allocate per
		// request); nothing appends to or edits these values.
		h["X-Request-Id"] = []string{id}
		h["X-Content-Type-Options"] = nosniff
		h["X-Frame-Options"] = frameDeny
		h["Referrer-Policy"] = referrerPolicy
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log(r).Error("panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if sw.status == 0 {
					s.writeError(sw, r, folio.Errorf(folio.EINTERNAL, "An internal error occurred. Quote the X-Request-Id header when reporting it."))
				}
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			elapsed := time.Since(start)
			s.metrics.observe(route, r.Method, status, elapsed)
			// The attributes are built only for a record the logger keeps: the client's address
			// alone costs a parse and a string.
			if level := levelFor(status); s.AccessLog && s.Logger.Enabled(r.Context(), level) {
				actor := rec.Actor
				s.Logger.LogAttrs(r.Context(), level, "request",
					slog.String("request_id", id), slog.String("method", logMethod(r.Method)), slog.String("route", route),
					slog.String("path", logPath(route, r.URL)), slog.Int("status", status), slog.Int64("bytes", sw.bytes),
					slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000), slog.String("client_ip", s.clientIP(r)),
					slog.String("user_id", actor.UserID), slog.String("key_id", actor.KeyID))
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

// clientAddr returns the client's address per the TRUSTED_PROXIES rule (without a resolver,
// the peer's), resolved once per request and kept on its record; ok is false when the peer
// address does not parse.
func (s *Server) clientAddr(r *http.Request) (a netip.Addr, ok bool) {
	rec := recordOf(r.Context())
	if rec != nil && rec.clientResolved {
		return rec.client, rec.clientOK
	}
	if s.ClientIP == nil {
		ap, err := netip.ParseAddrPort(r.RemoteAddr)
		a, ok = ap.Addr(), err == nil
	} else {
		a, ok = s.ClientIP.ClientIP(r), true
	}
	if rec != nil {
		rec.client, rec.clientOK, rec.clientResolved = a, ok, true
	}
	return a, ok
}

// clientIP returns the client's address as text (clientAddr).
func (s *Server) clientIP(r *http.Request) string {
	if a, ok := s.clientAddr(r); ok {
		return a.String()
	}
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

// limitIP names the client for per-IP rate limits: the client IP, an IPv6 one reduced to its
// Limits.IPv6Prefix prefix (clientip.LimitID).
func (s *Server) limitIP(r *http.Request) string {
	bits := s.Limits.IPv6Prefix
	if bits == 0 {
		bits = 64
	}
	a, ok := s.clientAddr(r)
	if !ok {
		return s.clientIP(r)
	}
	return clientip.LimitID(a, bits)
}
