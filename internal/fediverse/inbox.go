package fediverse

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/netguard"
)

// Bounds of a fetch of a remote actor or key.
const (
	FetchTimeout = 10 * time.Second
	maxFetchSize = 1 << 20
)

// NewClient returns the client of remote fetches and deliveries: public addresses only unless
// allowPrivate (FEDIVERSE_ALLOW_PRIVATE), each request bounded by FetchTimeout.
func NewClient(allowPrivate bool) *http.Client {
	return netguard.Policy{AllowPrivate: allowPrivate}.Client(FetchTimeout)
}

// remoteActor is what the site reads of another server's actor (or key) document.
type remoteActor struct {
	ID                string    `json:"id"`
	Type              string    `json:"type"`
	Name              string    `json:"name"`
	PreferredUsername string    `json:"preferredUsername"`
	URL               any       `json:"url"` // a string, or links
	Inbox             string    `json:"inbox"`
	Endpoints         Endpoints `json:"endpoints"`
	PublicKey         PublicKey `json:"publicKey"`
	// A key document (keyId resolving to the key alone) has these at the top.
	Owner        string `json:"owner"`
	PublicKeyPem string `json:"publicKeyPem"`
}

// remoteKey is a verified-to-parse public key and the actor that owns it.
type remoteKey struct {
	pub   *rsa.PublicKey
	owner string
}

// errGone is a remote actor its server says is deleted (410).
var errGone = errors.New("fediverse: the actor is gone")

