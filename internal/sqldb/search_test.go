package sqldb_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestSearch(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
		db.Now = clock.Now
		post := func(title, body, status string, tags ...string) *folio.Post {
			t.Helper()
			clock.Advance(time.Minute)
			p, err := content.New(db.Content).CreatePost(ctx, &folio.PostInput{Title: ptr(title), Content: ptr(body), Status: ptr(status), Tags: &tags},
				folio.PostAuthor{Name: "A"})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		creme := post("Crème brûlée for programmers", "A dessert of **caramelised** sugar and custard.", "published", "Cooking")
		draft := post("Secret crème draft", "Not yet.", "draft")
		goPost := post("Writing a compiler in Go", "Parsing, type checking and code generation with <script>alert(1)</script> in the text.", "published", "golang")
		proj, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: ptr("Compiler explorer"), Description: ptr("See what the compiler emits."),
			Technologies: &[]string{"Go"}, Status: ptr("published")})
		if err != nil {
			t.Fatal(err)
		}
		hidden, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: ptr("Hidden compiler"), Description: ptr("A draft project."),
			Technologies: &[]string{}, Status: ptr("draft")})
		if err != nil {
			t.Fatal(err)
		}

		find := func(q folio.SearchQuery) ([]string, []folio.SearchResult) {
			t.Helper()
			if q.Page == 0 {
				q.Page, q.Limit = 1, 10
			}
			res, _, err := db.Search.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range res {
				ids = append(ids, r.ID)
			}
			return ids, res
		}
		// Diacritics and case folded both ways, prefixes matched.
		for _, q := range []string{"creme", "CRÈME BRU", "brulee", "crem"} {
			if ids, _ := find(folio.SearchQuery{Q: q}); !equal(ids, []string{creme.ID}) {
				t.Errorf("%q: got %v, want only the published crème post", q, ids)
			}
		}
		// Drafts only for callers who may see them.
		if ids, _ := find(folio.SearchQuery{Q: "creme", All: true}); len(ids) != 2 {
			t.Errorf("all: got %v, want both crème posts", ids)
		}
		// Body words, tags, both types; title matches rank first.
		ids, res := find(folio.SearchQuery{Q: "compil"})
		if len(ids) != 2 || !contains(ids, proj.ID) || !contains(ids, goPost.ID) || contains(ids, hidden.ID) {
			t.Errorf("compil: got %v", ids)
		}
		for _, r := range res {
			if r.Type == folio.SearchTypePost && r.Slug != goPost.Slug {
				t.Errorf("post hit without its slug: %+v", r)
			}
			if r.Type == folio.SearchTypeProject && (r.Slug != "" || r.Title != "Compiler explorer") {
				t.Errorf("project hit: %+v", r)
			}
			if r.Score <= 0 {
				t.Errorf("score %v, want > 0 (higher is better)", r.Score)
			}
		}
		if ids, _ := find(folio.SearchQuery{Q: "compiler", Type: folio.SearchTypeProject}); !equal(ids, []string{proj.ID}) {
			t.Errorf("type=project: got %v", ids)
		}
		if ids, _ := find(folio.SearchQuery{Q: "golang"}); !equal(ids, []string{goPost.ID}) {
			t.Errorf("tag word: got %v", ids)
		}
		// Every word must occur.
		if ids, _ := find(folio.SearchQuery{Q: "compiler dessert"}); len(ids) != 0 {
			t.Errorf("AND: got %v", ids)
		}
		// Snippets are escaped HTML with the matches marked.
		_, res = find(folio.SearchQuery{Q: "script"})
		if len(res) != 1 || strings.Contains(res[0].Snippet, "<script>") || !strings.Contains(res[0].Snippet, "&lt;<mark>script</mark>&gt;") {
			t.Errorf("snippet not escaped/marked: %+v", res)
		}
		_, res = find(folio.SearchQuery{Q: "caramel"})
		if len(res) != 1 || !strings.Contains(res[0].Snippet, "<mark>caramelised</mark>") {
			t.Errorf("snippet: %+v", res)
		}
		// Operators of either engine are plain text.
		for _, q := range []string{`"`, `a:* | b`, `NEAR(x y)`, `creme*`, `'`, `!!!`, `-creme`, "\x00"} {
			if _, _, err := db.Search.Search(ctx, folio.SearchQuery{Q: q, Page: 1, Limit: 10}); err != nil {
				t.Errorf("%q: %v", q, err)
			}
		}

		// In sync with writes: update, publish, archive-like unpublish, delete.
		if _, err := content.New(db.Content).UpdatePost(ctx, creme.ID, &folio.PostInput{Title: ptr("Tarte tatin")}); err != nil {
			t.Fatal(err)
		}
		if ids, _ := find(folio.SearchQuery{Q: "tatin"}); !equal(ids, []string{creme.ID}) {
			t.Errorf("after update: %v", ids)
		}
		if ids, _ := find(folio.SearchQuery{Q: "brulee"}); len(ids) != 0 {
			t.Errorf("old title still found: %v", ids)
		}
		if _, err := content.New(db.Content).SavePublishingOptions(ctx, &folio.PublishingPlan{PostID: draft.ID, Publish: true}); err != nil {
			t.Fatal(err)
		}
		if ids, _ := find(folio.SearchQuery{Q: "secret"}); !equal(ids, []string{draft.ID}) {
			t.Errorf("after publishing: %v", ids)
		}
		if err := content.New(db.Content).DeletePost(ctx, draft.ID); err != nil {
			t.Fatal(err)
		}
		if ids, _ := find(folio.SearchQuery{Q: "secret", All: true}); len(ids) != 0 {
			t.Errorf("after delete: %v", ids)
		}
		if _, err := content.New(db.Content).UpdateProject(ctx, proj.ID, &folio.ProjectInput{Title: ptr("Compiler explorer"), Description: ptr("x"), Status: ptr("archived")}); err != nil {
			t.Fatal(err)
		}
		if ids, _ := find(folio.SearchQuery{Q: "explorer"}); len(ids) != 0 {
			t.Errorf("archived project found publicly: %v", ids)
		}
		if err := content.New(db.Content).DeleteProject(ctx, proj.ID); err != nil {
			t.Fatal(err)
		}
		if ids, _ := find(folio.SearchQuery{Q: "explorer", All: true}); len(ids) != 0 {
			t.Errorf("deleted project found: %v", ids)
		}

		// Paging and totals.
		for i := 0; i < 5; i++ {
			post("Paging test", "Word zebra number", "published")
		}
		res, total, err := db.Search.Search(ctx, folio.SearchQuery{Q: "zebra", Page: 2, Limit: 2})
		if err != nil || total != 5 || len(res) != 2 {
			t.Errorf("page 2: %d results, total %d, %v", len(res), total, err)
		}
		res, total, err = db.Search.Search(ctx, folio.SearchQuery{Q: "zebra", Page: 9, Limit: 2})
		if err != nil || total != 5 || len(res) != 0 {
			t.Errorf("past the end: %d results, total %d, %v", len(res), total, err)
		}

		// A rebuild indexes nothing twice and changes nothing.
		if n, err := db.Search.RebuildSearchIndex(ctx); err != nil || n != 0 {
			t.Errorf("rebuild: %d, %v", n, err)
		}
	})
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// FuzzSearchQuery: no text a stranger types into q makes the SQLite search fail (operators of
// FTS5 and tsquery are folded away before the engine sees them), and every hit's snippet is
// markup-free but for <mark>.
func FuzzSearchQuery(f *testing.F) {
	db := foliotest.MustOpenSQLite(f)
	ctx := context.Background()
	for _, title := range []string{"Crème brûlée", "Compiler <b>design</b>", "NEAR AND OR NOT"} {
		if _, err := content.New(db.Content).CreatePost(ctx, &folio.PostInput{Title: ptr(title), Content: ptr(title + " body"), Status: ptr("published")}, folio.PostAuthor{}); err != nil {
			f.Fatal(err)
		}
	}
	for _, s := range []string{"creme", `"`, `a:* | b`, "NEAR(x y)", "AND", "-x", "*", "^a", "col:x", "\x00", "é*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		res, _, err := db.Search.Search(ctx, folio.SearchQuery{Q: q, Page: 1, Limit: 5, All: true})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		for _, r := range res {
			if strings.ContainsAny(strings.NewReplacer("<mark>", "", "</mark>", "").Replace(r.Snippet), "<>") {
				t.Fatalf("snippet %q", r.Snippet)
			}
		}
	})
}
