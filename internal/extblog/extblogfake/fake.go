// Package extblogfake is an in-memory stand-in for the external blog platform's GraphQL API
// (Hashnode), for tests. It speaks GraphQL over HTTP: every document is parsed and validated
// against the same schema the client is written against (extblog.SchemaSDL), so an unknown
// field or a misspelt input field is rejected exactly as the real API rejects it (HTTP 400,
// GRAPHQL_VALIDATION_FAILED or BAD_USER_INPUT). Mutations need a valid token in the
// Authorization header. Posts live in memory; every request is recorded; faults (429, 401,
// GraphQL errors, 500, slow and malformed replies) can be queued for the next requests.
package extblogfake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/foliohq/folio/internal/extblog"
)

// Defaults of a new Server.
const (
	DefaultToken         = "fake-extblog-token"
	DefaultPublicationID = "64f0c0ffee00000000000001"
	DefaultHost          = "blog.example.test"
)

// Tag is a post's tag.
type Tag struct{ Name, Slug string }

// Post is a post as the fake stores it.
type Post struct {
	ID                  string
	PublicationID       string
	Title               string
	Subtitle            string
	Slug                string
	ContentMarkdown     string
	Tags                []Tag
	SeriesID            string
	MetaTitle           string
	MetaDescription     string
	MetaImage           string
	CoverImageURL       string
	OriginalArticleURL  string
	DisableComments     bool
	NewsletterActivated bool
	PublishedAt         time.Time
	UpdatedAt           time.Time
	Removed             bool
}

// Call is one recorded request.
type Call struct {
	OperationName string
	Query         string
	Variables     map[string]any
	// Authorization is the header as received (tests check which token was sent).
	Authorization string
	// Fault is set when a queued fault answered the request.
	Fault bool
}

// Fault is a canned answer for one request.
type Fault struct {
	Status     int           // HTTP status; 0 means 200
	RetryAfter string        // Retry-After header value, if any
	Code       string        // answer {"errors":[{"message":Message,"extensions":{"code":Code}}]}
	Message    string        //
	Body       string        // raw body instead of Code/Message (e.g. malformed JSON)
	Delay      time.Duration // wait this long, or until the request's context ends, first
	// PassThrough answers the request normally after Delay.
	PassThrough bool
	// AfterApply executes the request (a mutation takes effect) and then answers with the
	// fault instead of the real reply: a reply lost on the way back.
	AfterApply bool
}

// RateLimited answers 429 with a Retry-After header (seconds or an HTTP-date; "" for none).
func RateLimited(retryAfter string) Fault {
	return Fault{Status: http.StatusTooManyRequests, RetryAfter: retryAfter, Code: "TOO_MANY_REQUESTS",
		Message: "Too many requests, please try again later."}
}

// Unauthorized answers HTTP 401.
func Unauthorized() Fault {
	return Fault{Status: http.StatusUnauthorized, Code: "UNAUTHENTICATED", Message: "Invalid access token."}
}

// GraphQLError answers HTTP 200 with one GraphQL error carrying code.
func GraphQLError(code, message string) Fault { return Fault{Code: code, Message: message} }

// ServerError answers HTTP 500 with a plain-text body.
func ServerError() Fault {
	return Fault{Status: http.StatusInternalServerError, Body: "Internal Server Error"}
}

// Slow answers normally after d, or not at all when the request's context ends first.
func Slow(d time.Duration) Fault { return Fault{Delay: d, PassThrough: true} }

// LostReply executes the request, then answers 502 as a proxy whose upstream reply was lost.
func LostReply() Fault {
	return Fault{Status: http.StatusBadGateway, Body: "Bad Gateway", AfterApply: true}
}

// Malformed answers HTTP 200 with a truncated JSON body.
func Malformed() Fault { return Fault{Body: `{"data":{"post":{"id":"`} }

// Server is the fake platform. Create it with New and serve it with httptest.NewServer.
type Server struct {
	schema *ast.Schema

	mu            sync.Mutex
	publicationID string
	host          string
	tokens        map[string]bool
	posts         []*Post
	seq           int
	faults        []Fault
	calls         []Call
	now           func() time.Time
}

