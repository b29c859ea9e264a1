package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// startServe runs `folio serve` in-process and returns its base URL; it stops with the test.
func startServe(t *testing.T, vars map[string]string) string {
	t.Helper()
	env, _, logs := envWith(t, vars)
	addr := make(chan string, 1)
	env.Ready = func(a string) { addr <- a }
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, []string{"serve"}, env) }()
	t.Cleanup(func() { stop(); <-done })
	select {
	case a := <-addr:
		return "http://" + a
	case err := <-done:
		t.Fatalf("serve exited: %v\n%s", err, logs)
	}
	return ""
}

func publicTotal(t *testing.T, base string) int {
	t.Helper()
	res, err := http.Get(base + "/api/projects")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var v struct{ Total int }
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %s", err, b)
	}
	return v.Total
}

// Ensure a write through one instance reaches the cached public responses of every other
// instance on the same PostgreSQL database (LISTEN/NOTIFY), so no instance keeps serving a stale
// list.
func TestCacheInvalidationAcrossInstances(t *testing.T) {
	dsn := foliotest.PostgresSchema(t)
	vars := func() map[string]string {
		return map[string]string{"DATABASE_URL": dsn, "FOLIO_ADDR": "127.0.0.1:0", "RATE_LIMIT_PUBLIC_PER_HOUR": "100000"}
	}
	a := startServe(t, vars())
	b := startServe(t, vars())
	// Warm both caches.
	if publicTotal(t, a) != 0 || publicTotal(t, b) != 0 {
		t.Fatal("fresh database is not empty")
	}

	// A third writer plays the instance that took the write: it commits and notifies.
	ctx := context.Background()
	w, err := sqldb.Open(ctx, dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Changed = func(scope string) { w.Notify(ctx, scope) }
	for want := 1; want <= 3; want++ {
		title, desc, status := "Shared", "written elsewhere", folio.ProjectPublished
		if _, err := content.New(w.Content).CreateProject(ctx, &folio.ProjectInput{Title: &title, Description: &desc, Status: &status}); err != nil {
			t.Fatal(err)
		}
		for _, base := range []string{a, b} {
			// The notification arrives asynchronously; poll until it has (the deadline only
			// stops a broken build from hanging, it measures nothing; generous, since a CI machine
			// running browsers beside this test can stall the listener for seconds).
			deadline := time.Now().Add(60 * time.Second)
			for publicTotal(t, base) != want {
				if time.Now().After(deadline) {
					t.Fatalf("%s still serves a stale list after write %d", base, want)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
}
