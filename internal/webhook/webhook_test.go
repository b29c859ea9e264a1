package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/netguard"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/webhook"
)

// The example of the Standard Webhooks specification (and of Svix's documentation, where it
// comes from): a published vector, independent of this package and of the library below.
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=" // as in the library's go/webhook_test.go and csharp tests
)

func TestSignPublishedVector(t *testing.T) {
	key, err := webhook.DecodeSecret(vectorSecret)
	if err != nil {
		t.Fatal(err)
	}
	if got := webhook.Sign(key, vectorID, vectorTimestamp, []byte(vectorBody)); got != vectorSignature {
		t.Fatalf("Sign = %s, want the published %s", got, vectorSignature)
	}
}

// TestSignAgreesWithStandardWebhooksLibrary signs with this package and verifies with the
// specification's own Go library, and the other way round, for fresh secrets.
func TestSignAgreesWithStandardWebhooksLibrary(t *testing.T) {
	for i := 0; i < 20; i++ {
		secret := webhook.NewSecret()
		if !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("secret %q lacks whsec_", secret)
		}
		key, err := webhook.DecodeSecret(secret)
		if err != nil || len(key) != 32 {
			t.Fatalf("DecodeSecret: %d bytes, %v", len(key), err)
		}
		lib, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		body := []byte(`{"type":"contact.received","timestamp":"2026-01-01T00:00:00Z","data":{"n":` + strconv.Itoa(i) + `}}`)
		id := "msg_" + folio.NewID()
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
		h.Set("webhook-signature", webhook.Sign(key, id, now.Unix(), body))
		if err := lib.Verify(body, h); err != nil {
			t.Fatalf("the library rejects our signature: %v", err)
		}
		libSig, err := lib.Sign(id, now, body)
		if err != nil {
			t.Fatal(err)
		}
		h.Set("webhook-signature", "v1,bogus "+libSig)
		if err := webhook.Verify(key, h, body, now, 5*time.Minute); err != nil {
			t.Fatalf("Verify rejects the library's signature: %v", err)
		}
		if err := webhook.Verify(key, h, append(body, ' '), now, 5*time.Minute); err != webhook.ErrNoMatch {
			t.Fatalf("Verify of a changed body = %v, want ErrNoMatch", err)
		}
		if err := webhook.Verify(key, h, body, now.Add(10*time.Minute), 5*time.Minute); err != webhook.ErrBadTimestamp {
			t.Fatalf("Verify of an old timestamp = %v, want ErrBadTimestamp", err)
		}
	}
}

func FuzzVerify(f *testing.F) {
	f.Add(vectorSecret, vectorID, strconv.Itoa(vectorTimestamp), vectorSignature, vectorBody)
	f.Add("whsec_", "", "-1", "v1,", "")
	f.Add("whsec_AAAA", "x", "99999999999999999999", "v1,a v1,b v2,c", "{}")
	f.Fuzz(func(t *testing.T, secret, id, ts, sig, body string) {
		key, err := webhook.DecodeSecret(secret)
		if err != nil {
			return
		}
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", ts)
		h.Set("webhook-signature", sig)
		now := time.Unix(vectorTimestamp, 0)
		err = webhook.Verify(key, h, []byte(body), now, time.Hour)
		sec, perr := strconv.ParseInt(ts, 10, 64)
		if err == nil && (perr != nil || id == "" || !strings.Contains(sig, webhook.Sign(key, id, sec, []byte(body)))) {
			t.Fatalf("accepted a delivery without its signature: id=%q ts=%q sig=%q", id, ts, sig)
		}
		// What we sign always verifies, with our Verify and with the library.
		if id == "" || strings.ContainsAny(id, "\r\n") {
			return
		}
		good := webhook.Sign(key, id, vectorTimestamp, []byte(body))
		h.Set("webhook-timestamp", strconv.Itoa(vectorTimestamp))
		h.Set("webhook-signature", good)
		if err := webhook.Verify(key, h, []byte(body), now, time.Hour); err != nil {
			t.Fatalf("own signature rejected: %v", err)
		}
		lib, _ := standardwebhooks.NewWebhookRaw(key)
		if err := lib.VerifyIgnoringTimestamp([]byte(body), h); err != nil && strings.TrimSpace(id) == id {
			t.Fatalf("library rejects our signature: %v", err)
		}
	})
}

