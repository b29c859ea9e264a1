package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/backup"
	"github.com/foliohq/folio/internal/blob"
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

// TestRestoreCommand: folio backup writes a snapshot with its signed manifest; folio restore
// takes it from the file, or from backups/ in the media storage ("latest", as the backup job
// stores them), and replaces the database.
func TestRestoreCommand(t *testing.T) {
	dir := t.TempDir()
	db := openData(t, dir)
	title, desc := "Before the snapshot", "d"
	if _, err := content.New(db.Content).CreateProject(context.Background(), &folio.ProjectInput{Title: &title, Description: &desc}); err != nil {
		t.Fatal(err)
	}
	// Analytics, in its own file on SQLite, is in the snapshot too.
	addDay := func(db *sqldb.DB, day string) {
		t.Helper()
		if _, err := db.Analytics().W.Exec(`INSERT INTO analytics_daily_totals (day, views, visits) VALUES ($1, 1, 1)`, day); err != nil {
			t.Fatal(err)
		}
	}
	addDay(db, "2026-01-01")
	db.Close()
	snap := filepath.Join(t.TempDir(), "snap.db")
	run(t, restoreVars(dir), "backup", "--out", snap)
	db = openData(t, dir)
	title2 := "After the snapshot"
	if _, err := content.New(db.Content).CreateProject(context.Background(), &folio.ProjectInput{Title: &title2, Description: &desc}); err != nil {
		t.Fatal(err)
	}
	addDay(db, "2026-01-02")
	db.Close()
	projects := func() []string {
		db := openData(t, dir)
		defer db.Close()
		all, _ := db.Archive.AllProjects(context.Background())
		var titles []string
		for _, p := range all {
			titles = append(titles, p.Title)
		}
		return titles
	}
	if got := run(t, restoreVars(dir), "restore", snap); !strings.Contains(got, "restoring "+snap+" (signed, taken ") {
		t.Fatalf("restore: %s", got)
	}
	if got := projects(); len(got) != 1 || got[0] != "Before the snapshot" {
		t.Fatalf("after restore: %v", got)
	}
	db = openData(t, dir)
	var days []string
	rows, err := db.Analytics().R.Query(`SELECT day FROM analytics_daily_totals ORDER BY day`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d string
		rows.Scan(&d)
		days = append(days, d)
	}
	rows.Close()
	db.Close()
	if len(days) != 1 || days[0] != "2026-01-01" {
		t.Fatalf("analytics days after restore: %v, want the snapshot's [2026-01-01]", days)
	}
	// The manifest vouches for the bytes, whatever the name: copied into backups/ as the job
	// stores them, it is the latest.
	if err := os.MkdirAll(filepath.Join(dir, "media", "backups"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", ".sig"} {
		b, _ := os.ReadFile(snap + suffix)
		os.WriteFile(filepath.Join(dir, "media", "backups", "folio-20260101T000000.000Z.db"+suffix), b, 0o600)
	}
	if got := run(t, restoreVars(dir), "restore", "latest"); !strings.Contains(got, "restoring backups/folio-20260101T000000.000Z.db (signed") {
		t.Fatalf("restore: %s", got)
	}
	env, _, _ := envWith(t, map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1:1/x"})
	if err := Run(context.Background(), []string{"restore", "latest"}, env); err == nil || !strings.Contains(err.Error(), "pg_restore") {
		t.Fatalf("restore on PostgreSQL: %v", err)
	}
}

const restoreSecret = "the instance secret of the restore tests, 32+ bytes"

// restoreVars configures a site in dir with restoreSecret as its instance secret.
func restoreVars(dir string) map[string]string {
	return map[string]string{"FOLIO_DATA_DIR": dir, "NEXTAUTH_SECRET": restoreSecret}
}

// TestImportCannotPlantSnapshot: an archive carrying media/backups/folio-29990101T000000Z.db
// (a folio database of the attacker's) writes nothing under backups/, and folio restore latest
// restores the snapshot the backup job took. A database put there by other means (a shared
// bucket) is passed over by latest and refused by name unless --trust-unsigned.
func TestImportCannotPlantSnapshot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openData(t, dir)
	title, desc := "Genuine", "d"
	if _, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: &title, Description: &desc}); err != nil {
		t.Fatal(err)
	}
	store, err := blob.NewLocal(filepath.Join(dir, "media"), "")
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := backup.NewSigner(restoreSecret)
	svc := &backup.Service{DB: db, Queue: db.Jobs, Store: store, Signer: signer, TempDir: t.TempDir(), Keep: 7, Now: time.Now}
	genuine, err := svc.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	db.Close()

	other := t.TempDir()
	odb := openData(t, other)
	mark := "Planted"
	if _, err := content.New(odb.Content).CreateProject(ctx, &folio.ProjectInput{Title: &mark, Description: &desc}); err != nil {
		t.Fatal(err)
	}
	plantedFile := filepath.Join(t.TempDir(), "planted.db")
	if err := odb.Backup(ctx, plantedFile); err != nil {
		t.Fatal(err)
	}
	odb.Close()
	planted, _ := os.ReadFile(plantedFile)
	const key = "backups/folio-29990101T000000Z.db"
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, body := range map[string]string{
		"media.json":   `[{"key":"` + key + `","url":"/media/` + key + `","filename":"x.db","size":1,"contentType":"image/png","source":"upload","createdAt":"2026-01-01T00:00:00Z"}]`,
		"media/" + key: string(planted),
	} {
		w, _ := zw.Create(name)
		io.WriteString(w, body)
	}
	zw.Close()
	archivePath := filepath.Join(t.TempDir(), "evil.zip")
	os.WriteFile(archivePath, zb.Bytes(), 0o600)

	env, out, _ := envWith(t, restoreVars(dir))
	err = Run(ctx, []string{"import", archivePath}, env)
	if _, serr := os.Stat(filepath.Join(dir, "media", key)); serr == nil {
		t.Errorf("the import planted %s (import: %v %s)", key, err, out)
	}
	if err == nil || !strings.Contains(err.Error(), "media/"+key) {
		t.Errorf("import = %v, want a refusal naming the entry", err)
	}

	restored := func() string {
		db := openData(t, dir)
		defer db.Close()
		all, _ := db.Archive.AllProjects(ctx)
		if len(all) != 1 {
			t.Fatalf("projects %+v", all)
		}
		return all[0].Title
	}
	// Planted by other means: passed over by latest, refused by name.
	os.WriteFile(filepath.Join(dir, "media", key), planted, 0o600)
	env, out, errb := envWith(t, restoreVars(dir))
	if err := Run(ctx, []string{"restore", "latest"}, env); err != nil {
		t.Fatalf("restore latest: %v %s", err, errb)
	}
	if !strings.Contains(out.String(), "restoring "+genuine+" (signed") || !strings.Contains(errb.String(), "passing over "+key) {
		t.Fatalf("restore latest said:\n%s\n%s", out, errb)
	}
	if got := restored(); got != "Genuine" {
		t.Fatalf("restore latest restored %q", got)
	}
	env, _, _ = envWith(t, restoreVars(dir))
	if err := Run(ctx, []string{"restore", key}, env); err == nil || !strings.Contains(err.Error(), "--trust-unsigned") {
		t.Fatalf("restore of an unsigned snapshot: %v", err)
	}
	env, _, _ = envWith(t, restoreVars(dir))
	if err := Run(ctx, []string{"restore", "backups/folio-missing.db"}, env); err == nil || strings.Contains(err.Error(), "--trust-unsigned") {
		t.Fatalf("restore of a missing snapshot: %v", err)
	}
	env, _, _ = envWith(t, restoreVars(dir))
	if err := Run(ctx, []string{"restore", "latest", "--trust-unsigned"}, env); err != ErrUsage {
		t.Fatalf("--trust-unsigned with latest: %v", err)
	}
	// Under another secret (rotated), the genuine snapshot is unsigned too.
	env, _, _ = envWith(t, map[string]string{"FOLIO_DATA_DIR": dir, "NEXTAUTH_SECRET": "a rotated secret of at least 32 bytes"})
	if err := Run(ctx, []string{"restore", "latest"}, env); err == nil || !strings.Contains(err.Error(), "no signed snapshot") {
		t.Fatalf("restore latest under another secret: %v", err)
	}
	// Named and trusted, it is restored.
	if got := run(t, restoreVars(dir), "restore", key, "--trust-unsigned"); !strings.Contains(got, "without checking its signature") {
		t.Fatalf("restore --trust-unsigned: %s", got)
	}
	if got := restored(); got != "Planted" {
		t.Fatalf("restore --trust-unsigned restored %q", got)
	}
}

