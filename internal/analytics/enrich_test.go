package analytics

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseCampaign(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want Campaign
	}{
		{"/", Campaign{}},
		{"/blog?utm_source=hn", Campaign{Source: "hn"}},
		{"https://site.example/p?utm_source=Newsletter&utm_medium=Email&utm_campaign=Spring%20Launch", Campaign{"newsletter", "email", "Spring Launch"}},
		{"/p?UTM_Source=X&utm_source=second", Campaign{Source: "x"}},                            // keys fold case; the first value wins
		{"/p?utm_campaign=a+b&utm_medium=%zz", Campaign{Campaign: "a b"}},                       // a bad escape drops that value only
		{"/p#utm_source=frag", Campaign{}},                                                      // the fragment is not the query
		{"/p?utm_source=%20%20spaced%20%0A", Campaign{Source: "spaced"}},                        // trimmed, control characters dropped
		{"/p?utm_source=" + strings.Repeat("é", 80), Campaign{Source: strings.Repeat("é", 50)}}, // cut to 100 bytes on a rune boundary
		{"/p?ref=x&utm_term=y", Campaign{}},
	} {
		if got := ParseCampaign(tc.addr); got != tc.want {
			t.Errorf("ParseCampaign(%q) = %+v, want %+v", tc.addr, got, tc.want)
		}
	}
}

func TestSourceName(t *testing.T) {
	for _, tc := range []struct{ host, utm, want string }{
		{"github.com", "", "GitHub"},
		{"gist.github.com", "", "GitHub"},
		{"news.ycombinator.com", "", "Hacker News"},
		{"google.co.uk", "", "Google"},
		{"l.facebook.com", "", "Facebook"},
		{"t.co", "newsletter", "X (Twitter)"}, // the referrer wins over the tag
		{"co.uk", "", "co.uk"},
		{"blog.example.org", "", "blog.example.org"},
		{"", "newsletter", "newsletter"},
		{"", "", DirectSource},
	} {
		if got := SourceName(tc.host, tc.utm); got != tc.want {
			t.Errorf("SourceName(%q, %q) = %q, want %q", tc.host, tc.utm, got, tc.want)
		}
	}
}

func TestParseAgentAndCountry(t *testing.T) {
	for _, a := range bdAgents {
		got := ParseAgent(a.ua)
		want := Agent{Device: a.device, Browser: a.browser, BrowserVersion: a.browserVersion, OS: a.os, OSVersion: a.osVersion}
		if got != want {
			t.Errorf("ParseAgent(%q) = %+v, want %+v", a.ua, got, want)
		}
	}
	if got := ParseAgent(""); got.Device != DeviceDesktop || got.Browser != "Unknown" || got.OS != "Unknown" {
		t.Errorf("empty agent = %+v", got)
	}
	for _, a := range bdAddrs {
		if got := Country(a.ip); got != a.country {
			t.Errorf("Country(%q) = %q, want %q", a.ip, got, a.country)
		}
	}
	for _, ip := range []string{"", "not an ip", "127.0.0.1", "::1", "fe80::1", "192.168.1.1", "0.0.0.0"} {
		if got := Country(ip); got != UnknownCountry {
			t.Errorf("Country(%q) = %q, want ZZ", ip, got)
		}
	}
}

// FuzzParseCampaign: any address gives campaign values that are valid UTF-8, bounded, trimmed
// and free of control characters, and never panics.
func FuzzParseCampaign(f *testing.F) {
	for _, s := range []string{"/", "/p?utm_source=a&utm_medium=b&utm_campaign=c", "https://x.example/?UTM_SOURCE=%41%zz",
		"/p?utm_source=\x00\xff", "/?&&=&utm_campaign==", "/p#?utm_source=x", "?utm_source=" + strings.Repeat("%E2%82%AC", 60)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		c := ParseCampaign(addr)
		for _, v := range []string{c.Source, c.Medium, c.Campaign} {
			if !utf8.ValidString(v) || len(v) > maxUTMValue || strings.TrimSpace(v) != v {
				t.Fatalf("ParseCampaign(%q) gave %q", addr, v)
			}
			for _, r := range v {
				if r < 0x20 || r == 0x7f {
					t.Fatalf("ParseCampaign(%q) kept a control character: %q", addr, v)
				}
			}
		}
		if c.Source != strings.ToLower(c.Source) || c.Medium != strings.ToLower(c.Medium) {
			t.Fatalf("source and medium must be lower case: %+v", c)
		}
	})
}

// FuzzSourceName: for any referrer (reduced as ingest does) and tag, the source is never empty,
// is a known name or the host itself or the tag, and never panics.
func FuzzSourceName(f *testing.F) {
	for _, s := range []string{"https://github.com/x", "news.ycombinator.com", "https://a.b.c.d.google.co.uk/", ".", "..com", "https://t.co", "", "xn--bcher-kva.example"} {
		f.Add(s, "")
		f.Add(s, "newsletter")
	}
	known := map[string]bool{}
	for _, n := range referrerSources {
		known[n] = true
	}
	f.Fuzz(func(t *testing.T, referrer, utm string) {
		host := referrerDomain(referrer, "folio.example")
		utm = ParseCampaign("/?utm_source=" + utm).Source
		got := SourceName(host, utm)
		switch {
		case got == "":
			t.Fatalf("SourceName(%q, %q) is empty", host, utm)
		case host != "" && got != host && !known[got]:
			t.Fatalf("SourceName(%q, %q) = %q: neither a known source nor the host", host, utm, got)
		case host == "" && utm != "" && got != utm:
			t.Fatalf("SourceName(%q, %q) = %q, want the tag", host, utm, got)
		case host == "" && utm == "" && got != DirectSource:
			t.Fatalf("SourceName(no referrer, no tag) = %q", got)
		}
	})
}
