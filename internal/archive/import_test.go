package archive_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/archive"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// refusal asserts err is a refused archive naming entry and saying want.
func refusal(t *testing.T, err error, entry, want string) {
	t.Helper()
	var fe *folio.Error
	if !errors.As(err, &fe) || fe.Code != folio.EINVALID || !strings.Contains(fe.Message, entry+": ") || !strings.Contains(fe.Message, want) {
		t.Fatalf("err = %v, want a refusal naming %s and saying %q", err, entry, want)
	}
}

func read(t *testing.T, data []byte, maxBytes int64) (*archive.Archive, error) {
	t.Helper()
	return archive.Read(bytes.NewReader(data), int64(len(data)), maxBytes)
}

// exifJPEG is a w×h JPEG carrying an EXIF block with a planted secret.
func exifJPEG(t *testing.T, w, h int) string {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{R: uint8(x), G: uint8(y), B: 90, A: 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	payload := []byte("Exif\x00\x00II*\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00SECRET-GPS")
	app1 := binary.BigEndian.AppendUint16([]byte{0xFF, 0xE1}, uint16(len(payload)+2))
	return string(b.Bytes()[:2]) + string(app1) + string(payload) + string(b.Bytes()[2:])
}

const mediaJSON = `[
  {"key": "evil.html", "url": "https://old.example/media/evil.html", "filename": "evil.html", "size": 1, "contentType": "text/html",
   "source": "upload", "createdAt": "2026-01-01T00:00:00Z"},
  {"key": "photo.jpg", "url": "https://old.example/media/photo.jpg", "filename": "photo.jpg", "size": 1, "contentType": "text/html",
   "source": "upload", "createdAt": "2026-01-02T00:00:00Z",
   "variants": [{"width": 320, "height": 240, "url": "https://old.example/media/photo-w320.jpg", "key": "photo-w320.jpg"}]}
]`

const refPost = "---\nid: p1\nslug: refs\ntitle: Refs\nstatus: published\ncreatedAt: 2026-01-01T00:00:00Z\nupdatedAt: 2026-01-01T00:00:00Z\n" +
	"seo:\n  image: https://old.example/media/photo.jpg\n---\n" +
	"![a](/media/evil.html) ![b](https://old.example/media/photo.jpg?w=1) <img srcset=\"/media/photo-w320.jpg 320w\"> /media/photo.jpg.bak\n"

// TestImportNamesAndTypesMediaByContent: an archive's media keys and content types are not
// trusted. A PNG declared as text/html under "evil.html" and a JPEG with EXIF under a legacy
// key go through the upload pipeline: stored under <sha256>.<ext> of their content with the
// sniffed type, metadata stripped, variants made afresh (the archive's variant file is never
// stored); posts and projects that referred to the old keys refer to the new ones.
func TestImportNamesAndTypesMediaByContent(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		store := newStore(t)
		data := zipOf(t,
			"media.json", mediaJSON,
			"media/evil.html", pngImage(t, 40, 20),
			"media/photo.jpg", exifJPEG(t, 640, 480),
			"media/photo-w320.jpg", "<script>alert(1)</script>",
			"posts/refs.md", refPost,
			"projects.json", `[{"id":"pr1","title":"P","description":"see /media/photo.jpg","status":"published",
				"images":[{"url":"https://old.example/media/evil.html","alt":"a","type":"screenshot"}]}]`)
		for range 2 { // importing again changes nothing
			a, err := read(t, data, 0)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := a.Apply(ctx, db.Archive, uploader(t, store))
			if err != nil {
				t.Fatal(err)
			}
			if sum.Media != 2 || sum.Renamed != 2 || sum.Posts != 1 || sum.Projects != 1 {
				t.Fatalf("summary %+v", sum)
			}
		}
		all, err := db.Archive.AllMedia(ctx)
		if err != nil || len(all) != 2 {
			t.Fatalf("media rows %+v %v", all, err)
		}
		keys := map[string]folio.MediaEntry{}
		for _, m := range all {
			keys[m.ContentType] = m
			if !strings.HasSuffix(m.URL, "/media/"+m.Key) {
				t.Errorf("url %s of %s", m.URL, m.Key)
			}
		}
		png, jpg := keys["image/png"], keys["image/jpeg"]
		if len(png.Key) != 64+len(".png") || !strings.HasSuffix(png.Key, ".png") || len(jpg.Key) != 64+len(".jpg") || !strings.HasSuffix(jpg.Key, ".jpg") {
			t.Fatalf("keys: %+v", all)
		}
		if png.Filename != "evil.html" || jpg.Width != 640 || len(jpg.Variants) != 1 || jpg.Variants[0].Width != 320 || jpg.Blurhash == "" {
			t.Fatalf("records: %+v", all)
		}
		for _, key := range []string{"evil.html", "photo.jpg", "photo-w320.jpg"} {
			if ok, _ := store.Exists(ctx, key); ok {
				t.Errorf("the archive's key %s was stored", key)
			}
		}
		for key, ct := range map[string]string{png.Key: "image/png", jpg.Key: "image/jpeg", jpg.Variants[0].Key: "image/jpeg"} {
			rec := httptest.NewRecorder()
			store.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/media/"+key, nil))
			if rec.Code != 200 || rec.Header().Get("Content-Type") != ct {
				t.Errorf("GET /media/%s: %d %s", key, rec.Code, rec.Header().Get("Content-Type"))
			}
			if key == jpg.Key && (strings.Contains(rec.Body.String(), "SECRET") || strings.Contains(rec.Body.String(), "Exif")) {
				t.Error("the imported photo kept its EXIF block")
			}
		}
		rec := httptest.NewRecorder()
		store.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/media/evil.html", nil))
		if rec.Code != 404 {
			t.Errorf("GET /media/evil.html: %d %s", rec.Code, rec.Header().Get("Content-Type"))
		}

		p, err := db.Content.PostBySlug(ctx, "refs")
		if err != nil {
			t.Fatal(err)
		}
		want := "![a](/media/" + png.Key + ") ![b](https://old.example/media/" + jpg.Key + "?w=1) <img srcset=\"/media/" +
			jpg.Variants[0].Key + " 320w\"> /media/photo.jpg.bak\n"
		if p.Content != want || p.SEO == nil || p.SEO.Image != "https://old.example/media/"+jpg.Key {
			t.Fatalf("post content:\n%s\nwant:\n%s\nseo: %+v", p.Content, want, p.SEO)
		}
		projects, _ := db.Archive.AllProjects(ctx)
		if len(projects) != 1 || projects[0].Description != "see /media/"+jpg.Key || projects[0].Images[0].URL != "https://old.example/media/"+png.Key {
			t.Fatalf("project: %+v", projects)
		}
	})
}

