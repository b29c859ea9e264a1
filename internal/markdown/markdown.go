// Package markdown renders the Markdown of posts to HTML that is safe to embed in a page: it is
// rendered by goldmark (CommonMark + GitHub tables, strikethrough, autolinks and task lists)
// without raw HTML, then sanitized by a bluemonday allow-list, so no script, event handler,
// style, frame or javascript:/vbscript:/non-image data: URL survives whatever the author wrote.
// Images the caller knows (the media library's uploads) are rendered responsive: srcset of their
// smaller copies, sizes, width and height (no layout shift) and lazy loading.
package markdown

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Image is what the caller knows of an image beyond its address: its size and its smaller
// copies (ascending width), for srcset.
type Image struct {
	Width, Height int
	Variants      []Variant
}

// Variant is one smaller copy of an image.
type Variant struct {
	Width int
	URL   string
}

// ImageSizes is the sizes attribute of responsive images: a post's column is at most 48rem wide.
const ImageSizes = "(min-width: 48rem) 48rem, 100vw"

// srcsetPattern is what a srcset the renderer writes looks like: http(s) or root-relative URLs
// without spaces or commas, each with a width.
var srcsetPattern = regexp.MustCompile(`^(?:(?:https?://|/)[^\s,]+ [0-9]+w)(?:, (?:https?://|/)[^\s,]+ [0-9]+w)*$`)

// Renderer converts Markdown to sanitized HTML. The zero value is not usable; call New. A
// Renderer is safe for concurrent use.
type Renderer struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
}

// New returns a Renderer.
func New() *Renderer {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
		// NB: goldmark omits raw HTML unless html.WithUnsafe is given; we keep that default and
		// sanitize anyway, because links and images carry author-controlled URLs.
	)
	p := bluemonday.UGCPolicy()
	// Fenced code keeps its language class for client-side highlighting.
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^language-[a-zA-Z0-9_+#-]{1,32}$`)).OnElements("code")
	// Task-list checkboxes render as disabled inputs.
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").OnElements("input")
	// Inline images may be data: URLs only for raster types whose base64 decodes (no SVG).
	p.AllowDataURIImages()
	// Responsive images: only what the renderer itself writes for a known image.
	p.AllowAttrs("srcset").Matching(srcsetPattern).OnElements("img")
	p.AllowAttrs("sizes").Matching(regexp.MustCompile(`^` + regexp.QuoteMeta(ImageSizes) + `$`)).OnElements("img")
	p.AllowAttrs("loading").Matching(regexp.MustCompile(`^lazy$`)).OnElements("img")
	p.AllowAttrs("decoding").Matching(regexp.MustCompile(`^async$`)).OnElements("img")
	p.AddTargetBlankToFullyQualifiedLinks(false)
	return &Renderer{md: md, policy: p}
}

// Sanitize returns html through the same allow-list as rendered Markdown (HTML from elsewhere:
// fediverse replies, Webmentions).
func (r *Renderer) Sanitize(html string) string { return r.policy.Sanitize(html) }

// Render returns the sanitized HTML of the Markdown src.
func (r *Renderer) Render(src string) string {
	return r.RenderWithImages(src, nil)
}

// RenderWithImages renders src like Render. images, when not nil, is called once with the
// address of every image in src; an image it answers for gets srcset (its copies and itself at
// their widths), sizes, width, height, loading=lazy and decoding=async.
func (r *Renderer) RenderWithImages(src string, images func(urls []string) map[string]Image) string {
	b := []byte(src)
	doc := r.md.Parser().Parse(text.NewReader(b))
	if images != nil {
		describeImages(doc, images)
	}
	var buf bytes.Buffer
	if err := r.md.Renderer().Render(&buf, b, doc); err != nil {
		// goldmark only fails when the writer fails; a bytes.Buffer does not. Show the text
		// escaped rather than nothing.
		return r.policy.Sanitize("<pre>" + bluemonday.StrictPolicy().Sanitize(src) + "</pre>")
	}
	return r.policy.SanitizeReader(&buf).String()
}

// describeImages sets the responsive attributes of the images images knows.
func describeImages(doc ast.Node, images func(urls []string) map[string]Image) {
	var nodes []*ast.Image
	seen := map[string]bool{}
	var urls []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if img, ok := n.(*ast.Image); ok && entering {
			nodes = append(nodes, img)
			if u := string(img.Destination); !seen[u] {
				seen[u] = true
				urls = append(urls, u)
			}
		}
		return ast.WalkContinue, nil
	})
	if len(urls) == 0 {
		return
	}
	known := images(urls)
	for _, n := range nodes {
		im, ok := known[string(n.Destination)]
		if !ok || im.Width <= 0 || im.Height <= 0 {
			continue
		}
		var set []string
		for _, v := range im.Variants {
			if v.Width > 0 && v.Width < im.Width && !strings.ContainsAny(v.URL, " ,") {
				set = append(set, fmt.Sprintf("%s %dw", v.URL, v.Width))
			}
		}
		if len(set) > 0 && !strings.ContainsAny(string(n.Destination), " ,") {
			set = append(set, fmt.Sprintf("%s %dw", n.Destination, im.Width))
			n.SetAttributeString("srcset", []byte(strings.Join(set, ", ")))
			n.SetAttributeString("sizes", []byte(ImageSizes))
		}
		n.SetAttributeString("width", []byte(fmt.Sprint(im.Width)))
		n.SetAttributeString("height", []byte(fmt.Sprint(im.Height)))
		n.SetAttributeString("loading", []byte("lazy"))
		n.SetAttributeString("decoding", []byte("async"))
	}
}
