package search

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestFoldAndTerms(t *testing.T) {
	for in, want := range map[string]string{
		"Crème Brûlée":    "creme brulee",
		"ÉLECTRICITÉ":     "electricite",
		"Straße Ærø Łódź": "strasse aero lodz",
		"Ｆｕｌｌｗｉｄｔｈ":       "fullwidth",
		"Привет":          "привет",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
	got := Terms(`  "Crème"*  brû-lée  crème NEAR(x) a:* | b & !c ` + strings.Repeat("z", 100))
	want := []string{"creme", "bru", "lee", "near", "x", "a", "b", "c"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Terms = %q, want %q (operators dropped, duplicates once, at most %d)", got, want, MaxTerms)
	}
	if got := Terms(strings.Repeat("é", 100)); len(got) != 1 || len(got[0]) != MaxTermLen {
		t.Errorf("long term: %q", got)
	}
	if FTS5Query([]string{"a", "b"}) != `"a"* AND "b"*` || TSQuery([]string{"a", "b"}) != `'a':* & 'b':*` {
		t.Error("query syntax")
	}
}

func TestSnippet(t *testing.T) {
	text := strings.Repeat("filler words here ", 20) + "the <script>Crème</script> & brûlée are good " + strings.Repeat("tail ", 50)
	got := Snippet(text, Terms("creme brul"), 80)
	if !strings.Contains(got, "&lt;script&gt;<mark>Crème</mark>&lt;/script&gt; &amp; <mark>brûlée</mark>") {
		t.Errorf("snippet %q", got)
	}
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("cut ends not marked: %q", got)
	}
	if got := Snippet("no match at all", []string{"zzz"}, 80); got != "no match at all" {
		t.Errorf("no match: %q", got)
	}
}

// FuzzSnippet: whatever the text and query, the snippet is valid UTF-8 whose only markup is
// balanced <mark> tags, and every '<' of the text arrives escaped.
func FuzzSnippet(f *testing.F) {
	f.Add("A <b>bold</b> crème & co", "creme")
	f.Add("<mark>fake</mark>", "mark")
	f.Add("\xff\xfe broken utf8 é", "e")
	f.Fuzz(func(t *testing.T, text, q string) {
		terms := Terms(q)
		for _, term := range terms {
			for _, r := range term {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) {
					t.Fatalf("term %q holds %q", term, r)
				}
			}
		}
		s := Snippet(text, terms, 60)
		if utf8.ValidString(text) && !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 from valid text: %q", s)
		}
		rest := strings.ReplaceAll(strings.ReplaceAll(s, "<mark>", ""), "</mark>", "")
		if strings.ContainsAny(rest, "<>") {
			t.Fatalf("unescaped markup in %q", s)
		}
		if strings.Count(s, "<mark>") != strings.Count(s, "</mark>") {
			t.Fatalf("unbalanced marks in %q", s)
		}
	})
}
