package extblogfake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/foliohq/folio/internal/extblog"
	"github.com/foliohq/folio/internal/extblog/extblogfake"
)

type reply struct {
	status int
	Data   map[string]any `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func post(t *testing.T, url, token, body string) reply {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var r reply
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("reply is not JSON: %q", raw)
	}
	r.status = resp.StatusCode
	return r
}

func gql(query string, vars map[string]any) string {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return string(b)
}

func TestFakeAnswersLikeThePlatform(t *testing.T) {
	t.Parallel()
	fake := extblogfake.New()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	id := fake.AddPost(extblogfake.Post{Title: "Hello", Slug: "hello", ContentMarkdown: "Body text"})
	publishVars := map[string]any{"input": map[string]any{"publicationId": extblogfake.DefaultPublicationID,
		"title": "New", "contentMarkdown": "x", "tags": []any{}}}

	for _, tc := range []struct {
		name, token, body string
		wantStatus        int
		wantCode          string
	}{
		{"unknown field", "", gql(`query { post(id: "`+id+`") { titel } }`, nil), 400, "GRAPHQL_VALIDATION_FAILED"},
		{"unknown argument", "", gql(`query { publication(domain: "x") { id } }`, nil), 400, "GRAPHQL_VALIDATION_FAILED"},
		{"syntax error", "", gql(`query { post(id: "1") { id `, nil), 400, "GRAPHQL_PARSE_FAILED"},
		{"unknown input field", extblogfake.DefaultToken,
			gql(extblog.Documents()[extblog.OpPublishPost], map[string]any{"input": map[string]any{
				"publicationId": extblogfake.DefaultPublicationID, "title": "T", "contentMarkdown": "x", "tagz": []any{}}}),
			400, "BAD_USER_INPUT"},
		{"missing required input field", extblogfake.DefaultToken,
			gql(extblog.Documents()[extblog.OpPublishPost], map[string]any{"input": map[string]any{"title": "T"}}),
			400, "BAD_USER_INPUT"},
		{"not JSON", "", `{"query":`, 400, "BAD_REQUEST"},
		{"mutation without token", "", gql(extblog.Documents()[extblog.OpPublishPost], publishVars), 200, "UNAUTHENTICATED"},
		{"mutation with a wrong token", "nope", gql(extblog.Documents()[extblog.OpPublishPost], publishVars), 200, "UNAUTHENTICATED"},
		{"first above 50", "", gql(extblog.Documents()[extblog.OpListPosts], map[string]any{"host": extblogfake.DefaultHost, "first": 51}), 200, "BAD_USER_INPUT"},
		{"query without token", "", gql(`query { post(id: "`+id+`") { id title content { markdown } } }`, nil), 200, ""},
		{"Bearer prefix accepted", "Bearer " + extblogfake.DefaultToken, gql(extblog.Documents()[extblog.OpPublishPost], publishVars), 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := post(t, srv.URL, tc.token, tc.body)
			if r.status != tc.wantStatus {
				t.Errorf("status %d, want %d", r.status, tc.wantStatus)
			}
			if tc.wantCode == "" {
				if len(r.Errors) > 0 || r.Data == nil {
					t.Errorf("got errors %+v, want data", r.Errors)
				}
				return
			}
			if len(r.Errors) == 0 || r.Errors[0].Extensions["code"] != tc.wantCode || r.Errors[0].Message == "" {
				t.Errorf("errors %+v, want code %s", r.Errors, tc.wantCode)
			}
		})
	}

	r := post(t, srv.URL, "", gql(`query { post(id: "`+id+`") { id title content { markdown } } }`, nil))
	p := r.Data["post"].(map[string]any)
	if p["id"] != id || p["title"] != "Hello" || p["content"].(map[string]any)["markdown"] != "Body text" {
		t.Errorf("post = %v", p)
	}
	if n := len(fake.Calls()); n != 12 {
		t.Errorf("recorded %d calls, want 12", n)
	}
}

func TestFakeMethodNotAllowed(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(extblogfake.New())
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET answered %d", resp.StatusCode)
	}
}