// New returns a fake with one publication (DefaultPublicationID at DefaultHost) that accepts
// DefaultToken.
func New() *Server {
	schema, err := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: extblog.SchemaSDL})
	if err != nil {
		panic("extblogfake: schema does not load: " + err.Error())
	}
	return &Server{
		schema: schema, publicationID: DefaultPublicationID, host: DefaultHost,
		tokens: map[string]bool{DefaultToken: true}, now: time.Now,
	}
}

// SetTokens replaces the accepted tokens.
func (s *Server) SetTokens(tokens ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = map[string]bool{}
	for _, t := range tokens {
		s.tokens[t] = true
	}
}

// SetNow sets the clock used for publishedAt and updatedAt.
func (s *Server) SetNow(now func() time.Time) {
	s.mu.Lock()
	s.now = now
	s.mu.Unlock()
}

// FailNext queues f as the answer to the next n requests (after faults already queued).
func (s *Server) FailNext(n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults = append(s.faults, f)
	}
}

// Calls returns the recorded requests, oldest first.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallCount returns how many requests named op were received.
func (s *Server) CallCount(op string) int {
	n := 0
	for _, c := range s.Calls() {
		if c.OperationName == op {
			n++
		}
	}
	return n
}

// AddPost stores p (ID, PublicationID and PublishedAt are filled when empty) and returns its id.
func (s *Server) AddPost(p Post) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.ID == "" {
		p.ID = s.newID()
	}
	if p.PublicationID == "" {
		p.PublicationID = s.publicationID
	}
	if p.PublishedAt.IsZero() {
		p.PublishedAt = s.now()
	}
	s.posts = append(s.posts, &p)
	return p.ID
}

// Post returns a copy of the stored post with id.
func (s *Server) Post(id string) (Post, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.find(id); p != nil {
		cp := *p
		cp.Tags = append([]Tag(nil), p.Tags...)
		return cp, true
	}
	return Post{}, false
}

// Posts returns copies of all stored posts, removed ones included, in creation order.
func (s *Server) Posts() []Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Post, 0, len(s.posts))
	for _, p := range s.posts {
		out = append(out, *p)
	}
	return out
}

func (s *Server) newID() string {
	s.seq++
	return fmt.Sprintf("65b24b924bf2eb3c%08x", s.seq)
}

func (s *Server) find(id string) *Post {
	for _, p := range s.posts {
		if p.ID == id {
			return p
		}
	}
	return nil
}

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

// fieldError is a resolver failure reported with a GraphQL error code.
type fieldError struct{ code, msg string }

func (e *fieldError) Error() string { return e.code + ": " + e.msg }

func fail(code, format string, args ...any) error {
	return &fieldError{code: code, msg: fmt.Sprintf(format, args...)}
}

// resolver computes a field's value from its arguments.
type resolver func(args map[string]any) (any, error)

// project returns the parts of v that sel selects. Objects are map[string]any whose values may
// be resolvers; lists are []map[string]any.
func project(sel ast.SelectionSet, v any, vars map[string]any) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		out := map[string]any{}
		if err := projectInto(out, sel, v, vars); err != nil {
			return nil, err
		}
		return out, nil
	case []map[string]any:
		out := make([]any, 0, len(v))
		for _, it := range v {
			p, err := project(sel, it, vars)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		return out, nil
	}
	return nil, fmt.Errorf("extblogfake: cannot select fields of %T", v)
}

func projectInto(out map[string]any, sel ast.SelectionSet, obj map[string]any, vars map[string]any) error {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			val := obj[s.Name]
			if fn, ok := val.(resolver); ok {
				var err error
				if val, err = fn(s.ArgumentMap(vars)); err != nil {
					return err
				}
			}
			if len(s.SelectionSet) > 0 {
				var err error
				if val, err = project(s.SelectionSet, val, vars); err != nil {
					return err
				}
			}
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			out[key] = val
		case *ast.FragmentSpread:
			if err := projectInto(out, s.Definition.SelectionSet, obj, vars); err != nil {
				return err
			}
		case *ast.InlineFragment:
			if err := projectInto(out, s.SelectionSet, obj, vars); err != nil {
				return err
			}
		}
	}
	return nil
}

