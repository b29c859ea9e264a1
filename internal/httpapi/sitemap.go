package httpapi

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// The sitemap protocol (https://www.sitemaps.org/protocol.html) allows at most 50,000 URLs and
// 50 MiB (52,428,800 bytes, uncompressed) in one file; beyond that a sitemap index lists the
// files, and an index holds at most 50,000 of them.
const (
	sitemapProtocolURLs  = 50_000
	sitemapProtocolBytes = 52_428_800
	// sitemapMinBytes is the least size a file is split at, whatever the cache's bound: a file
	// holds a useful number of URLs even under a tiny FOLIO_PUBLIC_CACHE_BYTES.
	sitemapMinBytes = 64 << 10
	// scopeSitemap is the response cache scope of /sitemap.xml. The sitemap lists posts and
	// projects, so Invalidate drops it whenever either of those scopes changes.
	scopeSitemap = "sitemap"
	sitemapPath  = "/sitemap.xml"
)

const (
	sitemapHead      = xml.Header + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n"
	sitemapTail      = "</urlset>\n"
	sitemapIndexHead = xml.Header + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n"
	sitemapIndexTail = "</sitemapindex>\n"
)

var sitemapPageParam = param{Name: "page", Type: "integer",
	Doc: "file N (from 1) of a sitemap split by an index; written plainly (no sign, no leading zeros)"}

// SitemapSource is what the sitemap reads: one linear scan per kind (the content store). Tests
// wrap it to count the scans.
type SitemapSource interface {
	EachPublishedPost(ctx context.Context, fn func(slug string, updated time.Time) error) error
	EachPublishedProject(ctx context.Context, fn func(id string, updated time.Time) error) error
}

// sitemapRoute is the row GET /sitemap.xml is served by: outside /api (so not in the route
// table nor the OpenAPI document), public, and cached in the response cache like any public GET.
func (s *Server) sitemapRoute() route {
	return route{Method: "GET", Pattern: sitemapPath, Handle: s.sitemap, Cache: scopeSitemap, Query: []param{sitemapPageParam}}
}

// sitemapLimits are the URLs and bytes at which a sitemap file is split: the protocol's, the
// URLs lowered by SitemapFileURLs, the bytes lowered so that each file fits an entry of the
// response cache (a file too large to keep would be rendered again on every request).
func (s *Server) sitemapLimits() (urls, size int) {
	urls = sitemapProtocolURLs
	if s.SitemapFileURLs > 0 && s.SitemapFileURLs < urls {
		urls = s.SitemapFileURLs
	}
	size = sitemapProtocolBytes
	if s.cacheable(s.sitemapRoute()) {
		// The longest key of a sitemap file: the path and ?page= with a large number.
		if b := s.cache.EntryBodyLimit(len(sitemapPath) + len("?page=") + 20); b < int64(size) {
			size = max(int(b), sitemapMinBytes)
		}
	}
	return urls, size
}

// sitemapFile is one file of a sitemap as the scan lays it out.
type sitemapFile struct {
	urls, size int
	modified   time.Time
}

// errSitemapDone ends the scan once the file asked for is complete and nothing after it counts.
var errSitemapDone = errors.New("sitemap: done")

// sitemapScan lays out the sitemap's URLs in files of at most maxURLs URLs and maxBytes bytes,
// in one pass over the published posts and projects, and renders the URLs of file want (from 1;
// 0 renders none) into out. The home, blog and projects pages come first, then the posts (oldest
// publication first), then the projects (oldest first), so new items land in the last file and
// the earlier files stay as they were. With all false the scan ends at the end of file want.
type sitemapScan struct {
	maxURLs, maxBytes int
	want              int
	all               bool
	out               *bytes.Buffer
	files             []sitemapFile
	entry             []byte // the URL being laid out, reused
}

// add lays out one URL: loc is prefix (already XML-escaped) and key path-escaped; a zero t has no
// lastmod.
func (sc *sitemapScan) add(prefix, key string, t time.Time) error {
	e := append(sc.entry[:0], "<url><loc>"...)
	e = append(e, prefix...)
	e = appendXMLText(e, url.PathEscape(key))
	e = append(e, "</loc>"...)
	if !t.IsZero() {
		e = append(e, "<lastmod>"...)
		e = t.UTC().AppendFormat(e, time.RFC3339)
		e = append(e, "</lastmod>"...)
	}
	e = append(e, "</url>\n"...)
	sc.entry = e
	n := len(sc.files)
	if n == 0 || sc.files[n-1].urls >= sc.maxURLs ||
		sc.files[n-1].urls > 0 && len(sitemapHead)+sc.files[n-1].size+len(e)+len(sitemapTail) > sc.maxBytes {
		if n == sc.want && !sc.all {
			return errSitemapDone
		}
		sc.files = append(sc.files, sitemapFile{})
		n++
	}
	f := &sc.files[n-1]
	f.urls++
	f.size += len(e)
	if t.After(f.modified) {
		f.modified = t
	}
	if n == sc.want {
		sc.out.Write(e)
	}
	return nil
}

