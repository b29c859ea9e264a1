package cli

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

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
