package google

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	calendar "google.golang.org/api/calendar/v3"
	"google.golang.org/api/googleapi"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/calendar/googlefake"
)

const (
	calendarID = "owner@example.com"
	saEmail    = "folio@project.iam.gserviceaccount.com"
)

// envPEM returns key as PKCS#8 PEM written the way an environment variable carries it: on one
// line, with literal \n.
func envPEM(t *testing.T, key *rsa.PrivateKey) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "\n", `\n`)
}

func mustKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

type env struct {
	fake *googlefake.Server
	url  string
	key  *rsa.PrivateKey
}

func newEnv(t *testing.T) env {
	t.Helper()
	key := mustKey(t)
	fake := googlefake.New(&key.PublicKey, saEmail, calendarID, Scopes)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	return env{fake, srv.URL, key}
}

func (e env) config(t *testing.T) Config {
	return Config{
		CalendarID: calendarID, ServiceAccountEmail: saEmail, PrivateKeyPEM: envPEM(t, e.key), APIURL: e.url + "/calendar/v3/",
		TokenURL: e.url + "/token", HTTPClient: &http.Client{Timeout: 5 * time.Second},
	}
}

func mustNew(t *testing.T, cfg Config) *Calendar {
	t.Helper()
	c, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (e env) calendar(t *testing.T) *Calendar {
	return mustNew(t, e.config(t))
}

func at(t *testing.T, s string) time.Time {
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCreateEventAndFreeBusy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.calendar(t)
	ctx := context.Background()
	e.fake.AddBusy(calendarID, at(t, "2026-03-10T15:00:00Z"), at(t, "2026-03-10T16:00:00Z"))

	ev := folio.CalendarEvent{
		ID: "0195d6f2-7c1a-7b7e-9d3c-2f4a1b6c8e90", Summary: "Intro", Description: "Hi",
		Start: at(t, "2026-03-10T13:00:00Z"), End: at(t, "2026-03-10T13:30:00Z"), TimeZone: "Asia/Kolkata",
		Attendee: folio.Participant{Name: "Jane", Email: "jane@example.org"},
	}
	got, err := c.CreateEvent(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "0195d6f27c1a7b7e9d3c2f4a1b6c8e90" || !strings.HasPrefix(got.MeetLink, "https://meet.google.com/") ||
		!strings.HasPrefix(got.EventLink, "https://www.google.com/calendar/event?eid=") {
		t.Errorf("CreateEvent = %+v", got)
	}
	stored := e.fake.Events(calendarID)
	if len(stored) != 1 || stored[0].Start.TimeZone != "Asia/Kolkata" || stored[0].Attendees[0].Email != "jane@example.org" {
		t.Fatalf("stored = %+v", stored)
	}

	// A retried create (same folio id) answers with the first event instead of a duplicate.
	again, err := c.CreateEvent(ctx, ev)
	if err != nil || again.ID != got.ID || again.MeetLink != got.MeetLink {
		t.Errorf("retry = %+v, %v; want %+v", again, err, got)
	}
	if n := len(e.fake.Events(calendarID)); n != 1 {
		t.Errorf("%d events after retry, want 1", n)
	}

	busy, err := c.FreeBusy(ctx, at(t, "2026-03-10T00:00:00Z"), at(t, "2026-03-11T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	want := []folio.Interval{
		{Start: ev.Start, End: ev.End},
		{Start: at(t, "2026-03-10T15:00:00Z"), End: at(t, "2026-03-10T16:00:00Z")},
	}
	if len(busy) != len(want) {
		t.Fatalf("busy = %v, want %v", busy, want)
	}
	for i := range want {
		if !busy[i].Start.Equal(want[i].Start) || !busy[i].End.Equal(want[i].End) {
			t.Errorf("busy[%d] = %v, want %v", i, busy[i], want[i])
		}
	}

	// A range that only touches the event sees nothing.
	busy, err = c.FreeBusy(ctx, at(t, "2026-03-10T13:30:00Z"), at(t, "2026-03-10T15:00:00Z"))
	if err != nil || len(busy) != 0 {
		t.Errorf("touching range: busy = %v, %v", busy, err)
	}

	if n := e.fake.TokenCalls(); n != 1 {
		t.Errorf("%d token requests for %d API calls, want 1 (token reuse)", n, e.fake.APICalls())
	}
}

func TestTokenRejected(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other := mustKey(t)
	tests := []struct {
		name     string
		edit     func(*Config)
		wantText string
	}{
		{"key the account does not have", func(c *Config) { c.PrivateKeyPEM = envPEM(t, other) }, "invalid_grant"},
		{"subject without delegation", func(c *Config) { c.Subject = "someone@example.com" }, "unauthorized_client"},
		{"another service account", func(c *Config) { c.ServiceAccountEmail = "x@y.iam.gserviceaccount.com" }, "invalid_grant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := e.config(t)
			tt.edit(&cfg)
			c := mustNew(t, cfg)
			_, err := c.FreeBusy(context.Background(), at(t, "2026-03-10T00:00:00Z"), at(t, "2026-03-11T00:00:00Z"))
			if folio.ErrorCode(err) != folio.EUPSTREAM || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("FreeBusy error = %v, want UPSTREAM_ERROR mentioning %s", err, tt.wantText)
			}
			if strings.Contains(err.Error(), "PRIVATE KEY") || strings.Contains(err.Error(), "assertion") {
				t.Errorf("error leaks the credential: %v", err)
			}
		})
	}
}

func TestNewRejectsConfig(t *testing.T) {
	t.Parallel()
	key := mustKey(t)
	good := Config{CalendarID: calendarID, ServiceAccountEmail: saEmail, PrivateKeyPEM: envPEM(t, key)}
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"no calendar", func(c *Config) { c.CalendarID = "" }},
		{"no account", func(c *Config) { c.ServiceAccountEmail = "" }},
		{"no key", func(c *Config) { c.PrivateKeyPEM = "" }},
		{"not PEM", func(c *Config) { c.PrivateKeyPEM = "secret-not-a-key" }},
		{"PEM but not a key", func(c *Config) {
			c.PrivateKeyPEM = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("secret-bytes")}))
		}},
	}
	if _, err := New(context.Background(), good); err != nil {
		t.Fatalf("good config: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			tt.edit(&cfg)
			_, err := New(context.Background(), cfg)
			if err == nil {
				t.Fatal("New succeeded")
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error leaks key material: %v", err)
			}
		})
	}
}

func TestUpstreamFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(*googlefake.Server)
		cfg   func(*Config)
	}{
		{"500", func(f *googlefake.Server) { f.FailAPI(http.StatusInternalServerError, -1) }, nil},
		{"403", func(f *googlefake.Server) { f.FailAPI(http.StatusForbidden, -1) }, nil},
		{"slow beyond the client timeout", func(f *googlefake.Server) { f.SetDelay(5 * time.Second) },
			func(c *Config) { c.HTTPClient = &http.Client{Timeout: 300 * time.Millisecond} }},
		{"token endpoint unreachable", nil, func(c *Config) { c.TokenURL = "http://127.0.0.1:1/token" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if tt.setup != nil {
				tt.setup(e.fake)
			}
			cfg := e.config(t)
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			c := mustNew(t, cfg)
			ctx := context.Background()
			if _, err := c.FreeBusy(ctx, at(t, "2026-03-10T00:00:00Z"), at(t, "2026-03-11T00:00:00Z")); folio.ErrorCode(err) != folio.EUPSTREAM {
				t.Errorf("FreeBusy error = %v, want UPSTREAM_ERROR", err)
			}
			ev := folio.CalendarEvent{ID: folio.NewID(), Summary: "x", Start: at(t, "2026-03-10T13:00:00Z"), End: at(t, "2026-03-10T13:30:00Z")}
			if _, err := c.CreateEvent(ctx, ev); folio.ErrorCode(err) != folio.EUPSTREAM {
				t.Errorf("CreateEvent error = %v, want UPSTREAM_ERROR", err)
			}
		})
	}
}

func TestEventID(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"0195D6F2-7C1A-7B7E-9D3C-2F4A1B6C8E90", "0195d6f27c1a7b7e9d3c2f4a1b6c8e90"},
		{"abc", "616263"},                    // too short: hex of the bytes
		{"x_y!z", "785f79217a"},              // outside base32hex
		{"bookingnumber1", "bookingnumber1"}, // already valid
	}
	for _, tt := range tests {
		if got := EventID(tt.in); got != tt.want {
			t.Errorf("EventID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestFakeRejectsWhatGoogleRejects drives the fake with the raw client to show that the shapes
// the provider relies on are checked: a conference request needs conferenceDataVersion=1,
// start/end need dateTime, and free/busy needs an RFC 3339 range.
func TestFakeRejectsWhatGoogleRejects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.calendar(t)
	ctx := context.Background()
	meet := &calendar.ConferenceData{CreateRequest: &calendar.CreateConferenceRequest{
		RequestId: "r1", ConferenceSolutionKey: &calendar.ConferenceSolutionKey{Type: "hangoutsMeet"}}}
	when := &calendar.EventDateTime{DateTime: "2026-03-10T13:00:00Z"}
	tests := []struct {
		name string
		call func() error
	}{
		{"conference without conferenceDataVersion", func() error {
			_, err := c.svc.Events.Insert(calendarID, &calendar.Event{Start: when, End: when, ConferenceData: meet}).Context(ctx).Do()
			return err
		}},
		{"all-day start", func() error {
			_, err := c.svc.Events.Insert(calendarID, &calendar.Event{Start: &calendar.EventDateTime{Date: "2026-03-10"}, End: when}).Context(ctx).Do()
			return err
		}},
		{"id outside base32hex", func() error {
			_, err := c.svc.Events.Insert(calendarID, &calendar.Event{Id: "not-valid", Start: when, End: when}).Context(ctx).Do()
			return err
		}},
		{"free/busy without a range", func() error {
			_, err := c.svc.Freebusy.Query(&calendar.FreeBusyRequest{Items: []*calendar.FreeBusyRequestItem{{Id: calendarID}}}).Context(ctx).Do()
			return err
		}},
		{"free/busy with a local time", func() error {
			_, err := c.svc.Freebusy.Query(&calendar.FreeBusyRequest{TimeMin: "2026-03-10T00:00:00", TimeMax: "2026-03-11T00:00:00Z",
				Items: []*calendar.FreeBusyRequestItem{{Id: calendarID}}}).Context(ctx).Do()
			return err
		}},
	}
	for _, tt := range tests {
		var gerr *googleapi.Error
		if err := tt.call(); !errors.As(err, &gerr) || gerr.Code != http.StatusBadRequest {
			t.Errorf("%s: error = %v, want 400", tt.name, err)
		}
	}
	if n := len(e.fake.Events(calendarID)); n != 0 {
		t.Errorf("%d events stored by rejected requests", n)
	}
}
