package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// generated reports whether db already holds the data of this generator version and size.
func generated(ctx context.Context, db *sqldb.DB, mark string) bool {
	db = db.Analytics() // the mark is kept with the data: in the analytics file on SQLite
	db.W.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS bench_meta (mark TEXT NOT NULL)`)
	var got string
	db.R.QueryRowContext(ctx, `SELECT mark FROM bench_meta`).Scan(&got)
	return got == mark
}

// generateCached fills db with freshly generated data and marks it.
func generateCached(ctx context.Context, db *sqldb.DB, loc *time.Location, n, days int, mark, where string) {
	db = db.Analytics()
	for _, t := range append(analyticsTables, "bench_meta") {
		if _, err := db.W.ExecContext(ctx, `DELETE FROM `+t); err != nil {
			log.Fatal(err)
		}
	}
	rate, evs := generate(ctx, db, loc, n, days)
	if _, err := db.W.ExecContext(ctx, `INSERT INTO bench_meta (mark) VALUES ($1)`, mark); err != nil {
		log.Fatal(err)
	}
	db.W.ExecContext(ctx, `ANALYZE`)
	fmt.Printf("generated %d page views + %d events over %d days through analyticsdb.Store.WriteAnalytics at %.0f page views/s (cached in %s)\n", n, evs, days, rate, where)
}

// generate writes about n page views over the given days through
// analyticsdb.Store.WriteAnalytics: visits of 1–7 page views a few minutes apart by visitors drawn from a skewed pool of 1.5 million (so
// many return on other days), over 300 paths (skewed), with a source, campaign, country, device,
// browser and OS per visitor or visit drawn from realistic skewed mixes; about one event per 100
// page views. It returns page views/s and the events written.
func generate(ctx context.Context, db *sqldb.DB, loc *time.Location, n, days int) (float64, int) {
	rng := rand.New(rand.NewPCG(42, 42))
	zipfVisitor := rand.NewZipf(rng, 1.05, 20, 1_500_000)
	zipfPath := rand.NewZipf(rng, 1.2, 5, 299)
	zipfCountry := rand.NewZipf(rng, 1.3, 2, 39)
	type source struct{ name, host, uSource, uMedium, uCampaign string }
	sources := []source{{"Direct / None", "", "", "", ""}, {"Direct / None", "", "", "", ""}, {"Direct / None", "", "", "", ""},
		{"Google", "google.com", "", "", ""}, {"Google", "google.com", "", "", ""}, {"GitHub", "github.com", "", "", ""},
		{"Hacker News", "news.ycombinator.com", "", "", ""}, {"X (Twitter)", "t.co", "", "", ""}, {"LinkedIn", "linkedin.com", "", "", ""},
		{"Reddit", "reddit.com", "", "", ""}, {"DuckDuckGo", "duckduckgo.com", "", "", ""}, {"Bing", "bing.com", "", "", ""},
		{"newsletter", "", "newsletter", "email", "spring-launch"}, {"newsletter", "", "newsletter", "email", "monthly-digest"},
		{"mastodon", "", "mastodon", "social", "talk-2026"}}
	for i := 0; i < 40; i++ {
		h := fmt.Sprintf("blog%d.example.org", i)
		sources = append(sources, source{h, h, "", "", ""})
	}
	countries := strings.Fields("US DE GB FR IN NL CA BR JP ES IT PL SE AU CH AT BE DK FI NO IE PT CZ RO UA TR KR CN SG IL MX AR CL CO ZA NG EG NZ ZZ HU")
	type sw struct{ device, browser, bv, os, ov string }
	software := []sw{{"desktop", "Chrome", "131", "Windows", "10"}, {"desktop", "Chrome", "130", "macOS", "10"}, {"desktop", "Firefox", "128", "Linux", ""},
		{"desktop", "Safari", "17", "macOS", "10"}, {"desktop", "Edge", "131", "Windows", "10"}, {"mobile", "Safari", "17", "iOS", "17"},
		{"mobile", "Chrome", "131", "Android", "14"}, {"mobile", "Safari", "18", "iOS", "18"}, {"tablet", "Safari", "16", "iOS", "16"},
		{"mobile", "Samsung Browser", "26", "Android", "13"}, {"desktop", "Firefox", "132", "Windows", "11"}}
	goals := []string{"signup", "download_cv", "contact_sent", "booking_completed", "outbound_github"}
	first := endOfData(loc).AddDate(0, 0, -(days - 1))
	perDay := (n + days - 1) / days
	start := time.Now()
	written, evWritten := 0, 0
	const batchSize = 5000
	batch := make([]folio.AnalyticsPageView, 0, batchSize)
	var evBatch []folio.AnalyticsEvent
	store := analyticsdb.New(db)
	flush := func() {
		if err := store.WriteAnalytics(ctx, batch, evBatch); err != nil {
			log.Fatal(err)
		}
		written += len(batch)
		evWritten += len(evBatch)
		batch, evBatch = batch[:0], evBatch[:0]
	}
	for d := 0; d < days && written+len(batch) < n; d++ {
		y, m, dd := first.AddDate(0, 0, d).Date()
		dayStart := time.Date(y, m, dd, 0, 0, 0, 0, loc)
		day := dayStart.Format(time.DateOnly)
		var pvs []folio.AnalyticsPageView
		var evs []folio.AnalyticsEvent
		for len(pvs) < perDay {
			vn := zipfVisitor.Uint64()
			visitor := fmt.Sprintf("c%021d", vn)
			t := dayStart.Add(time.Duration(rng.IntN(22*3600)) * time.Second)
			src := sources[rng.IntN(len(sources))]
			s := software[vn%uint64(len(software))]
			attrs := folio.VisitAttrs{Source: src.name, Referrer: src.host, UTMSource: src.uSource, UTMMedium: src.uMedium, UTMCampaign: src.uCampaign,
				Country: countries[(vn*7+uint64(zipfCountry.Uint64()))%uint64(len(countries))], Device: s.device, Browser: s.browser,
				BrowserVersion: s.bv, OS: s.os, OSVersion: s.ov}
			ref := src.host
			for k := 1 + rng.IntN(7); k > 0; k-- {
				p := fmt.Sprintf("/page/%d", zipfPath.Uint64())
				pvs = append(pvs, folio.AnalyticsPageView{At: t, Day: day, VisitorKey: visitor, Path: p, Title: "Title " + p, Referrer: ref, Attrs: attrs})
				if rng.IntN(100) == 0 {
					evs = append(evs, folio.AnalyticsEvent{At: t, Day: day, VisitorKey: visitor, Name: goals[rng.IntN(len(goals))], Path: p, Props: "{}"})
				}
				ref = ""
				t = t.Add(time.Duration(30+rng.IntN(400)) * time.Second)
			}
		}
		sort.Slice(pvs, func(i, j int) bool { return pvs[i].At.Before(pvs[j].At) })
		sort.Slice(evs, func(i, j int) bool { return evs[i].At.Before(evs[j].At) })
		ei := 0
		for _, pv := range pvs {
			batch = append(batch, pv)
			for ei < len(evs) && !evs[ei].At.After(pv.At) && len(evBatch) < batchSize {
				evBatch = append(evBatch, evs[ei])
				ei++
			}
			if len(batch) == cap(batch) {
				flush()
			}
		}
		evBatch = append(evBatch, evs[ei:]...)
		if d%10 == 9 {
			fmt.Fprintf(os.Stderr, "  generated %d/%d page views (%.0f/s)\n", written, n, float64(written)/time.Since(start).Seconds())
		}
	}
	flush()
	return float64(written) / time.Since(start).Seconds(), evWritten
}
