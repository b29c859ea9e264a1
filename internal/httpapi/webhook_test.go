package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking/bookingtest"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/webhook"
)

func TestWebhookRoutes(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newTestServer(t, db)
		v := newOpenAPIValidator(t, ts)

		res := ts.do("POST", "/api/webhooks", "admin", map[string]any{"url": "https://hooks.example.com/folio",
			"events": []string{"contact.received", "booking.created"}, "description": "phone"})
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		v.check("POST", "/api/webhooks", res)
		var created struct {
			Webhook folio.Webhook `json:"webhook"`
			Secret  string        `json:"secret"`
		}
		if err := json.Unmarshal(res.Body, &created); err != nil {
			t.Fatal(err)
		}
		h := created.Webhook
		if h.ID == "" || h.URL != "https://hooks.example.com/folio" || len(h.Events) != 2 || h.CreatedAt.IsZero() ||
			!strings.HasPrefix(created.Secret, "whsec_") || res.Header.Get("Location") != "/api/webhooks/"+h.ID {
			t.Fatalf("created %s", res.Body)
		}
		if _, err := webhook.DecodeSecret(created.Secret); err != nil {
			t.Fatal(err)
		}

		res = ts.do("GET", "/api/webhooks", "admin", nil)
		v.check("GET", "/api/webhooks", res)
		if res.Status != 200 || strings.Contains(string(res.Body), created.Secret[6:]) || !strings.Contains(string(res.Body), h.ID) {
			t.Fatalf("list: %d %s", res.Status, res.Body)
		}

		for _, tc := range []struct {
			name   string
			body   any
			status int
			field  string
		}{
			{"no url", map[string]any{"events": []string{"contact.received"}}, 400, "url"},
			{"no events", map[string]any{"url": "https://a.example"}, 400, "events"},
			{"empty events", map[string]any{"url": "https://a.example", "events": []string{}}, 422, "events"},
			{"unknown event", map[string]any{"url": "https://a.example", "events": []string{"contact.deleted"}}, 422, "events[0]"},
			{"twice", map[string]any{"url": "https://a.example", "events": []string{"post.published", "post.published"}}, 422, "events[1]"},
			{"ftp", map[string]any{"url": "ftp://a.example/x", "events": []string{"post.published"}}, 422, "url"},
			{"loopback", map[string]any{"url": "http://127.0.0.1:8080/x", "events": []string{"post.published"}}, 422, "url"},
			{"metadata", map[string]any{"url": "http://169.254.169.254/latest/meta-data", "events": []string{"post.published"}}, 422, "url"},
			{"private v6", map[string]any{"url": "http://[fd00::1]/", "events": []string{"post.published"}}, 422, "url"},
			{"localhost", map[string]any{"url": "http://localhost/", "events": []string{"post.published"}}, 422, "url"},
			{"decimal v4", map[string]any{"url": "http://2130706433/", "events": []string{"post.published"}}, 422, "url"},
			{"octal v4", map[string]any{"url": "http://0177.0.0.1/", "events": []string{"post.published"}}, 422, "url"},
			{"short v4", map[string]any{"url": "http://127.1/", "events": []string{"post.published"}}, 422, "url"},
			{"wrong type", `{"url": 5, "events": ["post.published"]}`, 400, "url"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := ts.do("POST", "/api/webhooks", "admin", tc.body)
				if res.Status != tc.status || res.errorCode(t) != "VALIDATION_ERROR" || !strings.Contains(string(res.Body), `"field":"`+tc.field+`"`) {
					t.Fatalf("%d %s", res.Status, res.Body)
				}
			})
		}
		for _, tok := range []string{"", "write", "editor"} {
			want := 403
			if tok == "" {
				want = 401
			}
			for _, rq := range [][2]string{{"GET", "/api/webhooks"}, {"POST", "/api/webhooks"}, {"DELETE", "/api/webhooks/" + h.ID},
				{"POST", "/api/webhooks/" + h.ID + "/test"}, {"GET", "/api/webhooks/" + h.ID + "/deliveries"}} {
				if res := ts.do(rq[0], rq[1], tok, map[string]any{}); res.Status != want {
					t.Errorf("%s %s as %q: %d", rq[0], rq[1], tok, res.Status)
				}
			}
		}

		res = ts.do("POST", "/api/webhooks/"+h.ID+"/test", "admin", nil)
		v.check("POST", "/api/webhooks/{id}/test", res)
		if res.Status != 202 || !strings.Contains(string(res.Body), `"eventType":"webhook.test"`) || !strings.Contains(string(res.Body), `"status":"pending"`) {
			t.Fatalf("test: %d %s", res.Status, res.Body)
		}
		res = ts.do("GET", "/api/webhooks/"+h.ID+"/deliveries", "admin", nil)
		v.check("GET", "/api/webhooks/{id}/deliveries", res)
		if res.Status != 200 || !strings.Contains(string(res.Body), `"total":1`) {
			t.Fatalf("deliveries: %d %s", res.Status, res.Body)
		}
		if res := ts.do("GET", "/api/webhooks/"+h.ID+"/deliveries?limit=0", "admin", nil); res.Status != 400 {
			t.Fatalf("limit=0: %d", res.Status)
		}
		for _, rq := range [][2]string{{"DELETE", "/api/webhooks/nope"}, {"POST", "/api/webhooks/nope/test"}, {"GET", "/api/webhooks/nope/deliveries"}} {
			if res := ts.do(rq[0], rq[1], "admin", nil); res.Status != 404 || res.errorCode(t) != "RESOURCE_NOT_FOUND" {
				t.Errorf("%s %s: %d %s", rq[0], rq[1], res.Status, res.Body)
			}
		}
		res = ts.do("DELETE", "/api/webhooks/"+h.ID, "admin", nil)
		v.check("DELETE", "/api/webhooks/{id}", res)
		if res.Status != 204 {
			t.Fatalf("delete: %d", res.Status)
		}
		if jobs, _ := db.Jobs.JobsOfKind(context.Background(), folio.JobWebhookDelivery); len(jobs) != 0 {
			t.Fatalf("the deleted webhook's queued delivery is still queued: %+v", jobs)
		}
		if res := ts.do("GET", "/api/webhooks", "admin", nil); strings.Contains(string(res.Body), h.ID) {
			t.Fatalf("deleted webhook still listed: %s", res.Body)
		}
	})
}

