// Package extblogfake is an in-memory stand-in for the external blog platform's GraphQL API
// (Hashnode), for tests. It speaks GraphQL over HTTP: every document is parsed and validated
// against the same schema the client is written against (extblog.SchemaSDL), so an unknown
// field or a misspelt input field is rejected exactly as the real API rejects it (HTTP 400,
// GRAPHQL_VALIDATION_FAILED or BAD_USER_INPUT). Mutations need a valid token in the
// Authorization header. Posts live in memory; every request is recorded; faults (429, 401,
// GraphQL errors, 500, slow and malformed replies) can be queued for the next requests.
package extblogfake

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

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
