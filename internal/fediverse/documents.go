package fediverse

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// ActivityStreams is the JSON-LD context of every document.
const ActivityStreams = "https://www.w3.org/ns/activitystreams"

// publicAudience is the special collection that makes an activity public.
const publicAudience = ActivityStreams + "#Public"

// JRD is a WebFinger answer (RFC 7033).
type JRD struct {
	Subject string    `json:"subject"`
	Aliases []string  `json:"aliases,omitempty"`
	Links   []JRDLink `json:"links"`
}

// JRDLink is one link of a JRD.
type JRDLink struct {
	Rel  string `json:"rel"`
	Type string `json:"type,omitempty"`
	Href string `json:"href"`
}

// WebFinger answers resource (acct:NAME@HOST, or the actor's URL), or ENOTFOUND. host is the
// request's host: the site may be reached under it as well as under FOLIO_SITE_URL's.
func (s *Service) WebFinger(resource, host string) (JRD, error) {
	subject := ""
	if resource == s.ActorID() {
		subject = "acct:" + s.Name + "@" + s.siteHost()
	} else if acct, ok := strings.CutPrefix(resource, "acct:"); ok {
		name, h, _ := strings.Cut(acct, "@")
		if strings.EqualFold(name, s.Name) && (strings.EqualFold(h, s.siteHost()) || strings.EqualFold(h, host)) {
			subject = resource
		}
	}
	if subject == "" {
		return JRD{}, folio.Errorf(folio.ENOTFOUND, "No account %s here.", resource)
	}
	return JRD{Subject: subject, Aliases: []string{s.ActorID()}, Links: []JRDLink{
		{Rel: "self", Type: "application/activity+json", Href: s.ActorID()},
		{Rel: "http://webfinger.net/rel/profile-page", Type: "text/html", Href: s.siteURL()},
	}}, nil
}

func (s *Service) siteHost() string {
	u, err := url.Parse(s.siteURL())
	if err != nil {
		return ""
	}
	return u.Host
}

// Actor is the site's actor document.
type Actor struct {
	Context           []any     `json:"@context"`
	ID                string    `json:"id"`
	Type              string    `json:"type"`
	PreferredUsername string    `json:"preferredUsername"`
	Name              string    `json:"name"`
	Summary           string    `json:"summary,omitempty"`
	URL               string    `json:"url"`
	Inbox             string    `json:"inbox"`
	Outbox            string    `json:"outbox"`
	Followers         string    `json:"followers"`
	Icon              *Image    `json:"icon,omitempty"`
	Endpoints         Endpoints `json:"endpoints"`
	PublicKey         PublicKey `json:"publicKey"`
}

// Endpoints names the shared inbox.
type Endpoints struct {
	SharedInbox string `json:"sharedInbox"`
}

// PublicKey is an actor's key as Mastodon publishes it.
type PublicKey struct {
	ID           string `json:"id"`
	Owner        string `json:"owner"`
	PublicKeyPem string `json:"publicKeyPem"`
}

// Actor returns the site's actor document: its name and icon from the owner's settings.
func (s *Service) Actor() Actor {
	a := Actor{
		Context: []any{ActivityStreams, "https://w3id.org/security/v1"},
		ID:      s.ActorID(), Type: "Person", PreferredUsername: s.Name, Name: s.displayName(), URL: s.siteURL(),
		Inbox: s.inboxURL(), Outbox: s.outboxURL(), Followers: s.followersURL(),
		Endpoints: Endpoints{SharedInbox: s.inboxURL()},
		PublicKey: PublicKey{ID: s.KeyID(), Owner: s.ActorID(), PublicKeyPem: s.PublicPEM},
	}
	if icon := s.iconURL(); icon != "" {
		a.Icon = &Image{Type: "Image", URL: icon}
	}
	return a
}

