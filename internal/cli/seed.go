package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/media"
	"github.com/foliohq/folio/internal/sqldb"
)

func runSeed(ctx context.Context, args []string, env Env) error {
	var demo bool
	cfg, err := loadConfig("seed", args, env, func(fs *flag.FlagSet) {
		fs.BoolVar(&demo, "demo", false, "fill the database with demo content")
	})
	if err != nil {
		return helpOK(err)
	}
	if !demo {
		fmt.Fprintln(env.Stderr, "folio seed: pass --demo to add demo content")
		return ErrUsage
	}
	log := newLogger(cfg, env.Stderr)
	db, err := openDB(ctx, cfg, env, true, log)
	if err != nil {
		return err
	}
	defer db.Close()
	store, _, err := openMediaStore(ctx, cfg)
	if err != nil {
		return err
	}
	up, err := newUploader(cfg, store)
	if err != nil {
		return err
	}
	n, err := SeedDemo(ctx, db, up)
	if err != nil {
		return err
	}
	if n == 0 {
		fmt.Fprintln(env.Stdout, "the database already holds content; nothing was added")
		return nil
	}
	events, err := SeedDemoAnalytics(ctx, db, cfg.BookingTimezone, cfg.SiteURL, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "added %d demo items and %d sample analytics events over the last %d days\n", n, events, demoDays)
	return nil
}

func p[T any](v T) *T { return &v }

// SeedDemo adds realistic demo content to a database without projects and reports how many items
// it added (0 when content exists, so running it twice is harmless). The projects' pictures go
// through up into the media library (none when up is nil).
func SeedDemo(ctx context.Context, db *sqldb.DB, up *media.Uploader) (int, error) {
	_, total, err := db.Content.Projects(ctx, folio.ProjectFilter{Page: 1, Limit: 1})
	if err != nil || total > 0 {
		return 0, err
	}
	pics, err := storeDemoPictures(ctx, up)
	if err != nil {
		return 0, err
	}
	images := func(key string) *[]folio.ProjectImage {
		if img, ok := pics[key]; ok {
			return &[]folio.ProjectImage{img}
		}
		return nil
	}
	projects := []folio.ProjectInput{
		{Title: p("Tidewater — offline-first field notes"), Description: p("A note-taking PWA for marine biologists that syncs survey data when a boat reaches signal."),
			LongDescription: p("Tidewater stores observations in IndexedDB, resolves sync conflicts with per-field vector clocks and ships photos in resumable chunks.\n\nUsed by three research vessels in the North Sea."),
			Technologies:    &[]string{"TypeScript", "React", "IndexedDB", "Go"}, Status: p("published"),
			DemoURL: p("https://tidewater.example.org"), SourceURL: p("https://github.com/example/tidewater"),
			Images: images("tidewater")},
		{Title: p("Ledgerline"), Description: p("Double-entry bookkeeping for freelancers, with bank imports and VAT reports."),
			Technologies: &[]string{"Go", "PostgreSQL", "htmx"}, Status: p("published"), SourceURL: p("https://github.com/example/ledgerline"),
			Images: images("ledgerline")},
		{Title: p("Gridwatch"), Description: p("Live dashboard of a city's electricity mix and carbon intensity, updated every five minutes."),
			Technologies: &[]string{"Python", "FastAPI", "D3.js", "Redis"}, Status: p("published"), DemoURL: p("https://gridwatch.example.org"),
			Images: images("gridwatch")},
		{Title: p("Quillpress"), Description: p("A static-site generator that turns a folder of Markdown into a fast, accessible blog."),
			Technologies: &[]string{"Rust", "Markdown"}, Status: p("published"), SourceURL: p("https://github.com/example/quillpress")},
		{Title: p("Atlas of Small Things"), Description: p("Generative illustrations of microscopic structures, printed as a risograph zine."),
			Technologies: &[]string{"Processing", "WebGL"}, Status: p("draft")},
		{Title: p("Metro Mood"), Description: p("A weekend hack that maps transit delays to emoji. Retired when the API closed."),
			Technologies: &[]string{"JavaScript", "Node.js"}, Status: p("archived")},
	}
	n := 0
	for i := range projects {
		if _, err := content.New(db.Content).CreateProject(ctx, &projects[i]); err != nil {
			return n, err
		}
		n++
	}
	posts, err := seedPosts(ctx, db)
	return n + posts, err
}

// seedPosts adds demo blog posts by a demo author: four published and one draft, in Markdown.
func seedPosts(ctx context.Context, db *sqldb.DB) (int, error) {
	author := folio.PostAuthor{Name: "Sam Rivera", Email: "sam@example.org"}
	posts := []folio.PostInput{
		{Title: p("Offline-first sync without a PhD"), Category: p("Engineering"), Tags: &[]string{"Sync", "IndexedDB", "TypeScript"}, Status: p("published"),
			Excerpt: p("How Tidewater keeps survey data consistent across boats that are offline for days."),
			Content: p("Research vessels spend days without signal, so Tidewater treats the network as a rare luxury.\n\n" +
				"## Per-field vector clocks\n\nEvery field of an observation carries its own clock, so two biologists editing " +
				"*different* fields of one sighting never conflict:\n\n```ts\ntype Field<T> = { value: T; clock: Record<string, number> };\n```\n\n" +
				"## What we learned\n\n- Resumable uploads matter more than fast ones.\n- Show the sync state; people trust what they can see.\n- " +
				"Test with the radio off, for real.\n\nThe code is on [GitHub](https://github.com/example/tidewater).")},
		{Title: p("Double-entry bookkeeping in 300 lines of SQL"), Category: p("Engineering"), Tags: &[]string{"PostgreSQL", "Go", "Accounting"}, Status: p("published"),
			Content: p("Ledgerline's core is a single `postings` table and one invariant: every transaction sums to zero.\n\n" +
				"```sql\nALTER TABLE postings ADD CONSTRAINT balanced\n  CHECK (amount <> 0);\n```\n\n" +
				"A deferred constraint trigger checks the sum at commit, so the database itself refuses an unbalanced ledger. " +
				"Reports are plain `GROUP BY` queries over accounts, and VAT returns are views.")},
		{Title: p("Five minutes of grid data, visualised"), Category: p("Data"), Tags: &[]string{"D3.js", "Python", "Energy"}, Status: p("published"),
			Content: p("Gridwatch polls the transmission operator every five minutes and keeps a week of readings in Redis.\n\n" +
				"| Source | Share | gCO₂/kWh |\n|---|---|---|\n| Wind | 41 % | 11 |\n| Gas | 27 % | 490 |\n| Solar | 12 % | 41 |\n\n" +
				"The stacked area chart uses D3's `stack()` with a custom order so the fossil sources always sit on top.")},
		{Title: p("Notes from a week without JavaScript frameworks"), Category: p("Essays"), Tags: &[]string{"Web", "htmx"}, Status: p("published"),
			Content: p("I rebuilt a small admin screen with server-rendered HTML and a sprinkle of htmx. It was **faster to write** and " +
				"the page weighs 14 kB.\n\n> The best code is the code the browser already ships.\n\nFrameworks still earn their keep in " +
				"highly interactive tools; most forms are not that.")},
		{Title: p("Drafting: a risograph zine of microscopic structures"), Category: p("Art"), Tags: &[]string{"Generative", "Print"},
			Content: p("Work in progress: notes on colour separation for a two-drum risograph.\n\n- [x] Pick the palette\n- [ ] Test prints")},
	}
	n := 0
	for i := range posts {
		if _, err := content.New(db.Content).CreatePost(ctx, &posts[i], author); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
