package webmention

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Endpoint finds a page's Webmention endpoint as the Webmention spec (§3.1.2) says: the first
// HTTP Link header with rel="webmention", else the first <link> or <a> element with
// rel="webmention" in document order; relative URLs resolve against base, the page's URL after
// redirects; an empty href is the page itself. It returns "" when there is none.
func Endpoint(base *url.URL, h http.Header, body io.Reader) string {
	for _, v := range h.Values("Link") {
		for _, link := range splitLinks(v) {
			if target, ok := linkWithRel(link, "webmention"); ok {
				if u, err := base.Parse(target); err == nil {
					return u.String()
				}
			}
		}
	}
	if ct := h.Get("Content-Type"); ct != "" && !strings.Contains(ct, "html") {
		return ""
	}
	z := html.NewTokenizer(body)
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			t := z.Token()
			if t.DataAtom != atom.Link && t.DataAtom != atom.A {
				continue
			}
			href, hasHref, rel := "", false, ""
			for _, a := range t.Attr {
				switch a.Key {
				case "href":
					href, hasHref = a.Val, true
				case "rel":
					rel = a.Val
				}
			}
			if hasHref && hasRel(rel, "webmention") {
				if u, err := base.Parse(href); err == nil {
					return u.String()
				}
			}
		}
	}
}

func hasRel(rels, want string) bool {
	for _, r := range strings.Fields(rels) {
		if strings.EqualFold(r, want) {
			return true
		}
	}
	return false
}

// splitLinks splits a Link header value into its links at the commas between them (not those
// inside <…> or quotes).
func splitLinks(v string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '<':
			depth++
		case c == '>':
			depth--
		case c == ',' && depth == 0:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

// linkWithRel returns the target of one Link value (<target>; param=…) when its rel (quoted or
// not, possibly several space-separated values) includes want.
func linkWithRel(link, want string) (string, bool) {
	link = strings.TrimSpace(link)
	if !strings.HasPrefix(link, "<") {
		return "", false
	}
	end := strings.IndexByte(link, '>')
	if end < 0 {
		return "", false
	}
	target := link[1:end]
	for _, p := range strings.Split(link[end+1:], ";") {
		name, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(name), "rel") && hasRel(strings.Trim(strings.TrimSpace(val), `"`), want) {
			return target, true
		}
	}
	return "", false
}
