package extblog_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/extblog"
	"github.com/foliohq/folio/internal/extblog/extblogfake"
)

func writeToken(t *testing.T, path, tok string, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestFileTokenRotationWithoutRestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "token")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	writeToken(t, path, "token-aaaa", t0)
	reload := extblog.NewReloadable(extblog.NewFileToken(path))
	e := newEnv(t, func(c *extblog.Config) { c.Token = reload })
	e.fake.SetTokens("token-aaaa", "token-bbbb", "token-cccc", "token-static")
	id := e.fake.AddPost(extblogfake.Post{Title: "T", Slug: "t", ContentMarkdown: "c"})

	sent := func() string {
		t.Helper()
		if _, err := e.client.GetPost(t.Context(), id); err != nil {
			t.Fatalf("GetPost: %v", err)
		}
		calls := e.fake.Calls()
		return calls[len(calls)-1].Authorization
	}
	if got := sent(); got != "token-aaaa" {
		t.Fatalf("sent %q, want token-aaaa", got)
	}
	// Same size, new modification time: read again.
	writeToken(t, path, "token-bbbb", t0.Add(time.Minute))
	if got := sent(); got != "token-bbbb" {
		t.Errorf("after rotating the file sent %q, want token-bbbb", got)
	}
	// Same size and time (a copy that kept the mtime): only a reload signal notices.
	writeToken(t, path, "token-cccc", t0.Add(time.Minute))
	if got := sent(); got != "token-bbbb" {
		t.Errorf("sent %q, want the cached token-bbbb", got)
	}
	reload.Reload()
	if got := sent(); got != "token-cccc" {
		t.Errorf("after Reload sent %q, want token-cccc", got)
	}
	reload.Swap(extblog.StaticToken("token-static"))
	if got := sent(); got != "token-static" {
		t.Errorf("after Swap sent %q, want token-static", got)
	}
}

func TestFileTokenErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	writeToken(t, empty, "  ", time.Now())
	for name, src := range map[string]extblog.TokenSource{
		"missing file": extblog.NewFileToken(filepath.Join(dir, "missing")),
		"empty file":   extblog.NewFileToken(empty),
	} {
		e := newEnv(t, func(c *extblog.Config) { c.Token = src })
		_, err := e.client.GetPost(t.Context(), "x")
		if ee := mustExtBlogError(t, err); ee.Kind != folio.ExtBlogAuth || ee.Attempts != 1 {
			t.Errorf("%s: got %+v, want AUTH_ERROR without a request", name, ee)
		}
		if n := len(e.fake.Calls()); n != 0 {
			t.Errorf("%s: made %d requests", name, n)
		}
	}
}

// The token must not appear in any error, whatever went wrong, nor in the retry log.
func TestTokenNeverLeaks(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-Token-Value-123"
	for _, f := range []extblogfake.Fault{
		extblogfake.RateLimited("1"),
		extblogfake.Unauthorized(),
		extblogfake.GraphQLError("UNAUTHENTICATED", "token "+secret+" is revoked"),
		extblogfake.GraphQLError("BAD_USER_INPUT", "you sent "+secret),
		extblogfake.GraphQLError("NOT_FOUND", "nothing for "+secret),
		extblogfake.GraphQLError("WHATEVER", secret),
		extblogfake.ServerError(),
		extblogfake.Fault{Status: 500, Body: "upstream said " + secret},
		extblogfake.Fault{Status: 200, Body: `{"errors":[{"message":"` + secret + `","extensions":{"code":"` + secret + `"}}]}`},
		extblogfake.Malformed(),
		extblogfake.Slow(time.Hour),
	} {
		t.Run(fmt.Sprintf("%d %s", f.Status, f.Code), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(c *extblog.Config) {
				c.Token = extblog.StaticToken(secret)
				c.AttemptTimeout = 50 * time.Millisecond
			})
			e.fake.SetTokens(secret)
			e.fake.FailNext(3, f)
			_, err := e.client.GetPost(t.Context(), "x")
			if err == nil {
				t.Fatal("no error")
			}
			ee := mustExtBlogError(t, err)
			for what, s := range map[string]string{"Error()": err.Error(), "%+v": fmt.Sprintf("%+v", ee),
				"Message": ee.Message, "Code": ee.Code, "log": e.logs.String()} {
				if strings.Contains(s, secret) {
					t.Errorf("%s contains the token: %q", what, s)
				}
			}
		})
	}
	t.Run("rejected token", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, func(c *extblog.Config) { c.Token = extblog.StaticToken(secret) })
		_, err := e.client.Publish(t.Context(), fullArticle())
		if ee := mustExtBlogError(t, err); ee.Kind != folio.ExtBlogAuth || strings.Contains(err.Error(), secret) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("transport error", func(t *testing.T) {
		t.Parallel()
		c, err := extblog.New(extblog.Config{URL: "http://127.0.0.1:1/" + "gql", Token: extblog.StaticToken(secret),
			PublicationID: "p", Sleep: (&sleeper{}).Sleep})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetPost(t.Context(), "x")
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("got %v", err)
		}
	})
}
