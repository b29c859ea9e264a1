// Command projects measures GET /api/projects?limit=20 on a folio with 20 published projects
// against a bare net/http handler that serves the identical bytes, on loopback, at 8 and 64
// connections, and prints requests/s, p99 latency and the folio/bare ratio.
//
//	go run ./bench/projects [-duration 5s]
//
// folio runs as `folio serve` does (SQLite, access log, metrics, rate limiter, request ids); the
// access log goes to io.Discard after being formatted, and the public tier limit is raised so the
// load is served rather than answered 429.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/bench/loadgen"
	"github.com/foliohq/folio/internal/cli"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/sqldb"
)

func main() {
	dur := flag.Duration("duration", 5*time.Second, "measured time per run")
	warm := flag.Duration("warmup", time.Second, "warm-up per run")
	flag.Parse()
	if err := run(*dur, *warm); err != nil {
		fmt.Fprintln(os.Stderr, "bench/projects:", err)
		os.Exit(1)
	}
}

func run(dur, warm time.Duration) error {
	dir, err := os.MkdirTemp("", "folio-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	db, err := sqldb.Open(ctx, "", dir)
	if err != nil {
		return err
	}
	if _, err := db.Migrate(ctx); err != nil {
		return err
	}
	for i := 1; i <= 20; i++ {
		title, desc := fmt.Sprintf("Project %02d", i), fmt.Sprintf("A realistic description of demo project number %d, long enough to matter.", i)
		techs := []string{"Go", "PostgreSQL", "TypeScript"}
		status := folio.ProjectPublished
		if _, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: &title, Description: &desc, Technologies: &techs, Status: &status}); err != nil {
			return err
		}
	}
	db.Close()

	env := map[string]string{
		"FOLIO_DATA_DIR": dir, "FOLIO_ADDR": "127.0.0.1:0", "RATE_LIMIT_PUBLIC_PER_HOUR": strconv.Itoa(1 << 30),
	}
	addrCh := make(chan string, 1)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go cli.Run(sctx, []string{"serve"}, cli.Env{Getenv: func(k string) string { return env[k] }, Stdout: io.Discard, Stderr: io.Discard,
		Ready: func(a string) { addrCh <- a }})
	folioAddr := <-addrCh

	const path = "/api/projects?limit=20"
	res, err := http.Get("http://" + folioAddr + path)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("folio answered %d: %s", res.StatusCode, body)
	}
	bareAddr, stopBare, err := loadgen.Bare(body, res.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	defer stopBare()
	fmt.Printf("GET %s — %d-byte body, 20 published projects, SQLite, GOMAXPROCS=%d, %s per run\n",
		path, len(body), runtime.GOMAXPROCS(0), dur)
	return loadgen.Compare(os.Stdout, "projects", folioAddr, bareAddr, path, []int{8, 64}, warm, dur)
}