// fakeDNS resolves names from a table, as public DNS would (localtest.me is a public name for
// 127.0.0.1); other names do not resolve.
type fakeDNS map[string][]netip.Addr

func (f fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// Ensure a webhook URL the guarded client would refuse is refused at creation already: literal
// private addresses, localhost names, IPv4 written in decimal, octal, hex or short forms, and names
// that resolve to private addresses — and that WEBHOOK_ALLOW_PRIVATE lets the private ones through.
func TestCheckURL(t *testing.T) {
	dns := fakeDNS{"localtest.me": {netip.MustParseAddr("127.0.0.1")}, "sub.localtest.me": {netip.MustParseAddr("127.0.0.1")}, "intranet.example.com": {netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("10.0.0.5")},
		"hooks.example.com": {netip.MustParseAddr("93.184.215.14")}}
	strict := netguard.Policy{Resolver: dns}
	open := netguard.Policy{AllowPrivate: true, Resolver: dns}
	for _, u := range []string{"http://127.0.0.1/x", "https://10.1.2.3/", "http://[::1]:8080/", "http://169.254.169.254/latest",
		"http://localhost:9000/", "http://foo.localhost/", "http://192.168.0.1/", "http://[fe80::1]/",
		"http://localtest.me/", "http://sub.localtest.me./", "https://intranet.example.com/"} {
		if err := webhook.CheckURL(t.Context(), u, strict); err == nil {
			t.Errorf("CheckURL(%s) allowed a non-public destination", u)
		}
		if err := webhook.CheckURL(t.Context(), u, open); err != nil {
			t.Errorf("CheckURL(%s) with AllowPrivate: %v", u, err)
		}
	}
	for _, u := range []string{"http://2130706433/", "http://0177.0.0.1/", "http://127.1/", "http://0x7f.0.0.1/", "http://0x7f000001/",
		"http://127.0.0.1.2/", "http://1.2.3.4.5/", "http://017700000001/", "http://example.123/"} {
		if err := webhook.CheckURL(t.Context(), u, open); err == nil || !strings.Contains(err.Error(), "four decimal parts") {
			t.Errorf("CheckURL(%s) = %v, want refused as a numeric form", u, err)
		}
	}
	for _, u := range []string{"https://hooks.example.com/services/x", "http://93.184.215.14/", "https://unresolvable.example/topic", "https://0x.example/"} {
		if err := webhook.CheckURL(t.Context(), u, strict); err != nil {
			t.Errorf("CheckURL(%s): %v", u, err)
		}
	}
}

// receiver is an endpoint that answers down (503) until up is set, recording every request.
type receiver struct {
	mu   sync.Mutex
	up   bool
	reqs []received
}

type received struct {
	Header http.Header
	Body   []byte
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.reqs = append(rc.reqs, received{r.Header.Clone(), b})
	if !rc.up {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.reqs...)
}

// clock is a settable clock shared by the scheduler, the sender and the database.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newScheduler(db *sqldb.DB, clk *clock, sender *webhook.Sender) *jobs.Scheduler {
	s := jobs.New(db.Jobs, nil)
	s.Now = clk.Now
	s.MaxAttempts = 2 // the webhook schedule must not depend on the scheduler's own limit
	s.Handle(folio.JobWebhookDelivery, sender.Handle)
	return s
}