func timeString(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *Server) queryRoot() map[string]any {
	return map[string]any{
		"__typename": "Query",
		"post": resolver(func(args map[string]any) (any, error) {
			// As on the platform, a removed post can still be read by id.
			if p := s.find(str(args["id"])); p != nil {
				return s.postObject(p), nil
			}
			return nil, nil
		}),
		"publication": resolver(func(args map[string]any) (any, error) {
			host, id := str(args["host"]), str(args["id"])
			if host == "" && id == "" {
				return nil, fail("BAD_USER_INPUT", "Either host or id must be provided.")
			}
			if (host != "" && host != s.host) || (id != "" && id != s.publicationID) {
				return nil, nil
			}
			return s.publicationObject(), nil
		}),
	}
}

func (s *Server) userObject() map[string]any {
	return map[string]any{"__typename": "User", "id": "64f0c0ffee000000000000aa", "username": "owner",
		"name": "Site Owner", "profilePicture": nil}
}

func (s *Server) publicationObject() map[string]any {
	url := "https://" + s.host
	return map[string]any{
		"__typename": "Publication", "id": s.publicationID, "title": "Fake Blog", "displayTitle": nil,
		"url": url, "canonicalURL": url, "isTeam": false, "author": s.userObject(),
		"post": resolver(func(args map[string]any) (any, error) {
			slug := str(args["slug"])
			for _, p := range s.posts {
				if !p.Removed && p.PublicationID == s.publicationID && p.Slug == slug {
					return s.postObject(p), nil
				}
			}
			return nil, nil
		}),
		"posts":  resolver(s.resolvePosts),
		"series": resolver(func(map[string]any) (any, error) { return nil, nil }),
	}
}

// resolvePosts lists the publication's posts newest first; cursors are post ids.
func (s *Server) resolvePosts(args map[string]any) (any, error) {
	first, ok := toInt(args["first"])
	if !ok || first < 1 || first > extblog.MaxFirst {
		return nil, fail("BAD_USER_INPUT", "first must be between 1 and %d.", extblog.MaxFirst)
	}
	deletedOnly := false
	if f, ok := args["filter"].(map[string]any); ok {
		deletedOnly, _ = f["deletedOnly"].(bool)
	}
	var list []*Post
	for _, p := range s.posts {
		if p.PublicationID == s.publicationID && p.Removed == deletedOnly {
			list = append(list, p)
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if !list[i].PublishedAt.Equal(list[j].PublishedAt) {
			return list[i].PublishedAt.After(list[j].PublishedAt)
		}
		return list[i].ID > list[j].ID
	})
	start := 0
	if after := str(args["after"]); after != "" {
		start = -1
		for i, p := range list {
			if p.ID == after {
				start = i + 1
			}
		}
		if start < 0 {
			return nil, fail("BAD_USER_INPUT", "Invalid cursor.")
		}
	}
	end := min(start+first, len(list))
	edges := []map[string]any{}
	for _, p := range list[start:end] {
		edges = append(edges, map[string]any{"__typename": "PostEdge", "cursor": p.ID, "node": s.postObject(p)})
	}
	var endCursor any
	if end > start {
		endCursor = list[end-1].ID
	}
	return map[string]any{
		"__typename": "PublicationPostConnection", "edges": edges, "totalDocuments": len(list),
		"pageInfo": map[string]any{"__typename": "PageInfo", "hasNextPage": end < len(list), "endCursor": endCursor},
	}, nil
}

func brief(md string) string {
	t := strings.Join(strings.Fields(md), " ")
	if len(t) > 250 {
		t = t[:250]
	}
	return t
}

