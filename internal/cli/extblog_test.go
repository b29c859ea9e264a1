package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliohq/folio/internal/extblog/extblogfake"
)

// serveWithExtblog starts serve with vars and returns its base URL and log; it stops with the test.
func serveWithExtblog(t *testing.T, vars map[string]string) (string, func() string) {
	t.Helper()
	vars["FOLIO_ADDR"] = "127.0.0.1:0"
	env, _, logs := envWith(t, vars)
	addr := make(chan string, 1)
	env.Ready = func(a string) { addr <- a }
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, nil, env) }()
	t.Cleanup(func() {
		stop()
		<-done
	})
	select {
	case a := <-addr:
		return "http://" + a, logs.String
	case err := <-done:
		t.Fatalf("serve exited: %v\n%s", err, logs)
	}
	return "", nil
}

func getBody(t *testing.T, url string) (int, string, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("X-Cache"), string(b)
}

// TestServeExtblogTokenFile: the token comes from EXTBLOG_API_TOKEN_FILE, and a rotated file is
// used without a restart.
func TestServeExtblogTokenFile(t *testing.T) {
	fake := extblogfake.New()
	fake.SetTokens("tok-first-secret")
	fake.AddPost(extblogfake.Post{Title: "Hello", Slug: "hello", ContentMarkdown: "Hi."})
	hs := httptest.NewServer(fake)
	t.Cleanup(hs.Close)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("tok-first-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base, logs := serveWithExtblog(t, map[string]string{"EXTBLOG_API_URL": hs.URL, "EXTBLOG_API_TOKEN_FILE": tokenFile,
		"EXTBLOG_API_TOKEN": "tok-ignored-when-a-file-is-set", "EXTBLOG_PUBLICATION_ID": extblogfake.DefaultPublicationID,
		"EXTBLOG_PUBLICATION_HOST": extblogfake.DefaultHost})

	status, xc, body := getBody(t, base+"/api/posts")
	if status != 200 || xc != "MISS" || !strings.Contains(body, `"slug":"hello"`) {
		t.Fatalf("GET /api/posts: %d %s %s", status, xc, body)
	}
	fake.SetTokens("tok-second-longer-secret")
	if err := os.WriteFile(tokenFile, []byte("tok-second-longer-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if status, _, body := getBody(t, base+"/api/posts?limit=5"); status != 200 {
		t.Errorf("after rotating the token file: %d %s", status, body)
	}
	for _, c := range fake.Calls() {
		if c.Authorization == "tok-ignored-when-a-file-is-set" {
			t.Error("EXTBLOG_API_TOKEN was used although EXTBLOG_API_TOKEN_FILE is set")
		}
	}
	for _, secret := range []string{"tok-first-secret", "tok-second-longer-secret", "tok-ignored-when-a-file-is-set"} {
		if strings.Contains(logs(), secret) {
			t.Errorf("the log holds a token")
		}
	}
}

func TestServeExtblogUnconfigured(t *testing.T) {
	base, _ := serveWithExtblog(t, map[string]string{"EXTBLOG_API_TOKEN": "tok-only"})
	status, _, body := getBody(t, base+"/api/posts")
	if status != 503 || !strings.Contains(body, "EXTBLOG_PUBLICATION_ID") || strings.Contains(body, "EXTBLOG_API_TOKEN") {
		t.Errorf("GET /api/posts without a publication id: %d %s", status, body)
	}
	if status, _, _ := getBody(t, base+"/api/projects"); status != 200 {
		t.Errorf("the rest of folio is down: %d", status)
	}
}