func TestDeliveryRetriesOnScheduleThenSucceeds(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clk := &clock{t: time.Now().UTC().Truncate(time.Second)}
		db.Now = clk.Now
		rc := &receiver{}
		srv := httptest.NewServer(rc)
		defer srv.Close()

		secret := webhook.NewSecret()
		hook := folio.Webhook{ID: folio.NewID(), URL: srv.URL + "/hook", Events: []string{folio.EventProjectCreated}, CreatedAt: clk.Now()}
		if err := db.Webhooks.CreateWebhook(ctx, hook, secret); err != nil {
			t.Fatal(err)
		}
		other := folio.Webhook{ID: folio.NewID(), URL: srv.URL + "/other", Events: []string{folio.EventMediaUploaded}, CreatedAt: clk.Now()}
		if err := db.Webhooks.CreateWebhook(ctx, other, webhook.NewSecret()); err != nil {
			t.Fatal(err)
		}
		title, desc := "Webhooks", "A project"
		p, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: &title, Description: &desc})
		if err != nil {
			t.Fatal(err)
		}

		sender := webhook.NewSender(db.Webhooks, true, nil)
		sender.Now, sender.Jitter = clk.Now, func(d time.Duration) time.Duration { return d }
		sched := newScheduler(db, clk, sender)

		// Attempts 1–3 fail (503); before each retry's time nothing is due.
		for i, wait := range []time.Duration{0, webhook.Schedule[0], webhook.Schedule[1]} {
			clk.Add(wait - time.Millisecond)
			if i > 0 {
				if n, _ := sched.RunDue(ctx); n != 0 {
					t.Fatalf("attempt %d ran %v early", i+1, time.Millisecond)
				}
			}
			clk.Add(time.Millisecond)
			if n, err := sched.RunDue(ctx); err != nil || n != 1 {
				t.Fatalf("attempt %d: ran %d jobs, %v", i+1, n, err)
			}
		}
		ds, total, err := db.Webhooks.WebhookDeliveries(ctx, hook.ID, 1, 10)
		if err != nil || total != 1 {
			t.Fatalf("deliveries: %d %v", total, err)
		}
		d := ds[0]
		if d.Status != folio.DeliveryPending || d.Attempts != 3 || d.ResponseStatus != 503 || d.NextAttemptAt == nil ||
			!d.NextAttemptAt.Equal(clk.Now().Add(webhook.Schedule[2])) || !strings.Contains(d.LastError, "503") {
			t.Fatalf("delivery log after 3 failures: %+v", d)
		}

		// The receiver comes back; the 4th attempt (30 min later) succeeds.
		rc.mu.Lock()
		rc.up = true
		rc.mu.Unlock()
		clk.Add(webhook.Schedule[2])
		if n, err := sched.RunDue(ctx); err != nil || n != 1 {
			t.Fatalf("attempt 4: ran %d, %v", n, err)
		}
		clk.Add(48 * time.Hour)
		if n, _ := sched.RunDue(ctx); n != 0 {
			t.Fatalf("a delivered message ran again (%d jobs)", n)
		}
		ds, _, _ = db.Webhooks.WebhookDeliveries(ctx, hook.ID, 1, 10)
		if ds[0].Status != folio.DeliverySucceeded || ds[0].Attempts != 4 || ds[0].DeliveredAt == nil || ds[0].NextAttemptAt != nil {
			t.Fatalf("delivery log after success: %+v", ds[0])
		}

		reqs := rc.all()
		if len(reqs) != 4 {
			t.Fatalf("receiver saw %d requests, want 4", len(reqs))
		}
		lib, _ := standardwebhooks.NewWebhook(secret)
		for i, r := range reqs {
			if r.Header.Get("webhook-id") != d.ID {
				t.Fatalf("attempt %d webhook-id %q, want the stable %q", i+1, r.Header.Get("webhook-id"), d.ID)
			}
			if err := lib.VerifyIgnoringTimestamp(r.Body, r.Header); err != nil {
				t.Fatalf("attempt %d: the Standard Webhooks library rejects the signature: %v", i+1, err)
			}
			if string(r.Body) != string(reqs[0].Body) {
				t.Fatalf("attempt %d body changed", i+1)
			}
		}
		var body struct {
			Type      string        `json:"type"`
			Timestamp time.Time     `json:"timestamp"`
			Data      folio.Project `json:"data"`
		}
		if err := json.Unmarshal(reqs[0].Body, &body); err != nil || body.Type != folio.EventProjectCreated || body.Data.ID != p.ID ||
			body.Timestamp.IsZero() {
			t.Fatalf("body %s (%v)", reqs[0].Body, err)
		}
		if ts, _ := strconv.ParseInt(reqs[3].Header.Get("webhook-timestamp"), 10, 64); ts != clk.Now().Add(-48*time.Hour).Unix() {
			t.Fatalf("webhook-timestamp %d is not the attempt's time", ts)
		}
		if ds, total, _ := db.Webhooks.WebhookDeliveries(ctx, other.ID, 1, 10); total != 0 {
			t.Fatalf("the media.uploaded webhook got %v", ds)
		}
	})
}

