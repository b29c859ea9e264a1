// Command sitemap measures GET /sitemap.xml on a folio holding 100,000 published posts (SQLite):
// the sitemap index and its first file (50,000 URLs), each uncached (the public cache dropped
// before every request, as a write would) and cached, one request at a time on loopback, beside
// an anchor: a bare net/http handler serving a static byte slice of the same size. It prints the
// p50 and p99 of each.
//
//	go run ./bench/sitemap [-posts 100000] [-uncached 30] [-cached 500]
//
// The posts are inserted by seed.Posts (SQL, not CreatePost). The handler is the real one
// (httpapi.Server.Handler with the response cache, rate limiter off), as cli builds it.
// bench/hostile measures the same documents on a folio binary (-bin for an older one).
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/bench/loadgen"
	"github.com/foliohq/folio/bench/seed"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/sqldb"
)

func main() {
	posts := flag.Int("posts", 100_000, "published posts to seed")
	uncached := flag.Int("uncached", 30, "uncached requests per document")
	cached := flag.Int("cached", 500, "cached requests per document")
	flag.Parse()
	if err := run(*posts, *uncached, *cached); err != nil {
		fmt.Fprintln(os.Stderr, "bench/sitemap:", err)
		os.Exit(1)
	}
}

func run(posts, uncached, cached int) error {
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
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		return err
	}
	t0 := time.Now()
	if err := seed.Posts(ctx, db, posts); err != nil {
		return err
	}
	seeded := time.Since(t0)

	site, err := settings.New(ctx, db.Settings, settings.Options{Defaults: folio.Settings{Site: folio.SiteSettings{URL: "https://ada.example.org"}},
		Secret: "the benchmark's instance secret"})
	if err != nil {
		return err
	}
	srv := &httpapi.Server{Sitemap: db.Content, PublicCacheSize: 10_000, Settings: site}
	h := srv.Handler()
	db.Changed = func(scope string) { srv.Invalidate(scope) }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	defer hs.Close()
	folioURL := "http://" + ln.Addr().String()

	fmt.Printf("GET /sitemap.xml — %d published posts (seeded in %s), SQLite, GOMAXPROCS=%d, one request at a time\n",
		posts, seeded.Round(time.Millisecond), runtime.GOMAXPROCS(0))
	fmt.Printf("%-22s %9s %11s %11s %11s %11s\n", "document", "bytes", "uncached p50", "uncached p99", "cached p50", "anchor p50")
	for _, path := range []string{"/sitemap.xml", "/sitemap.xml?page=1", "/sitemap.xml?page=2"} {
		body, ctype, err := loadgen.Get(folioURL + path)
		if err != nil {
			return err
		}
		bareAddr, stopBare, err := loadgen.Bare(body, ctype)
		if err != nil {
			return err
		}
		unc, err := loadgen.Times(folioURL+path, uncached, func() error { srv.Invalidate(folio.ScopePosts); return nil })
		if err != nil {
			return err
		}
		hit, err := loadgen.Times(folioURL+path, cached, nil)
		if err != nil {
			return err
		}
		bare, err := loadgen.Times("http://"+bareAddr+"/", cached, nil)
		stopBare()
		if err != nil {
			return err
		}
		fmt.Printf("%-22s %9d %11s %11s %11s %11s\n", path, len(body), loadgen.Pct(unc, 50), loadgen.Pct(unc, 99), loadgen.Pct(hit, 50), loadgen.Pct(bare, 50))
	}
	return nil
}
