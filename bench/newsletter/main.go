// Command newsletter mails one published post to a list of confirmed subscribers with two
// folio instances on one PostgreSQL database, kills the sending instance midway, and checks
// that every subscriber got the mail exactly once (issue #34):
//
//	go run ./bench/newsletter [-subscribers 10000] [-postgres URL] [-kill-at 0.3] [-rate 100000]
//
// The SMTP server is real (emersion/go-smtp, in this process) and listens on one port per
// instance, so each accepted mail is attributed to the instance that handed it over. The two
// instances are `folio serve` processes built from this checkout, on a fresh PostgreSQL schema,
// without Redis (each paces itself to NEWSLETTER_RATE_PER_MINUTE). The post is published through
// POST /api/articles/publishing-options with newsletter.send; once -kill-at of the mails have
// arrived, the instance handing them over gets SIGKILL; the other one goes on until GET
// /api/posts/{id}/newsletter says sent, taking over the job when its lease lapses (30 s, renewed
// while it runs) and the rows the dead one had in hand when theirs lapse (NEWSLETTER_SEND_TIMEOUT
// + 15 s, 45 s, from their claim).
//
// It prints the mails per second handed to SMTP (per instance, while sending), each instance's
// peak RSS during the send (VmRSS sampled every 100 ms, and VmHWM), and the checks: none lost,
// duplicates by recipient and by Message-ID. A mail the server accepted just before the kill,
// whose row was not yet marked sent, goes out again with the same Message-ID (docs/api.md,
// "Exactly once"): the bench counts those apart and fails only on a lost mail, a duplicate with
// another Message-ID, or progress that disagrees with the server.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/bench/internal/procstat"
	"github.com/foliohq/folio/bench/loadgen"
	"github.com/foliohq/folio/internal/newsletter"
	"github.com/foliohq/folio/internal/sqldb"
)

type options struct {
	subscribers, domains, rate int
	postgres                   string
	killAt                     float64
	timeout                    time.Duration
	keepLogs                   bool
}

func main() {
	var o options
	flag.IntVar(&o.subscribers, "subscribers", 10000, "confirmed subscribers the post is mailed to")
	flag.IntVar(&o.domains, "domains", 100, "recipient domains the addresses are spread over (NEWSLETTER_DOMAIN_CONCURRENCY is 2 per domain)")
	flag.IntVar(&o.rate, "rate", 100000, "NEWSLETTER_RATE_PER_MINUTE of each instance")
	flag.StringVar(&o.postgres, "postgres", os.Getenv("FOLIO_TEST_POSTGRES_URL"), "PostgreSQL URL (a fresh schema is made in it and dropped after)")
	flag.Float64Var(&o.killAt, "kill-at", 0.3, "share of the mails received (plus 25, the middle of a claim) when the sending instance is killed (0: no kill)")
	flag.DurationVar(&o.timeout, "timeout", 20*time.Minute, "give up after this long from the publication")
	flag.BoolVar(&o.keepLogs, "keep-logs", false, "keep the temporary directory with the instances' logs")
	flag.Parse()
	if o.postgres == "" {
		fmt.Fprintln(os.Stderr, "bench/newsletter: needs PostgreSQL: -postgres URL or FOLIO_TEST_POSTGRES_URL")
		os.Exit(2)
	}
	ok, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/newsletter:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(o options) (bool, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "folio-bench-newsletter-")
	if err != nil {
		return false, err
	}
	if o.keepLogs {
		fmt.Println("logs in", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	bin := filepath.Join(dir, "folio")
	if out, err := loadgen.FolioBuild(bin).CombinedOutput(); err != nil {
		return false, fmt.Errorf("go build: %v\n%s", err, out)
	}

	dsn, drop, err := freshSchema(o.postgres)
	if err != nil {
		return false, err
	}
	defer drop()
	db, err := sqldb.Open(ctx, dsn, dir)
	if err != nil {
		return false, err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		return false, err
	}
	t0 := time.Now()
	emails, err := addSubscribers(ctx, db, o.subscribers, o.domains)
	if err != nil {
		return false, err
	}
	fmt.Printf("newsletter: %d confirmed subscribers on %d domains stored in %.1f s (PostgreSQL, fresh schema)\n",
		len(emails), o.domains, time.Since(t0).Seconds())

	smtpSrv, err := startMailServer(2)
	if err != nil {
		return false, err
	}
	defer smtpSrv.Close()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	env := folioEnv(dsn, hex.EncodeToString(secret), o.rate, "FOLIO_DATA_DIR="+filepath.Join(dir, "cli"))
	if _, err := runFolio(bin, env, "user", "create", "--email", "owner@newsletter.bench", "--name", "Owner",
		"--role", "owner", "--password", "bench-password-123"); err != nil {
		return false, err
	}
	out, err := runFolio(bin, env, "apikey", "create", "--name", "bench", "--level", "admin")
	if err != nil {
		return false, err
	}
	key := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])

	var insts []*instance
	defer func() {
		for _, in := range insts {
			in.stop()
		}
	}()
	for i, name := range []string{"instance-1", "instance-2"} {
		in, err := startInstance(bin, dir, name, env, smtpSrv.Ports[i])
		if err != nil {
			return false, err
		}
		insts = append(insts, in)
	}
	for i, in := range insts {
		fmt.Printf("newsletter: %s pid %d ready, RSS %.1f MiB, SMTP to port %d\n", in.Name, in.Pid(), procstat.MiB(procstat.RSS(in.Pid())), smtpSrv.Ports[i])
	}

	var post struct {
		ID string `json:"id"`
	}
	if err := api("POST", insts[0].Base+"/api/posts", key, map[string]any{"title": "A post for the whole list", "content": postMarkdown}, &post); err != nil {
		return false, err
	}
	for _, in := range insts {
		in.resetPeak()
	}
	stopSampling := sampleRSS(insts, 100*time.Millisecond)
	publishedAt := time.Now()
	if err := api("POST", insts[0].Base+"/api/articles/publishing-options", key, map[string]any{
		"articleId": post.ID, "status": "published", "newsletter": map[string]any{"send": true}}, nil); err != nil {
		return false, err
	}
	fmt.Printf("newsletter: published post %s with newsletter.send through %s at %s\n", post.ID, insts[0].Name, publishedAt.UTC().Format("15:04:05"))

	res, err := watch(o, insts, smtpSrv, key, post.ID, publishedAt)
	stopSampling()
	if err != nil {
		return false, err
	}
	for _, in := range insts {
		in.stop() // the killed one is already gone
	}
	smtpSrv.Close()
	return report(o, emails, smtpSrv.Deliveries(), insts, res), nil
}

