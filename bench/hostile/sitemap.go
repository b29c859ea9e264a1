package main

import (
	"context"
	"fmt"

	"github.com/foliohq/folio/bench/loadgen"
	"github.com/foliohq/folio/bench/seed"
	"github.com/foliohq/folio/internal/sqldb"
)

// seedPosts migrates the data directory with the binary under test (its own schema) and inserts
// n published posts as bench/sitemap does.
func seedPosts(bin, dataDir string, n int) error {
	s := &server{bin: bin, env: []string{"FOLIO_DATA_DIR=" + dataDir, "DATABASE_URL=", "LOG_LEVEL=error"}}
	if out, err := s.folio("migrate").CombinedOutput(); err != nil {
		return fmt.Errorf("migrate: %v\n%s", err, out)
	}
	ctx := context.Background()
	db, err := sqldb.Open(ctx, "", dataDir)
	if err != nil {
		return err
	}
	defer db.Close()
	return seed.Posts(ctx, db, n)
}

// sitemapTimes times /sitemap.xml and its first two files, uncached (a project write before each
// drops the sitemap from the cache, as any post or project write does) and cached.
func sitemapTimes(s *server, o options) error {
	res, err := s.admin("POST", "/api/projects", []byte(`{"title":"Bench","description":"d","status":"published"}`))
	if err != nil || res.StatusCode != 201 {
		return fmt.Errorf("create project: %v %v", err, status(res))
	}
	loc := res.Header.Get("Location")
	res.Body.Close()
	write := func() error {
		res, err := s.admin("PUT", loc, []byte(`{"title":"Bench","description":"d","status":"published"}`))
		if err != nil || res.StatusCode != 200 {
			return fmt.Errorf("update project: %v %v", err, status(res))
		}
		res.Body.Close()
		return nil
	}
	fmt.Printf("sitemap: %d published posts, SQLite, one request at a time\n", o.sitemapPosts)
	fmt.Printf("sitemap: %-22s %9s %13s %13s %11s %11s\n", "document", "bytes", "uncached p50", "uncached p99", "cached p50", "cached p99")
	for _, path := range []string{"/sitemap.xml", "/sitemap.xml?page=1", "/sitemap.xml?page=2"} {
		body, _, err := loadgen.Get(s.base + path)
		if err != nil {
			fmt.Printf("sitemap: %-22s %v\n", path, err)
			continue
		}
		unc, err := loadgen.Times(s.base+path, o.sitemapUncached, write)
		if err != nil {
			return err
		}
		hit, err := loadgen.Times(s.base+path, o.sitemapCached, nil)
		if err != nil {
			return err
		}
		fmt.Printf("sitemap: %-22s %9d %13s %13s %11s %11s\n", path, len(body), loadgen.Pct(unc, 50), loadgen.Pct(unc, 99), loadgen.Pct(hit, 50), loadgen.Pct(hit, 99))
	}
	return nil
}