// Image is an actor's icon.
type Image struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// Article is a post as an ActivityPub object.
type Article struct {
	ID           string    `json:"id"`
	Type         string    `json:"type"`
	AttributedTo string    `json:"attributedTo"`
	URL          string    `json:"url"`
	Name         string    `json:"name"`
	Summary      string    `json:"summary,omitempty"`
	Content      string    `json:"content"`
	Published    time.Time `json:"published"`
	Updated      time.Time `json:"updated"`
	To           []string  `json:"to"`
	Cc           []string  `json:"cc"`
	Tag          []Hashtag `json:"tag"`
}

// Hashtag is one of a post's tags.
type Hashtag struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// Activity is an activity the site sends or lists.
type Activity struct {
	Context   any        `json:"@context,omitempty"`
	ID        string     `json:"id"`
	Type      string     `json:"type"`
	Actor     string     `json:"actor"`
	Published *time.Time `json:"published,omitempty"`
	To        []string   `json:"to,omitempty"`
	Cc        []string   `json:"cc,omitempty"`
	Object    any        `json:"object"`
}

// Article returns post p as an Article.
func (s *Service) Article(p *folio.Post) Article {
	a := Article{ID: s.ObjectID(p.ID), Type: "Article", AttributedTo: s.ActorID(), URL: s.PostURL(p.Slug),
		Name: p.Title, Summary: p.Excerpt, Content: s.md.Render(p.Content), Updated: p.UpdatedAt.UTC(),
		To: []string{publicAudience}, Cc: []string{s.followersURL()}, Tag: []Hashtag{}}
	if p.PublishedAt != nil {
		a.Published = p.PublishedAt.UTC()
	}
	for _, t := range p.Tags {
		a.Tag = append(a.Tag, Hashtag{Type: "Hashtag", Name: "#" + t})
	}
	return a
}

// create wraps a post's Article in its Create activity.
func (s *Service) create(p *folio.Post) Activity {
	art := s.Article(p)
	return Activity{ID: art.ID + "/activity", Type: "Create", Actor: s.ActorID(), Published: &art.Published,
		To: art.To, Cc: art.Cc, Object: art}
}

// Collection is an OrderedCollection (the outbox, the followers).
type Collection struct {
	Context      string `json:"@context"`
	ID           string `json:"id"`
	Type         string `json:"type"`
	TotalItems   int    `json:"totalItems"`
	OrderedItems []any  `json:"orderedItems,omitempty"`
}

// outboxSize is how many of the newest posts the outbox lists.
const outboxSize = 50

// Outbox lists the newest published posts as Create activities.
func (s *Service) Outbox(ctx context.Context) (Collection, error) {
	ps, total, err := s.Posts.Posts(ctx, folio.PostFilter{Statuses: []string{folio.PostPublished}, Page: 1, Limit: outboxSize, WithContent: true})
	if err != nil {
		return Collection{}, err
	}
	c := Collection{Context: ActivityStreams, ID: s.outboxURL(), Type: "OrderedCollection", TotalItems: total, OrderedItems: []any{}}
	for _, p := range ps {
		c.OrderedItems = append(c.OrderedItems, s.create(p))
	}
	return c, nil
}

// PublishedArticle returns the Article of a published post, ENOTFOUND for any other.
func (s *Service) PublishedArticle(ctx context.Context, postID string) (Article, error) {
	p, err := s.Posts.Post(ctx, postID)
	if err != nil {
		return Article{}, err
	}
	if p.Status != folio.PostPublished {
		return Article{}, folio.Errorf(folio.ENOTFOUND, "No published post %s.", postID)
	}
	return s.Article(p), nil
}

// Followers is the followers collection: the count for anyone, the accounts for the owner.
func (s *Service) Followers(ctx context.Context, withItems bool) (Collection, error) {
	c := Collection{Context: ActivityStreams, ID: s.followersURL(), Type: "OrderedCollection"}
	if !withItems {
		n, err := s.Store.FollowerCount(ctx)
		c.TotalItems = n
		return c, err
	}
	fs, n, err := s.Store.Followers(ctx, 1, 1000)
	if err != nil {
		return c, err
	}
	c.TotalItems, c.OrderedItems = n, []any{}
	for _, f := range fs {
		c.OrderedItems = append(c.OrderedItems, f.ActorID)
	}
	return c, nil
}