func TestDeliveryGivesUpAfterTheSchedule(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)}
	db.Now = clk.Now
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	hook := folio.Webhook{ID: folio.NewID(), URL: srv.URL, Events: []string{folio.EventContactReceived}, CreatedAt: clk.Now()}
	if err := db.Webhooks.CreateWebhook(ctx, hook, webhook.NewSecret()); err != nil {
		t.Fatal(err)
	}
	if err := db.Webhooks.Emit(ctx, folio.Event{Type: folio.EventContactReceived, Data: map[string]string{"name": "x"}}); err != nil {
		t.Fatal(err)
	}
	sender := webhook.NewSender(db.Webhooks, true, nil)
	sender.Now = clk.Now
	sched := newScheduler(db, clk, sender)
	var total time.Duration
	for i := 0; i <= len(webhook.Schedule); i++ {
		if n, err := sched.RunDue(ctx); err != nil || n != 1 {
			t.Fatalf("attempt %d: ran %d, %v", i+1, n, err)
		}
		if i < len(webhook.Schedule) {
			clk.Add(webhook.Schedule[i] * 11 / 10) // the jitter is at most 10 %
			total += webhook.Schedule[i]
		}
	}
	if total < 24*time.Hour {
		t.Fatalf("retries span %s, want at least 24 h", total)
	}
	clk.Add(30 * 24 * time.Hour)
	if n, _ := sched.RunDue(ctx); n != 0 {
		t.Fatal("a given-up delivery ran again")
	}
	ds, _, _ := db.Webhooks.WebhookDeliveries(ctx, hook.ID, 1, 10)
	if len(ds) != 1 || ds[0].Status != folio.DeliveryFailed || ds[0].Attempts != 8 || len(rc.all()) != 8 {
		t.Fatalf("after the schedule: %+v, %d requests", ds, len(rc.all()))
	}
}

