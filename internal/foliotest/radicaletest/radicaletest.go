// Package radicaletest starts a real CalDAV server (Debian's Radicale) on loopback for tests of
// the CalDAV calendar provider.
package radicaletest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Credentials of the one Radicale user.
const (
	User     = "owner"
	Password = "correct horse"
)

// Start runs Debian's radicale on a free loopback port with htpasswd (plain) auth for User and
// Password and storage in a temp dir, and returns its base URL; it stops when the test ends. It
// skips the test when radicale is not installed.
func Start(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("radicale")
	if err != nil {
		t.Skip("radicale is not installed (apt-get install -y radicale); skipping the CalDAV tests")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	users := filepath.Join(dir, "users")
	if err := os.WriteFile(users, []byte(User+":"+Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`[server]
hosts = %s
[auth]
type = htpasswd
htpasswd_filename = %s
htpasswd_encryption = plain
delay = 0.01
[rights]
type = owner_only
[storage]
filesystem_folder = %s
[logging]
level = warning
[web]
type = none
`, addr, users, filepath.Join(dir, "collections"))
	confPath := filepath.Join(dir, "config")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	cmd := exec.Command(bin, "--config", confPath)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("radicale output:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	for i := 0; ; i++ {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if i > 100 {
			t.Fatalf("radicale did not listen on %s: %v\n%s", addr, err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return base
}

// MkCalendar creates a calendar collection with MKCALENDAR (RFC 4791 §5.3.1).
func MkCalendar(t testing.TB, url string) {
	t.Helper()
	req, err := http.NewRequest("MKCALENDAR", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(User, Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("MKCALENDAR %s: %s", url, resp.Status)
	}
}
