// Package blob implements folio.BlobStore on local disk (Local, with the /media/ handler) and on
// S3-compatible object storage (S3, through the official AWS SDK for Go v2).
package blob

import (
	"strings"
	"unicode/utf8"

	"github.com/foliohq/folio"
)

// maxKeyLen is S3's limit on object key length, applied to both stores so keys stay portable.
const maxKeyLen = 1024

// ValidateKey reports whether key is a safe, portable object key: relative, '/'-separated, no
// empty, "." or ".." segment, no segment starting with '.' (reserved for the local store's own
// files), no backslash, NUL or other control character, valid UTF-8, at most 1024 bytes.
// A bad key is a 400 VALIDATION_ERROR naming "key".
func ValidateKey(key string) error {
	bad := func(why string) error { return folio.BadRequest("key", "object key %s", why) }
	switch {
	case key == "":
		return bad("is empty")
	case len(key) > maxKeyLen:
		return bad("is longer than 1024 bytes")
	case !utf8.ValidString(key):
		return bad("is not valid UTF-8")
	case strings.HasPrefix(key, "/"):
		return bad("must be relative")
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f || r == '\\' {
			return bad("contains a control character or a backslash")
		}
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" {
			return bad("has an empty path segment")
		}
		if seg[0] == '.' {
			return bad("has a segment starting with '.'")
		}
	}
	return nil
}

// MediaCSP is the Content-Security-Policy of every media answer: a file opened directly loads
// nothing and runs in a sandbox (no scripts, a unique origin), whatever it is.
const MediaCSP = "default-src 'none'; sandbox"

// Inline reports whether a file of contentType may be shown in the browser (images, audio,
// video and PDF); anything else is served as an attachment, so it is downloaded, never rendered
// as a page of the site.
func Inline(contentType string) bool {
	t, _, _ := strings.Cut(contentType, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	for _, prefix := range []string{"image/", "audio/", "video/"} {
		if strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return t == "application/pdf"
}

// servedType is the Content-Type an object is served with: its stored type, or
// application/octet-stream when none was stored (never left empty, which would let
// http.ServeContent guess one from the bytes).
func servedType(stored string) string {
	if strings.TrimSpace(stored) == "" {
		return "application/octet-stream"
	}
	return stored
}
