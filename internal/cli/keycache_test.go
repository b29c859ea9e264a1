package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/foliotest"
)

// withCookie sends method url with a JSON body (or none) and the session cookie.
func withCookie(t *testing.T, method, url, body, cookie string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Cookie", cookie)
	return send(t, req)
}

// keyStatus is GET /api/user/profile's status with the bearer key.
func keyStatus(t *testing.T, base, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/user/profile", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, _ := send(t, req)
	return res.StatusCode
}

// Ensure an API key revoked on one instance stops working at once there and, through the change
// notification, on another instance that holds it in its key cache; and that an expired key is
// refused though it was cached.
func TestAPIKeyRevocationAcrossInstances(t *testing.T) {
	dsn := foliotest.PostgresSchema(t)
	vars := func() map[string]string {
		return map[string]string{"DATABASE_URL": dsn, "FOLIO_ADDR": "127.0.0.1:0", "NEXTAUTH_SECRET": "revocation-test-secret-0123456789abcdef",
			"FOLIO_ADMIN_EMAIL": "boss@example.com", "FOLIO_ADMIN_PASSWORD": cliTestPassword,
			"RATE_LIMIT_HELPER_PER_HOUR": "1000"}
	}
	a := startServe(t, vars())
	b := startServe(t, vars())
	cookie := signIn(t, a, "boss@example.com", cliTestPassword)
	res, body := withCookie(t, "POST", a+"/api/keys", `{"name":"cached","level":"write"}`, cookie)
	if res.StatusCode != 201 {
		t.Fatalf("create key: %d %s", res.StatusCode, body)
	}
	var created struct {
		Key    string `json:"key"`
		APIKey struct {
			ID string `json:"id"`
		} `json:"apiKey"`
	}
	if err := json.Unmarshal([]byte(body), &created); err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{a, b, a, b} { // the second round is served from the caches
		if st := keyStatus(t, base, created.Key); st != 200 {
			t.Fatalf("key before revocation on %s: %d", base, st)
		}
	}
	if res, body := withCookie(t, "DELETE", a+"/api/keys/"+created.APIKey.ID, "", cookie); res.StatusCode != 204 {
		t.Fatalf("revoke: %d %s", res.StatusCode, body)
	}
	if st := keyStatus(t, a, created.Key); st != 401 {
		t.Fatalf("revoked key on the revoking instance: %d, want 401 at once", st)
	}
	deadline := time.Now().Add(15 * time.Second) // only stops a broken build from hanging
	for keyStatus(t, b, created.Key) != 401 {
		if time.Now().After(deadline) {
			t.Fatalf("revoked key still works on the other instance")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Ensure a webhook created on one instance receives the events of writes made on another one
// (which learnt of it through the change notification), and that writes queue nothing while no
// webhook subscribes to their event.
func TestWebhookSubscribersAcrossInstances(t *testing.T) {
	dsn := foliotest.PostgresSchema(t)
	vars := func() map[string]string {
		return map[string]string{"DATABASE_URL": dsn, "FOLIO_ADDR": "127.0.0.1:0", "NEXTAUTH_SECRET": "revocation-test-secret-0123456789abcdef",
			"FOLIO_ADMIN_EMAIL": "boss@example.com", "FOLIO_ADMIN_PASSWORD": cliTestPassword,
			"RATE_LIMIT_HELPER_PER_HOUR": "1000", "WEBHOOK_ALLOW_PRIVATE": "true"}
	}
	a := startServe(t, vars())
	b := startServe(t, vars())
	onA := signIn(t, a, "boss@example.com", cliTestPassword)
	onB := signIn(t, b, "boss@example.com", cliTestPassword)
	createProject := func(title string) {
		t.Helper()
		if res, body := withCookie(t, "POST", b+"/api/projects", `{"title":"`+title+`","description":"d","status":"published"}`, onB); res.StatusCode != 201 {
			t.Fatalf("create project on B: %d %s", res.StatusCode, body)
		}
	}
	// B learns that nobody subscribes (the write fills its set of subscribed event types).
	createProject("before any webhook")

	// A subscribes to contact.received only: B's project writes still queue nothing.
	res, body := withCookie(t, "POST", a+"/api/webhooks", `{"url":"http://127.0.0.1:9/contact","events":["contact.received"]}`, onA)
	if res.StatusCode != 201 {
		t.Fatalf("create webhook: %d %s", res.StatusCode, body)
	}
	var other struct {
		Webhook struct {
			ID string `json:"id"`
		} `json:"webhook"`
		ID string `json:"id"`
	}
	json.Unmarshal([]byte(body), &other)
	otherID := other.ID + other.Webhook.ID

	res, body = withCookie(t, "POST", a+"/api/webhooks", `{"url":"http://127.0.0.1:9/projects","events":["project.created"]}`, onA)
	if res.StatusCode != 201 {
		t.Fatalf("create webhook: %d %s", res.StatusCode, body)
	}
	var hook struct {
		Webhook struct {
			ID string `json:"id"`
		} `json:"webhook"`
		ID string `json:"id"`
	}
	json.Unmarshal([]byte(body), &hook)
	hookID := hook.ID + hook.Webhook.ID
	if hookID == "" || otherID == "" {
		t.Fatalf("no webhook id in %s", body)
	}
	deliveries := func(id string) int {
		t.Helper()
		res, body := withCookie(t, "GET", a+"/api/webhooks/"+id+"/deliveries", "", onA)
		if res.StatusCode != 200 {
			t.Fatalf("deliveries: %d %s", res.StatusCode, body)
		}
		var out struct {
			Deliveries []json.RawMessage `json:"deliveries"`
			Items      []json.RawMessage `json:"items"`
		}
		json.Unmarshal([]byte(body), &out)
		return len(out.Deliveries) + len(out.Items)
	}
	// The notification reaches B asynchronously: write until a delivery shows up (the deadline
	// only stops a broken build from hanging).
	deadline := time.Now().Add(15 * time.Second)
	for i := 0; deliveries(hookID) == 0; i++ {
		if time.Now().After(deadline) {
			t.Fatal("writes on B never queued a delivery for the webhook created on A")
		}
		createProject("after the webhook " + string(rune('a'+i%26)))
		time.Sleep(10 * time.Millisecond)
	}
	if n := deliveries(otherID); n != 0 {
		t.Errorf("the contact.received webhook got %d deliveries of project writes", n)
	}
}

// Ensure revocations made by folio commands on SQLite — another process's handle on the file —
// reach a running server at once, not when its 5 s user and key caches expire: the server drops
// every cache when it sees the commit. The test waits until the server has dropped a cached
// public response (nothing else drops it here), then expects the revoked key and the ended
// session to be refused on the very next request.
func TestCLIRevocationsReachSQLiteServer(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"FOLIO_DATA_DIR": dir, "FOLIO_ADDR": "127.0.0.1:0", "METRICS_TOKEN": "metrics-test-token",
		"FOLIO_ADMIN_EMAIL": "boss@example.com", "FOLIO_ADMIN_PASSWORD": cliTestPassword, "RATE_LIMIT_HELPER_PER_HOUR": "1000"}
	base, _, stop := serveFor(t, vars)
	defer stop()
	env, _, _ := envWith(t, map[string]string{"FOLIO_DATA_DIR": dir})
	cachedEntries := func() string {
		t.Helper()
		res, body := get(t, base+"/metrics", "Bearer metrics-test-token", nil)
		if res.StatusCode != 200 {
			t.Fatalf("/metrics: %d", res.StatusCode)
		}
		for _, line := range strings.Split(body, "\n") {
			if n, ok := strings.CutPrefix(line, "folio_response_cache_entries "); ok {
				return n
			}
		}
		t.Fatal("/metrics has no folio_response_cache_entries")
		return ""
	}
	// cacheThen caches a public response, runs the command, and waits until the server has
	// dropped the response: it has processed the command's commit.
	cacheThen := func(stdin string, args ...string) {
		t.Helper()
		for range 2 {
			if res, _ := get(t, base+"/api/projects", "", nil); res.StatusCode != 200 {
				t.Fatalf("GET /api/projects: %d", res.StatusCode)
			}
		}
		if n := cachedEntries(); n == "0" {
			t.Fatal("GET /api/projects was not cached")
		}
		e := env
		e.Stdin = strings.NewReader(stdin)
		if _, errs, err := runCmd(t, e, args...); err != nil {
			t.Fatalf("folio %s: %v\n%s", strings.Join(args, " "), err, errs)
		}
		deadline := time.Now().Add(30 * time.Second) // only stops a broken build from hanging
		for cachedEntries() != "0" {
			if time.Now().After(deadline) {
				t.Fatalf("folio %s: the server never noticed the commit", strings.Join(args, " "))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	key := mustAPIKey(t, env, "write")
	list, _, err := runCmd(t, env, "apikey", "list")
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, key[:auth.DisplayPrefixLen]) {
			id = strings.Fields(line)[0]
		}
	}
	for range 2 { // the second answer comes from the key cache
		if st := keyStatus(t, base, key); st != 200 {
			t.Fatalf("key before revocation: %d", st)
		}
	}
	cacheThen("", "apikey", "revoke", id)
	if st := keyStatus(t, base, key); st != 401 {
		t.Errorf("the key revoked by folio apikey revoke: %d, want 401", st)
	}

	cookie := signIn(t, base, "boss@example.com", cliTestPassword)
	if st := profileStatus(t, base, cookie); st != 200 { // cached from here on
		t.Fatalf("session: %d", st)
	}
	cacheThen("an entirely new password\n", "user", "passwd", "--email", "boss@example.com")
	if st := profileStatus(t, base, cookie); st != 401 {
		t.Errorf("the session ended by folio user passwd: %d, want 401", st)
	}
}
