package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/audit"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestMediaDeleteRoute(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newMediaServer(t, db, nil)
		ts.Uploader.MaxBytes = 1 << 20
		auditLog := audit.New(db.Audit, audit.Options{})
		ts.Audit = auditLog
		v := newOpenAPIValidator(t, ts)
		upload := func(name string, data []byte) (obj struct {
			Key, URL string
			Variants []struct{ URL string }
		}) {
			t.Helper()
			ct, body := multipartBody(t, "file", name, data)
			res := ts.do("POST", "/api/media/upload", "write", body, "Content-Type", ct)
			if res.Status != http.StatusCreated {
				t.Fatalf("upload: %d %s", res.Status, res.Body)
			}
			json.Unmarshal(res.Body, &obj)
			return obj
		}
		photo := upload("trip.jpg", phoneJPEG(t, 700, 350))
		if photo.Key == "" || len(photo.Variants) != 2 || !strings.HasSuffix(photo.URL, "/"+photo.Key) {
			t.Fatalf("upload answer lacks the key or the variants: %+v", photo)
		}
		path := strings.TrimPrefix(photo.URL, "http://folio.test")
		variantPath := strings.TrimPrefix(photo.Variants[0].URL, "http://folio.test")

		// A post shows a variant, a project the original.
		post := ts.do("POST", "/api/posts", "write", map[string]any{"title": "Trip notes", "content": "![beach](" + photo.Variants[0].URL + ")"}).json(t)
		project := ts.do("POST", "/api/projects", "write", map[string]any{"title": "Travel site", "description": "d", "status": "published",
			"images": []map[string]any{{"url": photo.URL, "alt": "home page", "type": "screenshot"}}}).json(t)
		ts.do("GET", "/api/projects/"+project["id"].(string), "", nil) // cached now

		res := ts.do("DELETE", "/api/media/"+photo.Key, "write", nil)
		if res.Status != http.StatusConflict || res.errorCode(t) != "CONFLICT" {
			t.Fatalf("delete of a used file: %d %s", res.Status, res.Body)
		}
		v.check("DELETE", "/api/media/{key}", res)
		var env struct {
			Error struct{ Details []folio.FieldError }
		}
		json.Unmarshal(res.Body, &env)
		want := []folio.FieldError{{Field: "post", ID: post["id"].(string), Title: "Trip notes"}, {Field: "project", ID: project["id"].(string), Title: "Travel site"}}
		if d := env.Error.Details; len(d) != 2 || d[0].Field != want[0].Field || d[0].ID != want[0].ID || d[0].Title != want[0].Title ||
			d[1].Field != want[1].Field || d[1].ID != want[1].ID || d[1].Title != want[1].Title || !strings.Contains(d[0].Message, "Trip notes") {
			t.Fatalf("409 details %+v, want %+v", d, want)
		}
		if got := ts.do("GET", path, "", nil); got.Status != http.StatusOK {
			t.Fatalf("the refused delete removed the file: %d", got.Status)
		}

		for _, tc := range []struct {
			name, token, path string
			status            int
			code              string
		}{
			{"no credentials", "", "/api/media/" + photo.Key + "?force=true", 401, "AUTHENTICATION_REQUIRED"},
			{"read key", "read", "/api/media/" + photo.Key + "?force=true", 403, "PERMISSION_DENIED"},
			{"force not a boolean", "write", "/api/media/" + photo.Key + "?force=maybe", 400, "VALIDATION_ERROR"},
			{"unknown key", "write", "/api/media/" + strings.Repeat("0", 64) + ".png", 404, "RESOURCE_NOT_FOUND"},
			{"a variant is not a library item", "write", variantPath[len("/media"):], 404, "RESOURCE_NOT_FOUND"},
		} {
			path := tc.path
			if !strings.HasPrefix(path, "/api/") {
				path = "/api/media" + path
			}
			if res := ts.do("DELETE", path, tc.token, nil); res.Status != tc.status || res.errorCode(t) != tc.code {
				t.Errorf("%s: %d %s, want %d %s", tc.name, res.Status, res.Body, tc.status, tc.code)
			}
		}

		gen := ts.cache.Generation(scopeProjects).Load()
		res = ts.do("DELETE", "/api/media/"+photo.Key+"?force=true", "write", nil)
		if res.Status != http.StatusNoContent || len(res.Body) != 0 {
			t.Fatalf("forced delete: %d %s", res.Status, res.Body)
		}
		v.check("DELETE", "/api/media/{key}", res)
		for _, p := range []string{path, variantPath, strings.TrimPrefix(photo.Variants[1].URL, "http://folio.test")} {
			if got := ts.do("GET", p, "", nil); got.Status != http.StatusNotFound {
				t.Errorf("GET %s after delete: %d, want 404", p, got.Status)
			}
		}
		if list := ts.do("GET", "/api/media", "write", nil); strings.Contains(string(list.Body), photo.Key) {
			t.Errorf("the library still lists the file: %s", list.Body)
		}
		if ts.cache.Generation(scopeProjects).Load() == gen {
			t.Error("the cached project responses (which show the file) were not invalidated")
		}
		if res := ts.do("DELETE", "/api/media/"+photo.Key+"?force=true", "write", nil); res.Status != http.StatusNotFound {
			t.Errorf("second delete: %d, want 404", res.Status)
		}

		// A file nothing uses goes without force.
		unused := upload("unused.png", pngBytes(t, 8, 8))
		if res := ts.do("DELETE", "/api/media/"+unused.Key, "write", nil); res.Status != http.StatusNoContent {
			t.Errorf("delete of an unused file: %d %s", res.Status, res.Body)
		}

		if err := auditLog.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		entries, _, err := db.Audit.AuditEntries(t.Context(), folio.AuditFilter{Action: "media.delete", Page: 1, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		statuses := map[int]int{}
		for _, e := range entries {
			if e.ResourceID == photo.Key || e.ResourceID == unused.Key {
				statuses[e.Status]++
			}
		}
		if statuses[204] != 2 || statuses[409] != 1 {
			t.Errorf("audit of media.delete: statuses %v, want 2×204 and the 409", statuses)
		}
	})
}