// watchResult is what happened during the send.
type watchResult struct {
	PublishedAt, KilledAt, SentAt time.Time
	Killed                        int // index of the killed instance, -1: none
	AtKill                        int // mails received when it was killed
	Progress                      folio.NewsletterProgress
}

// watch waits for the mailing to finish, killing the instance that is sending once o.killAt of
// the mails have arrived, and polls the survivor's progress.
func watch(o options, insts []*instance, srv *mailServer, key, postID string, publishedAt time.Time) (watchResult, error) {
	res := watchResult{PublishedAt: publishedAt, Killed: -1}
	// An instance claims a row whenever one of its 8 workers frees, so a kill always finds mails
	// in flight: the case that tests the takeover and the resend window. (The 25 comes from
	// claims of 50, whose middle it was.)
	killAfter := int(o.killAt*float64(o.subscribers)) + 25
	deadline := publishedAt.Add(o.timeout)
	lastPrint, lastPoll := time.Now(), time.Time{}
	for time.Now().Before(deadline) {
		n, last := srv.Count()
		if o.killAt > 0 && res.Killed < 0 && n >= killAfter && last >= 0 {
			victim := insts[last]
			victim.kill()
			res.Killed, res.KilledAt = last, time.Now()
			res.AtKill, _ = srv.Count()
			fmt.Printf("newsletter: +%.1f s SIGKILL %s (pid %d), the instance handing the mails over, after %d mails\n",
				time.Since(publishedAt).Seconds(), victim.Name, victim.Pid(), res.AtKill)
		}
		if time.Since(lastPoll) >= time.Second {
			lastPoll = time.Now()
			survivor := insts[0]
			if res.Killed == 0 {
				survivor = insts[1]
			}
			var p folio.NewsletterProgress
			if err := api("GET", survivor.Base+"/api/posts/"+postID+"/newsletter", key, nil, &p); err != nil {
				return res, err
			}
			res.Progress = p
			if p.Status == folio.NewsletterSent {
				res.SentAt = time.Now()
				fmt.Printf("newsletter: +%.1f s progress says sent: %+v\n", time.Since(publishedAt).Seconds(), p)
				return res, nil
			}
			if time.Since(lastPrint) >= 15*time.Second {
				lastPrint = time.Now()
				fmt.Printf("newsletter: +%.0f s %d mails received; progress %s sent %d of %d\n",
					time.Since(publishedAt).Seconds(), n, p.Status, p.Sent, p.Total)
			}
		}
		select {
		case <-srv.Arrived:
		case <-time.After(20 * time.Millisecond):
		}
	}
	n, _ := srv.Count()
	return res, fmt.Errorf("timed out after %s: %d mails received, progress %+v", o.timeout, n, res.Progress)
}

// sampleRSS samples the instances' resident sets every interval until the returned func is called.
func sampleRSS(insts []*instance, every time.Duration) func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				for _, in := range insts {
					in.sample()
				}
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// freshSchema makes an empty schema in the database at base and returns a DSN that uses it and
// the func that drops it.
func freshSchema(base string) (string, func(), error) {
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	schema := "folio_bench_newsletter_" + hex.EncodeToString(b)
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("postgres: %w", err)
	}
	drop := func() { admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); admin.Close() }
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}

// addSubscribers stores n active (confirmed) subscribers through the store, a thousand per
// transaction, and returns their addresses.
func addSubscribers(ctx context.Context, db *sqldb.DB, n, domains int) ([]string, error) {
	now := time.Now().UTC()
	emails := make([]string, 0, n)
	for start := 0; start < n; start += 1000 {
		batch := make([]folio.Subscriber, 0, 1000)
		for i := start; i < min(start+1000, n); i++ {
			e := fmt.Sprintf("reader%05d@d%03d.bench", i, i%domains)
			batch = append(batch, folio.Subscriber{ID: folio.NewID(), Email: e, Name: fmt.Sprintf("Reader %d", i),
				Source: "bench", Status: folio.SubscriberActive, CreatedAt: now, ConfirmedAt: &now, UnsubscribeToken: newsletter.NewToken()})
			emails = append(emails, e)
		}
		got, err := db.Subscribers.ImportSubscribers(ctx, batch)
		if err != nil {
			return nil, err
		}
		if got != len(batch) {
			return nil, fmt.Errorf("stored %d of %d subscribers", got, len(batch))
		}
	}
	return emails, nil
}

// postMarkdown is a post of ordinary length (about 3 KB of Markdown: headings, links, a list, a
// quote, code), so each mail is the size of a real issue.
var postMarkdown = strings.Repeat(`## A section of the post

Some prose with a [link to the project](https://example.org/projects/folio) and *emphasis*, the
kind of paragraph a portfolio owner writes about what they built this month and why it matters.

- a point worth making
- another, with `+"`code`"+`
- a third

> A quote from a reader who wrote back.

`, 6)