// fetch GETs an ActivityPub document into v, bounded in size and time, through Client.
func (s *Service) fetch(ctx context.Context, u string, v any) error {
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return fmt.Errorf("fediverse: %q is not an http(s) URL", u)
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", `application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"`)
	req.Header.Set("User-Agent", "folio/"+folio.Version)
	if err := Sign(req, nil, s.Key, s.KeyID(), s.now()); err != nil {
		return err
	}
	res, err := s.Client.Do(req)
	if err != nil {
		return fmt.Errorf("fediverse: fetch: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusGone {
		return errGone
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("fediverse: fetch answered %d", res.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, maxFetchSize+1))
	if err != nil {
		return err
	}
	if len(b) > maxFetchSize {
		return errors.New("fediverse: the document is too large")
	}
	return json.Unmarshal(b, v)
}

// fetchKey reads the key keyID names, and its owner.
func (s *Service) fetchKey(ctx context.Context, keyID string) (remoteKey, error) {
	var doc remoteActor
	if err := s.fetch(ctx, keyID, &doc); err != nil {
		return remoteKey{}, err
	}
	pemText, owner := doc.PublicKey.PublicKeyPem, doc.PublicKey.Owner
	if pemText == "" {
		pemText, owner = doc.PublicKeyPem, doc.Owner
	}
	if owner == "" {
		owner = doc.ID
	}
	pub, err := parsePublicPEM(pemText)
	if err != nil {
		return remoteKey{}, err
	}
	k := remoteKey{pub: pub, owner: owner}
	s.keys.put(keyID, k)
	return k, nil
}

// Verify checks an incoming request's signature and returns the actor that signed it. The key
// comes from the cache or is fetched; a cached key that fails is fetched again once (the actor
// may have rotated it). Every refusal wraps ErrSignature, except a deleted signer's, errGone.
func (s *Service) Verify(ctx context.Context, r *http.Request, body []byte) (string, error) {
	p, err := checkRequest(r, body, s.now())
	if err != nil {
		return "", err
	}
	k, cached := s.keys.get(p.KeyID)
	if !cached {
		if k, err = s.fetchKey(ctx, p.KeyID); err != nil {
			if errors.Is(err, errGone) {
				return "", err
			}
			return "", refuse("the key %s could not be fetched", p.KeyID)
		}
	}
	err = verifyWith(r, k.pub)
	if err != nil && cached {
		if k, err = s.fetchKey(ctx, p.KeyID); err == nil {
			err = verifyWith(r, k.pub)
		} else {
			err = refuse("the key %s could not be fetched", p.KeyID)
		}
	}
	if err != nil {
		return "", err
	}
	return k.owner, nil
}

// incoming is what the inbox reads of an activity.
type incoming struct {
	ID     string          `json:"id"`
	Type   string          `json:"type"`
	Actor  string          `json:"actor"`
	Object json.RawMessage `json:"object"`
}

// objectRef is an activity's object: a bare id or an object with one.
type objectRef struct {
	ID, Type string
	Object   json.RawMessage // the object of an embedded activity (Undo{Follow})
}

func (o *objectRef) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &o.ID)
	}
	var v struct {
		ID     string          `json:"id"`
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	err := json.Unmarshal(b, &v)
	o.ID, o.Type, o.Object = v.ID, v.Type, v.Object
	return err
}

// Inbox verifies and handles one request to the inbox. Refusals of the signature wrap
// ErrSignature (401); an activity the site does not act on is accepted and ignored.
func (s *Service) Inbox(ctx context.Context, r *http.Request, body []byte) error {
	signer, err := s.Verify(ctx, r, body)
	var act incoming
	if jerr := json.Unmarshal(body, &act); jerr != nil {
		if err != nil {
			return err
		}
		return folio.BadRequest("body", "must be an ActivityStreams activity (JSON)")
	}
	if errors.Is(err, errGone) {
		// A deleted actor's key can no longer be fetched: its server answers 410 for it, which is
		// proof enough to drop its follow — and nothing else is done for it.
		if act.Type == "Delete" {
			_, derr := s.Store.RemoveFollower(ctx, act.Actor)
			return derr
		}
		return refuse("the signer is gone")
	}
	if err != nil {
		return err
	}
	if act.Actor != signer {
		return refuse("the activity's actor is not the key's owner")
	}
	if blocked, err := s.Blocked(ctx, act.Actor); err != nil || blocked {
		if err == nil {
			err = folio.Errorf(folio.EFORBIDDEN, "The site does not take activities from %s.", act.Actor)
		}
		return err
	}
	var obj objectRef
	if len(act.Object) > 0 {
		if err := json.Unmarshal(act.Object, &obj); err != nil {
			return folio.BadRequest("object", "is malformed")
		}
	}
	switch act.Type {
	case "Follow":
		return s.follow(ctx, act, obj)
	case "Undo":
		switch obj.Type {
		case "Follow":
			_, err := s.Store.RemoveFollower(ctx, act.Actor)
			return err
		case "Like":
			return s.Store.RemoveReaction(ctx, folio.ReactionLike, act.Actor)
		case "Announce":
			return s.Store.RemoveReaction(ctx, folio.ReactionAnnounce, act.Actor)
		}
	case "Like", "Announce":
		p, err := s.postOf(ctx, obj.ID)
		if err != nil || p == nil {
			return err
		}
		kind := folio.ReactionLike
		if act.Type == "Announce" {
			kind = folio.ReactionAnnounce
		}
		return s.Store.AddReaction(ctx, p.ID, kind, act.Actor, s.now())
	case "Create", "Update":
		if obj.Type == "Note" {
			return s.reply(ctx, act, obj)
		}
	case "Delete":
		if obj.ID == act.Actor {
			_, err := s.Store.RemoveFollower(ctx, act.Actor)
			return err
		}
		return s.deleteReply(ctx, act.Actor, obj.ID)
	}
	return nil
}

// deleteReply removes the comment of a Note its author deleted (Mastodon sends Delete of a
// Tombstone). Only a Note on the signer's own server is taken, and only its author's.
func (s *Service) deleteReply(ctx context.Context, actor, noteID string) error {
	a, err1 := url.Parse(actor)
	n, err2 := url.Parse(noteID)
	if err1 != nil || err2 != nil || n.Host == "" || !strings.EqualFold(a.Host, n.Host) {
		return nil
	}
	_, err := s.Store.DeleteComment(ctx, folio.CommentActivityPub, noteID, actor)
	return err
}

// follow stores a follow of the site and queues its Accept to the follower's inbox.
func (s *Service) follow(ctx context.Context, act incoming, obj objectRef) error {
	if obj.ID != s.ActorID() {
		return folio.BadRequest("object", "must be this site's actor, %s", s.ActorID())
	}
	var who remoteActor
	if err := s.fetch(ctx, act.Actor, &who); err != nil || who.Inbox == "" {
		return folio.Errorf(folio.EUPSTREAM, "The follower's actor document could not be read.")
	}
	if err := s.Store.AddFollower(ctx, folio.Follower{ActorID: act.Actor, Inbox: who.Inbox,
		SharedInbox: who.Endpoints.SharedInbox, CreatedAt: s.now()}); err != nil {
		return err
	}
	accept := Activity{Context: ActivityStreams, ID: s.ActorID() + "#accepts/" + folio.NewID(), Type: "Accept",
		Actor: s.ActorID(), Object: json.RawMessage(mustJSON(act))}
	return s.queue(ctx, "accept:"+act.Actor+":"+act.ID, who.Inbox, accept)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only values built here, which always marshal
	}
	return b
}

// postOf is the published post a URL of ours names (its public URL or its Article id), or nil.
func (s *Service) postOf(ctx context.Context, u string) (*folio.Post, error) {
	var p *folio.Post
	var err error
	site := s.siteURL()
	if slug, ok := strings.CutPrefix(u, site+"/blog/"); ok && slug != "" && !strings.Contains(slug, "/") {
		p, err = s.Posts.PostBySlug(ctx, slug)
	} else if id, ok := strings.CutPrefix(u, site+"/ap/posts/"); ok && id != "" {
		p, err = s.Posts.Post(ctx, id)
	} else {
		return nil, nil
	}
	if folio.IsNotFound(err) || (err == nil && p.Status != folio.PostPublished) {
		return nil, nil
	}
	return p, err
}

// note is what a reply keeps of a Note.
type note struct {
	ID           string    `json:"id"`
	InReplyTo    string    `json:"inReplyTo"`
	AttributedTo string    `json:"attributedTo"`
	Content      string    `json:"content"`
	URL          any       `json:"url"`
	Published    time.Time `json:"published"`
}

// reply stores a Note in reply to one of our posts as a pending comment (an edited one, sent
// as Update, replaces its text). A Note replying to anything else is ignored.
func (s *Service) reply(ctx context.Context, act incoming, obj objectRef) error {
	var n note
	if err := json.Unmarshal(act.Object, &n); err != nil {
		return folio.BadRequest("object", "is not a valid Note")
	}
	if n.AttributedTo != "" && n.AttributedTo != act.Actor {
		return refuse("the Note is not the signer's")
	}
	p, err := s.postOf(ctx, n.InReplyTo)
	if err != nil || p == nil {
		return err
	}
	var who remoteActor
	if err := s.fetch(ctx, act.Actor, &who); err != nil {
		return folio.Errorf(folio.EUPSTREAM, "The author's actor document could not be read.")
	}
	name := who.Name
	if name == "" {
		name = who.PreferredUsername
	}
	authorURL, _ := who.URL.(string)
	if authorURL == "" {
		authorURL = act.Actor
	}
	noteURL, _ := n.URL.(string)
	if noteURL == "" {
		noteURL = n.ID
	}
	now := s.now()
	published := n.Published
	if published.IsZero() {
		published = now
	}
	return s.Store.SaveComment(ctx, folio.Comment{ID: folio.NewID(), PostID: p.ID, Source: folio.CommentActivityPub, SourceID: obj.ID,
		AuthorName: name, AuthorURL: authorURL, Content: s.md.Sanitize(n.Content), URL: noteURL, Status: folio.CommentPending,
		PublishedAt: published.UTC(), CreatedAt: now, AuthorID: act.Actor})
}

// Blocked reports whether the owner blocked an actor, or its domain.
func (s *Service) Blocked(ctx context.Context, actorID string) (bool, error) {
	targets := []string{actorID}
	if u, err := url.Parse(actorID); err == nil && u.Hostname() != "" {
		targets = append(targets, strings.ToLower(u.Hostname()))
	}
	return s.Store.Blocked(ctx, targets...)
}

// BlockInput blocks an actor or a whole domain (one of them).
type BlockInput struct {
	Actor  string `json:"actor,omitempty" doc:"an actor id (https://…)"`
	Domain string `json:"domain,omitempty" doc:"a host name: every actor on it"`
}

// Block blocks an actor or a domain: its follows end, its activities are refused (403) and its
// Webmentions ignored.
func (s *Service) Block(ctx context.Context, in BlockInput) (folio.Block, error) {
	target := ""
	switch {
	case (in.Actor == "") == (in.Domain == ""):
		return folio.Block{}, folio.BadRequest("actor", "give an actor or a domain, not both")
	case in.Actor != "":
		u, err := url.Parse(in.Actor)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return folio.Block{}, folio.BadRequest("actor", "must be an actor's http(s) id")
		}
		target = in.Actor
	default:
		d := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(in.Domain), "."))
		if d == "" || strings.ContainsAny(d, "/:@ ") {
			return folio.Block{}, folio.BadRequest("domain", "must be a host name, like mastodon.example")
		}
		target = d
	}
	b := folio.Block{Target: target, CreatedAt: s.now().UTC()}
	return b, s.Store.Block(ctx, b)
}
