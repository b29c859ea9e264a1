// Package webmention receives and sends Webmentions (W3C Recommendation, docs/api.md,
// "Webmention"): a received one is checked asynchronously — the source is fetched and must link
// to the target — and becomes a pending comment with the author and content of its h-entry; a
// published post notifies the pages it links to.
package webmention

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/markdown"
)

// Bounds of a fetch (a source, a linked page) and of a post's outgoing Webmentions.
const (
	FetchTimeout = 10 * time.Second
	maxFetchSize = 1 << 20
	maxSendLinks = 20
)

// Store is what Webmention needs of storage.
type Store interface {
	jobs.Enqueuer
	SaveComment(ctx context.Context, c folio.Comment) error
	// Blocked reports whether any of targets (hosts here) is blocked by the owner.
	Blocked(ctx context.Context, targets ...string) (bool, error)
}

// Posts reads the posts mentioned and sending.
type Posts interface {
	Post(ctx context.Context, id string) (*folio.Post, error)
	PostBySlug(ctx context.Context, slug string) (*folio.Post, error)
}

// Service receives and sends Webmentions for the site at SiteURL.
type Service struct {
	Store   Store
	Posts   Posts
	SiteURL string
	// Site reads site.url from the owner's settings at each use (nil or empty: SiteURL).
	Site func() folio.SiteSettings
	// Client fetches sources and linked pages and posts to endpoints (netguard, bounded).
	Client *http.Client
	Now    func() time.Time
	Log    *slog.Logger
	md     *markdown.Renderer
}

// New returns the service.
func New(store Store, posts Posts, siteURL string, client *http.Client, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{Store: store, Posts: posts, SiteURL: strings.TrimRight(siteURL, "/"), Client: client, Now: time.Now, Log: log,
		md: markdown.New()}
}

type verifyPayload struct {
	Source string `json:"source"`
	Target string `json:"target"`
	PostID string `json:"postId"`
}

// Receive checks a Webmention's form and queues its verification. The target must be a
// published post's public URL (<site>/blog/<slug>); the source an http(s) URL other than it.
func (s *Service) Receive(ctx context.Context, source, target string) error {
	if source == "" {
		return folio.BadRequest("source", "is required")
	}
	if target == "" {
		return folio.BadRequest("target", "is required")
	}
	su, err := url.Parse(source)
	if err != nil || (su.Scheme != "http" && su.Scheme != "https") || su.Host == "" {
		return folio.BadRequest("source", "must be an http(s) URL")
	}
	if source == target {
		return folio.BadRequest("source", "must differ from target")
	}
	site := s.siteURL()
	slug, ok := strings.CutPrefix(target, site+"/blog/")
	if !ok || slug == "" || strings.ContainsAny(slug, "/?#") {
		return folio.BadRequest("target", "must be a post of this site: %s/blog/<slug>", site)
	}
	p, err := s.Posts.PostBySlug(ctx, slug)
	if folio.IsNotFound(err) || (err == nil && (p.Status != folio.PostPublished || p.Slug != slug)) {
		return folio.BadRequest("target", "is not a published post of this site")
	}
	if err != nil {
		return err
	}
	pl, _ := json.Marshal(verifyPayload{Source: source, Target: target, PostID: p.ID})
	return s.Store.EnqueueJob(ctx, folio.JobWebmentionVerify, folio.JobWebmentionVerify+":"+source+" "+target, string(pl), s.now())
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

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// fetch GETs u, bounded; it returns the final URL (after redirects), the headers and the body.
func (s *Service) fetch(ctx context.Context, u string) (*url.URL, http.Header, []byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	req.Header.Set("Accept", "text/html, */*;q=0.5")
	req.Header.Set("User-Agent", "folio-webmention/"+folio.Version)
	res, err := s.Client.Do(req)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxFetchSize))
	return res.Request.URL, res.Header, b, res.StatusCode, err
}

