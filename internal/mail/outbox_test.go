package mail_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/mail/outboxtest"
)

// testClock is an injectable clock that moves only when told.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// scriptedMailer answers Send with the queued results in order (nil when they run out) and
// records the messages it accepted.
type scriptedMailer struct {
	mu      sync.Mutex
	results []error
	calls   int
	sent    []folio.MailMessage
}

func (m *scriptedMailer) Send(_ context.Context, msg *folio.MailMessage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if len(m.results) > 0 {
		err := m.results[0]
		m.results = m.results[1:]
		if err != nil {
			return err
		}
	}
	m.sent = append(m.sent, *msg)
	return nil
}

func (m *scriptedMailer) snapshot() (calls int, sent []folio.MailMessage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls, append([]folio.MailMessage(nil), m.sent...)
}

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func newOutbox(store mail.OutboxStore, mailer folio.Mailer, clock *testClock) *mail.Outbox {
	o := mail.NewOutbox(store, mailer, mail.TestSender, nil)
	o.Now = clock.Now
	return o
}

func testMessage(subject string) *folio.MailMessage {
	return &folio.MailMessage{To: []folio.MailAddress{{Email: "owner@folio.test"}}, Subject: subject, Text: "body"}
}

func mustGet(t *testing.T, s *outboxtest.MemStore, id string) mail.OutboxItem {
	t.Helper()
	it, err := s.GetOutbox(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func temporary(code int) error {
	return &folio.MailError{Code: code, Err: fmt.Errorf("%d try later", code)}
}

func TestOutboxDeliversOnceWithStableMessageID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, mailer, clock := outboxtest.NewMemStore(), &scriptedMailer{}, &testClock{t: t0}
	o := newOutbox(store, mailer, clock)
	id, err := o.Enqueue(ctx, testMessage("Booking confirmed"))
	if err != nil {
		t.Fatal(err)
	}
	it := mustGet(t, store, id)
	var stored folio.MailMessage
	if err := json.Unmarshal(it.Payload, &stored); err != nil {
		t.Fatal(err)
	}
	msgID := stored.Headers["Message-ID"]
	if !strings.HasSuffix(msgID, "@folio.test>") || it.Status != mail.OutboxPending || it.Subject != "Booking confirmed" ||
		it.Recipients != "owner@folio.test" || !it.NextAttemptAt.Equal(t0) {
		t.Fatalf("stored item = %+v, Message-ID %q", it, msgID)
	}

	sent, err := o.RunOnce(ctx)
	if err != nil || sent != 1 {
		t.Fatalf("RunOnce = %d, %v; want 1", sent, err)
	}
	if sent, _ := o.RunOnce(ctx); sent != 0 {
		t.Errorf("second RunOnce sent %d, want 0", sent)
	}
	_, got := mailer.snapshot()
	if len(got) != 1 || got[0].Headers["Message-ID"] != msgID || got[0].Subject != "Booking confirmed" {
		t.Fatalf("mailer got %+v, want one message with Message-ID %s", got, msgID)
	}
	if it := mustGet(t, store, id); it.Status != mail.OutboxSent || !it.SentAt.Equal(t0) || it.Attempts != 0 {
		t.Errorf("after delivery: %+v", it)
	}
}

func TestOutboxBackoffThenGiveUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, clock := outboxtest.NewMemStore(), &testClock{t: t0}
	mailer := &scriptedMailer{}
	for range 10 {
		mailer.results = append(mailer.results, temporary(451))
	}
	o := newOutbox(store, mailer, clock)
	o.BaseDelay, o.MaxDelay, o.MaxAttempts = time.Minute, 5*time.Minute, 5
	id, err := o.Enqueue(ctx, testMessage("retry me"))
	if err != nil {
		t.Fatal(err)
	}
	wantDelays := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 5 * time.Minute}
	for i, delay := range wantDelays {
		if sent, err := o.RunOnce(ctx); sent != 0 || err != nil {
			t.Fatalf("attempt %d: RunOnce = %d, %v", i+1, sent, err)
		}
		it := mustGet(t, store, id)
		want := clock.Now().Add(delay)
		if it.Status != mail.OutboxFailed || it.Attempts != i+1 || !it.NextAttemptAt.Equal(want) || !strings.Contains(it.LastError, "451") {
			t.Fatalf("after attempt %d: %+v, want failed, next at %v", i+1, it, want)
		}
		clock.Set(want.Add(-time.Second))
		if _, _ = o.RunOnce(ctx); mustGet(t, store, id).Attempts != i+1 {
			t.Fatalf("attempt made before the backoff elapsed")
		}
		clock.Set(want)
	}
	if _, err := o.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if it := mustGet(t, store, id); it.Status != mail.OutboxDead || it.Attempts != 5 {
		t.Fatalf("after max attempts: %+v, want dead with 5 attempts", it)
	}
	clock.Set(t0.Add(24 * time.Hour))
	_, _ = o.RunOnce(ctx)
	if calls, _ := mailer.snapshot(); calls != 5 {
		t.Errorf("mailer called %d times, want 5", calls)
	}
}

