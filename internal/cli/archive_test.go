package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/extblog/extblogfake"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func run(t *testing.T, vars map[string]string, args ...string) string {
	t.Helper()
	env, out, errb := envWith(t, vars)
	if err := Run(context.Background(), args, env); err != nil {
		t.Fatalf("folio %s: %v\n%s", strings.Join(args, " "), err, errb)
	}
	return out.String()
}

func openData(t *testing.T, dir string) *sqldb.DB {
	t.Helper()
	db, err := sqldb.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestExportImportCommands: folio export on SQLite, folio import into PostgreSQL (twice), folio
// export there, folio import into a fresh SQLite site: the three archives are identical.
func TestExportImportCommands(t *testing.T) {
	pgURL := foliotest.PostgresSchema(t)
	srcDir := t.TempDir()
	db := openData(t, srcDir)
	title, body, status := "Round trip", "# Hi\n", folio.PostPublished
	if _, err := content.New(db.Content).CreatePost(context.Background(), &folio.PostInput{Title: &title, Content: &body, Status: &status}, folio.PostAuthor{Name: "O"}); err != nil {
		t.Fatal(err)
	}
	ptitle, pdesc := "Project", "desc"
	if _, err := content.New(db.Content).CreateProject(context.Background(), &folio.ProjectInput{Title: &ptitle, Description: &pdesc}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	out := t.TempDir()
	a := filepath.Join(out, "a.zip")
	run(t, map[string]string{"FOLIO_DATA_DIR": srcDir}, "export", "--out", a)

	pgVars := map[string]string{"DATABASE_URL": pgURL}
	if got := run(t, pgVars, "import", a); !strings.Contains(got, "imported 1 posts, 1 projects") {
		t.Fatalf("import: %s", got)
	}
	pgVars2 := map[string]string{"DATABASE_URL": pgURL, "FOLIO_DATA_DIR": pgVars["FOLIO_DATA_DIR"]}
	run(t, pgVars2, "import", a)
	b := filepath.Join(out, "b.zip")
	run(t, pgVars2, "export", "--out", b)

	backDir := t.TempDir()
	run(t, map[string]string{"FOLIO_DATA_DIR": backDir}, "import", b)
	c := filepath.Join(out, "c.zip")
	run(t, map[string]string{"FOLIO_DATA_DIR": backDir}, "export", "--out", c)

	za, _ := os.ReadFile(a)
	zb, _ := os.ReadFile(b)
	zc, _ := os.ReadFile(c)
	if len(za) == 0 || !bytes.Equal(za, zb) || !bytes.Equal(za, zc) {
		t.Fatalf("archives differ: %d, %d, %d bytes", len(za), len(zb), len(zc))
	}

	env, _, errb := envWith(t, map[string]string{})
	if err := Run(context.Background(), []string{"import", filepath.Join(out, "missing.zip")}, env); err == nil {
		t.Fatal("importing a missing file succeeded")
	}
	bad := filepath.Join(out, "bad.zip")
	os.WriteFile(bad, []byte("PK nonsense"), 0o600)
	if err := Run(context.Background(), []string{"import", bad}, env); err == nil || !strings.Contains(err.Error(), "archive") {
		t.Fatalf("importing garbage: %v %s", err, errb)
	}
}

// TestRestoreCommand: a snapshot stored by the backup job under backups/ in the media storage
// ("latest") replaces the database.
func TestRestoreCommand(t *testing.T) {
	dir := t.TempDir()
	db := openData(t, dir)
	title, desc := "Before the snapshot", "d"
	if _, err := content.New(db.Content).CreateProject(context.Background(), &folio.ProjectInput{Title: &title, Description: &desc}); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "snap.db")
	if err := db.Backup(context.Background(), snap); err != nil {
		t.Fatal(err)
	}
	title2 := "After the snapshot"
	if _, err := content.New(db.Content).CreateProject(context.Background(), &folio.ProjectInput{Title: &title2, Description: &desc}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// Put the snapshot where the scheduled job puts them.
	if err := os.MkdirAll(filepath.Join(dir, "media", "backups"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(snap)
	os.WriteFile(filepath.Join(dir, "media", "backups", "folio-20260101T000000.000Z.db"), b, 0o600)

	if got := run(t, map[string]string{"FOLIO_DATA_DIR": dir}, "restore", "latest"); !strings.Contains(got, "backups/folio-20260101T000000.000Z.db") {
		t.Fatalf("restore: %s", got)
	}
	db = openData(t, dir)
	defer db.Close()
	all, _ := db.Archive.AllProjects(context.Background())
	if len(all) != 1 || all[0].Title != "Before the snapshot" {
		t.Fatalf("after restore: %+v", all)
	}
	env, _, _ := envWith(t, map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1:1/x"})
	if err := Run(context.Background(), []string{"restore", "latest"}, env); err == nil || !strings.Contains(err.Error(), "pg_restore") {
		t.Fatalf("restore on PostgreSQL: %v", err)
	}
}

// TestExtblogImportCommand: every post of the publication, over several pages, becomes a local
// post linked by its platform id; a second run changes nothing; a post whose canonical URL names
// a local article is linked to it instead of duplicated.
func TestExtblogImportCommand(t *testing.T) {
	fake := extblogfake.New()
	const n = 120 // three pages of 50
	for i := 0; i < n; i++ {
		fake.AddPost(extblogfake.Post{Title: fmt.Sprintf("Remote %d", i), Slug: fmt.Sprintf("remote-%d", i),
			ContentMarkdown: fmt.Sprintf("Body %d", i), Tags: []extblogfake.Tag{{Name: "Go", Slug: "go"}}})
	}
	dir := t.TempDir()
	db := openData(t, dir)
	title, body := "Mine first", "local body"
	local, err := content.New(db.Content).CreatePost(context.Background(), &folio.PostInput{Title: &title, Content: &body}, folio.PostAuthor{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	linked := fake.AddPost(extblogfake.Post{Title: "Cross-posted", Slug: "cross", ContentMarkdown: "x",
		OriginalArticleURL: "https://olivia.example/blog/" + local.Slug})
	hs := httptest.NewServer(fake)
	t.Cleanup(hs.Close)
	vars := func() map[string]string {
		return map[string]string{"FOLIO_DATA_DIR": dir, "EXTBLOG_API_URL": hs.URL, "EXTBLOG_API_TOKEN": extblogfake.DefaultToken,
			"EXTBLOG_PUBLICATION_ID": extblogfake.DefaultPublicationID, "EXTBLOG_PUBLICATION_HOST": extblogfake.DefaultHost,
			"FOLIO_SITE_URL": "https://olivia.example"}
	}
	if got := run(t, vars(), "extblog", "import"); !strings.Contains(got, fmt.Sprintf("%d posts on the platform, %d imported", n+1, n+1)) {
		t.Fatalf("first import: %s", got)
	}
	if pages := fake.CallCount("ListPosts"); pages < 3 {
		t.Fatalf("%d list calls: not paginated", pages)
	}
	if got := run(t, vars(), "extblog", "import"); !strings.Contains(got, "0 imported") {
		t.Fatalf("second import changed something: %s", got)
	}
	db = openData(t, dir)
	defer db.Close()
	posts, err := db.Archive.AllPosts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(posts) != n+1 {
		t.Fatalf("%d local posts, want %d (the %d remote ones, the cross-posted one linked to the local article)", len(posts), n+1, n)
	}
	byRemote := map[string]*folio.Post{}
	for _, p := range posts {
		if p.ExtblogID != "" {
			byRemote[p.ExtblogID] = p
		}
	}
	if len(byRemote) != n+1 || byRemote[linked] == nil || byRemote[linked].ID != local.ID {
		t.Fatalf("%d linked posts; the cross-posted one: %+v", len(byRemote), byRemote[linked])
	}
	for _, p := range fake.Posts() {
		lp := byRemote[p.ID]
		if lp == nil || (p.ID != linked && (lp.Title != p.Title || lp.Content != p.ContentMarkdown || lp.Status != folio.PostPublished)) {
			t.Fatalf("remote %s (%s) → %+v", p.ID, p.Title, lp)
		}
	}
	env, _, _ := envWith(t, map[string]string{})
	if err := Run(context.Background(), []string{"migrate"}, env); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), []string{"extblog", "import"}, env); err == nil || !strings.Contains(err.Error(), "EXTBLOG_") {
		t.Fatalf("unconfigured: %v", err)
	}
}