func TestWebhookAllowPrivate(t *testing.T) {
	ts := newTestServer(t, foliotest.MustOpenSQLite(t), func(s *Server) { s.WebhookAllowPrivate = true })
	res := ts.do("POST", "/api/webhooks", "admin", map[string]any{"url": "http://192.168.1.20:8123/api/webhook/x", "events": []string{"booking.created"}})
	if res.Status != 201 {
		t.Fatalf("a private URL with WEBHOOK_ALLOW_PRIVATE=true: %d %s", res.Status, res.Body)
	}
}

// flakyReceiver listens on a fixed address that refuses connections until start is called.
type flakyReceiver struct {
	addr string
	mu   sync.Mutex
	got  []received
	srv  *http.Server
}

type received struct {
	Header http.Header
	Body   []byte
}

func newFlakyReceiver(t *testing.T) *flakyReceiver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // down: nothing listens here yet
	fr := &flakyReceiver{addr: addr}
	t.Cleanup(func() {
		if fr.srv != nil {
			fr.srv.Close()
		}
	})
	return fr
}

func (fr *flakyReceiver) start(t *testing.T) {
	ln, err := net.Listen("tcp", fr.addr)
	if err != nil {
		t.Fatal(err)
	}
	fr.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fr.mu.Lock()
		fr.got = append(fr.got, received{r.Header.Clone(), b})
		fr.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	})}
	go fr.srv.Serve(ln)
}

func (fr *flakyReceiver) received() []received {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	return append([]received(nil), fr.got...)
}

