package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/media"
	"github.com/foliohq/folio/internal/sqldb"
)

// TestSeedDemoPictures seeds the demo with an upload pipeline over local storage: every demo
// project with a picture points into the site's own media library, and the file is there,
// served as a PNG with its variants.
func TestSeedDemoPictures(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		store, err := blob.NewLocal(t.TempDir(), "https://folio.example/media")
		if err != nil {
			t.Fatal(err)
		}
		up := &media.Uploader{Store: store, Allowed: media.AllowedTypes(false), TempDir: t.TempDir()}
		if _, err := SeedDemo(ctx, db, up); err != nil {
			t.Fatal(err)
		}
		projects, _, err := db.Content.Projects(ctx, folio.ProjectFilter{Page: 1, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		files := httptest.NewServer(store.Handler())
		defer files.Close()
		pictured := 0
		for _, p := range projects {
			full, err := db.Content.Project(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, img := range full.Images {
				pictured++
				path, ok := strings.CutPrefix(img.URL, "https://folio.example/media/")
				if !ok || img.Alt == "" || img.Width == 0 || img.Height == 0 {
					t.Errorf("%s: image %+v is not from the media library", p.Title, img)
					continue
				}
				res, err := http.Get(files.URL + "/media/" + path)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" {
					t.Errorf("%s: GET %s → %d %s", p.Title, path, res.StatusCode, res.Header.Get("Content-Type"))
				}
			}
		}
		if pictured != len(demoPictures) {
			t.Errorf("%d demo pictures in projects, want %d", pictured, len(demoPictures))
		}
	})
}
