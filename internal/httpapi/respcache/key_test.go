package respcache

import (
	"net/url"
	"strings"
	"testing"
)

func TestKey(t *testing.T) {
	decl := []string{"page", "limit", "q"}
	for _, tc := range []struct {
		raw, want string
		ok        bool
	}{
		{"", "/p", true},
		{"page=2", "/p?page=2", true},
		{"limit=5&page=2", "/p?page=2&limit=5", true},
		{"q=a+b", "/p?q=a+b", true},
		{"q=a%20b", "/p?q=a+b", true},
		{"q=", "/p?q=", true},
		{"q", "/p?q=", true},
		{"cb=1", "", false},
		{"page=1&page=1", "", false},
		{"pag%65=1", "", false},
		{"q=%zz", "", false},
		{"q=1;x", "", false},
	} {
		got, ok := Key("/p", tc.raw, decl)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("Key(%q) = %q, %v; want %q, %v", tc.raw, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := Key("/p", "a=1", nil); ok {
		t.Error("a query on a route declaring no parameters was given a key")
	}
}

// FuzzKey: a key is only made from declared parameters, each at most once, and two
// queries with the same key carry the same declared values as net/url reads them (so a cached
// response is one the handler would have rendered for the request).
func FuzzKey(f *testing.F) {
	for _, s := range []string{"page=1&limit=20", "limit=20&page=1", "q=a+b", "q=a%20b&cb=1", "page=1&page=2", "q=%zz", ";", "&&", "q"} {
		f.Add(s)
	}
	decl := []string{"page", "limit", "q"}
	f.Fuzz(func(t *testing.T, raw string) {
		key, ok := Key("/p", raw, decl)
		if !ok {
			return
		}
		vals, err := url.ParseQuery(raw)
		if err != nil {
			t.Fatalf("key %q for a query net/url refuses: %q (%v)", key, raw, err)
		}
		for name, vs := range vals {
			if name != "page" && name != "limit" && name != "q" {
				t.Fatalf("undeclared %q in a keyed query %q", name, raw)
			}
			if len(vs) != 1 {
				t.Fatalf("%q given %d times in a keyed query %q", name, len(vs), raw)
			}
		}
		_, q, _ := strings.Cut(key, "?")
		kv, err := url.ParseQuery(q)
		if err != nil {
			t.Fatalf("key %q does not parse: %v", key, err)
		}
		for _, n := range []string{"page", "limit", "q"} {
			if kv.Get(n) != vals.Get(n) || kv.Has(n) != vals.Has(n) {
				t.Fatalf("key %q reads %s=%q, the request %q", key, n, kv.Get(n), vals.Get(n))
			}
		}
	})
}
