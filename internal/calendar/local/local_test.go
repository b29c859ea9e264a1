package local

import (
	"strings"
	"testing"
)

func TestTokenFromPath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{strings.Repeat("a", 43) + ".ics", true},
		{strings.Repeat("a", 43), false},
		{"short.ics", false},
		{strings.Repeat("a", 40) + "%2F.ics", false},
		{strings.Repeat("a", 129) + ".ics", false},
		{"abc-DEF_0123456789.ics", true},
	} {
		if _, ok := TokenFromPath(tc.in); ok != tc.want {
			t.Errorf("TokenFromPath(%q) = %v, want %v", tc.in, ok, tc.want)
		}
	}
}

func FuzzTokenFromPath(f *testing.F) {
	f.Add(strings.Repeat("a", 43) + ".ics")
	f.Add("../../etc/passwd.ics")
	f.Fuzz(func(t *testing.T, s string) {
		tok, ok := TokenFromPath(s)
		if !ok {
			return
		}
		if tok+".ics" != s || strings.ContainsAny(tok, "/.%?#") {
			t.Errorf("TokenFromPath(%q) = %q", s, tok)
		}
	})
}
