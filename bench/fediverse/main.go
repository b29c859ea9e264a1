// Command fediverse measures the delivery of one published post to the site's followers:
//
//	go run ./bench/fediverse [-followers 10000] [-inboxes 1000] [-servers 20] [-workers 8] [-postgres URL]
//
// The followers are spread over -inboxes shared inboxes (Mastodon servers), served by -servers
// loopback httptest servers that check every delivery's Digest and signature (go-fed/httpsig).
// Publishing the post queues the fan-out job; the job scheduler (the real one, -workers at once)
// turns it into one delivery job per shared inbox and sends them signed. It prints the time from
// the publication to the last delivery received, the deliveries, and the process's RSS (now and
// peak, VmHWM). SQLite in a temporary directory by default; PostgreSQL with -postgres URL.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/fediverse"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/go-fed/httpsig"
)

func main() {
	followers := flag.Int("followers", 10000, "followers")
	inboxes := flag.Int("inboxes", 1000, "shared inboxes the followers are on")
	servers := flag.Int("servers", 20, "loopback servers the inboxes are spread over")
	workers := flag.Int("workers", 8, "job scheduler workers")
	pg := flag.String("postgres", "", "PostgreSQL URL (default: SQLite in a temporary directory)")
	flag.Parse()
	ctx := context.Background()

	dir, err := os.MkdirTemp("", "folio-bench-fediverse")
	check(err)
	defer os.RemoveAll(dir)
	db, err := sqldb.Open(ctx, *pg, dir)
	check(err)
	defer db.Close()
	_, err = db.Migrate(ctx)
	check(err)

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	check(err)
	der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	pubPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))

	var received, refused atomic.Int64
	done := make(chan struct{})
	inbox := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sum := sha256.Sum256(body)
		v, err := httpsig.NewVerifier(r)
		if err != nil || r.Header.Get("Digest") != "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]) ||
			v.Verify(&key.PublicKey, httpsig.RSA_SHA256) != nil {
			refused.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		if received.Add(1) == int64(*inboxes) {
			close(done)
		}
	})
	urls := make([]string, *servers)
	for i := range urls {
		srv := httptest.NewServer(inbox)
		defer srv.Close()
		urls[i] = srv.URL
	}

	svc := fediverse.New(db.Fediverse, content.New(db.Content), "site", "https://folio.example", key, pubPEM,
		fediverse.NewClient(true), nil)
	svc.Client.Transport.(*http.Transport).MaxIdleConnsPerHost = *workers

	t0 := time.Now()
	for i := 0; i < *followers; i++ {
		shared := i % *inboxes
		base := urls[shared%*servers] + "/i" + strconv.Itoa(shared)
		check(db.Fediverse.AddFollower(ctx, folio.Follower{ActorID: base + "/users/" + strconv.Itoa(i),
			Inbox: base + "/users/" + strconv.Itoa(i) + "/inbox", SharedInbox: base + "/inbox", CreatedAt: time.Now()}))
	}
	fmt.Printf("stored %d followers on %d shared inboxes in %s (%s)\n", *followers, *inboxes, time.Since(t0).Round(time.Millisecond), db.Dialect)

	sched := jobs.New(db.Jobs, nil)
	sched.Workers, sched.Poll = *workers, 10*time.Millisecond
	sched.Handle(folio.JobFediversePost, svc.FanOut)
	sched.Handle(folio.JobFediverseDeliver, svc.Deliver)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go sched.Run(runCtx)

	title, body, status := "Benchmark post", strings.Repeat("A paragraph of the post. ", 200), folio.PostPublished
	start := time.Now()
	_, err = content.New(db.Content).CreatePost(ctx, &folio.PostInput{Title: &title, Content: &body, Status: &status}, folio.PostAuthor{})
	check(err)
	select {
	case <-done:
	case <-time.After(10 * time.Minute):
		log.Fatalf("timed out: %d of %d deliveries received, %d refused", received.Load(), *inboxes, refused.Load())
	}
	elapsed := time.Since(start)
	stop()
	fmt.Printf("delivered one post to %d followers: %d signed deliveries (one per shared inbox, %d refused) in %s, %.0f deliveries/s\n",
		*followers, received.Load(), refused.Load(), elapsed.Round(time.Millisecond), float64(received.Load())/elapsed.Seconds())
	fmt.Printf("RSS %.1f MiB, peak (VmHWM) %.1f MiB\n", procMiB("VmRSS:"), procMiB("VmHWM:"))
}

func procMiB(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if f := strings.Fields(string(line)); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
