// Command sitemap measures GET /sitemap.xml on a folio holding 100,000 published posts (SQLite):
// the sitemap index and its first file (50,000 URLs), each uncached (the public cache dropped
// before every request, as a write would) and cached, one request at a time on loopback, beside
// an anchor: a bare net/http handler serving a static byte slice of the same size. It prints the
// p50 and p99 of each.
//
//	go run ./bench/sitemap [-posts 100000] [-uncached 30] [-cached 500]
//
// The posts are inserted with one SQL statement per row in one transaction (what the sitemap
// reads: slug, status, publication and change times; the rest is the columns' defaults), not
// through CreatePost, which would spend minutes on slugs and the search index. The handler is the
// real one (httpapi.Server.Handler with the response cache, rate limiter off), as cli builds it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/bench/loadgen"
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
	if err := seed(ctx, db, posts); err != nil {
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
		body, ctype, err := get(folioURL + path)
		if err != nil {
			return err
		}
		bareAddr, stopBare, err := loadgen.Bare(body, ctype)
		if err != nil {
			return err
		}
		unc, err := measure(folioURL+path, uncached, func() { srv.Invalidate(folio.ScopePosts) })
		if err != nil {
			return err
		}
		hit, err := measure(folioURL+path, cached, nil)
		if err != nil {
			return err
		}
		bare, err := measure("http://"+bareAddr+"/", cached, nil)
		stopBare()
		if err != nil {
			return err
		}
		fmt.Printf("%-22s %9d %11s %11s %11s %11s\n", path, len(body), pct(unc, 50), pct(unc, 99), pct(hit, 50), pct(bare, 50))
	}
	return nil
}

// seed inserts n published posts, one a minute apart, in one transaction.
func seed(ctx context.Context, db *sqldb.DB, n int) error {
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO posts (id, slug, title, content, status, published_at, created_at, updated_at)
		VALUES ($1, $2, $3, '', 'published', $4, $4, $4)`)
	if err != nil {
		return err
	}
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		at := base.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000000Z")
		if _, err := st.ExecContext(ctx, folio.NewID(), fmt.Sprintf("a-realistic-post-title-number-%d", i), fmt.Sprintf("Post %d", i), at); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func get(u string) ([]byte, string, error) {
	res, err := http.Get(u)
	if err != nil {
		return nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != 200 {
		err = fmt.Errorf("%s answered %d: %.200s", u, res.StatusCode, b)
	}
	return b, res.Header.Get("Content-Type"), err
}

// measure times n GETs of u, each whole body read, calling before (untimed) ahead of each.
func measure(u string, n int, before func()) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for range n {
		if before != nil {
			before()
		}
		t := time.Now()
		if _, _, err := get(u); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t))
	}
	slices.Sort(out)
	return out, nil
}

func pct(ds []time.Duration, p int) string {
	d := ds[(len(ds)-1)*p/100]
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}
