// Command posts measures the cached GET /api/posts?limit=20 (the external platform's listing,
// served from folio's cache) against a bare net/http handler serving the identical bytes, on
// loopback, at 8 and 64 connections.
//
//	go run ./bench/posts [-duration 5s]
//
// The platform is the in-process fake Hashnode server with 20 posts; after the first request
// every answer is a cache HIT, which is what the figure measures.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/foliohq/folio/bench/loadgen"
	"github.com/foliohq/folio/internal/cli"
	"github.com/foliohq/folio/internal/extblog/extblogfake"
)

func main() {
	dur := flag.Duration("duration", 5*time.Second, "measured time per run")
	warm := flag.Duration("warmup", time.Second, "warm-up per run")
	flag.Parse()
	if err := run(*dur, *warm); err != nil {
		fmt.Fprintln(os.Stderr, "bench/posts:", err)
		os.Exit(1)
	}
}

func run(dur, warm time.Duration) error {
	fake := extblogfake.New()
	for i := 1; i <= 20; i++ {
		fake.AddPost(extblogfake.Post{Title: fmt.Sprintf("Post %02d about building things", i), Slug: fmt.Sprintf("post-%02d", i),
			ContentMarkdown: "A realistic brief of the post, long enough to look like one.", PublishedAt: time.Now().Add(-time.Duration(i) * time.Hour)})
	}
	platform := httptest.NewServer(fake)
	defer platform.Close()

	dir, err := os.MkdirTemp("", "folio-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env := map[string]string{
		"FOLIO_DATA_DIR": dir, "FOLIO_ADDR": "127.0.0.1:0", "RATE_LIMIT_PUBLIC_PER_HOUR": strconv.Itoa(1 << 30),
		"EXTBLOG_API_URL": platform.URL, "EXTBLOG_API_TOKEN": extblogfake.DefaultToken,
		"EXTBLOG_PUBLICATION_ID": extblogfake.DefaultPublicationID, "EXTBLOG_PUBLICATION_HOST": extblogfake.DefaultHost,
	}
	addrCh := make(chan string, 1)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go cli.Run(ctx, []string{"serve"}, cli.Env{Getenv: func(k string) string { return env[k] }, Stdout: io.Discard, Stderr: io.Discard,
		Ready: func(a string) { addrCh <- a }})
	folioAddr := <-addrCh

	const path = "/api/posts?limit=20"
	var body []byte
	var contentType, xcache string
	for i := 0; i < 2; i++ { // the first answer fills the cache (MISS), the second is a HIT
		res, err := http.Get("http://" + folioAddr + path)
		if err != nil {
			return err
		}
		body, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("folio answered %d: %s", res.StatusCode, body)
		}
		contentType, xcache = res.Header.Get("Content-Type"), res.Header.Get("X-Cache")
	}
	if xcache != "HIT" {
		return fmt.Errorf("second answer was X-Cache %q, want HIT", xcache)
	}
	bareAddr, stopBare, err := loadgen.Bare(body, contentType)
	if err != nil {
		return err
	}
	defer stopBare()
	fmt.Printf("GET %s — %d-byte body, 20 platform posts, cached (X-Cache: HIT), GOMAXPROCS=%d, %s per run\n",
		path, len(body), runtime.GOMAXPROCS(0), dur)
	before := len(fake.Calls())
	if err := loadgen.Compare(os.Stdout, "posts", folioAddr, bareAddr, path, []int{8, 64}, warm, dur); err != nil {
		return err
	}
	fmt.Printf("posts platform calls during the runs: %d\n", len(fake.Calls())-before)
	return nil
}