func (s *Server) postObject(p *Post) map[string]any {
	tags := []map[string]any{}
	for _, t := range p.Tags {
		tags = append(tags, map[string]any{"__typename": "Tag", "id": "tag-" + t.Slug, "name": t.Name,
			"slug": t.Slug, "logo": nil, "tagline": nil, "followersCount": 0, "postsCount": 1})
	}
	var series, cover any
	if p.SeriesID != "" {
		series = map[string]any{"__typename": "Series", "id": p.SeriesID, "cuid": nil, "name": "Series",
			"slug": "series", "coverImage": nil, "createdAt": timeString(p.PublishedAt)}
	}
	if p.CoverImageURL != "" {
		cover = map[string]any{"__typename": "PostCoverImage", "url": p.CoverImageURL, "attribution": nil,
			"photographer": nil, "isPortrait": false, "isAttributionHidden": false}
	}
	return map[string]any{
		"__typename": "Post", "id": p.ID, "cuid": nil, "title": p.Title, "subtitle": nullable(p.Subtitle),
		"slug": p.Slug, "previousSlugs": []string{}, "brief": brief(p.ContentMarkdown),
		"url": "https://" + s.host + "/" + p.Slug, "canonicalUrl": nullable(p.OriginalArticleURL),
		"content": map[string]any{"__typename": "Content", "markdown": p.ContentMarkdown,
			"html": p.ContentMarkdown, "text": p.ContentMarkdown},
		"author":      s.userObject(),
		"publication": resolver(func(map[string]any) (any, error) { return s.publicationObject(), nil }),
		"tags":        tags,
		"series":      series,
		"seo": map[string]any{"__typename": "SEO", "title": nullable(p.MetaTitle),
			"description": nullable(p.MetaDescription)},
		"ogMetaData": map[string]any{"__typename": "OpenGraphMetaData", "image": nullable(p.MetaImage)},
		"coverImage": cover,
		"preferences": map[string]any{"__typename": "PostPreferences", "disableComments": p.DisableComments,
			"isDelisted": false, "pinnedToBlog": false, "stickCoverToBottom": false},
		"publishedAt": timeString(p.PublishedAt), "updatedAt": timeString(p.UpdatedAt),
		"readTimeInMinutes": 1, "reactionCount": 0, "responseCount": 0, "views": 0,
	}
}

func (s *Server) mutationRoot() map[string]any {
	payload := func(typename string, p *Post) map[string]any {
		return map[string]any{"__typename": typename, "post": s.postObject(p)}
	}
	input := func(args map[string]any) map[string]any {
		m, _ := args["input"].(map[string]any)
		return m
	}
	return map[string]any{
		"__typename": "Mutation",
		"publishPost": resolver(func(args map[string]any) (any, error) {
			p, err := s.publish(input(args))
			if err != nil {
				return nil, err
			}
			return payload("PublishPostPayload", p), nil
		}),
		"updatePost": resolver(func(args map[string]any) (any, error) {
			p, err := s.update(input(args))
			if err != nil {
				return nil, err
			}
			return payload("UpdatePostPayload", p), nil
		}),
		"removePost": resolver(func(args map[string]any) (any, error) {
			p := s.find(str(input(args)["id"]))
			if p == nil || p.Removed {
				return nil, fail("NOT_FOUND", "Post not found.")
			}
			p.Removed = true
			return payload("RemovePostPayload", p), nil
		}),
		"restorePost": resolver(func(args map[string]any) (any, error) {
			p := s.find(str(input(args)["id"]))
			if p == nil {
				return nil, fail("NOT_FOUND", "Post not found.")
			}
			p.Removed = false
			return payload("RestorePostPayload", p), nil
		}),
	}
}

func (s *Server) publish(in map[string]any) (*Post, error) {
	if str(in["publicationId"]) != s.publicationID {
		return nil, fail("NOT_FOUND", "Publication not found.")
	}
	p := &Post{PublicationID: s.publicationID}
	if err := s.apply(p, in, true); err != nil {
		return nil, err
	}
	if p.PublishedAt.IsZero() {
		p.PublishedAt = s.now()
	}
	p.ID = s.newID()
	s.posts = append(s.posts, p)
	return p, nil
}

