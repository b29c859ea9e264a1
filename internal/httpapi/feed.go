package httpapi

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/foliohq/folio"
)

// Public pages of the site the feed and the sitemap link to: SiteURL + these + slug or id. They
// match the front end's routes (and internal/publishing's canonical URLs).
const (
	sitePostPath    = "/blog/"
	siteProjectPath = "/projects/"
	feedPosts       = 20
)

type atomFeed struct {
	XMLName   xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Title     string      `xml:"title"`
	ID        string      `xml:"id"`
	Updated   string      `xml:"updated"`
	Links     []atomLink  `xml:"link"`
	Author    atomPerson  `xml:"author"`
	Generator string      `xml:"generator"`
	Entries   []atomEntry `xml:"entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomPerson struct {
	Name  string `xml:"name"`
	Email string `xml:"email,omitempty"`
}

type atomText struct {
	Type string `xml:"type,attr,omitempty"`
	Body string `xml:",chardata"`
}

type atomCategory struct {
	Term string `xml:"term,attr"`
}

type atomEntry struct {
	Title      string         `xml:"title"`
	ID         string         `xml:"id"`
	Updated    string         `xml:"updated"`
	Published  string         `xml:"published,omitempty"`
	Links      []atomLink     `xml:"link"`
	Author     atomPerson     `xml:"author"`
	Categories []atomCategory `xml:"category"`
	Summary    *atomText      `xml:"summary,omitempty"`
	Content    atomText       `xml:"content"`
}

// siteURL is the public site (site.url of the settings), for canonical links, feeds and the
// sitemap.
func (s *Server) siteURL() string {
	if s.Settings == nil {
		return "http://localhost:8080"
	}
	return strings.TrimRight(s.Settings.Current().Site.URL, "/")
}

// siteName names the site in the feeds: site.name of the settings, else the site's host.
func (s *Server) siteName() string {
	if s.Settings != nil && s.Settings.Current().Site.Name != "" {
		return s.Settings.Current().Site.Name
	}
	if u, err := url.Parse(s.siteURL()); err == nil && u.Host != "" {
		return u.Host
	}
	return "folio"
}

func atomTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// feedAPI serves the blog's feeds: Atom and JSON Feed.
type feedAPI struct{ *Server }

func (s feedAPI) routes() []route {
	return []route{
		{Method: "GET", Pattern: "/api/blog/feed.xml", Handle: s.blogFeed, Cache: scopePosts,
			Tag: "Blog", Summary: "Atom 1.0 feed of the 20 newest published posts (ETag/Last-Modified; 304 on a conditional GET)",
			Query:  []param{{Name: "tag", Type: "string", Doc: "only posts with this tag (case-insensitive): a per-tag feed"}},
			Status: http.StatusOK, RespType: "application/atom+xml"},
		{Method: "GET", Pattern: "/api/blog/feed.json", Handle: s.blogJSONFeed, Cache: scopePosts,
			Tag: "Blog", Summary: "JSON Feed 1.1 of the 20 newest published posts (ETag/Last-Modified; 304 on a conditional GET)",
			Query:  []param{{Name: "tag", Type: "string", Doc: "only posts with this tag (case-insensitive)"}},
			Status: http.StatusOK, RespType: "application/feed+json"},
	}
}

// blogFeed serves the Atom feed of the newest published posts, with content as sanitized HTML.
// Entry ids are urn:uuid: of the post id, so a slug change does not make readers see a new
// entry.
func (s feedAPI) blogFeed(w http.ResponseWriter, r *http.Request) error {
	tag, err := feedTag(r)
	if err != nil {
		return err
	}
	ps, err := s.feedPostsFor(r, tag)
	if err != nil {
		return err
	}
	site := s.siteURL()
	feed := atomFeed{
		Title:     "Blog — " + s.siteName(),
		ID:        site + strings.TrimSuffix(sitePostPath, "/"),
		Links:     []atomLink{{Rel: "self", Type: "application/atom+xml", Href: site + "/api/blog/feed.xml"}, {Rel: "alternate", Type: "text/html", Href: site + strings.TrimSuffix(sitePostPath, "/")}},
		Author:    atomPerson{Name: s.siteName()},
		Generator: "folio",
	}
	if tag != "" {
		// A per-tag feed is a feed of its own: its own id, title and self link.
		feed.Title += " — " + tag
		feed.ID += "?tag=" + url.QueryEscape(strings.ToLower(tag))
		feed.Links[0].Href += "?tag=" + url.QueryEscape(tag)
	}
	var modified time.Time
	for _, p := range ps {
		if p.UpdatedAt.After(modified) {
			modified = p.UpdatedAt
		}
		e := atomEntry{
			Title:   p.Title,
			ID:      "urn:uuid:" + p.ID,
			Updated: atomTime(p.UpdatedAt),
			Links:   []atomLink{{Rel: "alternate", Type: "text/html", Href: site + sitePostPath + url.PathEscape(p.Slug)}},
			Author:  atomPerson{Name: p.Author.Name},
			Content: atomText{Type: "html", Body: renderMarkdown(p.Content)},
		}
		if e.Author.Name == "" {
			e.Author.Name = s.siteName()
		}
		if p.PublishedAt != nil {
			e.Published = atomTime(*p.PublishedAt)
		}
		if p.Excerpt != "" {
			e.Summary = &atomText{Type: "text", Body: p.Excerpt}
		}
		if p.Category != "" {
			e.Categories = append(e.Categories, atomCategory{Term: p.Category})
		}
		for _, t := range p.Tags {
			e.Categories = append(e.Categories, atomCategory{Term: t})
		}
		feed.Entries = append(feed.Entries, e)
	}
	if modified.IsZero() {
		modified = time.Unix(0, 0).UTC()
	}
	feed.Updated = atomTime(modified)
	return serveXML(w, r, "feed.xml", "application/atom+xml; charset=utf-8", modified, feed)
}

// feedTag reads the optional tag parameter of the feeds.
func feedTag(r *http.Request) (string, error) {
	tag := strings.TrimSpace(r.URL.Query().Get("tag"))
	if utf8.RuneCountInString(tag) > folio.MaxPostTagLen {
		return "", folio.BadRequest("tag", "must be at most %d characters", folio.MaxPostTagLen)
	}
	return tag, nil
}

// feedPostsFor returns the newest published posts of the feeds, with the tag when one is given.
func (s feedAPI) feedPostsFor(r *http.Request, tag string) ([]*folio.Post, error) {
	ps, _, err := s.Content.Posts(r.Context(), folio.PostFilter{Statuses: []string{folio.PostPublished}, Tag: tag, Page: 1, Limit: feedPosts, WithContent: true})
	return ps, err
}

// JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/).
type jsonFeed struct {
	Version     string           `json:"version"`
	Title       string           `json:"title"`
	HomePageURL string           `json:"home_page_url,omitempty"`
	FeedURL     string           `json:"feed_url,omitempty"`
	Description string           `json:"description,omitempty"`
	Authors     []jsonFeedAuthor `json:"authors,omitempty"`
	Items       []jsonFeedItem   `json:"items"`
}

type jsonFeedAuthor struct {
	Name string `json:"name,omitempty"`
}

type jsonFeedItem struct {
	ID            string           `json:"id"`
	URL           string           `json:"url,omitempty"`
	Title         string           `json:"title,omitempty"`
	ContentHTML   string           `json:"content_html"`
	Summary       string           `json:"summary,omitempty"`
	DatePublished string           `json:"date_published,omitempty"`
	DateModified  string           `json:"date_modified,omitempty"`
	Authors       []jsonFeedAuthor `json:"authors,omitempty"`
	Tags          []string         `json:"tags,omitempty"`
}

const jsonFeedVersion = "https://jsonfeed.org/version/1.1"

func (s feedAPI) blogJSONFeed(w http.ResponseWriter, r *http.Request) error {
	tag, err := feedTag(r)
	if err != nil {
		return err
	}
	ps, err := s.feedPostsFor(r, tag)
	if err != nil {
		return err
	}
	site := s.siteURL()
	feed := jsonFeed{
		Version:     jsonFeedVersion,
		Title:       "Blog — " + s.siteName(),
		HomePageURL: site + strings.TrimSuffix(sitePostPath, "/"),
		FeedURL:     site + "/api/blog/feed.json",
		Authors:     []jsonFeedAuthor{{Name: s.siteName()}},
		Items:       []jsonFeedItem{},
	}
	if tag != "" {
		feed.Title += " — " + tag
		feed.FeedURL += "?tag=" + url.QueryEscape(tag)
	}
	var modified time.Time
	for _, p := range ps {
		if p.UpdatedAt.After(modified) {
			modified = p.UpdatedAt
		}
		it := jsonFeedItem{
			ID:           "urn:uuid:" + p.ID,
			URL:          site + sitePostPath + url.PathEscape(p.Slug),
			Title:        p.Title,
			ContentHTML:  renderMarkdown(p.Content),
			Summary:      p.Excerpt,
			DateModified: atomTime(p.UpdatedAt),
			Tags:         p.Tags,
		}
		if p.PublishedAt != nil {
			it.DatePublished = atomTime(*p.PublishedAt)
		}
		if p.Author.Name != "" {
			it.Authors = []jsonFeedAuthor{{Name: p.Author.Name}}
		}
		feed.Items = append(feed.Items, it)
	}
	if modified.IsZero() {
		modified = time.Unix(0, 0).UTC()
	}
	body, err := json.Marshal(feed)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/feed+json; charset=utf-8")
	h.Set("ETag", etagOf(body))
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "feed.json", modified, bytes.NewReader(body))
	return nil
}

// serveXML renders v and serves it with a strong ETag of the bytes and Last-Modified, answering
// If-None-Match and If-Modified-Since with 304 (http.ServeContent does the RFC 9110 precedence).
func serveXML(w http.ResponseWriter, r *http.Request, name, contentType string, modified time.Time, v any) error {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.WriteByte('\n')
	serveBytes(w, r, name, contentType, modified, buf.Bytes())
	return nil
}

// serveBytes serves body with a strong ETag of it and Last-Modified, answering conditional
// requests as serveXML does.
func serveBytes(w http.ResponseWriter, r *http.Request, name, contentType string, modified time.Time, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("ETag", etagOf(body))
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, modified, bytes.NewReader(body))
}
