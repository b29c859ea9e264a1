package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/foliohq/folio/internal/foliotest"
)

// openAPIValidator checks real responses against the served OpenAPI document.
type openAPIValidator struct {
	t   *testing.T
	doc map[string]any
	c   *jsonschema.Compiler
}

func newOpenAPIValidator(t *testing.T, ts *testServer) *openAPIValidator {
	t.Helper()
	res := ts.do("GET", "/api/openapi.json", "", nil)
	if res.Status != 200 {
		t.Fatalf("openapi.json: %d", res.Status)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("http://folio.test/openapi.json", doc); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(res.Body, &m)
	return &openAPIValidator{t: t, doc: m, c: c}
}

// check validates a response to method+pattern against the document's schema for its status.
func (v *openAPIValidator) check(method, pattern string, res response) {
	v.t.Helper()
	item, ok := v.doc["paths"].(map[string]any)[pattern].(map[string]any)
	if !ok {
		v.t.Fatalf("%s is not documented", pattern)
	}
	op, ok := item[strings.ToLower(method)].(map[string]any)
	if !ok {
		v.t.Fatalf("%s %s is not documented", method, pattern)
	}
	code := strconv.Itoa(res.Status)
	resp, ok := op["responses"].(map[string]any)[code].(map[string]any)
	if !ok {
		v.t.Fatalf("%s %s: status %s is not documented", method, pattern, code)
	}
	content, _ := resp["content"].(map[string]any)
	if content == nil {
		if len(res.Body) != 0 {
			v.t.Errorf("%s %s %s: documented without body, got %q", method, pattern, code, res.Body)
		}
		return
	}
	if _, ok := content["application/json"]; !ok {
		return
	}
	ptr := "http://folio.test/openapi.json#/paths/" + jsonPointerEscape(pattern) + "/" + strings.ToLower(method) +
		"/responses/" + code + "/content/application~1json/schema"
	sch, err := v.c.Compile(ptr)
	if err != nil {
		v.t.Fatalf("compile %s: %v", ptr, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.Body))
	if err != nil {
		v.t.Fatalf("%s %s: body is not JSON: %s", method, pattern, res.Body)
	}
	if err := sch.Validate(inst); err != nil {
		v.t.Errorf("%s %s %s: response does not match the document: %v\n%s", method, pattern, code, err, res.Body)
	}
}

func jsonPointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	ts := newTestServer(t, foliotest.MustOpenSQLite(t))
	v := newOpenAPIValidator(t, ts)
	if v.doc["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v", v.doc["openapi"])
	}
	paths := v.doc["paths"].(map[string]any)
	n := 0
	for _, rt := range ts.routes {
		item, ok := paths[rt.Pattern].(map[string]any)
		if !ok || item[strings.ToLower(rt.Method)] == nil {
			t.Errorf("route %s %s is not in the OpenAPI document", rt.Method, rt.Pattern)
		}
		n++
	}
	documented := 0
	for _, item := range paths {
		documented += len(item.(map[string]any))
	}
	if documented != n {
		t.Errorf("document has %d operations, route table %d", documented, n)
	}
	if res := ts.do("GET", "/api/docs", "", nil); res.Status != 200 || !strings.Contains(string(res.Body), "/api/openapi.json") ||
		strings.Contains(string(res.Body), "https://") {
		t.Errorf("docs page: %d, must load the document locally and nothing from the network", res.Status)
	}
}