// TestDeliveryRefusesPrivateDestinations: with the default policy the sender does not connect
// to a loopback receiver, even though the URL was accepted (a name could resolve anywhere).
func TestDeliveryRefusesPrivateDestinations(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ctx := context.Background()
	rc := &receiver{up: true}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	hook := folio.Webhook{ID: folio.NewID(), URL: "http://localtest.invalid:" + port + "/x", Events: []string{folio.EventMediaUploaded}, CreatedAt: time.Now()}
	hook.URL = srv.URL // a literal loopback address: the dialer must refuse it
	if err := db.Webhooks.CreateWebhook(ctx, hook, webhook.NewSecret()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Webhooks.QueueTestDelivery(ctx, hook.ID, map[string]string{"x": "y"}); err != nil {
		t.Fatal(err)
	}
	sender := webhook.NewSender(db.Webhooks, false, nil)
	sched := jobs.New(db.Jobs, nil)
	sched.Handle(folio.JobWebhookDelivery, sender.Handle)
	if n, err := sched.RunDue(ctx); n != 1 || err != nil {
		t.Fatalf("ran %d, %v", n, err)
	}
	ds, _, _ := db.Webhooks.WebhookDeliveries(ctx, hook.ID, 1, 10)
	if len(rc.all()) != 0 || len(ds) != 1 || ds[0].Status != folio.DeliveryPending || !strings.Contains(ds[0].LastError, "not public") {
		t.Fatalf("deliveries %+v, requests %d", ds, len(rc.all()))
	}
	if strings.Contains(ds[0].LastError, port) {
		t.Fatalf("the error repeats the URL: %s", ds[0].LastError)
	}
}

// TestDeliveryTimeoutIsRetried: a receiver that does not answer within the attempt's time limit
// counts as a failure and is retried.
func TestDeliveryTimeoutIsRetried(t *testing.T) {
	db := foliotest.MustOpenSQLite(t)
	ctx := context.Background()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	hook := folio.Webhook{ID: folio.NewID(), URL: srv.URL, Events: []string{folio.EventMediaUploaded}, CreatedAt: time.Now()}
	if err := db.Webhooks.CreateWebhook(ctx, hook, webhook.NewSecret()); err != nil {
		t.Fatal(err)
	}
	if err := db.Webhooks.Emit(ctx, folio.Event{Type: folio.EventMediaUploaded, Data: map[string]string{"url": "x"}}); err != nil {
		t.Fatal(err)
	}
	sender := webhook.NewSender(db.Webhooks, true, nil)
	sender.Timeout = 50 * time.Millisecond // the documented 10 s, shortened; the outcome does not depend on it
	sched := jobs.New(db.Jobs, nil)
	sched.Handle(folio.JobWebhookDelivery, sender.Handle)
	if n, err := sched.RunDue(ctx); n != 1 || err != nil {
		t.Fatalf("ran %d, %v", n, err)
	}
	ds, _, _ := db.Webhooks.WebhookDeliveries(ctx, hook.ID, 1, 10)
	if len(ds) != 1 || ds[0].Status != folio.DeliveryPending || ds[0].Attempts != 1 || !strings.Contains(ds[0].LastError, "no answer within") ||
		ds[0].NextAttemptAt == nil {
		t.Fatalf("after a timeout: %+v", ds)
	}
}

// TestDeliveriesSurviveARestart: deliveries queued by one process are sent by the next one.
func TestDeliveriesSurviveARestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rc := &receiver{up: true}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	first, err := sqldb.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	hook := folio.Webhook{ID: folio.NewID(), URL: srv.URL, Events: []string{folio.EventProjectDeleted}, CreatedAt: time.Now()}
	if err := first.Webhooks.CreateWebhook(ctx, hook, webhook.NewSecret()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := first.Webhooks.Emit(ctx, folio.Event{Type: folio.EventProjectDeleted, Data: map[string]int{"n": i}}); err != nil {
			t.Fatal(err)
		}
	}
	first.Close() // the process stops before any delivery was attempted

	second, err := sqldb.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	sched := jobs.New(second.Jobs, nil)
	sched.Handle(folio.JobWebhookDelivery, webhook.NewSender(second.Webhooks, true, nil).Handle)
	if n, err := sched.RunDue(ctx); n != 3 || err != nil {
		t.Fatalf("after the restart: ran %d, %v", n, err)
	}
	if len(rc.all()) != 3 {
		t.Fatalf("received %d", len(rc.all()))
	}
}