// TestWebhookEndToEndBookingAndContact: a booking and a contact message made through the API
// reach, signed, a receiver that was down for the first attempts (docs/api.md, "Outgoing webhooks").
// The retry delays are the real schedule; the scheduler's clock is moved instead of waiting.
func TestWebhookEndToEndBookingAndContact(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		smtp := smtptest.Start(t)
		cal := &bookingtest.Calendar{}
		svc := newBookingService(t, db, cal)
		contactTS, outbox := newContactServer(t, db, smtp, 1000)
		ts := newTestServer(t, db, func(s *Server) {
			s.Bookings = svc
			s.Outbox, s.Settings = outbox, testSettings(t, db, "CONTACT_RECIPIENT", "owner@example.org")
			s.Limits.Helper = 1000
			s.WebhookAllowPrivate = true // the receiver is on loopback
		})
		_ = contactTS

		rc := newFlakyReceiver(t)
		res := ts.do("POST", "/api/webhooks", "admin", map[string]any{"url": "http://" + rc.addr + "/folio",
			"events": []string{"booking.created", "contact.received"}})
		if res.Status != 201 {
			t.Fatalf("create webhook: %d %s", res.Status, res.Body)
		}
		var created struct {
			Webhook folio.Webhook `json:"webhook"`
			Secret  string        `json:"secret"`
		}
		_ = json.Unmarshal(res.Body, &created)

		if res := ts.do("POST", "/api/schedule/book", "", bookBody("2026-03-04T15:00:00Z")); res.Status != 200 {
			t.Fatalf("book: %d %s", res.Status, res.Body)
		}
		if res := ts.do("POST", "/api/contact", "", map[string]any{"name": "Ada Lovelace", "email": "ada@example.com",
			"subject": "Engines", "message": "Let's talk."}); res.Status != 200 {
			t.Fatalf("contact: %d %s", res.Status, res.Body)
		}

		clk := &testClock{t: time.Now().UTC()}
		sender := webhook.NewSender(db.Webhooks, true, nil)
		sender.Now = clk.Now
		sched := jobs.New(db.Jobs, nil)
		sched.Now = clk.Now
		sched.Handle(folio.JobWebhookDelivery, sender.Handle)

		// Attempts 1 and 2 find nothing listening.
		for i := 0; i < 2; i++ {
			if n, err := sched.RunDue(ctx); n != 2 || err != nil {
				t.Fatalf("round %d: ran %d, %v", i+1, n, err)
			}
			clk.Add(webhook.Schedule[i] * 11 / 10) // beyond the jitter
		}
		res = ts.do("GET", "/api/webhooks/"+created.Webhook.ID+"/deliveries", "admin", nil)
		if !strings.Contains(string(res.Body), `"attempts":2`) || !strings.Contains(string(res.Body), "connection failed") ||
			strings.Contains(string(res.Body), `"succeeded"`) {
			t.Fatalf("log while down: %s", res.Body)
		}
		if len(rc.received()) != 0 {
			t.Fatal("the receiver was down")
		}

		rc.start(t)
		if n, err := sched.RunDue(ctx); n != 2 || err != nil {
			t.Fatalf("round 3: ran %d, %v", n, err)
		}
		got := rc.received()
		if len(got) != 2 {
			t.Fatalf("receiver got %d deliveries, want 2", len(got))
		}
		lib, err := standardwebhooks.NewWebhook(created.Secret)
		if err != nil {
			t.Fatal(err)
		}
		types := map[string]json.RawMessage{}
		for _, r := range got {
			// The timestamp is the (moved) clock's, so the library checks the signature alone;
			// the timestamp is checked against the clock here.
			if err := lib.VerifyIgnoringTimestamp(r.Body, r.Header); err != nil {
				t.Fatalf("signature rejected by the Standard Webhooks library: %v", err)
			}
			if ts, _ := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64); ts != clk.Now().Unix() {
				t.Fatalf("webhook-timestamp %d, want %d", ts, clk.Now().Unix())
			}
			var body struct {
				Type string          `json:"type"`
				Data json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
			types[body.Type] = body.Data
		}
		if !strings.Contains(string(types["booking.created"]), `"email":"vera@example.org"`) ||
			!strings.Contains(string(types["booking.created"]), `"startTime":"2026-03-04T15:00:00Z"`) ||
			!strings.Contains(string(types["contact.received"]), `"message":"Let's talk."`) {
			t.Fatalf("payloads: %s", types)
		}
		res = ts.do("GET", "/api/webhooks/"+created.Webhook.ID+"/deliveries", "admin", nil)
		if strings.Count(string(res.Body), `"status":"succeeded"`) != 2 || strings.Count(string(res.Body), `"attempts":3`) != 2 {
			t.Fatalf("log after delivery: %s", res.Body)
		}
		clk.Add(48 * time.Hour)
		if n, _ := sched.RunDue(ctx); n != 0 || len(rc.received()) != 2 {
			t.Fatalf("delivered messages ran again: %d jobs, %d received", n, len(rc.received()))
		}
	})
}

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
