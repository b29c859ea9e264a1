package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// agents is the User-Agent mix of the ingestion run (desktop, phone, tablet; several browsers).
var agents = []string{
	"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
	"Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
}

// runIngest pushes n events through Service.Collect from four producers and prints the
// events/s from the first Collect until the last event is written.
func runIngest(ctx context.Context, db *sqldb.DB, loc *time.Location, n int) {
	defer db.Close()
	s, err := analytics.New(analyticsdb.New(db), db.Projects, analytics.Options{Location: loc, SiteURL: "https://folio.example", QueueSize: 65536})
	if err != nil {
		log.Fatal(err)
	}
	s.Start()
	paths := make([]string, 200)
	for i := range paths {
		paths[i] = fmt.Sprintf("/blog/post-%d", i)
	}
	refs := []string{"", "", "", "https://www.google.com/", "https://news.ycombinator.com/item?id=1", "https://t.co/x", "https://folio.example/", "https://github.com/x"}
	const producers = 4
	var dropped atomic.Int64
	var offered atomic.Int64 // Collect calls, the refused (queue full) ones included
	var wg sync.WaitGroup
	ingested := make(chan struct{})
	cpu0, pg0 := processCPU(), postgresCPU()
	start := time.Now()
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(p), 1))
			for i := p; i < n; i += producers {
				v := rng.IntN(20000)
				in := &folio.CollectInput{Type: folio.CollectPageView, Path: paths[rng.IntN(len(paths))] + "?utm_source=bench&utm_campaign=c" + fmt.Sprint(v%7) + "&x=1",
					Title: "A post", Referrer: refs[rng.IntN(len(refs))]}
				if v%3 == 0 {
					in.VisitorID = fmt.Sprintf("visitor-%d", v)
				}
				if i%10 == 0 {
					in = &folio.CollectInput{Type: folio.CollectEvent, Path: "/contact", Name: folio.FunnelSteps[rng.IntN(6)], VisitorID: fmt.Sprintf("visitor-%d", v)}
				}
				// Public addresses spread over many networks, so the country lookup does real work.
				ip := fmt.Sprintf("%d.%d.%d.%d", 1+v%223, v/223%256, v%251, 1+v%250)
				for {
					offered.Add(1)
					out, err := s.Collect(ctx, in, ip, agents[v%len(agents)])
					if err != nil {
						log.Fatal(err)
					}
					if out != analytics.Full {
						break
					}
					dropped.Add(1)
					time.Sleep(200 * time.Microsecond)
				}
			}
		}(p)
	}
	// Meanwhile, every 50 ms one of the site's other writes — a project, a post, a contact message
	// (with its outbox row), in turn: on SQLite they shared the one writer with the batches until
	// analytics got a file of its own, so this is what a flood costs them.
	probeDone := make(chan struct{})
	waits := map[string][]time.Duration{}
	// The last kind writes nothing: a one-row read, the anchor for what CPU contention alone costs
	// (the process shares 2 cores with 4 producers and the batching writer).
	kinds := []string{"project", "post", "contact message", "(anchor) read"}
	cs := content.New(db.Content)
	outbox := mail.NewOutbox(db.Outbox, nil, folio.MailAddress{Email: "site@folio.example"}, nil)
	write := func(kind string) error {
		title, desc, status, techs := "Probe", "A write during ingestion.", "published", []string{"Go"}
		switch kind {
		case "project":
			_, err := cs.CreateProject(ctx, &folio.ProjectInput{Title: &title, Description: &desc, Technologies: &techs, Status: &status})
			return err
		case "post":
			body := "A post written while analytics floods in."
			_, err := cs.CreatePost(ctx, &folio.PostInput{Title: &title, Content: &body, Status: &status}, folio.PostAuthor{Name: "Bench"})
			return err
		case "(anchor) read":
			var n int
			return db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM projects WHERE id = $1`, "none").Scan(&n)
		default:
			item, err := outbox.NewItem(&folio.MailMessage{From: folio.MailAddress{Email: "site@folio.example"},
				To: []folio.MailAddress{{Email: "owner@folio.example"}}, Subject: "Contact Form: probe", Text: "Hello"})
			if err != nil {
				return err
			}
			return db.Contact.InsertContactMessage(ctx, folio.ContactMessage{ID: folio.NewID(), Name: "Probe", Email: "probe@example.com",
				Message: "Hello", CreatedAt: time.Now().UTC()}, item)
		}
	}
	go func() {
		defer close(probeDone)
		for i := 0; ; i++ {
			select {
			case <-ingested:
				return
			case <-time.After(50 * time.Millisecond):
			}
			kind := kinds[i%len(kinds)]
			t0 := time.Now()
			if err := write(kind); err != nil {
				log.Fatal(err)
			}
			waits[kind] = append(waits[kind], time.Since(t0))
		}
	}()
	wg.Wait()
	if err := s.Close(ctx); err != nil {
		log.Fatal(err)
	}
	elapsed := time.Since(start)
	close(ingested)
	<-probeDone
	cpu, pgCPU := processCPU()-cpu0, postgresCPU()-pg0
	var pv, ev int
	db.Analytics().R.QueryRow(`SELECT COUNT(*) FROM analytics_pageviews`).Scan(&pv)
	db.Analytics().R.QueryRow(`SELECT COUNT(*) FROM analytics_events`).Scan(&ev)
	if pv+ev != n {
		log.Fatalf("stored %d page views + %d events, want %d", pv, ev, n)
	}
	fmt.Printf("ingestion: %d events through Collect → queue → batching writer (enrichment, visit split, rollups)\n", n)
	fmt.Printf("  sustained: %.0f events/s of wall time (goal ≥ 30000)  [queue-full retries while producers backed off: %d]\n", float64(n)/elapsed.Seconds(), dropped.Load())
	fmt.Printf("  anchor: this process used %.1f s of CPU for it over %.1f s of wall time (%.2f of the %d cores; load average %s):\n",
		cpu.Seconds(), elapsed.Seconds(), cpu.Seconds()/elapsed.Seconds(), runtime.NumCPU(), loadAverage())
	fmt.Printf("  offered: %.0f Collect calls/s (queue-full refusals included)\n", float64(offered.Load())/elapsed.Seconds())
	fmt.Printf("  other writes meanwhile, one every 50 ms (batches of %d events, up to %d while behind; goal p99 ≤ 50 ms):\n",
		analytics.DefaultBatchSize, analytics.BacklogBatches*analytics.DefaultBatchSize)
	for _, kind := range kinds {
		w := waits[kind]
		if len(w) == 0 { // none when the run took less than 50 ms
			continue
		}
		slices.Sort(w)
		fmt.Printf("    %-15s (%3d): p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", kind, len(w), ms(w[len(w)/2]), ms(w[len(w)*99/100]), ms(w[len(w)-1]))
	}
	if db.Dialect == sqldb.Postgres {
		fmt.Printf("          PostgreSQL server processes used %.1f s of CPU meanwhile (every client's, this machine is shared): %.0f events per CPU-second of folio + server\n",
			pgCPU.Seconds(), float64(n)/(cpu+pgCPU).Seconds())
	} else {
		fmt.Printf("          %.0f events per CPU-second (SQLite runs inside the process)\n", float64(n)/cpu.Seconds())
	}
}
