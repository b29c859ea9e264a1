package newsletter

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"

	"github.com/foliohq/folio"
)

// Recipient is who a newsletter mail goes to: a subscriber, or the owner for a test or a
// preview (no token: the links then point at the site's subscribe page).
type Recipient struct {
	Name, Email string
	// UnsubscribeToken makes the unsubscribe and preferences links; "" for tests and previews.
	UnsubscribeToken string
}

// PreferencesPath is where a subscriber's preferences page is, under FOLIO_SITE_URL; the
// unsubscribe page links to it.
const PreferencesPath = "/subscribe/preferences/"

// mailStyles are the inline styles of the elements the Markdown renderer writes: mail clients
// drop <style> blocks, so each element carries its own. Colours are set on every block (text and
// background), so a client's dark mode inverts them together instead of leaving dark on dark.
var mailStyles = map[string]string{
	"p":          "margin:0 0 16px;line-height:1.6;color:#1f2328",
	"h1":         "font-size:26px;line-height:1.25;margin:24px 0 12px;color:#1f2328",
	"h2":         "font-size:22px;line-height:1.3;margin:24px 0 12px;color:#1f2328",
	"h3":         "font-size:18px;line-height:1.3;margin:20px 0 10px;color:#1f2328",
	"h4":         "font-size:16px;margin:16px 0 8px;color:#1f2328",
	"h5":         "font-size:15px;margin:16px 0 8px;color:#1f2328",
	"h6":         "font-size:14px;margin:16px 0 8px;color:#1f2328",
	"a":          "color:#0969da;text-decoration:underline",
	"img":        "max-width:100%;height:auto;border:0",
	"pre":        "background:#f6f8fa;color:#1f2328;padding:12px;border-radius:6px;overflow:auto;font-size:13px;line-height:1.45",
	"code":       "font-family:ui-monospace,Menlo,Consolas,monospace;font-size:90%",
	"blockquote": "margin:0 0 16px;padding:0 12px;border-left:4px solid #d0d7de;color:#57606a",
	"ul":         "margin:0 0 16px;padding-left:24px;color:#1f2328",
	"ol":         "margin:0 0 16px;padding-left:24px;color:#1f2328",
	"li":         "margin:4px 0;line-height:1.6",
	"table":      "border-collapse:collapse;margin:0 0 16px",
	"th":         "border:1px solid #d0d7de;padding:6px 12px;text-align:left",
	"td":         "border:1px solid #d0d7de;padding:6px 12px",
	"hr":         "border:0;border-top:1px solid #d0d7de;margin:24px 0",
}

// styledTag matches the opening tags mailStyles styles. The renderer's sanitizer lets no style
// attribute through, so adding one never doubles it.
var styledTag = regexp.MustCompile(`<(p|h[1-6]|a|img|pre|code|blockquote|ul|ol|li|table|th|td|hr)([\s>/])`)

// rootRelative matches src and href values that start at the site's root ("/media/…").
var rootRelative = regexp.MustCompile(`\b(src|href)="/([^/"][^"]*)?"`)

// mailHTML makes rendered post HTML fit for a mail: root-relative links and images absolute
// under site, each element with inline styles, and no srcset (mail clients fetch the src).
func mailHTML(rendered, site string) string {
	out := rootRelative.ReplaceAllString(rendered, `$1="`+html.EscapeString(site)+`/$2"`)
	out = srcsetAttr.ReplaceAllString(out, "")
	out = sizesAttr.ReplaceAllString(out, "")
	out = lazyAttr.ReplaceAllString(out, "")
	return styledTag.ReplaceAllStringFunc(out, func(m string) string {
		sub := styledTag.FindStringSubmatch(m)
		return "<" + sub[1] + ` style="` + mailStyles[sub[1]] + `"` + sub[2]
	})
}

var (
	srcsetAttr = regexp.MustCompile(`\s+srcset="[^"]*"`)
	sizesAttr  = regexp.MustCompile(`\s+sizes="[^"]*"`)
	lazyAttr   = regexp.MustCompile(`\s+loading="lazy"`)
)

// markdownRelative matches Markdown link and image targets that start at the site's root.
var markdownRelative = regexp.MustCompile(`\]\(/([^/)][^)]*)?\)`)

// mailText is the plain-text part of a post: its Markdown, which reads as text, with
// root-relative targets made absolute.
func mailText(md, site string) string {
	return markdownRelative.ReplaceAllString(md, "]("+site+"/$1)")
}

// postURL is the public address of a post.
func (s *Service) postURL(p *folio.Post) string { return s.siteURL() + "/blog/" + p.Slug }

// preferencesURL is the preferences page of r (the subscribe page when r has no token).
func (s *Service) preferencesURL(r Recipient) string {
	if r.UnsubscribeToken == "" {
		return s.siteURL() + "/subscribe"
	}
	return s.siteURL() + PreferencesPath + r.UnsubscribeToken
}

func (s *Service) recipientUnsubscribeURL(r Recipient) string {
	if r.UnsubscribeToken == "" {
		return s.siteURL() + "/subscribe"
	}
	return s.siteURL() + UnsubscribePath + r.UnsubscribeToken
}

