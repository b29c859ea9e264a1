package slug

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMake(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Hello, World!", "hello-world"},
		{"  Leading and trailing  ", "leading-and-trailing"},
		{"Crème brûlée à la carte", "creme-brulee-a-la-carte"},
		{"Straße in Köln", "strasse-in-koln"},
		{"Ærøskøbing og Æbler", "aeroskobing-og-aebler"},
		{"Łódź i Gdańsk", "lodz-i-gdansk"},
		{"Œuvre complète", "oeuvre-complete"},
		{"Þórður Ðóra", "thordur-dora"},
		{"İstanbul ıssız", "istanbul-issiz"},
		{"ﬁnal ﬂight ①", "final-flight-1"}, // compatibility forms fold (NFKD)
		{"Ｆｕｌｌｗｉｄｔｈ", "fullwidth"},         // fullwidth letters fold too
		{"Go 1.26 — what's new?", "go-1-26-whats-new"},
		{"Don't panic", "dont-panic"},
		{"Rock & Roll @ Home + Friends", "rock-and-roll-at-home-plus-friends"},
		{"multiple---hyphens___and   spaces", "multiple-hyphens-and-spaces"},
		{"日本語のタイトル", ""},
		{"🚀🚀", ""},
		{"", ""},
		{"Ελληνικά", ""},
		{"C++ & C#", "c-plus-plus-and-c"},
	} {
		if got := Make(tc.in, Max); got != tc.want {
			t.Errorf("Make(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMakeCutsAtWordBoundary(t *testing.T) {
	t.Parallel()
	title := strings.Repeat("word ", 40)
	got := Make(title, 30)
	if got != "word-word-word-word-word-word" {
		t.Errorf("Make(long, 30) = %q", got)
	}
	if got := Make(strings.Repeat("x", 300), Max); len(got) != Max {
		t.Errorf("one long word: len %d, want %d", len(got), Max)
	}
}

var slugRule = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// FuzzMake checks that whatever the title, the slug is empty or well formed and bounded, and
// that folding is idempotent.
func FuzzMake(f *testing.F) {
	for _, s := range []string{"Hello, World!", "Straße", "ﬁ", "ǅemal", "a\u0301\u0301\u0301", "\xff\xfe", "-a-", "Ⅻ", "㍿", strings.Repeat("é", 200)} {
		f.Add(s, 100)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		got := Make(s, max)
		limit := max
		if limit <= 0 || limit > Max {
			limit = Max
		}
		if got != "" && !slugRule.MatchString(got) {
			t.Fatalf("Make(%q) = %q is not a slug", s, got)
		}
		if len(got) > limit || !utf8.ValidString(got) {
			t.Fatalf("Make(%q, %d) = %q is longer than %d", s, max, got, limit)
		}
		if again := Make(got, limit); again != got {
			t.Fatalf("not idempotent: Make(%q) = %q, Make of that = %q", s, got, again)
		}
	})
}
