package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/foliotest"
)

// signIn posts a login to base and returns the session cookie ("name=value") or fails.
func signIn(t *testing.T, base, email, password string) string {
	t.Helper()
	res, body := post(t, base+"/api/auth/login", `{"email":"`+email+`","password":"`+password+`"}`, "")
	if res.StatusCode != 200 {
		t.Fatalf("login %s on %s: %d %s", email, base, res.StatusCode, body)
	}
	for _, c := range res.Cookies() {
		if strings.HasSuffix(c.Name, "next-auth.session-token") {
			return c.Name + "=" + c.Value
		}
	}
	t.Fatalf("no session cookie from %s", base)
	return ""
}

// profileStatus is GET /api/user/profile's status with the cookie.
func profileStatus(t *testing.T, base, cookie string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/user/profile", nil)
	req.Header.Set("Cookie", cookie)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// waitStatus polls until the cookie's profile status is want; the deadline only stops a broken
// build from hanging (the notification arrives asynchronously), it measures nothing.
func waitStatus(t *testing.T, base, cookie string, want int, what string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for profileStatus(t, base, cookie) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s still answers %d, want %d", what, base, profileStatus(t, base, cookie), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Ensure a revocation on one instance ends the user's sessions on another instance sharing the
// PostgreSQL database (the change notification), including sessions that instance has cached,
// and that the CLI's passwd, role and delete reach running instances the same way.
func TestRevocationAcrossInstances(t *testing.T) {
	dsn := foliotest.PostgresSchema(t)
	vars := func() map[string]string {
		return map[string]string{"DATABASE_URL": dsn, "FOLIO_ADDR": "127.0.0.1:0", "NEXTAUTH_SECRET": "revocation-test-secret-0123456789abcdef",
			"FOLIO_ADMIN_EMAIL": "boss@example.com", "FOLIO_ADMIN_PASSWORD": cliTestPassword,
			"RATE_LIMIT_HELPER_PER_HOUR": "1000"}
	}
	a := startServe(t, vars())
	b := startServe(t, vars())
	onA := signIn(t, a, "boss@example.com", cliTestPassword)
	onB := signIn(t, b, "boss@example.com", cliTestPassword)
	for _, base := range []string{a, b} {
		for _, c := range []string{onA, onB} {
			if st := profileStatus(t, base, c); st != 200 { // also warms both instances' user caches
				t.Fatalf("session before revocation on %s: %d", base, st)
			}
		}
	}
	req, _ := http.NewRequest("POST", a+"/api/auth/sessions/revoke", nil)
	req.Header.Set("Cookie", onA)
	res, body := send(t, req)
	if res.StatusCode != 204 {
		t.Fatalf("revoke: %d %s", res.StatusCode, body)
	}
	for _, base := range []string{a, b} {
		waitStatus(t, base, onB, 401, "revoke on A")
	}
	if st := profileStatus(t, a, onA); st != 401 {
		t.Errorf("the revoking session itself on A: %d", st)
	}

	// CLI passwd on a running site: both instances drop the sessions.
	fresh := signIn(t, b, "boss@example.com", cliTestPassword)
	waitStatus(t, a, fresh, 200, "fresh sign-in")
	env, _, _ := envWith(t, map[string]string{"DATABASE_URL": dsn})
	env.Stdin = strings.NewReader("an entirely new password\n")
	if out, errs, err := runCmd(t, env, "user", "passwd", "--email", "boss@example.com"); err != nil || !strings.Contains(out, "changed") {
		t.Fatalf("passwd: %q %q %v", out, errs, err)
	}
	for _, base := range []string{a, b} {
		waitStatus(t, base, fresh, 401, "folio user passwd")
	}
	fresh = signIn(t, a, "boss@example.com", "an entirely new password")
	if out, _, err := runCmd(t, env, "user", "delete", "--email", "boss@example.com"); err != nil || !strings.Contains(out, "deleted") {
		t.Fatalf("delete: %q %v", out, err)
	}
	for _, base := range []string{a, b} {
		waitStatus(t, base, fresh, 401, "folio user delete")
	}
}

// Ensure passwd, list, role, totp-reset and delete work on both engines, read the password from
// standard input only, and refuse short ones.
func TestUserAdminCommands(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			vars := map[string]string{}
			if engine == "postgres" {
				if foliotest.PostgresURL() == "" {
					t.Skip("FOLIO_TEST_POSTGRES_URL is not set; PostgreSQL tests run in CI")
				}
				vars["DATABASE_URL"] = foliotest.PostgresSchema(t)
			}
			env, _, _ := envWith(t, vars)
			in := func(s string) Env { e := env; e.Stdin = strings.NewReader(s); return e }
			if _, _, err := runCmd(t, in(cliTestPassword+"\n"), "user", "create", "--email", "ada@example.com", "--name", "Ada", "--role", "owner"); err != nil {
				t.Fatal(err)
			}
			if _, _, err := runCmd(t, in("too short\n"), "user", "passwd", "--email", "ada@example.com"); err == nil || !strings.Contains(err.Error(), "at least 12") {
				t.Errorf("short password: %v", err)
			}
			if _, _, err := runCmd(t, in("x\n"), "user", "passwd", "--email", "ada@example.com", "--password", "twelve chars!"); err == nil {
				t.Error("passwd accepted a --password flag")
			}
			if _, _, err := runCmd(t, in("a long new password\n"), "user", "passwd", "--email", "nobody@example.com"); err == nil {
				t.Error("passwd for an unknown user succeeded")
			}
			out, _, err := runCmd(t, in("a long new password\n"), "user", "passwd", "--email", "ADA@example.com")
			if err != nil || !strings.Contains(out, "changed") || strings.Contains(out, "a long new password") {
				t.Errorf("passwd: %q %v", out, err)
			}
			if _, _, err := runCmd(t, in(cliTestPassword+"\n"), "user", "create", "--email", "bob@example.com", "--name", "Bob", "--role", "editor"); err != nil {
				t.Fatal(err)
			}
			if out, _, err := runCmd(t, env, "user", "role", "--email", "bob@example.com", "--role", "owner"); err != nil || !strings.Contains(out, "now owner") {
				t.Errorf("role: %q %v", out, err)
			}
			if _, _, err := runCmd(t, env, "user", "role", "--email", "bob@example.com", "--role", "admin"); err == nil {
				t.Error("role admin accepted")
			}
			if _, _, err := runCmd(t, in("nine char\n"), "user", "create", "--email", "old@example.com", "--name", "Old", "--role", "editor"); err == nil ||
				!strings.Contains(err.Error(), "the password must be at least 12 characters") {
				t.Errorf("create with a 9-character password: %v (the one rule: 12 or more)", err)
			}
			if out, _, err := runCmd(t, env, "user", "totp-reset", "--email", "bob@example.com"); err != nil || !strings.Contains(out, "off") {
				t.Errorf("totp-reset: %q %v", out, err)
			}
			list, _, err := runCmd(t, env, "user", "list")
			if err != nil || !strings.Contains(list, "ada@example.com (Ada)") || !strings.Contains(list, "owner   off   ") {
				t.Errorf("list: %v\n%s", err, list)
			}
			if out, _, err := runCmd(t, env, "user", "delete", "--email", "bob@example.com"); err != nil || !strings.Contains(out, "deleted") {
				t.Errorf("delete: %q %v", out, err)
			}
			if list, _, _ := runCmd(t, env, "user", "list"); strings.Contains(list, "bob@example.com") {
				t.Errorf("deleted user listed:\n%s", list)
			}
			if _, _, err := runCmd(t, env, "user", "delete"); err == nil || !strings.Contains(err.Error(), "--email") {
				t.Errorf("delete without --email: %v", err)
			}
			if _, _, err := runCmd(t, env, "user", "frobnicate"); err != ErrUsage {
				t.Errorf("unknown subcommand: %v", err)
			}
			_ = context.Background
		})
	}
}

