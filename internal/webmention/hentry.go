package webmention

import (
	"bytes"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func parseHTML(b []byte) (*html.Node, error) { return html.Parse(bytes.NewReader(b)) }

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	return hasRel(v, class) // a space-separated list, like rel
}

// walk calls fn on n and its descendants in document order until fn returns false.
func walk(n *html.Node, fn func(*html.Node) bool) bool {
	if !fn(n) {
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if !walk(c, fn) {
			return false
		}
	}
	return true
}

// find returns the first element under n (n included) with class.
func find(n *html.Node, class string) *html.Node {
	var out *html.Node
	walk(n, func(x *html.Node) bool {
		if x.Type == html.ElementNode && hasClass(x, class) {
			out = x
			return false
		}
		return true
	})
	return out
}

func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(x *html.Node) bool {
		if x.Type == html.TextNode {
			b.WriteString(x.Data)
		}
		return true
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

func innerHTML(n *html.Node) string {
	var b bytes.Buffer
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		_ = html.Render(&b, c)
	}
	return strings.TrimSpace(b.String())
}

func resolve(base *url.URL, ref string) string {
	u, err := base.Parse(strings.TrimSpace(ref))
	if err != nil {
		return ""
	}
	return u.String()
}

// linksTo reports whether the document links to target: an <a href>, or an image, video or
// audio source (the Webmention spec's examples of a link).
func linksTo(doc *html.Node, base *url.URL, target string) bool {
	found := false
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		key := ""
		switch n.DataAtom {
		case atom.A:
			key = "href"
		case atom.Img, atom.Video, atom.Audio, atom.Source:
			key = "src"
		default:
			return true
		}
		if v, ok := attr(n, key); ok && resolve(base, v) == target {
			found = true
			return false
		}
		return true
	})
	return found
}

// outgoingLinks lists the distinct http(s) <a href> targets of a document, in order.
func outgoingLinks(doc *html.Node, base *url.URL) []string {
	var out []string
	seen := map[string]bool{}
	walk(doc, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == atom.A {
			if v, ok := attr(n, "href"); ok {
				u := resolve(base, v)
				if (strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) && !seen[u] {
					seen[u] = true
					out = append(out, u)
				}
			}
		}
		return true
	})
	return out
}

// entry is what a comment keeps of a source's microformats2 h-entry.
type entry struct {
	authorName, authorURL, content, url string
	published                           time.Time
}

// entryOf reads the first h-entry of doc (author from its p-author h-card, content from
// e-content, else p-content, p-summary or p-name as text), or the page's title when it has none.
func entryOf(doc *html.Node, base *url.URL) entry {
	var e entry
	h := find(doc, "h-entry")
	if h == nil {
		if t := firstElement(doc, atom.Title); t != nil {
			e.content = html.EscapeString(text(t))
		}
		return e
	}
	if a := find(h, "p-author"); a != nil {
		e.authorName = text(a)
		if n := find(a, "p-name"); n != nil {
			e.authorName = text(n)
		}
		if u := find(a, "u-url"); u != nil {
			e.authorURL = hrefOf(u, base)
		} else if a.DataAtom == atom.A {
			e.authorURL = hrefOf(a, base)
		}
	}
	if c := find(h, "e-content"); c != nil {
		e.content = innerHTML(c)
	} else {
		for _, class := range []string{"p-content", "p-summary", "p-name"} {
			if c := find(h, class); c != nil {
				e.content = html.EscapeString(text(c))
				break
			}
		}
	}
	walk(h, func(n *html.Node) bool {
		if n.Type == html.ElementNode && hasClass(n, "u-url") && !inside(n, h, "p-author") {
			e.url = hrefOf(n, base)
			return false
		}
		return true
	})
	if d := find(h, "dt-published"); d != nil {
		v, ok := attr(d, "datetime")
		if !ok {
			v = text(d)
		}
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(v)); err == nil {
			e.published = t
		}
	}
	return e
}

func hrefOf(n *html.Node, base *url.URL) string {
	if v, ok := attr(n, "href"); ok {
		return resolve(base, v)
	}
	return ""
}

// inside reports whether n lies within an element with class below root.
func inside(n, root *html.Node, class string) bool {
	for p := n.Parent; p != nil && p != root; p = p.Parent {
		if hasClass(p, class) {
			return true
		}
	}
	return hasClass(n, class)
}

func firstElement(doc *html.Node, a atom.Atom) *html.Node {
	var out *html.Node
	walk(doc, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n.DataAtom == a {
			out = n
			return false
		}
		return true
	})
	return out
}
