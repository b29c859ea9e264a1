package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

const cliTestPassword = "a long enough password"

// runCmd runs one folio command in-process on env's configuration and returns its stdout and
// stderr.
func runCmd(t *testing.T, env Env, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	e := env
	e.Stdout, e.Stderr = &out, &errb
	if e.Stdin == nil {
		e.Stdin = strings.NewReader("")
	}
	err := Run(context.Background(), args, e)
	return out.String(), errb.String(), err
}

// mustAPIKey makes an owner (once) and an API key of the given level through the real commands,
// and returns the secret.
func mustAPIKey(t *testing.T, env Env, level string) string {
	t.Helper()
	if _, _, err := runCmd(t, env, "user", "create", "--email", "cli-owner@example.com", "--name", "CLI Owner",
		"--role", "owner", "--password", cliTestPassword); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("user create: %v", err)
	}
	out, errs, err := runCmd(t, env, "apikey", "create", "--name", "test-"+level, "--level", level, "--user", "cli-owner@example.com")
	if err != nil {
		t.Fatalf("apikey create: %v\n%s", err, errs)
	}
	return strings.TrimSuffix(out, "\n")
}

func TestUserCreate(t *testing.T) {
	env, _, _ := envWith(t, map[string]string{})
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string // in the output, or in the error when wantErr
		fail  bool
	}{
		{"password flag", []string{"--email", "ada@example.com", "--name", "Ada", "--role", "owner", "--password", cliTestPassword}, "", "created owner ada@example.com", false},
		{"password on stdin", []string{"--email", "bob@example.com", "--name", "Bob", "--role", "editor"}, cliTestPassword + "\n", "created editor bob@example.com", false},
		{"same email, other case", []string{"--email", "ADA@example.com", "--name", "Ada 2", "--role", "owner", "--password", cliTestPassword}, "", "already exists", true},
		{"missing role", []string{"--email", "c@example.com", "--name", "C", "--password", cliTestPassword}, "", "--role is required", true},
		{"bad role", []string{"--email", "c@example.com", "--name", "C", "--role", "admin", "--password", cliTestPassword}, "", "--role must be owner or editor", true},
		{"short password", []string{"--email", "c@example.com", "--name", "C", "--role", "owner", "--password", "short"}, "", "the password must be at least 12 characters", true},
		{"nine characters on stdin", []string{"--email", "c@example.com", "--name", "C", "--role", "owner"}, "ninechars\n", "the password must be at least 12 characters", true},
		{"eleven characters", []string{"--email", "c@example.com", "--name", "C", "--role", "owner", "--password", "elevenchars"}, "", "the password must be at least 12 characters", true},
		{"empty stdin", []string{"--email", "c@example.com", "--name", "C", "--role", "owner"}, "", "the password is required: type it at the prompt", true},
		{"bad email", []string{"--email", "C <c@example.com>", "--name", "C", "--role", "owner", "--password", cliTestPassword}, "", "--email must be", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := env
			e.Stdin = strings.NewReader(tc.stdin)
			out, _, err := runCmd(t, e, append([]string{"user", "create"}, tc.args...)...)
			switch {
			case tc.fail && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			case !tc.fail && (err != nil || !strings.Contains(out, tc.want)):
				t.Errorf("got %q, %v; want %q", out, err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), cliTestPassword) {
				t.Errorf("the password is in the error: %v", err)
			}
			if err != nil && strings.Contains(err.Error(), "--password") {
				t.Errorf("the error names a flag the reader may not have used: %v", err)
			}
		})
	}
	if _, _, err := runCmd(t, env, "user"); err != ErrUsage {
		t.Errorf("user without a subcommand: %v", err)
	}
}

