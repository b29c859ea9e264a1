package archive_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/archive"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/media"
	"github.com/foliohq/folio/internal/sqldb"
)

func ptr[T any](v T) *T { return &v }

// fillSite writes content that uses every field: a published post with SEO, settings, series,
// tags and cross-publishing; a scheduled draft; projects; the owner's profile; two media files;
// settings the owner changed, a (sealed) SMTP password among them.
func fillSite(t *testing.T, db *sqldb.DB, store folio.BlobStore) {
	t.Helper()
	ctx := context.Background()
	owner, err := db.Identity.CreateUser(ctx, &folio.UserInput{Email: "olivia@example.com", Name: "Olivia", Role: folio.RoleOwner}, "$argon2id$x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Identity.UpdateProfile(ctx, owner.ID, &folio.ProfileUpdate{Bio: ptr("Writes: \"code\" — and prose.\n"), Location: ptr("Lyon"),
		Website: ptr("https://olivia.example")}); err != nil {
		t.Fatal(err)
	}
	author := folio.PostAuthor{ID: owner.ID, Name: owner.Name, Email: owner.Email}
	p1, err := content.New(db.Content).CreatePost(ctx, &folio.PostInput{Title: ptr("Héllo: wörld — YAML's \"edge\" cases"), Content: ptr("---\nnot front matter\n---\n# Body\n\n```\nkey: value\n```\n"),
		Tags: ptr([]string{"Go", "yaml: tricky"}), Category: ptr("notes"), Status: ptr(folio.PostPublished)}, author)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := content.New(db.Content).SavePublishingOptions(ctx, &folio.PublishingPlan{PostID: p1.ID, Publish: true,
		CrossPlatformPublishing: &folio.CrossPlatformPublishing{Extblog: true}, SEO: &folio.PostSEO{Title: "SEO", Description: "d", Image: "https://img.example/x.png"},
		SEOSet: true, Series: ptr("Series #1"), Settings: &folio.PostSettings{EnableComments: true, Newsletter: true}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Content.SetPostExtblogID(ctx, p1.ID, "remote-123"); err != nil {
		t.Fatal(err)
	}
	p2, err := content.New(db.Content).CreatePost(ctx, &folio.PostInput{Title: ptr("Draft"), Content: ptr("no trailing newline")}, author)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	if _, err := content.New(db.Content).SavePublishingOptions(ctx, &folio.PublishingPlan{PostID: p2.ID, ScheduledAt: &at}); err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"Folio", "Engines"} {
		if _, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: ptr(title), Description: ptr("About " + title),
			Technologies: ptr([]string{"Go", "SQL"}), Status: ptr(folio.ProjectPublished), DemoURL: ptr("https://demo.example/" + title),
			Images: ptr([]folio.ProjectImage{{URL: "https://img.example/" + title + ".png", Alt: title, Type: "screenshot"}})}); err != nil {
			t.Fatal(err)
		}
	}
	// An image (with the variants and blurhash upload gives it) and a PDF, uploaded as the API does.
	for _, f := range []struct{ name, body string }{{"photo.png", pngImage(t, 400, 200)}, {"cv.pdf", "%PDF-1.4 fake"}} {
		obj, err := uploader(t, store).FromReader(ctx, strings.NewReader(f.body), f.name, folio.BlobMeta{})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Media.RecordMedia(ctx, obj, "upload", "", owner.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Settings.SaveSettingsDocument(ctx, folio.SettingsDoc{"booking.timezone": json.RawMessage(`"Europe/Paris"`),
		"booking.hours.sat": json.RawMessage(`[{"start":"10:00","end":"12:00"}]`), "site.ownerName": json.RawMessage(`"Olivia O."`),
		"mail.smtp.password": json.RawMessage(`"v1:sealed-source-secret"`)}, 0); err != nil {
		t.Fatal(err)
	}
}

// pngImage is an opaque w×h PNG with a gradient.
func pngImage(t testing.TB, w, h int) string {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.NRGBA{R: uint8(x), G: uint8(y), B: 200, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func uploader(t testing.TB, store folio.BlobStore) *media.Uploader {
	return &media.Uploader{Store: store, TempDir: t.TempDir()}
}

// mediaKeys returns the keys of the media library: the PNG's, its variant's and the PDF's.
func mediaKeys(t *testing.T, db *sqldb.DB) (png, variant, pdf string) {
	t.Helper()
	all, err := db.Archive.AllMedia(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		switch m.ContentType {
		case "image/png":
			png = m.Key
			if len(m.Variants) != 1 {
				t.Fatalf("variants of %s: %+v", m.Key, m.Variants)
			}
			variant = m.Variants[0].Key
		case "application/pdf":
			pdf = m.Key
		}
	}
	if png == "" || pdf == "" {
		t.Fatalf("media: %+v", all)
	}
	return png, variant, pdf
}

func export(t *testing.T, db *sqldb.DB, store folio.BlobStore) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := archive.Export(context.Background(), db.Archive, store, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func importInto(t *testing.T, data []byte, db *sqldb.DB, store folio.BlobStore) archive.Summary {
	t.Helper()
	a, err := archive.Read(bytes.NewReader(data), int64(len(data)), 0)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := a.Apply(context.Background(), db.Archive, uploader(t, store))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func entries(t *testing.T, data []byte) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		out[f.Name] = string(b)
	}
	return out
}

func newStore(t *testing.T) *blob.Local {
	s, err := blob.NewLocal(t.TempDir(), "https://site.example/media")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestRoundTripSQLitePostgresSQLite: export → import into an empty PostgreSQL site → export →
// import into an empty SQLite site → export gives the same archive, byte for byte; importing
// again changes nothing.
func TestRoundTripSQLitePostgresSQLite(t *testing.T) {
	src, srcStore := foliotest.MustOpenSQLite(t), newStore(t)
	fillSite(t, src, srcStore)
	first := export(t, src, srcStore)

	got := entries(t, first)
	pngKey, variantKey, pdfKey := mediaKeys(t, src)
	for _, name := range []string{"projects.json", "profile.json", "media.json", "media/" + pngKey, "media/" + variantKey, "media/" + pdfKey, "posts/draft.md", "settings.json"} {
		if _, ok := got[name]; !ok {
			t.Fatalf("the archive lacks %s: %v", name, keys(got))
		}
	}
	var postName string
	for name := range got {
		if strings.HasPrefix(name, "posts/hello") {
			postName = name
		}
	}
	for _, want := range []string{"extblogId: remote-123", "series: 'Series #1'", "enableComments: true", "extblog: true",
		"image: https://img.example/x.png", "status: published", "email: olivia@example.com", "\n---\n---\nnot front matter"} {
		if !strings.Contains(got[postName], want) {
			t.Errorf("%s lacks %q:\n%s", postName, want, got[postName])
		}
	}
	if s := got["settings.json"]; !strings.Contains(s, `"booking.timezone": "Europe/Paris"`) || strings.Contains(s, "password") || strings.Contains(s, "sealed") {
		t.Errorf("settings.json must hold the changed settings and no secret:\n%s", s)
	}
	if !strings.Contains(got["posts/draft.md"], "scheduledAt: ") || !strings.HasSuffix(got["posts/draft.md"], "\n---\nno trailing newline") {
		t.Errorf("draft:\n%s", got["posts/draft.md"])
	}

	pg, pgStore := foliotest.MustOpenPostgres(t), newStore(t)
	// The target's own secret stays: an archive never carries one.
	if err := pg.Settings.SaveSettingsDocument(context.Background(), folio.SettingsDoc{"mail.smtp.password": json.RawMessage(`"v1:target-secret"`),
		"site.name": json.RawMessage(`"replaced by the import"`)}, 0); err != nil {
		t.Fatal(err)
	}
	if sum := importInto(t, first, pg, pgStore); sum.Posts != 2 || sum.Projects != 2 || sum.Media != 2 || !sum.Profile || !sum.Settings {
		t.Fatalf("import into PostgreSQL: %+v", sum)
	}
	if doc, _, err := pg.Settings.SettingsDocument(context.Background()); err != nil || string(doc["mail.smtp.password"]) != `"v1:target-secret"` ||
		doc["site.name"] != nil || string(doc["site.ownerName"]) != `"Olivia O."` {
		t.Errorf("settings after the import: %v %v", doc, err)
	}
	second := export(t, pg, pgStore)
	if !bytes.Equal(first, second) {
		diff(t, entries(t, first), entries(t, second))
		t.Fatal("SQLite → PostgreSQL changed the archive")
	}
	importInto(t, second, pg, pgStore) // again: idempotent
	if again := export(t, pg, pgStore); !bytes.Equal(first, again) {
		diff(t, entries(t, first), entries(t, again))
		t.Fatal("a second import changed the site")
	}

	back, backStore := foliotest.MustOpenSQLite(t), newStore(t)
	importInto(t, second, back, backStore)
	third := export(t, back, backStore)
	if !bytes.Equal(first, third) {
		diff(t, entries(t, first), entries(t, third))
		t.Fatal("PostgreSQL → SQLite changed the archive")
	}
	// Variants travel with their object: files in the new storage, listed with this site's URLs.
	media, _, err := back.Media.Media(context.Background(), folio.MediaFilter{Page: 1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range media {
		if m.Key != pngKey {
			continue
		}
		if len(m.Variants) != 1 || m.Variants[0].URL != backStore.URL(variantKey) || m.Blurhash == "" {
			t.Errorf("imported variants: %+v", m)
		}
		if ok, err := backStore.Exists(context.Background(), variantKey); !ok || err != nil {
			t.Errorf("variant file not imported: %v", err)
		}
	}
	// The imported site works: the post answers by slug with its fields.
	p, err := back.Content.PostBySlug(context.Background(), strings.TrimSuffix(strings.TrimPrefix(postName, "posts/"), ".md"))
	if err != nil || p.ExtblogID != "remote-123" || p.SEO == nil || p.SEO.Title != "SEO" || len(p.Tags) != 2 {
		t.Fatalf("imported post: %+v %v", p, err)
	}
	if n, _ := back.Jobs.JobsOfKind(context.Background(), folio.JobWebhookDelivery); len(n) != 0 {
		t.Fatal("an import emitted webhook events")
	}
	// The scheduled draft keeps its schedule: the imported site has its publish job.
	if js, _ := back.Jobs.JobsOfKind(context.Background(), folio.JobPublishPost); len(js) != 1 || js[0].Status != folio.JobPending {
		t.Fatalf("publish jobs after import: %+v", js)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func diff(t *testing.T, a, b map[string]string) {
	t.Helper()
	for k, v := range a {
		if b[k] != v {
			t.Errorf("%s differs:\n--- before\n%s\n--- after\n%s", k, v, b[k])
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
}

func zipOf(t testing.TB, files ...string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := 0; i+1 < len(files); i += 2 {
		w, err := zw.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[i+1]))
	}
	zw.Close()
	return b.Bytes()
}

const okPost = "---\nid: p1\nslug: a\ntitle: A\nstatus: draft\ncreatedAt: 2026-01-01T00:00:00Z\nupdatedAt: 2026-01-01T00:00:00Z\n---\nbody"

func TestReadRefusesPathTricks(t *testing.T) {
	if _, err := archive.Read(bytes.NewReader(zipOf(t, "posts/a.md", okPost)), int64(len(zipOf(t, "posts/a.md", okPost))), 0); err != nil {
		t.Fatalf("a good archive: %v", err)
	}
	for name, files := range map[string][]string{
		"dot-dot":          {"../etc/passwd", "x"},
		"media dot-dot":    {"media/../../x", "x"},
		"absolute":         {"/etc/passwd", "x"},
		"backslash":        {"media\\..\\x", "x"},
		"drive":            {"C:/x", "x"},
		"unknown entry":    {"evil.sh", "x"},
		"double slash":     {"media//x.png", "x"},
		"dot segment":      {"posts/./a.md", okPost},
		"twice":            {"posts/a.md", okPost, "posts/a.md", okPost},
		"slug mismatch":    {"posts/b.md", okPost},
		"bad slug":         {"posts/A_B.md", okPost},
		"no front matter":  {"posts/a.md", "just text"},
		"unknown field":    {"posts/a.md", strings.Replace(okPost, "title: A", "title: A\nevil: 1", 1)},
		"media missing":    {"media.json", `[{"key":"aa.png","url":"x","size":1,"contentType":"image/png","source":"upload","createdAt":"2026-01-01T00:00:00Z"}]`},
		"media key tricks": {"media.json", `[{"key":"../aa.png"}]`},
		"bad json":         {"projects.json", `{`},
		"project no id":    {"projects.json", `[{"title":"x"}]`},
		"profile no email": {"profile.json", `{"id":"u"}`},
		"bad setting":      {"settings.json", `{"booking.timezone":"Mars/Base"}`},
		"unknown setting":  {"settings.json", `{"site.evil":1}`},
		"settings list":    {"settings.json", `[1]`},
		"unlisted media":   {"media/backups/folio-29990101T000000Z.db", "SQLite format 3\x00"},
		"post over limits": {"posts/a.md", strings.Replace(okPost, "title: A", "title: "+strings.Repeat("t", folio.MaxPostTitleLen+1), 1)},
	} {
		t.Run(name, func(t *testing.T) {
			data := zipOf(t, files...)
			_, err := archive.Read(bytes.NewReader(data), int64(len(data)), 0)
			var fe *folio.Error
			if !errors.As(err, &fe) || fe.RuleBroken || fe.Code != folio.EINVALID {
				t.Fatalf("Read = %v, want a 400 VALIDATION_ERROR", err)
			}
		})
	}
	if _, err := archive.Read(strings.NewReader("not a zip"), 9, 0); err == nil {
		t.Fatal("a non-zip was read")
	}
}

func FuzzRead(f *testing.F) {
	f.Add(zipOf(f, "posts/a.md", okPost))
	f.Add(zipOf(f, "projects.json", `[{"id":"1","title":"t"}]`, "profile.json", `{"id":"u","email":"e@x"}`))
	f.Add(zipOf(f, "media.json", `[{"key":"aa.png"}]`, "media/aa.png", "x"))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := archive.Read(bytes.NewReader(data), int64(len(data)), 1<<20)
		if err != nil {
			return
		}
		for _, p := range a.Projects {
			if p.ID == "" || (&folio.ProjectInput{Title: &p.Title, Description: &p.Description}).Validate() != nil {
				t.Fatalf("accepted project %+v", p)
			}
		}
		for _, m := range a.Media {
			if blob.ValidateKey(m.Key) != nil {
				t.Fatalf("accepted media key %q", m.Key)
			}
		}
	})
}

func FuzzPostFile(f *testing.F) {
	f.Add(okPost)
	f.Add("---\n---\n")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := archive.UnmarshalPost([]byte(s))
		if err != nil {
			return
		}
		// What parses renders back into a file that parses to the same post.
		b, err := archive.MarshalPost(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := archive.UnmarshalPost(b)
		if err != nil || q.Content != p.Content || q.ID != p.ID || q.Slug != p.Slug || q.Title != p.Title {
			t.Fatalf("round trip changed the post: %v", err)
		}
	})
}
