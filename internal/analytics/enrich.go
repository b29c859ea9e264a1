package analytics

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mileusna/useragent"
	"github.com/phuslu/iploc"
)

// Device classes of the device dimension.
const (
	DeviceDesktop = "desktop"
	DeviceMobile  = "mobile"
	DeviceTablet  = "tablet"
)

// UnknownCountry is the country of an address the embedded data does not place (private,
// loopback, unallocated).
const UnknownCountry = "ZZ"

// maxUTMValue bounds a stored campaign value.
const maxUTMValue = 100

// Campaign is the utm_source, utm_medium and utm_campaign of a page address.
type Campaign struct{ Source, Medium, Campaign string }

// ParseCampaign reads the campaign tags of a page address (a path with a query, or an absolute
// URL): utm_source, utm_medium and utm_campaign, keys case-insensitive, the first of each kept,
// values trimmed, control characters dropped and cut to 100 bytes. utm_source and utm_medium are
// lower-cased (Plausible does the same: "Newsletter" and "newsletter" are one source); the
// campaign name keeps its case. The fragment is ignored; a malformed escape drops that value.
func ParseCampaign(addr string) Campaign {
	addr, _, _ = strings.Cut(addr, "#")
	_, q, ok := strings.Cut(addr, "?")
	if !ok || q == "" {
		return Campaign{}
	}
	var c Campaign
	for _, part := range strings.Split(q, "&") {
		k, v, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		var dst *string
		lower := true
		switch strings.ToLower(key) {
		case "utm_source":
			dst = &c.Source
		case "utm_medium":
			dst = &c.Medium
		case "utm_campaign":
			dst, lower = &c.Campaign, false
		default:
			continue
		}
		if *dst != "" {
			continue
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			continue
		}
		val = cleanLabel(val)
		if lower {
			val = strings.ToLower(val)
		}
		*dst = val
	}
	return c
}

// cleanLabel makes a stored label of a stranger's text: valid UTF-8, no control characters,
// trimmed, at most maxUTMValue bytes.
func cleanLabel(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) > maxUTMValue {
		s = strings.TrimSpace(truncateUTF8(s, maxUTMValue))
	}
	return s
}

// Country returns the ISO 3166-1 alpha-2 code of the country of a client address, from the
// IP2Location LITE data embedded in the binary by github.com/phuslu/iploc, or UnknownCountry.
func Country(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return UnknownCountry
	}
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified() || a.IsMulticast() {
		return UnknownCountry
	}
	c := iploc.IPCountry(a)
	if len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' {
		return UnknownCountry
	}
	return c
}

// Agent is what a User-Agent says about the visitor's software: device class, browser and OS
// names and their major versions ("" when the agent does not say).
type Agent struct {
	Device                  string
	Browser, BrowserVersion string
	OS, OSVersion           string
}

// ParseAgent reads a User-Agent with github.com/mileusna/useragent. Unknown software is
// "Unknown"; an agent that claims neither phone nor tablet is a desktop.
func ParseAgent(s string) Agent {
	ua := useragent.Parse(s)
	a := Agent{Device: DeviceDesktop, Browser: ua.Name, OS: ua.OS}
	switch {
	case ua.Tablet:
		a.Device = DeviceTablet
	case ua.Mobile:
		a.Device = DeviceMobile
	}
	a.Browser = cleanLabel(a.Browser)
	a.OS = cleanLabel(a.OS)
	if a.Browser == "" {
		a.Browser = "Unknown"
	} else if ua.VersionNo.Major > 0 {
		a.BrowserVersion = strconv.Itoa(ua.VersionNo.Major)
	}
	if a.OS == "" {
		a.OS = "Unknown"
	} else if ua.OSVersionNo.Major > 0 {
		a.OSVersion = strconv.Itoa(ua.OSVersionNo.Major)
	}
	return a
}

// agentCache remembers ParseAgent per User-Agent: real traffic repeats a few hundred agents and
// parsing costs microseconds.
type agentCache struct {
	mu sync.RWMutex
	m  map[string]Agent
}

func (c *agentCache) parse(ua string) Agent {
	c.mu.RLock()
	a, ok := c.m[ua]
	c.mu.RUnlock()
	if ok {
		return a
	}
	a = ParseAgent(ua)
	if len(ua) <= 512 {
		c.mu.Lock()
		if c.m == nil || len(c.m) >= botCacheSize {
			c.m = make(map[string]Agent, botCacheSize)
		}
		c.m[ua] = a
		c.mu.Unlock()
	}
	return a
}
