// Package fediverse is the site's ActivityPub actor (docs/api.md, "Fediverse"): WebFinger, the
// actor document, its outbox and followers, the inbox's signature checks and activities, and the
// delivery of signed activities to followers' inboxes through the job queue.
package fediverse

import (
	"context"
	"crypto/rsa"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/markdown"
)

// KeyStore keeps the actor's one key pair.
type KeyStore interface {
	// ActorKey returns the stored key, ENOTFOUND when there is none yet.
	ActorKey(ctx context.Context) (folio.ActorKey, error)
	// CreateActorKey stores k unless a key exists, and returns the stored key (the first wins).
	CreateActorKey(ctx context.Context, k folio.ActorKey) (folio.ActorKey, error)
}

// Store is what the fediverse needs of storage (internal/fediverse/fedtest checks an
// implementation).
type Store interface {
	KeyStore
	jobs.Enqueuer
	// AddFollower stores f, replacing the inboxes of an actor that follows already.
	AddFollower(ctx context.Context, f folio.Follower) error
	// RemoveFollower removes an actor's follow and reports whether there was one.
	RemoveFollower(ctx context.Context, actorID string) (bool, error)
	FollowerCount(ctx context.Context) (int, error)
	// Followers lists one page of followers, oldest first, and the total.
	Followers(ctx context.Context, page, limit int) ([]folio.Follower, int, error)
	// DeliveryInboxes lists each inbox a delivery to every follower goes to once: the shared
	// inbox of a server that has one, else the follower's own.
	DeliveryInboxes(ctx context.Context) ([]string, error)

	// SaveComment stores a comment; one with the same source and source id replaces the text
	// of the stored one and keeps its status. A pending comment whose AuthorID has a comment
	// marked spam is stored as spam.
	SaveComment(ctx context.Context, c folio.Comment) error
	// Comment returns one comment, ENOTFOUND when there is none with id.
	Comment(ctx context.Context, id string) (folio.Comment, error)
	// DeleteComment removes the comment of source and sourceID by authorID (or of no recorded
	// author) and reports whether there was one.
	DeleteComment(ctx context.Context, source, sourceID, authorID string) (bool, error)
	// AddReaction records an actor's reaction of a kind to a post, once.
	AddReaction(ctx context.Context, postID, kind, actorID string, at time.Time) error
	// RemoveReaction withdraws an actor's reactions of a kind.
	RemoveReaction(ctx context.Context, kind, actorID string) error

	// Block blocks an actor (its id) or a domain (a host) and removes the follows it covers.
	Block(ctx context.Context, b folio.Block) error
	// Unblock lifts a block and reports whether there was one.
	Unblock(ctx context.Context, target string) (bool, error)
	// Blocks lists the blocks, newest first.
	Blocks(ctx context.Context) ([]folio.Block, error)
	// Blocked reports whether any of targets is blocked.
	Blocked(ctx context.Context, targets ...string) (bool, error)
}

// Posts reads the posts the outbox and deliveries show (content.Service).
type Posts interface {
	Post(ctx context.Context, id string) (*folio.Post, error)
	PostBySlug(ctx context.Context, slug string) (*folio.Post, error)
	Posts(ctx context.Context, f folio.PostFilter) ([]*folio.Post, int, error)
}

// Service is the site's actor.
type Service struct {
	Store Store
	Posts Posts
	// Name is the actor's preferredUsername (FEDIVERSE_NAME); SiteURL the public origin its
	// documents and the posts' URLs are under (FOLIO_SITE_URL) when Site gives none.
	Name, SiteURL string
	// Site reads the owner's settings (site.url, name, photo) at each use, so a change in the
	// settings room takes effect at once on every instance; nil: SiteURL and Name.
	Site func() folio.SiteSettings
	// Key signs outgoing requests; PublicPEM is published in the actor document.
	Key       *rsa.PrivateKey
	PublicPEM string
	// Client fetches remote actors and keys and delivers activities; NewClient's goes through
	// netguard with bounds.
	Client *http.Client
	Now    func() time.Time
	Log    *slog.Logger
	// Delays is the retry schedule of a delivery (default webhook.Schedule); tests shorten it.
	Delays []time.Duration

	md   *markdown.Renderer
	keys keyCache
}

// New returns the actor over store and posts.
func New(store Store, posts Posts, name, siteURL string, key *rsa.PrivateKey, publicPEM string, client *http.Client, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{Store: store, Posts: posts, Name: name, SiteURL: strings.TrimRight(siteURL, "/"), Key: key,
		PublicPEM: publicPEM, Client: client, Now: time.Now, Log: log, md: markdown.New()}
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// siteURL is the public origin, without a trailing slash: the settings' site.url, else SiteURL.
func (s *Service) siteURL() string {
	if s.Site != nil {
		if u := s.Site().URL; u != "" {
			return strings.TrimRight(u, "/")
		}
	}
	return strings.TrimRight(s.SiteURL, "/")
}

// displayName is the actor's name: the site's name in the settings, else the owner's, else Name.
func (s *Service) displayName() string {
	if s.Site != nil {
		st := s.Site()
		for _, n := range []string{st.Name, st.OwnerName} {
			if n != "" {
				return n
			}
		}
	}
	return s.Name
}

// iconURL is the owner's photo from the settings, or "".
func (s *Service) iconURL() string {
	if s.Site != nil {
		return s.Site().PhotoURL
	}
	return ""
}

// ActorID is the actor's id (and URL); KeyID names its key in signatures.
func (s *Service) ActorID() string   { return s.siteURL() + "/ap/actor" }
func (s *Service) KeyID() string     { return s.ActorID() + "#main-key" }
func (s *Service) inboxURL() string  { return s.siteURL() + "/ap/inbox" }
func (s *Service) outboxURL() string { return s.siteURL() + "/ap/outbox" }
func (s *Service) followersURL() string {
	return s.siteURL() + "/ap/followers"
}

// PostURL is a post's public URL as the feeds give it; ObjectID the id of its Article.
func (s *Service) PostURL(slug string) string { return s.siteURL() + "/blog/" + slug }
func (s *Service) ObjectID(postID string) string {
	return s.siteURL() + "/ap/posts/" + postID
}

// keyCache keeps remote actors' public keys by key id, bounded: when full it starts again.
type keyCache struct {
	mu   sync.Mutex
	keys map[string]remoteKey
}

const keyCacheSize = 4096

func (c *keyCache) get(id string) (remoteKey, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.keys[id]
	return k, ok
}

func (c *keyCache) put(id string, k remoteKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys == nil || len(c.keys) >= keyCacheSize {
		c.keys = map[string]remoteKey{}
	}
	c.keys[id] = k
}