// listHeadersFor is listHeaders for a Recipient (a test mail gets none: it goes to the owner).
func (s *Service) listHeadersFor(r Recipient) map[string]string {
	if r.UnsubscribeToken == "" {
		return map[string]string{}
	}
	return s.listHeaders(&folio.Subscriber{Email: r.Email, UnsubscribeToken: r.UnsubscribeToken})
}

// footer is the visible end of every newsletter mail: why it came, and the links to change that.
func (s *Service) footer(r Recipient) (htmlPart, textPart string) {
	site, unsub, prefs := s.siteName(), s.recipientUnsubscribeURL(r), s.preferencesURL(r)
	textPart = fmt.Sprintf("\n\n-- \nYou receive this because you subscribed to %s.\nChoose what you receive: %s\nUnsubscribe: %s\n", site, prefs, unsub)
	htmlPart = fmt.Sprintf(`<hr style="border:0;border-top:1px solid #d0d7de;margin:32px 0 16px">`+
		`<p style="margin:0;color:#57606a;font-size:13px;line-height:1.5">You receive this because you subscribed to %s. `+
		`<a href="%s" style="color:#57606a">Choose what you receive</a> · <a href="%s" style="color:#57606a">Unsubscribe</a></p>`,
		html.EscapeString(site), html.EscapeString(prefs), html.EscapeString(unsub))
	return htmlPart, textPart
}

// wrapHTML puts a mail's body in the page every newsletter mail shares.
func wrapHTML(title, body string) string {
	return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
		`<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark"><title>` + html.EscapeString(title) + `</title></head>` +
		`<body style="margin:0;padding:0;background:#ffffff;color:#1f2328">` +
		`<div style="max-width:640px;margin:0 auto;padding:24px 16px;background:#ffffff;color:#1f2328;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Helvetica,Arial,sans-serif;font-size:16px">` +
		body + `</div></body></html>`
}

// PostMail is the newsletter mail of post p to r: HTML and plain text from the site's Markdown
// renderer, List-Unsubscribe headers, a visible unsubscribe link, and a Message-ID that names
// the issue and the subscriber, so the rare resend after a crash (docs/api.md) is recognised as
// the same message by the receiving side.
func (s *Service) PostMail(p *folio.Post, r Recipient) *folio.MailMessage {
	site, link := s.siteURL(), s.postURL(p)
	fh, ft := s.footer(r)
	var body strings.Builder
	fmt.Fprintf(&body, `<h1 style="%s"><a href="%s" style="color:#1f2328;text-decoration:none">%s</a></h1>`, mailStyles["h1"], html.EscapeString(link), html.EscapeString(p.Title))
	body.WriteString(mailHTML(s.render(p.Content), site))
	fmt.Fprintf(&body, `<p style="%s"><a href="%s" style="%s">Read it on %s</a></p>`, mailStyles["p"], html.EscapeString(link), mailStyles["a"], html.EscapeString(s.siteName()))
	body.WriteString(fh)
	text := p.Title + "\n\n" + mailText(p.Content, site) + "\n\nRead it on the site: " + link + ft
	headers := s.listHeadersFor(r)
	headers["Precedence"] = "bulk"
	return &folio.MailMessage{
		To:      []folio.MailAddress{{Name: r.Name, Email: r.Email}},
		Subject: p.Title,
		Text:    text, HTML: wrapHTML(p.Title, body.String()), Headers: headers,
	}
}

// DigestMail is the weekly digest of posts to r.
func (s *Service) DigestMail(posts []*folio.Post, r Recipient) *folio.MailMessage {
	site := s.siteName()
	subject := "This week on " + site
	fh, ft := s.footer(r)
	var body, text strings.Builder
	fmt.Fprintf(&body, `<h1 style="%s">%s</h1>`, mailStyles["h1"], html.EscapeString(subject))
	text.WriteString(subject + "\n\n")
	for _, p := range posts {
		link := s.postURL(p)
		fmt.Fprintf(&body, `<h2 style="%s"><a href="%s" style="color:#1f2328">%s</a></h2><p style="%s">%s</p>`,
			mailStyles["h2"], html.EscapeString(link), html.EscapeString(p.Title), mailStyles["p"], html.EscapeString(p.Excerpt))
		fmt.Fprintf(&text, "%s\n%s\n%s\n\n", p.Title, p.Excerpt, link)
	}
	body.WriteString(fh)
	headers := s.listHeadersFor(r)
	headers["Precedence"] = "bulk"
	return &folio.MailMessage{
		To:      []folio.MailAddress{{Name: r.Name, Email: r.Email}},
		Subject: subject,
		Text:    strings.TrimRight(text.String(), "\n") + ft, HTML: wrapHTML(subject, body.String()), Headers: headers,
	}
}

// render is the site's Markdown renderer (Service.Markdown), or escaped text without one.
func (s *Service) render(md string) string {
	if s.Markdown != nil {
		return s.Markdown.Render(md)
	}
	return "<p>" + html.EscapeString(md) + "</p>"
}

// messageID names one mail of an issue to one subscriber.
func (s *Service) messageID(issue, subscriberID string) string {
	host := "folio.invalid"
	if u, err := url.Parse(s.siteURL()); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return "<newsletter." + strings.ReplaceAll(issue, ":", ".") + "." + subscriberID + "@" + host + ">"
}