// Verify is the jobs.Handler of folio.JobWebmentionVerify: the source must link to the target; then the
// Webmention is stored as a pending comment (again: its text is updated, its status kept).
func (s *Service) Verify(ctx context.Context, j folio.Job) error {
	var pl verifyPayload
	if err := json.Unmarshal([]byte(j.Payload), &pl); err != nil || pl.Source == "" {
		return jobs.Permanent(errors.New("webmention: bad verify payload"))
	}
	if su, err := url.Parse(pl.Source); err == nil {
		if blocked, err := s.Store.Blocked(ctx, strings.ToLower(su.Hostname())); err != nil || blocked {
			return err // a blocked domain's Webmention is dropped
		}
	}
	final, _, body, status, err := s.fetch(ctx, pl.Source)
	if err != nil {
		return err // retried
	}
	if status < 200 || status > 299 {
		return jobs.Permanent(fmt.Errorf("webmention: the source answered %d", status))
	}
	doc, err := parseHTML(body)
	if err != nil || !linksTo(doc, final, pl.Target) {
		s.Log.Info("webmention refused: the source does not link to the target", "source", pl.Source)
		return nil
	}
	e := entryOf(doc, final)
	now := s.now()
	if e.published.IsZero() {
		e.published = now
	}
	if e.url == "" {
		e.url = pl.Source
	}
	// The spam rule knows a Webmention's author by the h-card's URL, else by the source's host.
	author := e.authorURL
	if author == "" {
		author = strings.ToLower(final.Hostname())
	}
	return s.Store.SaveComment(ctx, folio.Comment{ID: folio.NewID(), PostID: pl.PostID, Source: folio.CommentWebmention,
		SourceID: pl.Source, AuthorName: e.authorName, AuthorURL: e.authorURL, Content: s.md.Sanitize(e.content), URL: e.url,
		Status: folio.CommentPending, PublishedAt: e.published.UTC(), CreatedAt: now, AuthorID: author})
}

// Discover fetches target and returns its Webmention endpoint ("" when it has none).
func Discover(ctx context.Context, client *http.Client, target string) (string, error) {
	s := &Service{Client: client}
	final, h, body, status, err := s.fetch(ctx, target)
	if err != nil {
		return "", err
	}
	if status < 200 || status > 299 {
		return "", fmt.Errorf("webmention: %s answered %d", target, status)
	}
	return Endpoint(final, h, strings.NewReader(string(body))), nil
}

// Send is the jobs.Handler of folio.JobWebmentionSend: each http(s) link of a published post's content (at most
// maxSendLinks, our own excepted) whose page advertises an endpoint is notified. A failure at one
// link is logged and does not hold the others back.
func (s *Service) Send(ctx context.Context, j folio.Job) error {
	var pl folio.FediversePostPayload // the post event, as the fediverse gets it
	if err := json.Unmarshal([]byte(j.Payload), &pl); err != nil || pl.PostID == "" {
		return jobs.Permanent(errors.New("webmention: bad send payload"))
	}
	p, err := s.Posts.Post(ctx, pl.PostID)
	if folio.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.Status != folio.PostPublished {
		return nil
	}
	site := s.siteURL()
	source := site + "/blog/" + p.Slug
	doc, err := parseHTML([]byte(s.md.Render(p.Content)))
	if err != nil {
		return jobs.Permanent(err)
	}
	base, _ := url.Parse(source)
	for i, target := range outgoingLinks(doc, base) {
		if i == maxSendLinks {
			break
		}
		if strings.HasPrefix(target, site+"/") {
			continue
		}
		if err := s.sendOne(ctx, source, target); err != nil {
			s.Log.Info("webmention not sent", "target", target, "error", err.Error())
		}
	}
	return nil
}

func (s *Service) sendOne(ctx context.Context, source, target string) error {
	endpoint, err := Discover(ctx, s.Client, target)
	if err != nil || endpoint == "" {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	form := url.Values{"source": {source}, "target": {target}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", "folio-webmention/"+folio.Version)
	res, err := s.Client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("the endpoint answered %d", res.StatusCode)
	}
	return nil
}
