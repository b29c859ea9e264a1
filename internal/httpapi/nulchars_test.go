package httpapi

import (
	"net/http"
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// NUL characters in a query, a path or a JSON string are a clear 400/422 on both engines; on
// PostgreSQL they used to reach the database and answer 500.
func TestNULCharactersRefused(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newTestServer(t, db)
		for _, tc := range []struct {
			method, path, token string
			body                any
			status              int
			field               string
		}{
			{"GET", "/api/projects?q=a%00b", "", nil, 400, "q"},
			{"GET", "/api/projects?technology=go%00", "write", nil, 400, "technology"},
			{"GET", "/api/blog?category=a%00", "", nil, 400, "category"},
			{"GET", "/api/projects/a%00b", "", nil, 400, ""},
			{"GET", "/api/blog/a%00b", "", nil, 400, ""},
			{"GET", "/api/posts/a%00b", "write", nil, 400, ""},
			{"GET", "/api/blog/feed.xml?tag=a%00", "", nil, 400, "tag"},
			{"GET", "/api/search?q=a%00b", "", nil, 400, "q"},
			{"GET", "/api/audit?action=a%00", "admin", nil, 400, "action"},
			{"GET", "/api/audit?action=%FF", "admin", nil, 400, "action"},
			{"GET", "/api/analytics/breakdown?dimension=page&country=%FF", "admin", nil, 400, "country"},
			{"GET", "/api/projects/%FF", "", nil, 400, ""},
			{"GET", "/api/webhooks/%FF/deliveries", "admin", nil, 400, ""},
			{"POST", "/api/projects", "write", `{"title":"a\u0000b","description":"d"}`, 422, "title"},
			{"POST", "/api/projects", "write", `{"title":"t","description":"d","technologies":["go","x\u0000"]}`, 422, "technologies[1]"},
			{"POST", "/api/projects", "write", `{"title":"t","description":"d","images":[{"url":"https://x.example/a.png","alt":"\u0000","type":"logo"}]}`, 422, "images[0].alt"},
			{"POST", "/api/blog", "write", `{"title":"t","content":"c\u0000"}`, 422, "content"},
			{"POST", "/api/keys", "admin", `{"name":"k\u0000","level":"read"}`, 422, "name"},
			// An escaped backslash followed by u0000 is ordinary text.
			{"POST", "/api/projects", "write", `{"title":"a\\u0000b","description":"d"}`, 201, ""},
		} {
			res := ts.do(tc.method, tc.path, tc.token, tc.body)
			if res.Status != tc.status {
				t.Errorf("%s %s %v: status %d, want %d: %s", tc.method, tc.path, tc.body, res.Status, tc.status, res.Body)
				continue
			}
			if tc.status == http.StatusCreated {
				continue
			}
			if code := res.errorCode(t); code != "VALIDATION_ERROR" {
				t.Errorf("%s %s: code %s", tc.method, tc.path, code)
			}
			details := res.json(t)["error"].(map[string]any)["details"].([]any)
			switch {
			case tc.field == "" && len(details) != 0:
				t.Errorf("%s %s: details %v, want none", tc.method, tc.path, details)
			case tc.field != "" && (len(details) != 1 || details[0].(map[string]any)["field"] != tc.field):
				t.Errorf("%s %s %v: details %v, want field %s", tc.method, tc.path, tc.body, details, tc.field)
			}
		}
		// Without credentials, an admin route still says 401 first.
		if res := ts.do("GET", "/api/audit?action=a%00", "", nil); res.Status != http.StatusUnauthorized {
			t.Errorf("unauthenticated audit with NUL: %d, want 401", res.Status)
		}
	})
}