// Ensure serve encrypts the TOTP secrets an earlier version stored in plaintext, at start, and
// that two-factor sign-in keeps working with them.
func TestServeSealsPlaintextTOTPSecrets(t *testing.T) {
	vars := map[string]string{"FOLIO_ADDR": "127.0.0.1:0", "NEXTAUTH_SECRET": "sealing-test-secret-0123456789abcdef",
		"FOLIO_ADMIN_EMAIL": "boss@example.com", "FOLIO_ADMIN_PASSWORD": cliTestPassword}
	env, _, _ := envWith(t, vars)
	if _, _, err := runCmd(t, env, "migrate"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	db := openData(t, vars["FOLIO_DATA_DIR"])
	defer db.Close()
	hash, err := auth.HashPassword(cliTestPassword)
	if err != nil {
		t.Fatal(err)
	}
	u, err := db.Identity.CreateUser(ctx, &folio.UserInput{Email: "old@example.com", Name: "Old", Role: folio.RoleOwner}, hash)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Identity.SetTOTPSecret(ctx, u.ID, secret); err != nil { // as versions before 0027 stored it
		t.Fatal(err)
	}
	if err := db.Identity.EnableTOTP(ctx, u.ID, 1, nil); err != nil {
		t.Fatal(err)
	}
	base, logs, stop := serveFor(t, vars)
	got, err := db.Identity.User(ctx, u.ID)
	if err != nil || !strings.HasPrefix(got.TOTPSecret, "v1:") || strings.Contains(got.TOTPSecret, secret) {
		t.Fatalf("stored secret after start: %q, %v\n%s", got.TOTPSecret, err, logs)
	}
	if !strings.Contains(logs.String(), "encrypted stored TOTP secrets") {
		t.Errorf("the start does not say it encrypted the secrets:\n%s", logs)
	}
	res, body := post(t, base+"/api/auth/login", `{"email":"old@example.com","password":"`+cliTestPassword+`"}`, "")
	var step struct{ Ticket string }
	if err := json.Unmarshal([]byte(body), &step); err != nil || res.StatusCode != 200 || step.Ticket == "" {
		t.Fatalf("password step: %d %s", res.StatusCode, body)
	}
	code, _ := auth.TOTPCode(secret, time.Now())
	if res, body := post(t, base+"/api/auth/login/totp", `{"ticket":"`+step.Ticket+`","code":"`+code+`"}`, ""); res.StatusCode != 200 {
		t.Errorf("second step with the sealed secret: %d %s", res.StatusCode, body)
	}
	stop()
}
