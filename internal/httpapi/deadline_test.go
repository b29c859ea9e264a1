package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestDeadlineAnswersUnavailable checks the request deadline now that it is set where work is
// done (boundedFunc) rather than around every request: a handler still waiting when it passes
// fails with the timeout, which the envelope answers 503, and a handler that finishes in time is
// untouched.
func TestDeadlineAnswersUnavailable(t *testing.T) {
	s := &Server{RequestTimeout: 20 * time.Millisecond}
	s.Handler() // metrics, logger, clock
	slow := s.boundedFunc(func(w http.ResponseWriter, r *http.Request) error {
		<-r.Context().Done()
		return r.Context().Err()
	})
	r := httptest.NewRequest("GET", "/api/projects", nil)
	err := slow(httptest.NewRecorder(), r)
	if !errors.Is(err, errRequestTimeout) {
		t.Fatalf("slow handler: err = %v, want the request timeout", err)
	}
	w := httptest.NewRecorder()
	s.writeError(w, r, err)
	var body errorBody
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusServiceUnavailable || body.Error.Code != "SERVICE_UNAVAILABLE" {
		t.Fatalf("timeout answered %d %s, want 503 SERVICE_UNAVAILABLE", w.Code, body.Error.Code)
	}

	fast := s.boundedFunc(func(w http.ResponseWriter, r *http.Request) error {
		if _, ok := r.Context().Deadline(); !ok {
			t.Error("the handler ran without a deadline")
		}
		return nil
	})
	if err := fast(httptest.NewRecorder(), r); err != nil {
		t.Fatalf("fast handler: %v", err)
	}
}
