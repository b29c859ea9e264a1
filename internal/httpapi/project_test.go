package httpapi

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func TestProjectRoutes(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newTestServer(t, db)
		valid := map[string]any{"title": "Tidewater", "description": "Field notes", "technologies": []string{"Go", "React"},
			"status": "published", "demoUrl": "https://demo.example.org",
			"images": []map[string]any{{"url": "https://example.org/a.png", "alt": "map", "type": "screenshot", "width": 10, "height": 20}}}

		res := ts.do("POST", "/api/projects", "write", valid)
		if res.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		created := res.json(t)
		id := created["id"].(string)
		for _, f := range []string{"id", "title", "description", "technologies", "status", "images", "createdAt", "updatedAt", "demoUrl"} {
			if _, ok := created[f]; !ok {
				t.Errorf("created project lacks %q", f)
			}
		}
		draft := ts.do("POST", "/api/projects", "admin", map[string]any{"title": "Secret", "description": "wip"}).json(t)
		if draft["status"] != "draft" {
			t.Errorf("default status = %v, want draft", draft["status"])
		}

		// The list carries exactly the list fields.
		list := ts.do("GET", "/api/projects", "", nil).json(t)
		items := list["projects"].([]any)
		if len(items) != 1 || list["total"].(float64) != 1 || list["page"].(float64) != 1 || list["limit"].(float64) != 10 {
			t.Fatalf("public list: %v", list)
		}
		item := items[0].(map[string]any)
		want := []string{"createdAt", "description", "id", "status", "technologies", "title", "updatedAt"}
		if len(item) != len(want) {
			t.Errorf("list item fields = %v, want exactly %v", keys(item), want)
		}
		if n := len(ts.do("GET", "/api/projects", "write", nil).json(t)["projects"].([]any)); n != 2 {
			t.Errorf("write key sees %d projects, want 2", n)
		}
		// include=images adds each item's images (the dashboard's thumbnails), nothing else.
		withImages := ts.do("GET", "/api/projects?include=images", "", nil).json(t)["projects"].([]any)[0].(map[string]any)
		if imgs, _ := withImages["images"].([]any); len(imgs) != 1 || imgs[0].(map[string]any)["url"] != "https://example.org/a.png" || len(withImages) != len(want)+1 {
			t.Errorf("list item with include=images = %v", withImages)
		}
		if res := ts.do("GET", "/api/projects?include=everything", "", nil); res.Status != 400 || !strings.Contains(string(res.Body), `"field":"include"`) {
			t.Errorf("include=everything: %d %s", res.Status, res.Body)
		}

		for _, tc := range []struct {
			name, method, path, token string
			body                      any
			status                    int
			code, field               string
		}{
			{"get one", "GET", "/api/projects/" + id, "", nil, 200, "", ""},
			{"draft is 404 to public", "GET", "/api/projects/" + draft["id"].(string), "", nil, 404, "RESOURCE_NOT_FOUND", ""},
			{"draft is 404 to read key", "GET", "/api/projects/" + draft["id"].(string), "read", nil, 404, "RESOURCE_NOT_FOUND", ""},
			{"draft visible to write", "GET", "/api/projects/" + draft["id"].(string), "write", nil, 200, "", ""},
			{"unknown id", "GET", "/api/projects/nope", "", nil, 404, "RESOURCE_NOT_FOUND", ""},
			{"public may not list drafts", "GET", "/api/projects?status=draft", "", nil, 401, "AUTHENTICATION_REQUIRED", ""},
			{"read key may not list drafts", "GET", "/api/projects?status=draft", "read", nil, 403, "PERMISSION_DENIED", ""},
			{"bad status filter", "GET", "/api/projects?status=gone", "", nil, 400, "VALIDATION_ERROR", "status"},
			{"page 0", "GET", "/api/projects?page=0", "", nil, 400, "VALIDATION_ERROR", "page"},
			{"limit 101", "GET", "/api/projects?limit=101", "", nil, 400, "VALIDATION_ERROR", "limit"},
			{"limit not a number", "GET", "/api/projects?limit=ten", "", nil, 400, "VALIDATION_ERROR", "limit"},
			{"create without credentials", "POST", "/api/projects", "", valid, 401, "AUTHENTICATION_REQUIRED", ""},
			{"create with bad key", "POST", "/api/projects", "forged", valid, 401, "AUTHENTICATION_REQUIRED", ""},
			{"create with read key", "POST", "/api/projects", "read", valid, 403, "PERMISSION_DENIED", ""},
			{"missing title", "POST", "/api/projects", "write", map[string]any{"description": "x"}, 400, "VALIDATION_ERROR", "title"},
			{"blank title", "POST", "/api/projects", "write", map[string]any{"title": "  ", "description": "x"}, 400, "VALIDATION_ERROR", "title"},
			{"wrong type", "POST", "/api/projects", "write", `{"title": 5, "description": "x"}`, 400, "VALIDATION_ERROR", "title"},
			{"wrong type in list", "POST", "/api/projects", "write", `{"title": "a", "description": "x", "technologies": "Go"}`, 400, "VALIDATION_ERROR", "technologies"},
			{"malformed json", "POST", "/api/projects", "write", `{"title": `, 400, "VALIDATION_ERROR", ""},
			{"not an object", "POST", "/api/projects", "write", `[1,2]`, 400, "VALIDATION_ERROR", ""},
			{"trailing garbage", "POST", "/api/projects", "write", `{"title":"a","description":"b"} x`, 400, "VALIDATION_ERROR", ""},
			{"bad status", "POST", "/api/projects", "write", map[string]any{"title": "a", "description": "b", "status": "live"}, 422, "VALIDATION_ERROR", "status"},
			{"bad url", "POST", "/api/projects", "write", map[string]any{"title": "a", "description": "b", "demoUrl": "javascript:alert(1)"}, 422, "VALIDATION_ERROR", "demoUrl"},
			{"bad image type", "POST", "/api/projects", "write", map[string]any{"title": "a", "description": "b", "images": []map[string]any{{"url": "https://x.org/a.png", "alt": "", "type": "photo"}}}, 422, "VALIDATION_ERROR", "images[0].type"},
			{"title too long", "POST", "/api/projects", "write", map[string]any{"title": strings.Repeat("t", 201), "description": "b"}, 422, "VALIDATION_ERROR", "title"},
			{"body over 1 MiB", "POST", "/api/projects", "write", `{"title":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "PAYLOAD_TOO_LARGE", ""},
			{"update", "PUT", "/api/projects/" + id, "write", map[string]any{"title": "Tidewater 2", "description": "new"}, 200, "", ""},
			{"update needs title", "PUT", "/api/projects/" + id, "write", map[string]any{"description": "new"}, 400, "VALIDATION_ERROR", "title"},
			{"update unknown", "PUT", "/api/projects/nope", "write", map[string]any{"title": "a", "description": "b"}, 404, "RESOURCE_NOT_FOUND", ""},
			{"method not allowed", "PATCH", "/api/projects/" + id, "write", nil, 405, "METHOD_NOT_ALLOWED", ""},
			{"unknown api route", "GET", "/api/nothing/here", "", nil, 404, "RESOURCE_NOT_FOUND", ""},
			{"delete unknown", "DELETE", "/api/projects/nope", "write", nil, 404, "RESOURCE_NOT_FOUND", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := ts.do(tc.method, tc.path, tc.token, tc.body)
				if res.Status != tc.status {
					t.Fatalf("status = %d, want %d: %s", res.Status, tc.status, res.Body)
				}
				if res.Header.Get("X-Request-Id") == "" {
					t.Error("no X-Request-Id")
				}
				if tc.code == "" {
					return
				}
				if got := res.errorCode(t); got != tc.code {
					t.Errorf("code = %s, want %s", got, tc.code)
				}
				if tc.field != "" && !strings.Contains(string(res.Body), `"field":"`+tc.field+`"`) {
					t.Errorf("details do not name %q: %s", tc.field, res.Body)
				}
			})
		}
		if a := ts.do("PATCH", "/api/projects/"+id, "", nil).Header.Get("Allow"); a != "GET, HEAD, PUT, DELETE" {
			t.Errorf("Allow = %q", a)
		}
		// PUT kept the fields it was not given.
		got := ts.do("GET", "/api/projects/"+id, "", nil).json(t)
		if got["title"] != "Tidewater 2" || got["demoUrl"] != "https://demo.example.org" || len(got["technologies"].([]any)) != 2 {
			t.Errorf("after PUT: %v", got)
		}
		if res := ts.do("DELETE", "/api/projects/"+id, "write", nil); res.Status != 204 || len(res.Body) != 0 {
			t.Errorf("delete: %d %q", res.Status, res.Body)
		}
		if res := ts.do("GET", "/api/projects/"+id, "", nil); res.Status != 404 {
			t.Errorf("get after delete: %d", res.Status)
		}
	})
}

// Ensure a cached public response is never served after a write, and conditional GETs work.
func TestPublicCacheNoStaleRead(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newTestServer(t, db)
		first := ts.do("GET", "/api/projects", "", nil)
		etag := first.Header.Get("ETag")
		if etag == "" {
			t.Fatal("no ETag")
		}
		if res := ts.do("GET", "/api/projects", "", nil, "If-None-Match", etag); res.Status != http.StatusNotModified || len(res.Body) != 0 {
			t.Fatalf("conditional GET: %d %q", res.Status, res.Body)
		}
		for i := 0; i < 20; i++ {
			created := ts.do("POST", "/api/projects", "write", map[string]any{"title": "P", "description": "d", "status": "published"}).json(t)
			list := ts.do("GET", "/api/projects?limit=100", "", nil)
			if n := int(list.json(t)["total"].(float64)); n != i+1 {
				t.Fatalf("after write %d the public list shows %d projects", i+1, n)
			}
			if res := ts.do("GET", "/api/projects", "", nil, "If-None-Match", etag); res.Status != http.StatusOK {
				t.Fatalf("stale ETag still matches after a write: %d", res.Status)
			}
			etag = ts.do("GET", "/api/projects", "", nil).Header.Get("ETag")
			ts.do("PUT", "/api/projects/"+created["id"].(string), "write", map[string]any{"title": "Q", "description": "d"})
			if got := ts.do("GET", "/api/projects/"+created["id"].(string), "", nil).json(t)["title"]; got != "Q" {
				t.Fatalf("single project stale after PUT: %v", got)
			}
		}
		// Reads racing writes: whatever a reader sees after a write returned is that write or newer.
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < 10; j++ {
					ts.do("GET", "/api/projects?limit=100", "", nil)
				}
			}()
		}
		for j := 0; j < 10; j++ {
			ts.do("POST", "/api/projects", "write", map[string]any{"title": "R", "description": "d", "status": "published"})
			if n := int(ts.do("GET", "/api/projects?limit=100", "", nil).json(t)["total"].(float64)); n != 21+j {
				t.Fatalf("concurrent: public list shows %d, want %d", n, 21+j)
			}
		}
		wg.Wait()
	})
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
