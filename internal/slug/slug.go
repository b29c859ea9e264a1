// Package slug turns titles into URL slugs: Unicode folded to ASCII, lowercase, words joined by
// single hyphens, short enough for a path segment.
package slug

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Max is the longest slug Make returns (folio.MaxSlugLen).
const Max = 100

// transliterations are letters that do not decompose into an ASCII base letter plus marks.
var transliterations = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'ø': "o", 'Ø': "o", 'œ': "oe", 'Œ': "oe",
	'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th",
	'ı': "i", 'ħ': "h", 'Ħ': "h", 'ŧ': "t", 'Ŧ': "t", 'ŋ': "ng", 'Ŋ': "ng", 'ĸ': "k",
	'ſ': "s", 'ƒ': "f", 'ĳ': "ij", 'Ĳ': "ij", 'ŀ': "l", 'Ŀ': "l",
	'&': " and ", '@': " at ", '+': " plus ",
}

// Make returns the slug of s: letters are decomposed (NFKD) and their combining marks dropped,
// letters without an ASCII decomposition are transliterated from a small table, everything else
// that is not an ASCII letter or digit separates words. The result matches
// ^[a-z0-9]+(-[a-z0-9]+)*$ and is at most max bytes long (cut at a word boundary when one is
// near), or is empty when s holds no foldable letter or digit (e.g. a title in Chinese).
func Make(s string, max int) string {
	if max <= 0 || max > Max {
		max = Max
	}
	var b strings.Builder
	hyphen := false
	emit := func(r rune) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			emitLower := r + ('a' - 'A')
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(emitLower)
		default:
			hyphen = true
		}
	}
	for _, r := range norm.NFKD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue // a combining mark of the previous letter (é → e + ´)
		}
		// Apostrophes join a word ("don't" → "dont") rather than split it.
		if r == '\'' || r == '’' {
			continue
		}
		if t, ok := transliterations[r]; ok {
			for _, tr := range t {
				emit(tr)
			}
			continue
		}
		emit(r)
		if b.Len() > max+1 {
			break
		}
	}
	return Cut(b.String(), max)
}

// Cut shortens a valid slug to at most max bytes, at the last hyphen when that keeps more than
// half of it, and never leaves a trailing hyphen.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[:max]
	if i := strings.LastIndexByte(s, '-'); i > max/2 {
		s = s[:i]
	}
	return strings.Trim(s, "-")
}
