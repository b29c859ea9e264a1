package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/url"
	"strings"
)

// levelFor picks the access-log level of a response status.
func levelFor(status int) slog.Level {
	switch {
	case status >= 500:
		return slog.LevelError
	case status >= 400:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// logMethod is the request method as the access log shows it: a method is any token of the
// client's choosing, so an unusual one is cut to 16 bytes to keep log lines small.
func logMethod(m string) string {
	if len(m) > 16 {
		return m[:16] + "…"
	}
	return m
}

// tokenWildcard marks a path segment whose value is a bearer secret (a booking's manage link;
// confirm and unsubscribe links): a route whose pattern names a segment so gets it kept out of
// every log for free. Logs show the pattern's name with a short digest of the value instead
// (logPath), so lines about one link can still be told apart and matched.
const tokenWildcard = "{token}"

// tokenDigest is what logs show of a secret path value: 32 bits of its SHA-256, enough to match
// lines about one link and useless for finding the link.
func tokenDigest(v string) string {
	sum := sha256.Sum256([]byte(v))
	return "{token:" + hex.EncodeToString(sum[:4]) + "}"
}

// logPath is the path of u as logs show it under the route pattern that matched it (a ServeMux
// pattern, the method optional): each segment the pattern names {token} is replaced by its
// digest. A request no specific route matched (no pattern, or a subtree such as "/api/" or
// "GET /book/") may still carry a token, misspelt or with a segment too many, so there every
// segment that looks like one (looksLikeToken) is replaced too.
func logPath(pattern string, u *url.URL) string {
	if _, p, ok := strings.Cut(pattern, " "); ok {
		pattern = p
	}
	named := strings.Contains(pattern, tokenWildcard)
	subtree := pattern == "" || strings.HasSuffix(pattern, "/")
	if !named && !subtree {
		return u.Path
	}
	segs := strings.Split(u.EscapedPath(), "/")
	var pat []string
	if named {
		pat = strings.Split(pattern, "/")
	}
	changed := false
	for i, sg := range segs {
		if named && i < len(pat) && pat[i] == tokenWildcard || subtree && looksLikeToken(sg) {
			segs[i], changed = tokenDigest(sg), true
		}
	}
	if !changed {
		return u.Path
	}
	return strings.Join(segs, "/")
}

// looksLikeToken reports whether a path segment could be a bearer token: 16 or more base64url
// characters with an upper-case letter or an underscore (slugs, ids and content hashes have
// neither).
func looksLikeToken(s string) bool {
	if len(s) < 16 {
		return false
	}
	mixed := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z' || c == '_':
			mixed = true
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-':
		default:
			return false
		}
	}
	return mixed
}
