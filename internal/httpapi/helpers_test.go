package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/archive"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/identity"
	"github.com/foliohq/folio/internal/ratelimit"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/sqldb"
)

// testAuth maps bearer tokens to actors.
type testAuth map[string]folio.Actor

func (a testAuth) Authenticate(r *http.Request) (folio.Actor, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return folio.Actor{}, nil
	}
	if act, ok := a[strings.TrimPrefix(h, "Bearer ")]; ok {
		return act, nil
	}
	return folio.Actor{}, folio.Errorf(folio.EUNAUTHORIZED, "The API key is missing, invalid, revoked or expired.")
}

var testActors = testAuth{
	"read":  {Level: folio.LevelRead, KeyID: "k-read", UserID: "u1"},
	"write": {Level: folio.LevelWrite, KeyID: "k-write", UserID: "u1"},
	"admin": {Level: folio.LevelAdmin, KeyID: "k-admin", UserID: "u1"},
	// editor stands for an editor's session cookie (manage:articles, write level).
	"editor": {Level: folio.LevelWrite, Role: "editor", Session: true, UserID: "u2"},
}

type testServer struct {
	*Server
	URL string
	t   *testing.T
}

func newTestServer(t *testing.T, db *sqldb.DB, tweak ...func(*Server)) *testServer {
	t.Helper()
	s := &Server{Auth: testActors, Limiter: ratelimit.NewMemory(time.Now), PublicCacheSize: 100,
		Limits: Limits{Public: 1000, Authenticated: 1000, Admin: 5000, Helper: 5}}
	withStores(t, s, db)
	for _, f := range tweak {
		f(s)
	}
	h := s.Handler()
	db.Changed = func(scope string) { s.Invalidate(scope) }
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return &testServer{Server: s, URL: hs.URL, t: t}
}

// withStores gives s the services and stores of db, as internal/cli does: the one place a test
// server is built from a *sqldb.DB. Accounts stands in for the Identity a test server may lack;
// the settings are the environment's defaults.
func withStores(t testing.TB, s *Server, db *sqldb.DB) {
	s.Health, s.Notifier, s.Unavailable = db, db, sqldb.IsUnavailable
	s.Content, s.Contact, s.Sitemap = content.New(db.Content), db.Contact, db.Content
	s.MediaLibrary, s.Webhooks, s.AuditLog, s.Users = db.Media, db.Webhooks, db.Audit, db.Identity
	s.Archive, s.OutboxLog = archiveOf{db}, db.Outbox
	s.Accounts = identity.New(db.Identity, identity.Config{Now: s.now})
	s.Settings = testSettings(t, db)
}

// testSettings is a settings service over db with the settings the environment env gives
// (name, value pairs; none: every default), as internal/cli builds it.
func testSettings(t testing.TB, db *sqldb.DB, env ...string) *settings.Service {
	t.Helper()
	vars := map[string]string{}
	for i := 0; i+1 < len(env); i += 2 {
		vars[env[i]] = env[i+1]
	}
	cfg, err := config.Load(func(k string) string { return vars[k] }, "")
	if err != nil {
		t.Fatal(err)
	}
	defaults, locked := cfg.Settings()
	svc, err := settings.New(context.Background(), db.Settings, settings.Options{Defaults: defaults, Locked: locked,
		Secret: "the instance secret of the tests, 32 bytes or more"})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// archiveOf exports db's archive, as internal/cli's exporter does.
type archiveOf struct{ db *sqldb.DB }

func (a archiveOf) Export(ctx context.Context, media folio.BlobStore, w io.Writer) error {
	return archive.Export(ctx, a.db.Archive, media, w)
}

type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// errorCode returns error.code of an envelope, failing when the body is not one.
func (r response) errorCode(t *testing.T) string {
	t.Helper()
	m := r.json(t)
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error envelope: %s", r.Body)
	}
	for _, k := range []string{"code", "message", "details", "timestamp"} {
		if _, ok := e[k]; !ok {
			t.Fatalf("error envelope lacks %q: %s", k, r.Body)
		}
	}
	if _, err := time.Parse(time.RFC3339, e["timestamp"].(string)); err != nil {
		t.Fatalf("timestamp not RFC 3339: %s", r.Body)
	}
	return e["code"].(string)
}

// do sends a request; body may be a string (sent as is) or any value (sent as JSON).
func (ts *testServer) do(method, path, token string, body any, headers ...string) response {
	ts.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, ts.URL+path, rd)
	if err != nil {
		ts.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: b}
}