// TestImportCommandBounds: folio import refuses media that upload refuses (naming the entry,
// storing nothing under the archive's key) and a zip bomb of posts, at its first post.
func TestImportCommandBounds(t *testing.T) {
	dir := t.TempDir()
	archiveOf := func(files map[string]string) string {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for name, body := range files {
			w, _ := zw.Create(name)
			io.WriteString(w, body)
		}
		zw.Close()
		path := filepath.Join(t.TempDir(), "a.zip")
		os.WriteFile(path, b.Bytes(), 0o600)
		return path
	}
	html := archiveOf(map[string]string{
		"media.json":      `[{"key":"evil.html","url":"/media/evil.html","filename":"evil.html","size":1,"contentType":"text/html","source":"upload","createdAt":"2026-01-01T00:00:00Z"}]`,
		"media/evil.html": "<!DOCTYPE html><script>alert(document.cookie)</script>",
	})
	env, _, _ := envWith(t, map[string]string{"FOLIO_DATA_DIR": dir})
	if err := Run(context.Background(), []string{"import", html}, env); err == nil || !strings.Contains(err.Error(), "media/evil.html: The file type text/html") {
		t.Errorf("import of an HTML file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "media", "evil.html")); err == nil {
		t.Error("media/evil.html was stored")
	}
	const front = "---\nid: p\nslug: p\ntitle: T\nstatus: draft\ncreatedAt: 2026-01-01T00:00:00Z\nupdatedAt: 2026-01-01T00:00:00Z\n---\n"
	bomb := archiveOf(map[string]string{"posts/p.md": front + strings.Repeat("a", 16<<20-200)})
	env, _, _ = envWith(t, map[string]string{"FOLIO_DATA_DIR": dir})
	if err := Run(context.Background(), []string{"import", bomb}, env); err == nil || !strings.Contains(err.Error(), "posts/p.md: larger than") {
		t.Errorf("import of a 16 MiB post: %v", err)
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

// TestImportRefusalLine: the line main prints for a refused archive carries the "folio: " prefix
// once, whether Read refuses it (not a zip) or Apply does (a media file uploads refuse).
func TestImportRefusalLine(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.zip")
	if err := os.WriteFile(garbage, []byte("PK nonsense"), 0o600); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{
		"media.json":      `[{"key":"evil.html","contentType":"text/html","source":"upload","createdAt":"2026-01-01T00:00:00Z"}]`,
		"media/evil.html": "<!DOCTYPE html><html><script>alert(1)</script></html>",
	} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "html.zip")
	if err := os.WriteFile(html, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		garbage: "folio: VALIDATION_ERROR: The archive is refused: not a zip archive: zip: not a valid zip file.",
		html:    "folio: import: VALIDATION_ERROR: The archive is refused: media/evil.html: The file type text/html; charset=utf-8 is not accepted; allowed: image/png, image/jpeg, image/gif, image/webp, image/avif, application/pdf.",
	} {
		env, _, _ := envWith(t, map[string]string{})
		err := Run(context.Background(), []string{"import", file}, env)
		if err == nil {
			t.Fatalf("%s: imported", filepath.Base(file))
		}
		if got := ErrorLine(err); got != want {
			t.Errorf("%s:\n got %s\nwant %s", filepath.Base(file), got, want)
		}
	}
	for err, want := range map[error]string{
		io.ErrUnexpectedEOF: "folio: unexpected EOF",
		fmt.Errorf("restore: %w", folio.Errorf(folio.ENOTFOUND, "No snapshot.")):                                                                  "folio: restore: RESOURCE_NOT_FOUND: No snapshot.",
		&folio.Error{Code: folio.EINVALID, Message: "Bad flags.", Details: []folio.FieldError{{Field: "max-bytes", Message: "must be positive"}}}: "folio: VALIDATION_ERROR: Bad flags. (max-bytes: must be positive)",
	} {
		if got := ErrorLine(err); got != want {
			t.Errorf("ErrorLine(%v) = %q, want %q", err, got, want)
		}
	}
}
