package httpapi

import (
	"bytes"
	"context"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/archive"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestExportRoute(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		store, err := blob.NewLocal(t.TempDir(), "")
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		ts := newTestServer(t, db, func(s *Server) { s.MediaStore = store })
		v := newOpenAPIValidator(t, ts)
		title, desc := "Exported", "d"
		if _, err := content.New(db.Content).CreateProject(context.Background(), &folio.ProjectInput{Title: &title, Description: &desc}); err != nil {
			t.Fatal(err)
		}
		res := ts.do("GET", "/api/export", "admin", nil)
		v.check("GET", "/api/export", res)
		if res.Status != 200 || res.Header.Get("Content-Type") != "application/zip" || res.Header.Get("Content-Disposition") == "" {
			t.Fatalf("export: %d %v", res.Status, res.Header)
		}
		a, err := archive.Read(bytes.NewReader(res.Body), int64(len(res.Body)), 0)
		if err != nil || len(a.Projects) != 1 || a.Projects[0].Title != "Exported" {
			t.Fatalf("archive: %+v %v", a, err)
		}
		var direct bytes.Buffer
		if err := archive.Export(context.Background(), db.Archive, store, &direct); err != nil || !bytes.Equal(direct.Bytes(), res.Body) {
			t.Fatalf("the API's archive differs from the CLI's (%v)", err)
		}
		for tok, want := range map[string]int{"": 401, "read": 403, "write": 403, "editor": 403} {
			if res := ts.do("GET", "/api/export", tok, nil); res.Status != want {
				t.Errorf("export as %q: %d", tok, res.Status)
			}
		}
	})
}