func TestAPIKeyCommands(t *testing.T) {
	env, _, _ := envWith(t, map[string]string{})
	if _, _, err := runCmd(t, env, "apikey", "create", "--name", "x", "--level", "read"); err == nil || !strings.Contains(err.Error(), "no folio database") {
		t.Errorf("key without a database: %v", err)
	}
	if _, _, err := runCmd(t, env, "migrate"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, env, "apikey", "create", "--name", "x", "--level", "read"); err == nil || !strings.Contains(err.Error(), "no owner") {
		t.Errorf("key without any user: %v", err)
	}
	secret := mustAPIKey(t, env, "admin")
	if !auth.LooksLikeAPIKey(secret) {
		t.Fatalf("stdout is not the secret alone: %q", secret)
	}
	if _, _, err := runCmd(t, env, "user", "create", "--email", "ed@example.com", "--name", "Ed", "--role", "editor", "--password", cliTestPassword); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, env, "apikey", "create", "--name", "x", "--level", "admin", "--user", "ed@example.com"); err == nil || !strings.Contains(err.Error(), "at most at level write") {
		t.Errorf("admin key for an editor: %v", err)
	}
	out, errs, err := runCmd(t, env, "apikey", "create", "--name", "ed's", "--level", "write", "--user", "ED@example.com", "--expires", "720h")
	if err != nil || !auth.LooksLikeAPIKey(strings.TrimSpace(out)) || !strings.Contains(errs, "expires 20") {
		t.Errorf("editor's write key: %q %q %v", out, errs, err)
	}
	if _, _, err := runCmd(t, env, "apikey", "create", "--name", "x", "--level", "read", "--user", "nobody@example.com"); err == nil {
		t.Error("key for an unknown user was made")
	}
	if _, _, err := runCmd(t, env, "apikey", "create", "--name", "x", "--level", "root"); err == nil || !strings.Contains(err.Error(), "--level") {
		t.Errorf("bad level: %v", err)
	}

	list, _, err := runCmd(t, env, "apikey", "list")
	if err != nil || !strings.Contains(list, secret[:auth.DisplayPrefixLen]) || strings.Contains(list, secret) || !strings.Contains(list, "ed@example.com") {
		t.Fatalf("list: %v\n%s", err, list)
	}
	var id string
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, secret[:auth.DisplayPrefixLen]) {
			id = strings.Fields(line)[0]
		}
	}
	if out, _, err := runCmd(t, env, "apikey", "revoke", id); err != nil || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %q %v", out, err)
	}
	if list, _, _ := runCmd(t, env, "apikey", "list"); strings.Contains(list, id) {
		t.Errorf("revoked key still listed:\n%s", list)
	}
	if list, _, _ := runCmd(t, env, "apikey", "list", "--all"); !strings.Contains(list, id) {
		t.Errorf("list --all lacks the revoked key:\n%s", list)
	}
	if _, _, err := runCmd(t, env, "apikey", "revoke", id); err == nil {
		t.Error("revoking twice succeeded")
	}
	if _, _, err := runCmd(t, env, "apikey", "revoke"); err != ErrUsage {
		t.Errorf("revoke without an id: %v", err)
	}
}

// Ensure serve creates the first owner from FOLIO_ADMIN_*, keeps a generated session secret in
// the data directory across restarts, signs the owner in, and writes key use at shutdown.
func TestServeIdentity(t *testing.T) {
	dir := t.TempDir()
	vars := func() map[string]string {
		return map[string]string{"FOLIO_DATA_DIR": dir, "FOLIO_ADDR": "127.0.0.1:0",
			"FOLIO_ADMIN_EMAIL": "boss@example.com", "FOLIO_ADMIN_PASSWORD": cliTestPassword}
	}
	env, _, _ := envWith(t, vars())
	base, logs, stop := serveFor(t, vars())
	st, err := os.Stat(filepath.Join(dir, "nextauth.secret"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("generated secret file: %v %v", st, err)
	}
	secret, _ := os.ReadFile(filepath.Join(dir, "nextauth.secret"))
	res, body := post(t, base+"/api/auth/login", `{"email":"boss@example.com","password":"`+cliTestPassword+`"}`, "")
	if res.StatusCode != 200 || !strings.Contains(body, `"role":"owner"`) {
		t.Fatalf("login as the bootstrap owner: %d %s", res.StatusCode, body)
	}
	cookie := res.Cookies()[0]
	key := mustAPIKey(t, env, "read")
	res, _ = get(t, base+"/api/user/profile", "Bearer "+key, nil)
	if res.StatusCode != 200 {
		t.Fatalf("new key on the running server: %d", res.StatusCode)
	}
	stop()
	if !strings.Contains(logs.String(), "NEXTAUTH_SECRET is not set") || strings.Contains(logs.String(), strings.TrimSpace(string(secret))) ||
		strings.Contains(logs.String(), cliTestPassword) {
		t.Errorf("startup log: the warning is missing or a secret leaked:\n%s", logs)
	}
	list, _, _ := runCmd(t, env, "apikey", "list")
	stamp := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, key[:auth.DisplayPrefixLen]) && len(stamp.FindAllString(line, -1)) != 2 {
			t.Errorf("last use was not written at shutdown (want created and last-used times):\n%s", line)
		}
	}

	// A restart keeps the secret (the session stays valid) and does not add a second owner.
	base, _, stop = serveFor(t, vars())
	defer stop()
	res, body = get(t, base+"/api/auth/session", "", cookie)
	if !strings.Contains(body, "boss@example.com") {
		t.Errorf("session after restart: %d %s", res.StatusCode, body)
	}
	db, err := sqldb.Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	users, err := db.Identity.Users(context.Background())
	if err != nil || len(users) != 2 || users[0].Email != "boss@example.com" {
		t.Errorf("users after a restart: %d (boss, cli-owner expected) %v", len(users), err)
	}
}

