package analytics

import "strings"

// referrerSources names the referring sites a portfolio commonly sees. The names and the hosts
// follow the Snowplow referer-parser list (github.com/snowplow-referer-parser/referer-parser,
// resources/referers.yml, the list Plausible and Matomo also build on); this is the subset of it
// that matters here, plus the developer sites that list lacks (GitHub, Hacker News, dev.to,
// Lobsters, Hashnode). Keys are bare hosts (lower case, no "www."); a host matches its own key
// or the key of any parent domain ("m.facebook.com" → "facebook.com"). Keep it sorted by name.
var referrerSources = map[string]string{
	"baidu.com":            "Baidu",
	"bing.com":             "Bing",
	"cn.bing.com":          "Bing",
	"bsky.app":             "Bluesky",
	"daily.dev":            "daily.dev",
	"app.daily.dev":        "daily.dev",
	"dev.to":               "DEV",
	"discord.com":          "Discord",
	"discordapp.com":       "Discord",
	"duckduckgo.com":       "DuckDuckGo",
	"ecosia.org":           "Ecosia",
	"facebook.com":         "Facebook",
	"fb.com":               "Facebook",
	"l.facebook.com":       "Facebook",
	"lm.facebook.com":      "Facebook",
	"m.facebook.com":       "Facebook",
	"github.com":           "GitHub",
	"gitlab.com":           "GitLab",
	"google.com":           "Google",
	"google.co.uk":         "Google",
	"google.de":            "Google",
	"google.fr":            "Google",
	"google.es":            "Google",
	"google.it":            "Google",
	"google.ca":            "Google",
	"google.com.au":        "Google",
	"google.co.in":         "Google",
	"google.co.jp":         "Google",
	"google.com.br":        "Google",
	"google.nl":            "Google",
	"google.pl":            "Google",
	"news.google.com":      "Google News",
	"hashnode.com":         "Hashnode",
	"hashnode.dev":         "Hashnode",
	"news.ycombinator.com": "Hacker News",
	"hn.algolia.com":       "Hacker News",
	"instagram.com":        "Instagram",
	"l.instagram.com":      "Instagram",
	"kagi.com":             "Kagi",
	"linkedin.com":         "LinkedIn",
	"lnkd.in":              "LinkedIn",
	"lobste.rs":            "Lobsters",
	"mastodon.social":      "Mastodon",
	"mastodon.online":      "Mastodon",
	"fosstodon.org":        "Mastodon",
	"hachyderm.io":         "Mastodon",
	"medium.com":           "Medium",
	"naver.com":            "Naver",
	"pinterest.com":        "Pinterest",
	"producthunt.com":      "Product Hunt",
	"qwant.com":            "Qwant",
	"reddit.com":           "Reddit",
	"old.reddit.com":       "Reddit",
	"out.reddit.com":       "Reddit",
	"slack.com":            "Slack",
	"stackoverflow.com":    "Stack Overflow",
	"stackexchange.com":    "Stack Exchange",
	"startpage.com":        "Startpage",
	"t.co":                 "X (Twitter)",
	"twitter.com":          "X (Twitter)",
	"x.com":                "X (Twitter)",
	"t.me":                 "Telegram",
	"telegram.org":         "Telegram",
	"threads.net":          "Threads",
	"wikipedia.org":        "Wikipedia",
	"yahoo.com":            "Yahoo!",
	"search.yahoo.com":     "Yahoo!",
	"yandex.ru":            "Yandex",
	"yandex.com":           "Yandex",
	"youtube.com":          "YouTube",
	"m.youtube.com":        "YouTube",
	"youtu.be":             "YouTube",
	"chatgpt.com":          "ChatGPT",
	"chat.openai.com":      "ChatGPT",
	"perplexity.ai":        "Perplexity",
}

// DirectSource is the source of a visit that arrived with neither a referrer nor a campaign tag.
const DirectSource = "Direct / None"

// SourceName names the source of a visit: the known site behind its referrer host ("GitHub",
// "Google", "Hacker News"), else the referrer host itself, else the visit's utm_source, else
// DirectSource. host is already bare (lower case, no "www.", see referrerDomain).
func SourceName(host, utmSource string) string {
	if host != "" {
		for h := host; h != ""; {
			if name, ok := referrerSources[h]; ok {
				return name
			}
			_, rest, ok := strings.Cut(h, ".")
			if !ok || !strings.Contains(rest, ".") && len(rest) < 3 {
				// Stop before a bare public suffix ("co.uk" → "uk" is never a site).
				break
			}
			h = rest
		}
		return host
	}
	if utmSource != "" {
		return utmSource
	}
	return DirectSource
}