// TestDeliveredOnceAcrossInstances: two instances (two connection pools on one PostgreSQL
// database, each with its own scheduler) work through the same queue at the same time; every
// delivery reaches the receiver exactly once.
func TestDeliveredOnceAcrossInstances(t *testing.T) {
	dsn := foliotest.PostgresSchema(t)
	ctx := context.Background()
	open := func() *sqldb.DB {
		db, err := sqldb.Open(ctx, dsn, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	a, b := open(), open()
	if _, err := a.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rc := &receiver{up: true}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	hook := folio.Webhook{ID: folio.NewID(), URL: srv.URL, Events: []string{folio.EventContactReceived}, CreatedAt: time.Now()}
	if err := a.Webhooks.CreateWebhook(ctx, hook, webhook.NewSecret()); err != nil {
		t.Fatal(err)
	}
	const n = 60
	for i := 0; i < n; i++ {
		if err := a.Webhooks.Emit(ctx, folio.Event{Type: folio.EventContactReceived, Data: map[string]int{"n": i}}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	ran := make([]int, 4)
	for i, db := range []*sqldb.DB{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := jobs.New(db.Jobs, nil) // its own owner name, like another instance
			s.Handle(folio.JobWebhookDelivery, webhook.NewSender(db.Webhooks, true, nil).Handle)
			ran[i], _ = s.RunDue(ctx)
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for _, r := range rc.all() {
		seen[r.Header.Get("webhook-id")]++
	}
	for id, c := range seen {
		if c != 1 {
			t.Fatalf("delivery %s arrived %d times", id, c)
		}
	}
	if len(seen) != n || ran[0]+ran[1]+ran[2]+ran[3] != n {
		t.Fatalf("%d distinct deliveries arrived, %v jobs ran; want %d", len(seen), ran, n)
	}
	t.Logf("jobs run per worker: %v", ran)
}

func TestPrunerTrimsSettledDeliveries(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clk := &clock{t: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
		db.Now = clk.Now
		rc := &receiver{up: true}
		srv := httptest.NewServer(rc)
		defer srv.Close()
		hook := folio.Webhook{ID: folio.NewID(), URL: srv.URL, Events: []string{folio.EventProjectDeleted}, CreatedAt: clk.Now()}
		if err := db.Webhooks.CreateWebhook(ctx, hook, webhook.NewSecret()); err != nil {
			t.Fatal(err)
		}
		sender := webhook.NewSender(db.Webhooks, true, nil)
		sender.Now = clk.Now
		pruner := &webhook.Pruner{Queue: db.Jobs, Deliveries: db.Webhooks, Now: clk.Now}
		sched := newScheduler(db, clk, sender)
		sched.Handle(webhook.PruneJob, pruner.Handle)
		emit := func() {
			if err := db.Webhooks.Emit(ctx, folio.Event{Type: folio.EventProjectDeleted, Data: map[string]string{"id": "x"}}); err != nil {
				t.Fatal(err)
			}
		}
		emit() // delivered, then old
		if n, _ := sched.RunDue(ctx); n != 1 {
			t.Fatal("not delivered")
		}
		rc.mu.Lock()
		rc.up = false
		rc.mu.Unlock()
		emit() // still being retried when the pruner runs: kept
		if n, _ := sched.RunDue(ctx); n != 1 {
			t.Fatal("not attempted")
		}
		if err := pruner.Schedule(ctx); err != nil {
			t.Fatal(err)
		}
		clk.Add(webhook.LogRetention + 24*time.Hour)
		emit() // recent: kept
		// The receiver is still down: both pending deliveries fail again and stay.
		if _, err := sched.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		ds, total, _ := db.Webhooks.WebhookDeliveries(ctx, hook.ID, 1, 10)
		if total != 2 || ds[0].Status != folio.DeliveryPending || ds[1].Status != folio.DeliveryPending {
			t.Fatalf("after pruning, want the two pending deliveries only: %+v", ds)
		}
		if js, _ := db.Jobs.JobsOfKind(ctx, folio.JobWebhookDelivery); len(js) != 2 {
			t.Fatalf("the delivered message's job was not pruned: %d jobs", len(js))
		}
		js, _ := db.Jobs.JobsOfKind(ctx, webhook.PruneJob)
		if len(js) != 2 || js[1].Status != folio.JobPending {
			t.Fatalf("prune jobs: %+v", js)
		}
	})
}
