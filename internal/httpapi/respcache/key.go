package respcache

import (
	"net/url"
	"strings"
)

// Query is the query a route that declares the parameters named in declared answers for
// rawQuery: the declared parameters present, in declared order, each once with the first value
// net/url reads for it (values decoded and re-encoded, so spelling variants are one query), and
// nothing else. Pairs net/url drops (a bad escape, a ';') are dropped. The route's handler is
// given this query and the cache keys on it, so an undeclared parameter neither changes the
// answer nor mints an entry (it costs no render). changed is false when rawQuery is already it.
func Query(rawQuery string, declared []string) (query string, changed bool) {
	if rawQuery == "" {
		return "", false
	}
	var room [8]string
	vals := room[:0]
	if len(declared) > len(room) {
		vals = make([]string, 0, len(declared))
	}
	vals = vals[:len(declared)]
	var seen uint64 // bit i: declared[i] has its value; routes declare far fewer than 64
	n := 0          // bytes of the canonical query
	for q := rawQuery; q != ""; {
		var part string
		part, q, _ = strings.Cut(q, "&")
		if part == "" || strings.Contains(part, ";") {
			continue // net/url refuses a ';' and skips the pair
		}
		name, val, _ := strings.Cut(part, "=")
		name, ok := unescape(name)
		if !ok {
			continue
		}
		i := index(declared, name)
		if i < 0 || i >= 64 || seen&(1<<i) != 0 {
			continue
		}
		v, ok := unescape(val)
		if !ok {
			continue
		}
		val = url.QueryEscape(v) // no copy when nothing needs escaping
		seen |= 1 << i
		vals[i] = val
		n += len(name) + len(val) + 2
	}
	var b strings.Builder
	b.Grow(n)
	for i, name := range declared {
		if i < 64 && seen&(1<<i) != 0 {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(name))
			b.WriteByte('=')
			b.WriteString(vals[i])
		}
	}
	query = b.String()
	return query, query != rawQuery
}

// Key is the cache key of a request for path with the (canonical) query of Query.
func Key(path, query string) string {
	if query == "" {
		return path
	}
	return path + "?" + query
}

// unescape decodes a query component as net/url does; ok is false where net/url drops the pair.
func unescape(s string) (string, bool) {
	if !strings.ContainsAny(s, "%+") {
		return s, true
	}
	d, err := url.QueryUnescape(s)
	return d, err == nil
}

func index(names []string, name string) int {
	for i := range names {
		if names[i] == name {
			return i
		}
	}
	return -1
}
