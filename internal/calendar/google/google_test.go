package google

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
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

// TestFakeRejectsWhatGoogleRejects drives the fake with raw API calls to show that the shapes
// the provider relies on are checked: a conference request needs conferenceDataVersion=1,
// start/end need dateTime, free/busy needs an RFC 3339 range, a body must be JSON declared as
// such, and every call needs the bearer token.
func TestFakeRejectsWhatGoogleRejects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.calendar(t)
	ctx := context.Background()
	meet := &conferenceData{CreateRequest: &createConferenceRequest{
		RequestID: "r1", ConferenceSolutionKey: conferenceSolutionKey{Type: "hangoutsMeet"}}}
	when := &eventTime{DateTime: "2026-03-10T13:00:00Z"}
	insert := func(in any, query url.Values) func() error {
		return func() error { return c.call(ctx, http.MethodPost, c.eventsPath(""), query, in, nil) }
	}
	freeBusy := func(in any) func() error {
		return func() error { return c.call(ctx, http.MethodPost, "freeBusy", nil, in, nil) }
	}
	// raw sends a body with the given Content-Type through the authorized client, or without a
	// token at all when client is http.DefaultClient.
	raw := func(client *http.Client, contentType, body string) func() error {
		return func() error {
			resp, err := client.Post(e.url+"/calendar/v3/freeBusy", contentType, strings.NewReader(body))
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if resp.StatusCode/100 != 2 {
				return &apiError{Status: resp.StatusCode}
			}
			return nil
		}
	}
	goodRange := `{"timeMin":"2026-03-10T00:00:00Z","timeMax":"2026-03-11T00:00:00Z","items":[{"id":"` + calendarID + `"}]}`
	tests := []struct {
		name   string
		call   func() error
		status int
	}{
		{"conference without conferenceDataVersion", insert(event{Start: when, End: when, ConferenceData: meet}, nil), 400},
		{"all-day start", insert(map[string]any{"start": map[string]string{"date": "2026-03-10"}, "end": when}, nil), 400},
		{"id outside base32hex", insert(event{ID: "not-valid", Start: when, End: when}, nil), 400},
		{"start of the wrong JSON type", insert(map[string]any{"start": "2026-03-10T13:00:00Z", "end": when}, nil), 400},
		{"unknown sendUpdates", insert(event{Start: when, End: when}, url.Values{"sendUpdates": {"nobody"}}), 400},
		{"free/busy without a range", freeBusy(map[string]any{"items": []map[string]string{{"id": calendarID}}}), 400},
		{"free/busy with a local time", freeBusy(map[string]any{"timeMin": "2026-03-10T00:00:00", "timeMax": "2026-03-11T00:00:00Z",
			"items": []map[string]string{{"id": calendarID}}}), 400},
		{"JSON body sent as a form", raw(c.client, "application/x-www-form-urlencoded", goodRange), 400},
		{"JSON body without a Content-Type", raw(c.client, "", goodRange), 400},
		{"no access token", raw(http.DefaultClient, "application/json", goodRange), 401},
	}
	for _, tt := range tests {
		if err := tt.call(); status(err) != tt.status {
			t.Errorf("%s: error = %v, want HTTP %d", tt.name, err, tt.status)
		}
	}
	if err := raw(c.client, "application/json; charset=utf-8", goodRange)(); err != nil {
		t.Errorf("the same free/busy body declared as JSON: %v", err)
	}
	if n := len(e.fake.Events(calendarID)); n != 0 {
		t.Errorf("%d events stored by rejected requests", n)
	}
}

// TestAPIErrors checks how each failing status of the API reaches folio: every one is
// UPSTREAM_ERROR with the status and Google's reason in the error for the log, except that a
// delete answered 404 or 410 (gone already) is done, and a create answered 409 reads the event
// an earlier attempt created.
func TestAPIErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, st := range []int{401, 403, 404, 409, 410, 412, 429, 500, 502, 503} {
		t.Run(http.StatusText(st), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			c := e.calendar(t)
			e.fake.FailAPI(st, 1)
			_, err := c.FreeBusy(ctx, at(t, "2026-03-10T00:00:00Z"), at(t, "2026-03-11T00:00:00Z"))
			if folio.ErrorCode(err) != folio.EUPSTREAM || !strings.Contains(err.Error(), fmt.Sprintf("HTTP %d: ", st)) ||
				!strings.Contains(err.Error(), "(backendError)") {
				t.Errorf("FreeBusy on HTTP %d: %v", st, err)
			}
			e.fake.FailAPI(st, 1)
			err = c.DeleteEvent(ctx, folio.CalendarEvent{ID: "0195d6f2-7c1a-7b7e-9d3c-2f4a1b6c8e90"})
			if gone := st == http.StatusNotFound || st == http.StatusGone; gone != (err == nil) {
				t.Errorf("DeleteEvent on HTTP %d: %v", st, err)
			}
		})
	}
	// A conflicting insert is read back; if that read fails too, it is the read's failure.
	e := newEnv(t)
	c := e.calendar(t)
	ev := folio.CalendarEvent{ID: folio.NewID(), Start: at(t, "2026-03-10T13:00:00Z"), End: at(t, "2026-03-10T13:30:00Z")}
	e.fake.FailAPI(http.StatusConflict, 2)
	if _, err := c.CreateEvent(ctx, ev); folio.ErrorCode(err) != folio.EUPSTREAM || !strings.Contains(err.Error(), "HTTP 409") {
		t.Errorf("CreateEvent on 409 then 409: %v", err)
	}
	if n := e.fake.APICalls(); n != 2 {
		t.Errorf("%d API calls, want the insert and one events.get", n)
	}
}

// TestNewAPIError reads Google's error envelope, and falls back to the status text for what is
// not one (a proxy's HTML page, an empty body).
func TestNewAPIError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		body   string
		want   string
	}{
		{429, `{"error":{"code":429,"message":"Rate Limit Exceeded","errors":[{"domain":"usageLimits","reason":"rateLimitExceeded"}]}}`,
			"HTTP 429: Rate Limit Exceeded (rateLimitExceeded)"},
		{502, `<html><body>Bad Gateway</body></html>`, "HTTP 502: Bad Gateway"},
		{412, ``, "HTTP 412: Precondition Failed"},
	}
	for _, tt := range tests {
		if got := newAPIError(tt.status, []byte(tt.body)).Error(); got != tt.want {
			t.Errorf("newAPIError(%d, %q) = %q, want %q", tt.status, tt.body, got, tt.want)
		}
	}
}
