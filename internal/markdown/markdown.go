// Package markdown renders the Markdown of posts to HTML that is safe to embed in a page: it is
// rendered by goldmark (CommonMark + GitHub tables, strikethrough, autolinks and task lists)
// without raw HTML, then sanitized by a bluemonday allow-list, so no script, event handler,
// style, frame or javascript:/vbscript:/non-image data: URL survives whatever the author wrote.
package markdown

import (
	"bytes"
	"regexp"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

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
	p.AddTargetBlankToFullyQualifiedLinks(false)
	return &Renderer{md: md, policy: p}
}

// Sanitize returns html through the same allow-list as rendered Markdown (HTML from elsewhere:
// fediverse replies, Webmentions).
func (r *Renderer) Sanitize(html string) string { return r.policy.Sanitize(html) }

// Render returns the sanitized HTML of the Markdown src.
func (r *Renderer) Render(src string) string {
	var buf bytes.Buffer
	if err := r.md.Convert([]byte(src), &buf); err != nil {
		// goldmark only fails when the writer fails; a bytes.Buffer does not. Show the text
		// escaped rather than nothing.
		return r.policy.Sanitize("<pre>" + bluemonday.StrictPolicy().Sanitize(src) + "</pre>")
	}
	return r.policy.SanitizeReader(&buf).String()
}