func TestProjectResponsesMatchOpenAPI(t *testing.T) {
	ts := newTestServer(t, foliotest.MustOpenSQLite(t))
	v := newOpenAPIValidator(t, ts)
	created := ts.do("POST", "/api/projects", "write", map[string]any{"title": "A", "description": "B", "status": "published",
		"technologies": []string{"Go"}, "images": []map[string]any{{"url": "https://x.org/a.png", "alt": "a", "type": "logo"}}})
	v.check("POST", "/api/projects", created)
	id := created.json(t)["id"].(string)
	v.check("GET", "/api/projects", ts.do("GET", "/api/projects", "", nil))
	v.check("GET", "/api/projects/{id}", ts.do("GET", "/api/projects/"+id, "", nil))
	v.check("PUT", "/api/projects/{id}", ts.do("PUT", "/api/projects/"+id, "write", map[string]any{"title": "A2", "description": "B"}))
	v.check("POST", "/api/projects", ts.do("POST", "/api/projects", "write", map[string]any{"title": "A"}))
	v.check("POST", "/api/projects", ts.do("POST", "/api/projects", "write", map[string]any{"title": "A", "description": "b", "status": "x"}))
	v.check("POST", "/api/projects", ts.do("POST", "/api/projects", "", map[string]any{}))
	v.check("POST", "/api/projects", ts.do("POST", "/api/projects", "read", map[string]any{}))
	v.check("GET", "/api/projects/{id}", ts.do("GET", "/api/projects/missing", "", nil))
	v.check("DELETE", "/api/projects/{id}", ts.do("DELETE", "/api/projects/"+id, "write", nil))
}

func TestHealthReadyMetrics(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ts := newTestServer(t, db)
	if res := ts.do("GET", "/healthz", "", nil); res.Status != 200 {
		t.Errorf("healthz: %d", res.Status)
	}
	if res := ts.do("GET", "/readyz", "", nil); res.Status != 200 {
		t.Errorf("readyz: %d", res.Status)
	}
	ts.do("GET", "/api/projects", "", nil)
	res := ts.do("GET", "/metrics", "admin", nil)
	for _, want := range []string{`folio_http_requests_total{method="GET",route="GET /api/projects",status="200"} 1`, "folio_http_request_duration_seconds_bucket"} {
		if !strings.Contains(string(res.Body), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	db.Close()
	if res := ts.do("GET", "/readyz", "", nil); res.Status != http.StatusServiceUnavailable || res.errorCode(t) != "SERVICE_UNAVAILABLE" {
		t.Errorf("readyz with the database closed: %d %s", res.Status, res.Body)
	}
	// API calls that need the database answer a clear 503 too, not an opaque 500.
	if res := ts.do("POST", "/api/projects", "write", map[string]any{"title": "a", "description": "b"}); res.Status != http.StatusServiceUnavailable ||
		res.errorCode(t) != "SERVICE_UNAVAILABLE" {
		t.Errorf("write with the database closed: %d %s", res.Status, res.Body)
	}
}

// Ensure a panicking handler becomes a 500 envelope without internals, and the server goes on.
func TestPanicRecovery(t *testing.T) {
	ts := newTestServer(t, foliotest.MustOpenSQLite(t))
	h := ts.outer(ts.adapt(route{Handle: func(w http.ResponseWriter, r *http.Request) error { panic("secret internal detail") }}))
	rec := httptest.NewRecorder()
	req, _ := http.NewRequest("GET", "/api/boom", nil)
	h.ServeHTTP(rec, req)
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "secret") || !strings.Contains(rec.Body.String(), "SERVER_ERROR") {
		t.Errorf("panic answer: %d %s", rec.Code, rec.Body.String())
	}
	if rec.Header().Get("X-Request-Id") == "" {
		t.Error("no request id on the 500")
	}
	if res := ts.do("GET", "/healthz", "", nil); res.Status != 200 {
		t.Error("server did not survive")
	}
}

func TestRequestIDPropagation(t *testing.T) {
	ts := newTestServer(t, foliotest.MustOpenSQLite(t))
	if got := ts.do("GET", "/healthz", "", nil, "X-Request-Id", "abc-123").Header.Get("X-Request-Id"); got != "abc-123" {
		t.Errorf("kept id = %q", got)
	}
	if got := ts.do("GET", "/healthz", "", nil, "X-Request-Id", "bad\tid<script>").Header.Get("X-Request-Id"); got == "" || strings.Contains(got, "<") {
		t.Errorf("unsafe id echoed: %q", got)
	}
}