// TestImportRefusesMediaUploadRefuses: a file upload would refuse (HTML) stops the import
// before any row is written, naming the entry; nothing is stored under the archive's key.
func TestImportRefusesMediaUploadRefuses(t *testing.T) {
	db, store := foliotest.MustOpenSQLite(t), newStore(t)
	data := zipOf(t,
		"media.json", `[{"key":"evil.html","contentType":"text/html","source":"upload","createdAt":"2026-01-01T00:00:00Z"}]`,
		"media/evil.html", "<!DOCTYPE html><html><script>fetch('/api/user/profile')</script></html>",
		"posts/a.md", okPost)
	a, err := read(t, data, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Apply(context.Background(), db.Archive, uploader(t, store))
	refusal(t, err, "media/evil.html", "The file type text/html; charset=utf-8 is not accepted")
	if ok, _ := store.Exists(context.Background(), "evil.html"); ok {
		t.Fatal("evil.html was stored")
	}
	if posts, _ := db.Archive.AllPosts(context.Background()); len(posts) != 0 {
		t.Fatal("a refused import wrote posts")
	}
}

// TestReadBoundsWhatItInflates: a post file is read through a limit whatever its header says
// (20 posts of 16 MiB in a 330 KB archive are refused at the first, with little memory), the
// API's field limits apply to imported rows, and the whole archive's inflated size is bounded.
func TestReadBoundsWhatItInflates(t *testing.T) {
	front := func(slug string) string {
		return "---\nid: " + slug + "\nslug: " + slug + "\ntitle: T\nstatus: draft\ncreatedAt: 2026-01-01T00:00:00Z\nupdatedAt: 2026-01-01T00:00:00Z\n---\n"
	}
	t.Run("bomb", func(t *testing.T) {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		filler := bytes.Repeat([]byte("a"), 1<<20)
		for i := range 20 {
			w, _ := zw.Create(fmt.Sprintf("posts/p%d.md", i))
			io.WriteString(w, front(fmt.Sprintf("p%d", i)))
			for range 16 {
				w.Write(filler)
			}
		}
		zw.Close()
		data := b.Bytes()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := read(t, data, 0)
		runtime.ReadMemStats(&after)
		refusal(t, err, "posts/p0.md", fmt.Sprintf("larger than %d bytes", archive.MaxPostFileBytes))
		// Before the limit, Read allocated 1011 MiB for this 330 KB archive and kept 459 MiB; now
		// about 4.5 MiB (more under -race, whose instrumentation allocates too): 16 post files'
		// worth still proves the entries past the first are never inflated.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*archive.MaxPostFileBytes {
			t.Fatalf("reading a %d-byte archive allocated %d MiB", len(data), alloc>>20)
		}
	})
	t.Run("lying header", func(t *testing.T) {
		// The header says 100 bytes; the entry inflates to 8 MiB.
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		var deflated bytes.Buffer
		fw, _ := flate.NewWriter(&deflated, flate.BestCompression)
		fw.Write([]byte(`[{"id":"1","title":"` + strings.Repeat("x", 8<<20) + `"}]`))
		fw.Close()
		w, _ := zw.CreateRaw(&zip.FileHeader{Name: "projects.json", Method: zip.Deflate, CompressedSize64: uint64(deflated.Len()), UncompressedSize64: 100})
		w.Write(deflated.Bytes())
		zw.Close()
		_, err := read(t, b.Bytes(), 0)
		var fe *folio.Error
		if !errors.As(err, &fe) || !strings.Contains(fe.Message, "projects.json: ") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("content over the API limit", func(t *testing.T) {
		_, err := read(t, zipOf(t, "posts/long.md", front("long")+strings.Repeat("é", folio.MaxPostContentLen+1)), 0)
		refusal(t, err, "posts/long.md", fmt.Sprintf("content must be at most %d characters", folio.MaxPostContentLen))
	})
	t.Run("field rules", func(t *testing.T) {
		for entry, files := range map[string][]string{
			"posts/a.md":    {"posts/a.md", strings.Replace(okPost, "title: A", "title: A\ntags: [go, Go]", 1)},
			"projects.json": {"projects.json", `[{"id":"1","title":"t","description":"d","demoUrl":"javascript:alert(1)"}]`},
			"profile.json":  {"profile.json", `{"id":"u","email":"o@example.com","name":"O","website":"javascript:alert(1)"}`},
			"media.json":    {"media.json", `[{"key":"a.png","source":"upload","prompt":"` + strings.Repeat("p", 4001) + `"}]`, "media/a.png", "x"},
		} {
			_, err := read(t, zipOf(t, files...), 0)
			refusal(t, err, entry, "")
		}
	})
	t.Run("total", func(t *testing.T) {
		post := func(slug string) string { return front(slug) + strings.Repeat("b", 100_000) }
		data := zipOf(t, "posts/a.md", post("a"), "posts/b.md", post("b"), "posts/c.md", post("c"))
		if _, err := read(t, data, 400_000); err != nil {
			t.Fatal(err)
		}
		_, err := read(t, data, 250_000)
		refusal(t, err, "posts/c.md", "more than 250000 bytes")
	})
}

// TestApplyBoundsMedia: media count against the archive's bound as they stream, and each file
// against the upload size limit; a refusal names the entry and writes no row.
func TestApplyBoundsMedia(t *testing.T) {
	db, store := foliotest.MustOpenSQLite(t), newStore(t)
	data := zipOf(t,
		"media.json", `[{"key":"a.pdf","source":"upload","createdAt":"2026-01-01T00:00:00Z"}]`,
		"media/a.pdf", "%PDF-1.4\n"+strings.Repeat("0", 300_000),
		"posts/a.md", okPost)
	a, err := read(t, data, 200_000)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Apply(context.Background(), db.Archive, uploader(t, store))
	refusal(t, err, "media/a.pdf", "more than 200000 bytes")

	a, _ = read(t, data, 0)
	up := uploader(t, store)
	up.MaxBytes = 100_000
	_, err = a.Apply(context.Background(), db.Archive, up)
	refusal(t, err, "media/a.pdf", "larger than")
	if all, _ := db.Archive.AllMedia(context.Background()); len(all) != 0 {
		t.Fatalf("media rows: %+v", all)
	}
	if posts, _ := db.Archive.AllPosts(context.Background()); len(posts) != 0 {
		t.Fatal("a refused import wrote posts")
	}
}

func FuzzRenameRefs(f *testing.F) {
	f.Add("![a](/media/old.png) /media/old.png.bak https://x/old.png?w=1", "old.png")
	f.Add("////a/a/a", "a/a")
	f.Fuzz(func(t *testing.T, s, key string) {
		if key == "" || strings.ContainsAny(key, " \t\r\n\"'()<>[]?#|,`") {
			return
		}
		got := archive.RenameRefs(s, map[string]string{key: "NEW"})
		if !strings.Contains(s, "/"+key) && got != s {
			t.Fatalf("%q changed without a reference to %q: %q", s, key, got)
		}
		if back := archive.RenameRefs(s, nil); back != s {
			t.Fatal("no renames changed the text")
		}
	})
}
