package cli

import (
	"strings"
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
)

// Ensure `folio user unlock --email E` lets back in an owner whom failed sign-ins locked out,
// run against servers that are running (the command is a process of its own): on SQLite, whose
// server keeps the counts in its memory, and on PostgreSQL with two instances sharing the counts
// in Redis. The lockout's 429 names the command, and the command says what it did (#32.7).
func TestUserUnlockReachesRunningServers(t *testing.T) {
	for _, setup := range []string{"sqlite", "postgres+redis"} {
		t.Run(setup, func(t *testing.T) {
			vars := map[string]string{"FOLIO_ADDR": "127.0.0.1:0", "FOLIO_DATA_DIR": t.TempDir(),
				"NEXTAUTH_SECRET": "unlock-test-secret-0123456789abcdef", "RATE_LIMIT_PUBLIC_PER_HOUR": "100000",
				"FOLIO_ADMIN_EMAIL": "boss@example.com", "FOLIO_ADMIN_PASSWORD": cliTestPassword}
			instances := 1
			if setup == "postgres+redis" {
				if foliotest.RedisURL() == "" {
					t.Skip("Redis tests skipped: set FOLIO_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379/0)")
				}
				vars["DATABASE_URL"], vars["REDIS_URL"] = foliotest.PostgresSchema(t), foliotest.RedisURL()
				instances = 2
			}
			var servers []string
			for range instances {
				servers = append(servers, startServe(t, vars))
			}
			login := func(i int, password string) (int, string) {
				t.Helper()
				res, body := post(t, servers[i%len(servers)]+"/api/auth/login", `{"email":"boss@example.com","password":"`+password+`"}`, "")
				return res.StatusCode, body
			}
			for i := range 5 {
				if st, body := login(i, "not the password at all"); st != 401 {
					t.Fatalf("failed sign-in %d: %d %s", i+1, st, body)
				}
			}
			for i := range servers {
				if st, body := login(i, cliTestPassword); st != 429 || !strings.Contains(body, "folio user unlock --email") {
					t.Fatalf("the right password after five wrong ones: %d %s, want a 429 naming the command", st, body)
				}
			}

			env, _, _ := envWith(t, vars)
			out, errs, err := runCmd(t, env, "user", "unlock", "--email", "BOSS@example.com")
			if err != nil || !strings.Contains(out, "sign-in unlocked for boss@example.com") {
				t.Fatalf("unlock: %q %q %v", out, errs, err)
			}
			for i := range servers {
				if st, body := login(i, cliTestPassword); st != 200 {
					t.Errorf("sign-in on instance %d after the unlock: %d %s", i+1, st, body)
				}
			}
			if _, _, err := runCmd(t, env, "user", "unlock", "--email", "nobody@example.com"); err == nil {
				t.Error("unlock of an unknown user succeeded")
			}
			if _, _, err := runCmd(t, env, "user", "unlock"); err == nil || !strings.Contains(err.Error(), "--email") {
				t.Errorf("unlock without --email: %v", err)
			}
		})
	}
}