func TestOutboxBackoffDefaults(t *testing.T) {
	t.Parallel()
	var o mail.Outbox
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute,
		32 * time.Minute, time.Hour, time.Hour, time.Hour}
	for i, w := range want {
		if got := o.Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
	if got := o.Backoff(1000); got != time.Hour {
		t.Errorf("Backoff(1000) = %v, want 1h (no overflow)", got)
	}
}

func TestOutboxPermanentFailureGivesUpAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, clock := outboxtest.NewMemStore(), &testClock{t: t0}
	mailer := &scriptedMailer{results: []error{&folio.MailError{Permanent: true, Code: 550, Err: errors.New("550 5.1.1 no such user")}}}
	o := newOutbox(store, mailer, clock)
	id, _ := o.Enqueue(ctx, testMessage("x"))
	if _, err := o.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if it := mustGet(t, store, id); it.Status != mail.OutboxDead || it.Attempts != 1 || !strings.Contains(it.LastError, "550") {
		t.Errorf("after 550: %+v, want dead", it)
	}
}

func TestOutboxLeaseKeepsItemFromOtherWorkers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, clock := outboxtest.NewMemStore(), &testClock{t: t0}
	mailer := &scriptedMailer{}
	a, b := newOutbox(store, mailer, clock), newOutbox(store, mailer, clock)
	a.Lease, b.Lease = 5*time.Minute, 5*time.Minute
	id, _ := a.Enqueue(ctx, testMessage("x"))
	// Worker a claims and "crashes" before recording anything.
	if got, _ := store.ClaimOutbox(ctx, a.Owner, t0, t0.Add(a.Lease), 10); len(got) != 1 {
		t.Fatal("claim failed")
	}
	clock.Set(t0.Add(4 * time.Minute))
	if sent, _ := b.RunOnce(ctx); sent != 0 {
		t.Fatalf("b sent a message leased to a")
	}
	clock.Set(t0.Add(6 * time.Minute))
	if sent, _ := b.RunOnce(ctx); sent != 1 {
		t.Fatalf("b did not take over the expired lease")
	}
	if it := mustGet(t, store, id); it.Status != mail.OutboxSent {
		t.Errorf("status = %s", it.Status)
	}
}

func TestOutboxConcurrentWorkersSendEachOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, clock := outboxtest.NewMemStore(), &testClock{t: t0}
	mailer := &scriptedMailer{}
	const n = 60
	enq := newOutbox(store, mailer, clock)
	for i := range n {
		if _, err := enq.Enqueue(ctx, testMessage(fmt.Sprintf("m%02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		w := newOutbox(store, mailer, clock)
		w.Batch = 3
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				if _, err := w.RunOnce(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	_, sent := mailer.snapshot()
	seen := map[string]int{}
	for _, m := range sent {
		seen[m.Headers["Message-ID"]]++
	}
	if len(sent) != n || len(seen) != n {
		t.Errorf("sent %d messages with %d distinct Message-IDs, want %d each", len(sent), len(seen), n)
	}
}

func TestOutboxSendNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name       string
		result     error
		wantStatus string
		wantNext   time.Duration
	}{
		{"delivered", nil, mail.OutboxSent, 0},
		{"temporary failure is retried later", temporary(421), mail.OutboxFailed, time.Minute},
		{"permanent failure is dead", &folio.MailError{Permanent: true, Code: 554, Err: errors.New("554 spam")}, mail.OutboxDead, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store, clock := outboxtest.NewMemStore(), &testClock{t: t0}
			mailer := &scriptedMailer{results: []error{tt.result}}
			o := newOutbox(store, mailer, clock)
			id, err := o.SendNow(ctx, testMessage("contact"))
			if !errors.Is(err, tt.result) {
				t.Fatalf("SendNow err = %v, want %v", err, tt.result)
			}
			it := mustGet(t, store, id)
			if it.Status != tt.wantStatus || it.LeaseOwner != "" {
				t.Fatalf("item = %+v, want status %s and no lease", it, tt.wantStatus)
			}
			if tt.wantStatus != mail.OutboxSent && !it.NextAttemptAt.Equal(t0.Add(tt.wantNext)) {
				t.Errorf("next attempt = %v, want %v", it.NextAttemptAt, t0.Add(tt.wantNext))
			}
			// The worker leaves it alone until due; a temporary failure is then delivered.
			_, _ = o.RunOnce(ctx)
			clock.Set(t0.Add(time.Hour))
			_, _ = o.RunOnce(ctx)
			calls, _ := mailer.snapshot()
			want := map[string]int{mail.OutboxSent: 1, mail.OutboxFailed: 2, mail.OutboxDead: 1}[tt.wantStatus]
			if calls != want {
				t.Errorf("mailer called %d times, want %d", calls, want)
			}
		})
	}
}

func TestOutboxRefusesInvalidAndSurvivesBadPayload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, clock := outboxtest.NewMemStore(), &testClock{t: t0}
	mailer := &scriptedMailer{}
	o := newOutbox(store, mailer, clock)
	bad := testMessage("x\r\nBcc: victim@evil.test")
	if _, err := o.Enqueue(ctx, bad); !folio.IsPermanentMailError(err) {
		t.Errorf("Enqueue(injected) err = %v, want permanent", err)
	}
	if err := store.InsertOutbox(ctx, mail.OutboxItem{ID: "garbage", Payload: []byte("{not json"), Status: mail.OutboxPending, NextAttemptAt: t0, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if sent, err := o.RunOnce(ctx); sent != 0 || err != nil {
		t.Fatalf("RunOnce = %d, %v", sent, err)
	}
	if it := mustGet(t, store, "garbage"); it.Status != mail.OutboxDead {
		t.Errorf("undecodable item status = %s, want dead", it.Status)
	}
	if calls, _ := mailer.snapshot(); calls != 0 {
		t.Errorf("mailer called %d times", calls)
	}
}

func TestOutboxRunStopsWithContext(t *testing.T) {
	t.Parallel()
	store, clock := outboxtest.NewMemStore(), &testClock{t: t0}
	delivered := make(chan struct{})
	var once sync.Once
	mailer := mailerFunc(func(context.Context, *folio.MailMessage) error {
		once.Do(func() { close(delivered) })
		return nil
	})
	o := newOutbox(store, mailer, clock)
	o.Interval = time.Millisecond
	if _, err := o.Enqueue(context.Background(), testMessage("x")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- o.Run(ctx) }()
	<-delivered
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
}

type mailerFunc func(context.Context, *folio.MailMessage) error

func (f mailerFunc) Send(ctx context.Context, m *folio.MailMessage) error { return f(ctx, m) }

// End to end over real SMTP: the server is down, then defers with 451, then accepts. Nothing is
// lost and the message arrives exactly once, intact.
func TestOutboxOverSMTPLosesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var mu sync.Mutex
	deferrals := 1
	port, received := mail.StartTestSMTP(t, func(string) error {
		mu.Lock()
		defer mu.Unlock()
		if deferrals > 0 {
			deferrals--
			return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Try again later"}
		}
		return nil
	})
	newSMTP := func(port int) folio.Mailer {
		s, err := mail.NewSMTP(mail.SMTPConfig{Host: "127.0.0.1", Port: port, TLS: mail.TLSNone, From: mail.TestSender, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downPort := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()

	store, clock := outboxtest.NewMemStore(), &testClock{t: t0}
	o := newOutbox(store, newSMTP(downPort), clock)
	id, err := o.Enqueue(ctx, mail.RichMessage())
	if err != nil {
		t.Fatal(err)
	}
	if sent, _ := o.RunOnce(ctx); sent != 0 {
		t.Fatal("sent to a server that is down")
	}
	if it := mustGet(t, store, id); it.Status != mail.OutboxFailed || it.Attempts != 1 {
		t.Fatalf("after server down: %+v", it)
	}

	o.Mailer = newSMTP(port) // the server is back
	clock.Set(t0.Add(time.Minute))
	if sent, _ := o.RunOnce(ctx); sent != 0 {
		t.Fatal("451 counted as sent")
	}
	it := mustGet(t, store, id)
	if it.Status != mail.OutboxFailed || it.Attempts != 2 || !strings.Contains(it.LastError, "451") {
		t.Fatalf("after 451: %+v", it)
	}
	clock.Set(it.NextAttemptAt)
	if sent, err := o.RunOnce(ctx); sent != 1 || err != nil {
		t.Fatalf("RunOnce = %d, %v; want delivered", sent, err)
	}
	got := received()
	if len(got) != 1 {
		t.Fatalf("server received %d messages, want 1", len(got))
	}
	mail.CheckRich(t, got[0])
	if it := mustGet(t, store, id); it.Status != mail.OutboxSent {
		t.Errorf("status = %s, want sent", it.Status)
	}
}
