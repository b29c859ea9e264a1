// Package search holds the engine-independent half of folio's full-text search: the folding of
// text and queries (case, diacritics, a few letters that have no decomposition), the words both
// engines index, the query strings handed to SQLite FTS5 and PostgreSQL to_tsquery, and the
// highlighted, HTML-safe snippets. Folding happens here, in Go, rather than in the database so
// SQLite and PostgreSQL (where the unaccent extension may not be installed) match the same words.
package search

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Limits of what is indexed and searched.
const (
	// MaxTerms is how many words of a query are used; later words are ignored.
	MaxTerms = 8
	// MaxTermLen is the longest query word, in bytes after folding; longer words are cut.
	MaxTermLen = 64
	// MaxIndexedBytes caps the folded text indexed per document (PostgreSQL's tsvector has a 1 MB
	// limit; a longer post is still found by everything in its first MaxIndexedBytes).
	MaxIndexedBytes = 256 << 10
	// MaxQueryLen is the longest q accepted, in characters.
	MaxQueryLen = 200
)

// transliterations are letters that do not decompose into a base letter plus marks.
var transliterations = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'ø': "o", 'Ø': "o", 'œ': "oe", 'Œ': "oe",
	'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th",
	'ı': "i", 'ħ': "h", 'Ħ': "h", 'ŧ': "t", 'Ŧ': "t", 'ŋ': "ng", 'Ŋ': "ng", 'ĸ': "k",
	'ſ': "s", 'ĳ': "ij", 'Ĳ': "ij", 'ŀ': "l", 'Ŀ': "l",
}

// Fold lowercases s, decomposes it (NFKD) and drops the combining marks, and transliterates the
// letters of a small table, so "Crème Brûlée" and "creme brulee" fold alike. Scripts without
// marks (Cyrillic, Greek, CJK) are only lowercased.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFKD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if t, ok := transliterations[r]; ok {
			b.WriteString(t)
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// Words splits folded text into its words (runs of letters and digits).
func Words(folded string) []string {
	return strings.FieldsFunc(folded, func(r rune) bool { return !isWordRune(r) })
}

// IndexText is what both engines index for a piece of text: its folded words joined by spaces,
// cut at MaxIndexedBytes. Giving the engines plain words means their own tokenizers (FTS5's
// unicode61, PostgreSQL's simple configuration) see exactly the words Terms makes of a query.
func IndexText(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		for _, w := range Words(Fold(p)) {
			if b.Len()+len(w)+1 > MaxIndexedBytes {
				return b.String()
			}
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w)
		}
	}
	return b.String()
}

// Terms returns the distinct folded words of a query, at most MaxTerms, each at most MaxTermLen
// bytes. Every term is matched as a word prefix.
func Terms(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range Words(Fold(q)) {
		if len(w) > MaxTermLen {
			w = cutUTF8(w, MaxTermLen)
		}
		if seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == MaxTerms {
			break
		}
	}
	return out
}

func cutUTF8(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// FTS5Query is the MATCH expression for SQLite FTS5: every term as a quoted prefix, all required.
// Terms hold only letters and digits, so quoting cannot be escaped; quotes are doubled anyway.
func FTS5Query(terms []string) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"*`
	}
	return strings.Join(parts, " AND ")
}

// TSQuery is the to_tsquery('simple', …) text for PostgreSQL: every term as a prefix, all
// required. Terms hold only letters and digits, so no tsquery operator can appear in them.
func TSQuery(terms []string) string {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = "'" + strings.ReplaceAll(t, "'", "''") + "':*"
	}
	return strings.Join(parts, " & ")
}

// Snippet returns about max characters of text around the first word that matches a term (as a
// folded prefix), as HTML: the text is escaped and every matching word is wrapped in
// <mark>…</mark>, so content can never inject markup. Without a match it is the start of text.
// An ellipsis marks a cut at either end.
func Snippet(text string, terms []string, max int) string {
	text = strings.Join(strings.Fields(text), " ")
	type span struct{ start, end int }
	var words []span
	var matched []bool
	first := -1
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		j := i
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r) {
				break
			}
			j += n
		}
		m := matches(text[i:j], terms)
		if m && first < 0 {
			first = len(words)
		}
		words = append(words, span{i, j})
		matched = append(matched, m)
		i = j
	}
	if len(text) == 0 {
		return ""
	}
	// Window: start a few words before the first match, end after max characters.
	start := 0
	if first > 3 {
		start = words[first-3].start
	}
	end := len(text)
	if utf8.RuneCountInString(text[start:]) > max {
		end = start
		for k := 0; k < max && end < len(text); k++ {
			_, n := utf8.DecodeRuneInString(text[end:])
			end += n
		}
		// Do not cut a word in half.
		for _, w := range words {
			if w.start < end && w.end > end {
				end = w.start
				break
			}
		}
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	pos := start
	for k, w := range words {
		if w.start < start || w.end > end {
			continue
		}
		if !matched[k] {
			continue
		}
		b.WriteString(html.EscapeString(text[pos:w.start]))
		b.WriteString("<mark>")
		b.WriteString(html.EscapeString(text[w.start:w.end]))
		b.WriteString("</mark>")
		pos = w.end
	}
	b.WriteString(html.EscapeString(strings.TrimRight(text[pos:end], " ")))
	if end < len(text) {
		b.WriteString("…")
	}
	return b.String()
}

// Matches reports whether text contains a word that any term is a folded prefix of.
func Matches(text string, terms []string) bool {
	for _, w := range Words(Fold(text)) {
		for _, t := range terms {
			if strings.HasPrefix(w, t) {
				return true
			}
		}
	}
	return false
}

func matches(word string, terms []string) bool {
	f := Fold(word)
	for _, w := range Words(f) {
		for _, t := range terms {
			if strings.HasPrefix(w, t) {
				return true
			}
		}
	}
	return false
}
