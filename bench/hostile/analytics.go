package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/foliohq/folio/internal/sqldb"
)

const browserUA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

// analyticsGrowth sends o.collects anonymous page views, each with a unique path, referrer and
// long campaign tags, and reports how much the SQLite database grew (its pages, WAL included:
// the file's size once checkpointed).
func analyticsGrowth(s *server, o options) error {
	dataDir := filepath.Join(s.dir, "data")
	size := func() float64 {
		n, err := dbBytes(dataDir)
		if err != nil {
			fmt.Println("analytics:", err)
		}
		return float64(n) / 1e6
	}
	before := size()
	long := strings.Repeat("x", 90)
	t0 := time.Now()
	failed := 0
	for i := range o.collects {
		body, _ := json.Marshal(map[string]string{"type": "pageview",
			"path":     fmt.Sprintf("/p/%d-%s?utm_source=s%d%s&utm_medium=m%d%s&utm_campaign=c%d%s", i, long, i, long, i, long, i, long),
			"referrer": fmt.Sprintf("https://r%d-%s.example/", i, long[:40]), "title": strings.Repeat("T", 250)})
		res, err := s.do("POST", "/api/analytics/collect", body, "Content-Type", "application/json", "User-Agent", browserUA)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != 202 {
			failed++
		}
	}
	elapsed := time.Since(t0)
	res, err := s.admin("GET", "/api/analytics", nil) // writes the queued batch first
	if err != nil || res.StatusCode != 200 {
		return fmt.Errorf("report: %v %v", err, status(res))
	}
	res.Body.Close()
	after := size()
	fmt.Printf("analytics: %d anonymous collects with unique paths, referrers and 100-byte UTM values (%s, %d not 202): "+
		"SQLite database %.1f MB → %.1f MB (%.1f KB a collect)\n",
		o.collects, elapsed.Round(time.Millisecond), failed, before, after, (after-before)*1e3/float64(o.collects))
	return nil
}

// dbBytes is the size of the SQLite database of dataDir as its latest commit holds it: page
// count × page size (what the file measures once the WAL is checkpointed).
func dbBytes(dataDir string) (int64, error) {
	ctx := context.Background()
	db, err := sqldb.Open(ctx, "", dataDir)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var pages, size int64
	if err := db.R.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return 0, err
	}
	if err := db.R.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return 0, err
	}
	return pages * size, nil
}