func (s *Server) update(in map[string]any) (*Post, error) {
	p := s.find(str(in["id"]))
	if p == nil || p.Removed {
		return nil, fail("NOT_FOUND", "Post not found.")
	}
	if id, ok := in["publicationId"]; ok && id != nil && str(id) != s.publicationID {
		return nil, fail("NOT_FOUND", "Publication not found.")
	}
	cp := *p
	if err := s.apply(&cp, in, false); err != nil {
		return nil, err
	}
	cp.UpdatedAt = s.now()
	*p = cp
	return p, nil
}

// apply copies the input fields that are present onto p, with the platform's checks.
func (s *Server) apply(p *Post, in map[string]any, create bool) error {
	has := func(k string) bool { v, ok := in[k]; return ok && v != nil }
	if has("title") || create {
		if strings.TrimSpace(str(in["title"])) == "" {
			return fail("BAD_USER_INPUT", "Title is required.")
		}
		p.Title = str(in["title"])
	}
	if has("contentMarkdown") || create {
		if strings.TrimSpace(str(in["contentMarkdown"])) == "" {
			return fail("BAD_USER_INPUT", "Content is required.")
		}
		p.ContentMarkdown = str(in["contentMarkdown"])
	}
	if has("subtitle") {
		p.Subtitle = str(in["subtitle"])
	}
	if has("tags") {
		list, _ := in["tags"].([]any)
		if len(list) > 15 {
			return fail("BAD_USER_INPUT", "A post can have at most 15 tags.")
		}
		p.Tags = nil
		for _, t := range list {
			m, _ := t.(map[string]any)
			name, slug := str(m["name"]), str(m["slug"])
			if str(m["id"]) == "" && (name == "" || slug == "") {
				return fail("BAD_USER_INPUT", "Each tag needs an id, or a name and a slug.")
			}
			p.Tags = append(p.Tags, Tag{Name: name, Slug: slug})
		}
	}
	if has("seriesId") {
		p.SeriesID = str(in["seriesId"])
	}
	if m, ok := in["metaTags"].(map[string]any); ok {
		p.MetaTitle, p.MetaDescription, p.MetaImage = str(m["title"]), str(m["description"]), str(m["image"])
	}
	if m, ok := in["coverImageOptions"].(map[string]any); ok {
		p.CoverImageURL = str(m["coverImageURL"])
	}
	if has("originalArticleURL") {
		p.OriginalArticleURL = str(in["originalArticleURL"])
	}
	if has("disableComments") {
		p.DisableComments, _ = in["disableComments"].(bool)
	}
	if m, ok := in["settings"].(map[string]any); ok {
		if v, ok := m["isNewsletterActivated"].(bool); ok {
			p.NewsletterActivated = v
		}
		if v, ok := m["disableComments"].(bool); ok {
			p.DisableComments = v
		}
	}
	if has("publishedAt") {
		t, err := time.Parse(time.RFC3339Nano, str(in["publishedAt"]))
		if err != nil {
			return fail("BAD_USER_INPUT", "publishedAt is not a valid DateTime.")
		}
		p.PublishedAt = t
	}
	slug := p.Slug
	if has("slug") {
		slug = str(in["slug"])
	}
	if slug == "" {
		slug = slugify(p.Title)
	}
	p.Slug = s.uniqueSlug(slug, p.ID)
	return nil
}

// uniqueSlug appends -1, -2, … while another active post of the publication uses slug.
func (s *Server) uniqueSlug(slug, selfID string) string {
	taken := func(c string) bool {
		for _, o := range s.posts {
			if o.ID != selfID && !o.Removed && o.Slug == c {
				return true
			}
		}
		return false
	}
	c := slug
	for i := 1; taken(c); i++ {
		c = fmt.Sprintf("%s-%d", slug, i)
	}
	return c
}

func slugify(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

func toInt(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), v == float64(int(v))
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	}
	return 0, false
}
