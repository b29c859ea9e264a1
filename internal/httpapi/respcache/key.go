package respcache

import (
	"net/url"
	"strings"
)

// Key is the key of a request to a route that declares the query parameters named in declared:
// the path and the declared parameters present, in declared order, values decoded and
// re-encoded (so spelling variants share an entry). ok is false — serve uncached — when the
// query carries an undeclared parameter, a declared one twice, or an escape that does not
// decode: junk cannot mint entries.
func Key(path, rawQuery string, declared []string) (key string, ok bool) {
	if rawQuery == "" {
		return path, true
	}
	if len(declared) == 0 || len(declared) > 16 {
		return "", false
	}
	var vals [16]string
	var seen [16]bool
	n := 0 // bytes of the key's query part
	for q := rawQuery; q != ""; {
		var part string
		part, q, _ = strings.Cut(q, "&")
		if part == "" {
			continue
		}
		name, val, _ := strings.Cut(part, "=")
		if strings.ContainsAny(name, "%+;") || strings.Contains(val, ";") {
			return "", false // escaped names are not worth decoding; ';' is refused by net/url
		}
		i := -1
		for j := range declared {
			if declared[j] == name {
				i = j
				break
			}
		}
		if i < 0 || seen[i] {
			return "", false
		}
		if strings.ContainsAny(val, "%+") {
			v, err := url.QueryUnescape(val)
			if err != nil {
				return "", false
			}
			val = url.QueryEscape(v)
		}
		seen[i], vals[i] = true, val
		n += len(name) + len(val) + 2
	}
	var b strings.Builder
	b.Grow(len(path) + n)
	b.WriteString(path)
	sep := byte('?')
	for i, name := range declared {
		if seen[i] {
			b.WriteByte(sep)
			b.WriteString(name)
			b.WriteByte('=')
			b.WriteString(vals[i])
			sep = '&'
		}
	}
	return b.String(), true
}
