// Package folio holds the domain of the folio portfolio backend: its resource types, the inputs
// that create and change them with their validation, the error type, the caller's identity and
// permission levels, and the interfaces of the outside systems folio talks to. It imports only the
// standard library; everything concrete lives under internal/.
package folio

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// Version is set at build time with -ldflags "-X github.com/foliohq/folio.Version=…".
var Version = "dev"

// Level is a permission level. Levels are ordered: a caller at a level may do everything the
// levels below it may.
type Level int

const (
	LevelPublic Level = iota // no credentials
	LevelRead                // read key: public data, plus "any authenticated caller" routes
	LevelWrite               // write key or editor session: create and update content
	LevelAdmin               // admin key or owner session: everything
)

func (l Level) String() string {
	switch l {
	case LevelRead:
		return "read"
	case LevelWrite:
		return "write"
	case LevelAdmin:
		return "admin"
	}
	return "public"
}

// ParseLevel parses "read", "write" or "admin".
func ParseLevel(s string) (Level, bool) {
	switch s {
	case "read":
		return LevelRead, true
	case "write":
		return LevelWrite, true
	case "admin":
		return LevelAdmin, true
	}
	return LevelPublic, false
}

// Permission names a fine-grained permission held through a user's role.
type Permission string

const (
	PermManageArticles Permission = "manage:articles"
	PermManageProjects Permission = "manage:projects"
)

// Actor is the authenticated caller of one request. The zero Actor is an anonymous visitor.
type Actor struct {
	UserID string
	Email  string
	Name   string
	Role   string // owner or editor; empty for the bootstrap key
	Level  Level
	KeyID  string // set when authenticated by API key
	// Session is true when authenticated by session cookie (subject to the Origin check).
	Session bool
}

// Authenticated reports whether the actor presented valid credentials.
func (a Actor) Authenticated() bool { return a.Level > LevelPublic }

// AtLeast reports whether the actor's level is l or higher.
func (a Actor) AtLeast(l Level) bool { return a.Level >= l }

// Has reports whether the actor holds permission p: owners and admin keys hold every
// permission, editors hold manage:articles and manage:projects.
func (a Actor) Has(p Permission) bool {
	if a.Level >= LevelAdmin {
		return true
	}
	if a.Role == "editor" && a.Session {
		return p == PermManageArticles || p == PermManageProjects
	}
	return false
}

type actorKey struct{}

// WithActor returns a context carrying the request's actor.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the request's actor, the anonymous actor when none was set.
func ActorFrom(ctx context.Context) Actor {
	a, _ := ctx.Value(actorKey{}).(Actor)
	return a
}

var idMu sync.Mutex
var lastIDMillis int64
var idSeq uint16

// NewID returns a new UUIDv7 (RFC 9562) string: time-ordered, so IDs sort by creation.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	idMu.Lock()
	ms := time.Now().UnixMilli()
	if ms <= lastIDMillis {
		ms = lastIDMillis
		idSeq++
	} else {
		lastIDMillis = ms
		idSeq = binary.BigEndian.Uint16(b[6:8]) & 0x07ff // random start leaves room to count up
	}
	seq := idSeq
	idMu.Unlock()
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(ms))
	copy(b[0:6], ts[2:8])
	b[6] = 0x70 | byte(seq>>8)&0x0f
	b[7] = byte(seq)
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}
