package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// demoDays is how many days of sample analytics `folio seed --demo` adds, ending now.
const demoDays = 28

// demoUserAgents are ordinary browsers (desktop, phone, tablet), so the bot filter keeps them
// and the device and browser breakdowns have something to show.
var demoUserAgents = []string{
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
	"Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
	"Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
}

// demoNetworks are public networks the embedded country data places (checked by
// TestSeedDemoAnalytics), weighted like a small English-speaking site's audience, so the
// countries breakdown shows a spread; a visitor's address is one of them with a random last
// byte. A few visitors come from a documentation range no country owns.
var demoNetworks = []struct {
	base    [4]byte
	country string
	weight  int
}{
	{[4]byte{8, 8, 8, 0}, "US", 30}, {[4]byte{81, 2, 69, 0}, "GB", 12}, {[4]byte{90, 84, 0, 0}, "FR", 8},
	{[4]byte{24, 48, 0, 0}, "CA", 6}, {[4]byte{49, 36, 0, 0}, "IN", 6}, {[4]byte{193, 0, 6, 0}, "NL", 5},
	{[4]byte{133, 242, 0, 0}, "JP", 4}, {[4]byte{200, 160, 2, 0}, "BR", 4}, {[4]byte{1, 128, 0, 0}, "AU", 4},
	{[4]byte{80, 58, 0, 0}, "ES", 3}, {[4]byte{151, 1, 0, 0}, "IT", 3}, {[4]byte{78, 64, 0, 0}, "SE", 3},
	{[4]byte{83, 0, 0, 0}, "PL", 2}, {[4]byte{62, 2, 0, 0}, "CH", 2}, {[4]byte{41, 0, 0, 0}, "ZA", 1},
	{[4]byte{190, 0, 0, 0}, "CO", 1}, {[4]byte{203, 0, 113, 0}, analytics.UnknownCountry, 2},
}

// demoAddress draws a visitor's address from demoNetworks.
func demoAddress(rng *rand.Rand) string {
	total := 0
	for _, n := range demoNetworks {
		total += n.weight
	}
	pick := rng.IntN(total)
	for _, n := range demoNetworks {
		if pick -= n.weight; pick < 0 {
			a := n.base
			a[3] = byte(rng.IntN(250) + 1)
			return netip.AddrFrom4(a).String()
		}
	}
	panic("unreachable")
}

var demoReferrers = []string{"", "", "", "https://github.com/example", "https://news.ycombinator.com/item?id=1",
	"https://www.google.com/", "https://www.linkedin.com/feed/", "https://lobste.rs/", "https://duckduckgo.com/"}

// SeedDemoAnalytics adds demoDays of sample page views and booking-funnel events for the demo
// content, through the real ingestion path (analytics.Service.Collect and its batched writer),
// so the overview, breakdowns and project pages have something to show. Visitors, their pages
// and referrers are drawn from a fixed seed, so every run adds the same shape of data. It
// returns how many events it queued.
func SeedDemoAnalytics(ctx context.Context, db *sqldb.DB, loc *time.Location, siteURL string, now time.Time) (int, error) {
	var paths []string
	projects, _, err := db.Content.Projects(ctx, folio.ProjectFilter{Page: 1, Limit: 100, Statuses: []string{"published"}})
	if err != nil {
		return 0, err
	}
	titles := map[string]string{"/": "Home", "/about": "About", "/blog": "Blog", "/book": "Book a meeting"}
	paths = append(paths, "/", "/", "/", "/about", "/blog", "/book")
	for _, p := range projects {
		path := analytics.ProjectPath(p.ID)
		titles[path] = p.Title
		paths = append(paths, path)
	}
	posts, _, err := db.Content.Posts(ctx, folio.PostFilter{Page: 1, Limit: 100, Statuses: []string{"published"}})
	if err != nil {
		return 0, err
	}
	for _, p := range posts {
		path := "/blog/" + p.Slug
		titles[path] = p.Title
		paths = append(paths, path, path)
	}

	clock := now
	svc, err := analytics.New(analyticsdb.New(db), db.Projects, analytics.Options{Location: loc, SiteURL: siteURL, QueueSize: 1 << 16,
		Now: func() time.Time { return clock }})
	if err != nil {
		return 0, err
	}
	svc.Start()
	rng := rand.New(rand.NewPCG(16, 2026))
	n := 0
	collect := func(at time.Time, in folio.CollectInput, ip, ua string) error {
		clock = at // Collect reads the clock synchronously; the writer only stores what it was given
		if _, err := svc.Collect(ctx, &in, ip, ua); err != nil {
			return fmt.Errorf("demo analytics: %w", err)
		}
		n++
		return nil
	}
	today := now.In(loc)
	midnight := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, loc)
	for d := demoDays - 1; d >= 0; d-- {
		day := midnight.AddDate(0, 0, -d)
		// A slowly growing site, quieter at weekends, with a spike when a post was shared.
		visitors := 6 + (demoDays-d)/2 + rng.IntN(8)
		if wd := day.Weekday(); wd == time.Saturday || wd == time.Sunday {
			visitors = visitors * 2 / 3
		}
		if d == 9 {
			visitors += 30
		}
		for v := 0; v < visitors; v++ {
			// Returning visitors reuse ids from a small pool; the rest are new.
			id := fmt.Sprintf("demo-%d-%d", d, v)
			if rng.IntN(4) == 0 {
				id = fmt.Sprintf("demo-regular-%d", rng.IntN(12))
			}
			at := day.Add(time.Duration(7*60+rng.IntN(15*60)) * time.Minute)
			if d == 0 {
				// Today: spread the visits over the hours already past, so the chart does not end in a drop.
				at = day.Add(time.Duration(rng.Int64N(int64(now.Sub(day)) + 1)))
			}
			if at.After(now) {
				continue
			}
			ua := demoUserAgents[rng.IntN(len(demoUserAgents))]
			ip := demoAddress(rng)
			ref := demoReferrers[rng.IntN(len(demoReferrers))]
			if d == 9 && v%2 == 0 {
				ref = "https://news.ycombinator.com/item?id=2"
			}
			for pv, views := 0, 1+rng.IntN(4); pv < views && !at.After(now); pv++ {
				path := paths[rng.IntN(len(paths))]
				in := folio.CollectInput{Type: folio.CollectPageView, Path: path, Title: titles[path], VisitorID: id}
				if pv == 0 {
					in.Referrer = ref
				}
				if err := collect(at, in, ip, ua); err != nil {
					svc.Close(ctx)
					return n, err
				}
				if path == "/book" {
					// Some visitors of the booking page walk part of the funnel.
					for _, step := range folio.FunnelSteps[:1+rng.IntN(len(folio.FunnelSteps))] {
						at = at.Add(20 * time.Second)
						if err := collect(at, folio.CollectInput{Type: folio.CollectEvent, Path: "/book", Name: step, VisitorID: id}, ip, ua); err != nil {
							svc.Close(ctx)
							return n, err
						}
					}
				}
				at = at.Add(time.Duration(30+rng.IntN(240)) * time.Second)
			}
		}
	}
	if err := svc.Close(ctx); err != nil {
		return n, err
	}
	return n, nil
}