// Ensure REDIS_URL makes two serve processes share one budget, and an unreachable Redis fails open.
func TestServeRedisLimits(t *testing.T) {
	t.Run("shared", func(t *testing.T) {
		url := foliotest.RedisURL()
		if url == "" {
			t.Skip("Redis tests skipped: set FOLIO_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379/0)")
		}
		vars := func() map[string]string {
			return map[string]string{"FOLIO_ADDR": "127.0.0.1:0", "REDIS_URL": url, "RATE_LIMIT_PUBLIC_PER_HOUR": "2",
				"TRUSTED_PROXIES": "127.0.0.1,::1"}
		}
		// A client address of its own per run, so earlier runs' counts never interfere.
		var b [8]byte
		rand.Read(b[:])
		h := hex.EncodeToString(b[:])
		client := "2001:db8:" + h[0:4] + ":" + h[4:8] + ":" + h[8:12] + ":" + h[12:16] + "::1"
		rc := foliotest.RedisPool(t)
		t.Cleanup(func() { foliotest.RedisDo(t, rc, "DEL", "folio:ratelimit:public:"+client) })
		a, _, stopA := serveFor(t, vars())
		defer stopA()
		bb, _, stopB := serveFor(t, vars())
		defer stopB()
		var got []int
		for _, base := range []string{a, bb, a} {
			res, _ := get(t, base+"/api/projects", "", nil, "X-Forwarded-For", client)
			got = append(got, res.StatusCode)
		}
		if got[0] != 200 || got[1] != 200 || got[2] != 429 {
			t.Errorf("statuses across two instances = %v, want [200 200 429]", got)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		base, _, stop := serveFor(t, map[string]string{"FOLIO_ADDR": "127.0.0.1:0", "REDIS_URL": "redis://127.0.0.1:1/0"})
		defer stop()
		if res, body := get(t, base+"/api/projects", "", nil); res.StatusCode != 200 {
			t.Errorf("with Redis unreachable: %d %s", res.StatusCode, body)
		}
	})
}

// serveFor starts `folio serve` in-process and returns its base URL, its log and a stop function
// that waits for a clean exit.
func serveFor(t *testing.T, vars map[string]string) (string, *bytes.Buffer, func()) {
	t.Helper()
	env, _, logs := envWith(t, vars)
	addr := make(chan string, 1)
	env.Ready = func(a string) { addr <- a }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, []string{"serve"}, env) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
	t.Cleanup(stop)
	select {
	case a := <-addr:
		return "http://" + a, logs, stop
	case err := <-done:
		stopped = true
		t.Fatalf("serve exited: %v\n%s", err, logs)
	}
	return "", nil, nil
}

func get(t *testing.T, url, authz string, cookie *http.Cookie, headers ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return send(t, req)
}

func post(t *testing.T, url, body, authz string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}
