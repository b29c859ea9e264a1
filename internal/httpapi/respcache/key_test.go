package respcache

import (
	"net/url"
	"strings"
	"testing"
)

// Ensure the query a route is given holds its declared parameters only, once each, in declared
// order and one spelling, as net/url reads them.
func TestQuery(t *testing.T) {
	decl := []string{"page", "limit", "q"}
	for _, tc := range []struct{ raw, want string }{
		{"", ""},
		{"page=2", "page=2"},
		{"limit=5&page=2", "page=2&limit=5"},
		{"q=a+b", "q=a+b"},
		{"q=a%20b", "q=a+b"},
		{"q=a/b", "q=a%2Fb"},
		{"q=", "q="},
		{"q", "q="},
		{"cb=1", ""},
		{"page=1&cb=1&limit=5", "page=1&limit=5"},
		{"page=1&page=2", "page=1"},
		{"pag%65=3", "page=3"},
		{"q=%zz&q=ok", "q=ok"},
		{"q=1;x&page=2", "page=2"},
		{"&&page=4&", "page=4"},
	} {
		got, changed := Query(tc.raw, decl)
		if got != tc.want || changed != (tc.raw != tc.want) {
			t.Errorf("Query(%q) = %q, %v; want %q", tc.raw, got, changed, tc.want)
		}
	}
	if q, _ := Query("a=1", nil); q != "" {
		t.Errorf("a route declaring no parameters is given %q", q)
	}
	if Key("/p", "") != "/p" || Key("/p", "page=2") != "/p?page=2" {
		t.Error("Key")
	}
}

// FuzzQuery: the query a route is given holds only declared parameters, each at most once, with
// the values net/url reads from the request (so the answer is the one the whole request gets
// from a handler that reads its declared parameters), and it is its own canonical form.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"page=1&limit=20", "limit=20&page=1", "q=a+b", "q=a%20b&cb=1", "page=1&page=2", "q=%zz", ";", "&&", "q", "pag%65=1"} {
		f.Add(s)
	}
	decl := []string{"page", "limit", "q"}
	f.Fuzz(func(t *testing.T, raw string) {
		q, _ := Query(raw, decl)
		vals, _ := url.ParseQuery(raw) // the pairs it can read, as a handler would
		kv, err := url.ParseQuery(q)
		if err != nil {
			t.Fatalf("query %q does not parse: %v", q, err)
		}
		for name, vs := range kv {
			if name != "page" && name != "limit" && name != "q" {
				t.Fatalf("undeclared %q in %q (from %q)", name, q, raw)
			}
			if len(vs) != 1 {
				t.Fatalf("%q given %d times in %q", name, len(vs), q)
			}
		}
		for _, n := range decl {
			if kv.Get(n) != vals.Get(n) || kv.Has(n) != vals.Has(n) {
				t.Fatalf("%q reads %s=%q, the request %q reads %q", q, n, kv.Get(n), raw, vals.Get(n))
			}
		}
		if again, changed := Query(q, decl); changed || again != q {
			t.Fatalf("%q is not canonical: %q", q, again)
		}
		if strings.Contains(q, ";") {
			t.Fatalf("%q carries a ';'", q)
		}
	})
}
