package extblogfake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator"
)

type request struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     map[string]any `json:"variables"`
}

type gqlErr struct {
	Message    string         `json:"message"`
	Locations  any            `json:"locations,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErrors(w http.ResponseWriter, status int, errs ...gqlErr) {
	writeJSON(w, status, map[string]any{"errors": errs})
}

func codeErr(code, msg string) gqlErr {
	return gqlErr{Message: msg, Extensions: map[string]any{"code": code}}
}

// ServeHTTP answers one GraphQL request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeErrors(w, http.StatusMethodNotAllowed, codeErr("BAD_REQUEST", "Only POST is supported."))
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		return
	}
	var req request
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	decErr := dec.Decode(&req)

	s.mu.Lock()
	call := Call{OperationName: req.OperationName, Query: req.Query, Variables: req.Variables,
		Authorization: r.Header.Get("Authorization")}
	var fault *Fault
	if len(s.faults) > 0 {
		f := s.faults[0]
		s.faults = s.faults[1:]
		fault = &f
		call.Fault = !f.PassThrough
	}
	s.calls = append(s.calls, call)
	s.mu.Unlock()

	if fault != nil {
		if fault.Delay > 0 {
			t := time.NewTimer(fault.Delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		if !fault.PassThrough && !fault.AfterApply {
			writeFault(w, *fault)
			return
		}
	}
	status, payload := s.handle(r, req, decErr)
	if fault != nil && fault.AfterApply {
		writeFault(w, *fault)
		return
	}
	writeJSON(w, status, payload)
}

// handle validates and executes one request and returns the reply's status and body.
func (s *Server) handle(r *http.Request, req request, decErr error) (int, any) {
	errorsBody := func(errs ...gqlErr) any { return map[string]any{"errors": errs} }
	if decErr != nil || strings.TrimSpace(req.Query) == "" {
		return http.StatusBadRequest, errorsBody(codeErr("BAD_REQUEST",
			"POST body missing, invalid Content-Type, or JSON object has no keys."))
	}
	doc, errs := gqlparser.LoadQueryWithRules(s.schema, req.Query, nil)
	if len(errs) > 0 {
		out := make([]gqlErr, 0, len(errs))
		for _, e := range errs {
			code := "GRAPHQL_VALIDATION_FAILED"
			if e.Rule == "" {
				code = "GRAPHQL_PARSE_FAILED"
			}
			out = append(out, gqlErr{Message: e.Message, Locations: e.Locations, Extensions: map[string]any{"code": code}})
		}
		return http.StatusBadRequest, errorsBody(out...)
	}
	op := doc.Operations.ForName(req.OperationName)
	if op == nil {
		return http.StatusBadRequest, errorsBody(codeErr("OPERATION_RESOLUTION_FAILURE",
			fmt.Sprintf("Unknown operation named %q.", req.OperationName)))
	}
	vars, err := validator.VariableValues(s.schema, op, req.Variables)
	if err != nil {
		msg := err.Error()
		var ge *gqlerror.Error
		if errors.As(err, &ge) {
			msg = ge.Message
			if len(ge.Path) > 0 {
				msg = ge.Path.String() + " " + msg
			}
		}
		return http.StatusBadRequest, errorsBody(codeErr("BAD_USER_INPUT", "Variable got invalid value: "+msg))
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.authorize(r.Header.Get("Authorization"), op.Operation == ast.Mutation); e != nil {
		return http.StatusOK, map[string]any{"data": nil, "errors": []gqlErr{*e}}
	}
	root := s.queryRoot()
	if op.Operation == ast.Mutation {
		root = s.mutationRoot()
	}
	data, rerr := project(op.SelectionSet, root, vars)
	if rerr != nil {
		var fe *fieldError
		if !errors.As(rerr, &fe) {
			fe = &fieldError{code: "INTERNAL_SERVER_ERROR", msg: rerr.Error()}
		}
		return http.StatusOK, map[string]any{"data": nil, "errors": []gqlErr{codeErr(fe.code, fe.msg)}}
	}
	return http.StatusOK, map[string]any{"data": data}
}

func writeFault(w http.ResponseWriter, f Fault) {
	status := f.Status
	if status == 0 {
		status = http.StatusOK
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.Body != "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, f.Body)
		return
	}
	writeJSON(w, status, map[string]any{"data": nil, "errors": []gqlErr{codeErr(f.Code, f.Message)}})
}

// authorize accepts the raw token or "Bearer <token>". Queries are public, but a token that is
// present must be valid.
func (s *Server) authorize(h string, mutation bool) *gqlErr {
	tok := strings.TrimSpace(h)
	if len(tok) > 7 && strings.EqualFold(tok[:7], "bearer ") {
		tok = strings.TrimSpace(tok[7:])
	}
	if tok == "" {
		if mutation {
			e := codeErr("UNAUTHENTICATED", "You must be authenticated to perform this action.")
			return &e
		}
		return nil
	}
	if !s.tokens[tok] {
		e := codeErr("UNAUTHENTICATED", "Invalid access token.")
		return &e
	}
	return nil
}
