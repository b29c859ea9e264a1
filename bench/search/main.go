// Command search measures GET /api/search's query (db.Content.Search: full-text match,
// ranking, snippets) over 100,000 published posts on SQLite (FTS5) and, when
// FOLIO_TEST_POSTGRES_URL is set, PostgreSQL (tsvector + GIN), and prints p50/p95 beside the
// target (p50 < 20 ms).
//
//	go run ./bench/search [-posts 100000] [-queries 300]
//
// Posts are synthetic: titles of 6 and bodies of 150 words drawn from a 20,000-word vocabulary
// with a Zipf distribution (like natural text). They are inserted in bulk and indexed by
// DB.RebuildSearchIndex, the same code every write runs. The query mix is what a blog's readers
// type: one word (50%), two words (30%) or a 3–4 letter prefix of a word (20%), words drawn
// uniformly from vocabulary ranks 100–20,000 (not stop words). The worst case — one of the
// commonest words, matching most posts — is printed on its own line.
package main

import (
	"context"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
)

const anchorP50 = 20 * time.Millisecond

func main() {
	posts := flag.Int("posts", 100_000, "number of posts")
	queries := flag.Int("queries", 300, "number of timed queries per engine")
	flag.Parse()
	if err := run(*posts, *queries); err != nil {
		fmt.Fprintln(os.Stderr, "bench/search:", err)
		os.Exit(1)
	}
}

func run(n, q int) error {
	ctx := context.Background()
	vocab := vocabulary(20_000)
	fmt.Printf("search over %d posts, %d queries per engine, Go %s, %d CPUs; anchor: p50 < %v\n",
		n, q, runtime.Version(), runtime.NumCPU(), anchorP50)
	dir, err := os.MkdirTemp("", "folio-bench-search-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := engine(ctx, "sqlite", "", dir, vocab, n, q); err != nil {
		return err
	}
	base := os.Getenv("FOLIO_TEST_POSTGRES_URL")
	if base == "" {
		fmt.Println("postgres: skipped (FOLIO_TEST_POSTGRES_URL not set)")
		return nil
	}
	var b [4]byte
	for i := range b {
		b[i] = byte(rand.IntN(256))
	}
	schema := "folio_bench_search_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		return err
	}
	defer admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	qs := u.Query()
	qs.Set("search_path", schema)
	u.RawQuery = qs.Encode()
	return engine(ctx, "postgres", u.String(), dir, vocab, n, q)
}

func engine(ctx context.Context, name, dsn, dir string, vocab []string, n, q int) error {
	db, err := sqldb.Open(ctx, dsn, dir)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	t0 := time.Now()
	const batch = 500
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for start := 0; start < n; start += batch {
		tx, err := db.W.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for i := start; i < min(start+batch, n); i++ {
			ts := any(now.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000000Z"))
			if db.Dialect == sqldb.Postgres {
				ts = now.Add(time.Duration(i) * time.Minute)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO posts (id, slug, title, content, excerpt, tags, status, published_at, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, '[]', 'published', $6, $6, $6)`,
				folio.NewID(), fmt.Sprintf("post-%d", i), words(6), words(150), words(20), ts); err != nil {
				tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	inserted := time.Since(t0)
	t0 = time.Now()
	indexed, err := db.Search.RebuildSearchIndex(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("%-8s %d posts inserted in %.1f s, indexed in %.1f s (%.0f posts/s)\n", name, n, inserted.Seconds(),
		time.Since(t0).Seconds(), float64(indexed)/time.Since(t0).Seconds())

	mix := queryMix(vocab, q, rand.New(rand.NewPCG(3, 4)))
	for _, s := range mix[:20] { // warm-up
		if _, _, err := db.Search.Search(ctx, folio.SearchQuery{Q: s, Page: 1, Limit: 10}); err != nil {
			return err
		}
	}
	var lat []time.Duration
	hits := 0
	for _, s := range mix {
		t := time.Now()
		res, total, err := db.Search.Search(ctx, folio.SearchQuery{Q: s, Page: 1, Limit: 10})
		if err != nil {
			return err
		}
		lat = append(lat, time.Since(t))
		if len(res) > 0 {
			hits++
		}
		_ = total
	}
	slices.Sort(lat)
	p50, p95 := lat[len(lat)/2], lat[len(lat)*95/100]
	verdict := "meets"
	if p50 >= anchorP50 {
		verdict = "MISSES"
	}
	fmt.Printf("%-8s p50 %6.2f ms  p95 %6.2f ms  max %6.2f ms  (%d/%d queries found posts) — %s the p50 < %v anchor (load average %s)\n",
		name, ms(p50), ms(p95), ms(lat[len(lat)-1]), hits, len(mix), verdict, anchorP50, loadAverage())
	// Worst case: the commonest word.
	t := time.Now()
	_, total, err := db.Search.Search(ctx, folio.SearchQuery{Q: vocab[0], Page: 1, Limit: 10})
	if err != nil {
		return err
	}
	fmt.Printf("%-8s worst case %q (matches %d posts): %.2f ms\n", name, vocab[0], total, ms(time.Since(t)))
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// vocabulary makes n distinct pronounceable words of 4–10 letters, some with diacritics.
func vocabulary(n int) []string {
	rng := rand.New(rand.NewPCG(7, 8))
	cons := []string{"b", "c", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "ch", "st", "tr"}
	vows := []string{"a", "e", "i", "o", "u", "é", "ou", "ai", "ü"}
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for k := 2 + rng.IntN(3); k > 0; k-- {
			b.WriteString(cons[rng.IntN(len(cons))])
			b.WriteString(vows[rng.IntN(len(vows))])
		}
		w := b.String()
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func queryMix(vocab []string, n int, rng *rand.Rand) []string {
	pick := func() string { return vocab[100+rng.IntN(len(vocab)-100)] }
	out := make([]string, n)
	for i := range out {
		switch r := rng.IntN(10); {
		case r < 5:
			out[i] = pick()
		case r < 8:
			out[i] = pick() + " " + pick()
		default:
			w := []rune(pick())
			out[i] = string(w[:min(len(w), 3+rng.IntN(2))])
		}
	}
	return out
}

// loadAverage is the 1-minute load average (/proc/loadavg), printed with the figures: on a shared
// machine it says how much the latencies owe to other work.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}