// run scans the store once per kind (each one query) and lays every URL out.
func (sc *sitemapScan) run(ctx context.Context, store SitemapSource, site string) error {
	home := appendXMLText(nil, site)
	for _, p := range []string{"/", sitePostPath[:len(sitePostPath)-1], siteProjectPath[:len(siteProjectPath)-1]} {
		if err := sc.add(string(home)+p, "", time.Time{}); err != nil {
			return err
		}
	}
	posts := string(home) + sitePostPath
	if err := store.EachPublishedPost(ctx, func(slug string, t time.Time) error { return sc.add(posts, slug, t) }); err != nil {
		return err
	}
	projects := string(home) + siteProjectPath
	return store.EachPublishedProject(ctx, func(id string, t time.Time) error { return sc.add(projects, id, t) })
}

// sitemapLayout remembers how many files the sitemap had at a generation of its cache scope, so
// a request for a file past the end is answered without a scan while nothing changed.
type sitemapLayout struct {
	gen   uint64
	files int
}

// sitemap serves /sitemap.xml: the site's home, blog and projects pages, then every published
// post and project with its last modification, in one linear scan of each. Up to the limits of
// one file (sitemapLimits) it is that file; beyond them /sitemap.xml is a sitemap index of
// /sitemap.xml?page=1…N, each file holding the next URLs. ?page=1 is the whole sitemap when it
// fits one file; a page past the end is 404, a page not written plainly 400. Every file is
// cached in the response cache until a post or project changes.
func (s *Server) sitemap(w http.ResponseWriter, r *http.Request) error {
	want, explicit := 1, false
	if q := r.URL.Query(); q.Has("page") {
		v := q.Get("page")
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || strconv.Itoa(n) != v {
			// Only one spelling of each page, so spellings cannot mint cache entries (renders).
			return folio.BadRequest("page", "must be a whole number of at least 1, without sign or leading zeros")
		}
		want, explicit = n, true
	}
	var gen uint64
	cached := s.cacheable(s.sitemapRoute())
	if cached {
		gen = s.cache.Generation(scopeSitemap).Load()
		if l := s.sitemapLayout.Load(); l != nil && l.gen == gen && want > max(l.files, 1) {
			return sitemapPageNotFound(want)
		}
	}
	urls, size := s.sitemapLimits()
	var body bytes.Buffer
	body.WriteString(sitemapHead)
	sc := &sitemapScan{maxURLs: urls, maxBytes: size, want: want, all: !explicit, out: &body}
	err := sc.run(r.Context(), s.Sitemap, s.siteURL())
	if err != nil && !errors.Is(err, errSitemapDone) {
		return err
	}
	if err == nil && cached { // the scan saw every URL
		s.sitemapLayout.Store(&sitemapLayout{gen: gen, files: len(sc.files)})
	}
	if want > len(sc.files) {
		return sitemapPageNotFound(want)
	}
	if !explicit && len(sc.files) > 1 {
		return s.serveSitemapIndex(w, r, sc.files)
	}
	body.WriteString(sitemapTail)
	serveBytes(w, r, "sitemap.xml", "application/xml; charset=utf-8", lastModified(sc.files[want-1].modified), body.Bytes())
	return nil
}

func sitemapPageNotFound(page int) error {
	return folio.Errorf(folio.ENOTFOUND, "The sitemap has no page %d.", page)
}

// serveSitemapIndex serves the sitemap index of files: one <sitemap> per file, its lastmod the
// newest change among its URLs.
func (s *Server) serveSitemapIndex(w http.ResponseWriter, r *http.Request, files []sitemapFile) error {
	if len(files) > sitemapProtocolURLs {
		files = files[:sitemapProtocolURLs] // 2.5 billion URLs: more than any folio holds
	}
	loc := string(appendXMLText(nil, s.siteURL())) + sitemapPath + "?page="
	b := make([]byte, 0, len(sitemapIndexHead)+len(files)*(len(loc)+80)+len(sitemapIndexTail))
	b = append(b, sitemapIndexHead...)
	var modified time.Time
	for i, f := range files {
		b = append(b, "<sitemap><loc>"...)
		b = append(b, loc...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, "</loc>"...)
		if !f.modified.IsZero() {
			b = append(b, "<lastmod>"...)
			b = f.modified.UTC().AppendFormat(b, time.RFC3339)
			b = append(b, "</lastmod>"...)
		}
		b = append(b, "</sitemap>\n"...)
		if f.modified.After(modified) {
			modified = f.modified
		}
	}
	b = append(b, sitemapIndexTail...)
	serveBytes(w, r, "sitemap.xml", "application/xml; charset=utf-8", lastModified(modified), b)
	return nil
}

// lastModified is t, or the epoch for a document without dated content.
func lastModified(t time.Time) time.Time {
	if t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return t
}

// appendXMLText appends s escaped as XML character data (the sitemap protocol asks for the five
// entities); text without a character to escape, which is nearly every URL, is copied as is.
func appendXMLText(b []byte, s string) []byte {
	if !strings.ContainsAny(s, "&<>'\"\t\n\r") && isPrintableASCII(s) {
		return append(b, s...)
	}
	var buf bytes.Buffer
	_ = xml.EscapeText(&buf, []byte(s))
	return append(b, buf.Bytes()...)
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// sitemapScopes are the data scopes the sitemap is made of: a change to any drops its files.
var sitemapScopes = [...]string{folio.ScopePosts, folio.ScopeProjects}
