package httpapi

import (
	"strings"
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
)

// Ensure a route whose row needs a service this server lacks answers that service's 503 before
// its handler checks any input, and that the document says so on the route's 503.
func TestNeedsAnswerBeforeInput(t *testing.T) {
	ts := newTestServer(t, foliotest.MustOpenSQLite(t)) // no booking, analytics or sessions
	for _, tc := range []struct {
		method, path, token string
		body                any
		says                string
	}{
		{"PUT", "/api/schedule/types/Not%20A%20Slug", "admin", map[string]any{}, "Booking"},
		{"GET", "/api/schedule/days", "", nil, "Booking"},
		{"GET", "/api/analytics/breakdown?dimension=nonsense", "admin", nil, "Analytics"},
		{"POST", "/api/analytics/collect", "", "not json", "Analytics"},
		{"POST", "/api/auth/password", "admin", map[string]any{}, "NEXTAUTH_SECRET"},
		{"POST", "/api/auth/login", "", "not json", "NEXTAUTH_SECRET"},
	} {
		res := ts.do(tc.method, tc.path, tc.token, tc.body)
		if res.Status != 503 || res.errorCode(t) != "SERVICE_UNAVAILABLE" || !strings.Contains(string(res.Body), tc.says) {
			t.Errorf("%s %s: %d %s, want the 503 naming %s", tc.method, tc.path, res.Status, res.Body, tc.says)
		}
	}

	paths := newOpenAPIValidator(t, ts).doc["paths"].(map[string]any)
	for _, rt := range ts.routes {
		if rt.Needs == needNothing {
			continue
		}
		op := paths[rt.Pattern].(map[string]any)[strings.ToLower(rt.Method)].(map[string]any)
		desc := op["responses"].(map[string]any)["503"].(map[string]any)["description"].(string)
		if desc != rt.Needs.doc() {
			t.Errorf("%s %s: 503 described %q", rt.Method, rt.Pattern, desc)
		}
	}
}
