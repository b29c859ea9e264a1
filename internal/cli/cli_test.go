package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/config"
)

func envWith(t *testing.T, vars map[string]string) (Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	if vars["FOLIO_DATA_DIR"] == "" {
		vars["FOLIO_DATA_DIR"] = t.TempDir()
	}
	return Env{Getenv: func(k string) string { return vars[k] }, Stdout: &out, Stderr: &errb, Stdin: strings.NewReader("")}, &out, &errb
}

func TestServeHelpListsEveryVariable(t *testing.T) {
	env, out, _ := envWith(t, map[string]string{})
	if err := Run(context.Background(), []string{"serve", "--help"}, env); err != nil {
		t.Fatal(err)
	}
	for _, name := range config.Names() {
		if !strings.Contains(out.String(), name) {
			t.Errorf("serve --help does not list %s", name)
		}
	}
	if !strings.Contains(out.String(), "default: :8080") {
		t.Error("serve --help does not show defaults")
	}
}

func TestBadConfigNamesTheVariable(t *testing.T) {
	for name, val := range map[string]string{"SMTP_PORT": "smtp", "BOOKING_TIMEZONE": "Mars/Base", "FOLIO_ENV": "staging",
		"TRUSTED_PROXIES": "10.0.0.0/33", "RATE_LIMIT_PUBLIC_PER_HOUR": "-1", "FOLIO_SITE_URL": "ftp://x"} {
		env, _, _ := envWith(t, map[string]string{name: val})
		err := Run(context.Background(), []string{"serve"}, env)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: error %v does not name the variable", name, val, err)
		}
	}
	env, _, _ := envWith(t, map[string]string{"FOLIO_ENV": "production"})
	if err := Run(context.Background(), []string{"serve"}, env); err == nil || !strings.Contains(err.Error(), "NEXTAUTH_SECRET") {
		t.Errorf("production without NEXTAUTH_SECRET: %v", err)
	}
}

func TestVersionMigrateSeed(t *testing.T) {
	dir := t.TempDir()
	env, out, _ := envWith(t, map[string]string{"FOLIO_DATA_DIR": dir})
	if err := Run(context.Background(), []string{"version"}, env); err != nil || !strings.HasPrefix(out.String(), "folio ") {
		t.Errorf("version: %v %q", err, out)
	}
	out.Reset()
	if err := Run(context.Background(), []string{"migrate"}, env); err != nil || !strings.Contains(out.String(), "0001_projects.sql") ||
		!strings.Contains(out.String(), "analytics file: 0015_analytics_breakdowns.sql") {
		t.Errorf("migrate: %v %q", err, out)
	}
	out.Reset()
	if err := Run(context.Background(), []string{"seed", "--demo"}, env); err != nil || !strings.Contains(out.String(), "added") {
		t.Errorf("seed: %v %q", err, out)
	}
	out.Reset()
	if err := Run(context.Background(), []string{"seed", "--demo"}, env); err != nil || !strings.Contains(out.String(), "nothing was added") {
		t.Errorf("second seed: %v %q", err, out)
	}
	if err := Run(context.Background(), []string{"frobnicate"}, env); err != ErrUsage {
		t.Errorf("unknown command: %v", err)
	}
}

// Ensure serve starts on the embedded defaults, serves the seeded API, and on shutdown finishes
// a request that is still sending its body.
func TestServeGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	env, _, logs := envWith(t, map[string]string{"FOLIO_DATA_DIR": dir, "FOLIO_ADDR": "127.0.0.1:0"})
	key := mustAPIKey(t, env, "write") // made through `folio user create` and `folio apikey create`
	addr := make(chan string, 1)
	env.Ready = func(a string) { addr <- a }
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, nil, env) }()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-done:
		t.Fatalf("serve exited: %v\n%s", err, logs)
	}
	res, err := http.Get(base + "/api/projects")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /api/projects: %v %v", res, err)
	}
	res.Body.Close()

	// Start a POST whose body arrives in two parts, stop the server between them.
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", base+"/api/projects", pr)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	got := make(chan *http.Response, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("in-flight request failed: %v", err)
			got <- nil
			return
		}
		got <- res
	}()
	pw.Write([]byte(`{"title":"in flight",`))
	// The pauses only order events; nothing is asserted about time. Shutdown treats a
	// connection that has not yet sent its headers as active for 5 s, so the order is safe
	// even on a slow machine.
	time.Sleep(200 * time.Millisecond)
	stop()
	time.Sleep(200 * time.Millisecond)
	pw.Write([]byte(`"description":"finished during shutdown","status":"published"}`))
	pw.Close()
	res = <-got
	if res == nil {
		t.FailNow()
	}
	if res.StatusCode != http.StatusCreated {
		t.Errorf("in-flight request got %d, want 201", res.StatusCode)
	}
	res.Body.Close()
	if err := <-done; err != nil {
		t.Errorf("serve returned %v", err)
	}
	if strings.Contains(logs.String(), key) {
		t.Error("the API key reached the log")
	}
}

func TestBackupCommand(t *testing.T) {
	dir := t.TempDir()
	env, out, _ := envWith(t, map[string]string{"FOLIO_DATA_DIR": dir})
	if err := Run(context.Background(), []string{"seed", "--demo"}, env); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := Run(context.Background(), []string{"backup"}, env); err != nil {
		t.Fatal(err)
	}
	path := strings.TrimSpace(out.String())
	if !strings.HasPrefix(path, dir+"/backups/folio-") {
		t.Fatalf("backup path %q", path)
	}
	env2, out2, _ := envWith(t, map[string]string{"DATABASE_URL": "sqlite:" + path})
	if err := Run(context.Background(), []string{"seed", "--demo"}, env2); err != nil || !strings.Contains(out2.String(), "nothing was added") {
		t.Errorf("backup does not hold the seeded content: %v %q", err, out2)
	}
}
