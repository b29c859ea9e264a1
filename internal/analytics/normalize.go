package analytics

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// maxStoredPath and maxStoredQuery bound what is kept of a page address.
const (
	maxStoredPath  = 512
	maxStoredQuery = 256
)

// normalizePath reduces a collected page address (a path, or the page's absolute http(s) URL) to
// its path and the query parameters worth keeping: utm_* and ref, sorted and re-encoded. The
// fragment and every other parameter are dropped (they may carry personal data: emails, tokens,
// search terms). It reports false when the address is not usable.
func normalizePath(raw string) (path, query string, ok bool) {
	raw, _, _ = strings.Cut(raw, "#")
	var q string
	if strings.HasPrefix(raw, "http://") || strings.HasPrefix(raw, "https://") {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return "", "", false
		}
		path, q = u.EscapedPath(), u.RawQuery
	} else {
		path, q, _ = strings.Cut(raw, "?")
	}
	// "//host/x" would read as another site; a path has exactly one leading slash.
	path = decodePath("/" + strings.TrimLeft(path, "/"))
	// Invalid UTF-8 (which a browser never sends) would not survive truncation or storage.
	path = strings.ToValidUTF8(path, "\uFFFD")
	if len(path) > maxStoredPath {
		path = truncateUTF8(path, maxStoredPath)
	}
	return path, keepQuery(q), true
}

// decodePath percent-decodes a path so "/r%C3%A9sum%C3%A9" (what browsers send) and "/résumé"
// count as one page. A path that would decode to something ambiguous or unprintable (an encoded
// "?", "#", space or control character, or invalid UTF-8) is kept as sent.
func decodePath(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	d, err := url.PathUnescape(p)
	if err != nil || !utf8.ValidString(d) || strings.ContainsAny(d, "?# ") || strings.HasPrefix(d, "//") {
		return p
	}
	for _, r := range d {
		if r < 0x20 || r == 0x7f {
			return p
		}
	}
	return d
}

// keepQuery keeps the campaign parameters of a raw query string: utm_* and ref.
func keepQuery(raw string) string {
	if raw == "" {
		return ""
	}
	kept := url.Values{}
	for _, part := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		lk := strings.ToLower(key)
		if !strings.HasPrefix(lk, "utm_") && lk != "ref" {
			continue
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			continue
		}
		kept.Add(lk, val)
	}
	q := kept.Encode()
	if len(q) > maxStoredQuery {
		return ""
	}
	return q
}

// referrerDomain reduces a referrer to its host name, lower-cased and without "www.". It returns
// "" for an empty or unusable referrer and for a self-referral (siteHost, already bare).
func referrerDomain(raw, siteHost string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return ""
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + strings.TrimLeft(raw, "/")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	host := bareHost(u.Hostname())
	if host == "" || len(host) > 253 || host == siteHost {
		return ""
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return ""
		}
	}
	return host
}

// bareHost lower-cases a host name and drops a trailing dot and every leading "www." label, so
// "www.www.example.org" groups with example.org too.
func bareHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	for strings.HasPrefix(h, "www.") {
		h = h[len("www."):]
	}
	return h
}

// clientKey is the stored key of a client-supplied anonymous id: hashed, so every key has the
// same shape and no client string is stored as is.
func clientKey(visitorID string) string {
	sum := sha256.Sum256([]byte("folio-visitor\x00" + visitorID))
	return "c" + base64.RawURLEncoding.EncodeToString(sum[:16])
}

// hashKey is the stored key of a visitor without an id: HMAC-SHA-256 of its parts (IP and
// User-Agent; and the site in storage mode none) under the window's salt. The IP itself is never
// stored.
func hashKey(salt []byte, parts ...string) string {
	m := hmac.New(sha256.New, salt)
	for i, p := range parts {
		if i > 0 {
			m.Write([]byte{0})
		}
		m.Write([]byte(p))
	}
	return "h" + base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// windowKey names the salt window containing t (already in the owner's zone): "day:2026-01-05",
// "week:<Monday>", "month:2026-01-01". Keys of one kind sort by time.
func windowKey(rotation string, t time.Time) string {
	y, m, d := t.Date()
	switch rotation {
	case "week":
		off := (int(t.Weekday()) + 6) % 7 // days since Monday
		return "week:" + time.Date(y, m, d-off, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	case "month":
		return "month:" + time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	}
	return "day:" + time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
