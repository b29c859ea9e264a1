package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"
)

// proc is one server process under test.
type proc struct {
	cmd  *exec.Cmd
	addr string
}

func (p *proc) stop() {
	if p == nil || p.cmd.Process == nil || p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func waitHTTP(p *proc, path string) error {
	for i := 0; i < 400; i++ {
		if res, err := http.Get("http://" + p.addr + path); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.stop()
	return fmt.Errorf("%s did not answer %s", p.cmd.Path, path)
}

func folioEnv(extra []string) []string {
	return append(append(os.Environ(), "LOG_LEVEL=warn", "FOLIO_ENV=development",
		"RATE_LIMIT_PUBLIC_PER_HOUR=1000000000", "RATE_LIMIT_AUTHENTICATED_PER_HOUR=1000000000",
		"RATE_LIMIT_ADMIN_PER_HOUR=1000000000", "RATE_LIMIT_HELPER_PER_HOUR=1000000000"), extra...)
}

// setupFolio migrates, creates the owner and returns a new write key's secret.
func setupFolio(bin string, env []string) (string, error) {
	for _, args := range [][]string{{"migrate"}, {"user", "create", "--email", "bench@example.com", "--name", "Bench", "--role", "owner", "--password", "bench-password-123"}} {
		c := exec.Command(bin, args...)
		c.Env = folioEnv(env)
		if out, err := c.CombinedOutput(); err != nil {
			return "", fmt.Errorf("folio %s: %v\n%s", args[0], err, out)
		}
	}
	c := exec.Command(bin, "apikey", "create", "--name", "bench", "--level", "write")
	c.Env = folioEnv(env)
	out, err := c.Output()
	if err != nil {
		return "", fmt.Errorf("folio apikey create: %v", err)
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]), nil
}

func startFolio(bin string, env []string) (*proc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	c := exec.Command(bin, "serve")
	c.Env = folioEnv(append(env, "FOLIO_ADDR="+addr))
	c.Stdout, c.Stderr = io.Discard, io.Discard
	if err := c.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: c, addr: addr}
	return p, waitHTTP(p, "/readyz")
}

// startPocketBase starts PocketBase over a fresh data directory with a superuser, logs off and a
// projects collection shaped like folio's, and returns it with a superuser token.
func startPocketBase(bin, dataDir string) (*proc, string, error) {
	const email, password = "bench@example.com", "bench-password-123"
	if out, err := exec.Command(bin, "superuser", "upsert", email, password, "--dir", dataDir).CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("pocketbase superuser upsert: %v\n%s", err, out)
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	c := exec.Command(bin, "serve", "--http", addr, "--dir", dataDir)
	c.Stdout, c.Stderr = io.Discard, io.Discard
	if err := c.Start(); err != nil {
		return nil, "", err
	}
	p := &proc{cmd: c, addr: addr}
	if err := waitHTTP(p, "/api/health"); err != nil {
		return nil, "", err
	}
	var login struct {
		Token string `json:"token"`
	}
	if err := call(addr, "POST", "/api/collections/_superusers/auth-with-password", "",
		map[string]string{"identity": email, "password": password}, &login); err != nil {
		p.stop()
		return nil, "", err
	}
	steps := []struct {
		method, path string
		body         any
	}{
		{"PATCH", "/api/settings", map[string]any{"logs": map[string]any{"maxDays": 0}}},
		{"POST", "/api/collections", map[string]any{
			"name": "projects", "type": "base", "listRule": "", "viewRule": "",
			"fields": []map[string]any{
				{"name": "title", "type": "text", "required": true, "max": 200},
				{"name": "description", "type": "text", "required": true, "max": 2000},
				{"name": "longDescription", "type": "text", "max": 50000},
				{"name": "technologies", "type": "json", "maxSize": 10000},
				{"name": "status", "type": "select", "values": []string{"draft", "published", "archived"}, "maxSelect": 1},
				{"name": "demoUrl", "type": "url"},
				{"name": "sourceUrl", "type": "url"},
				{"name": "images", "type": "json", "maxSize": 100000},
				{"name": "created", "type": "autodate", "onCreate": true},
				{"name": "updated", "type": "autodate", "onCreate": true, "onUpdate": true},
			},
			"indexes": []string{"CREATE INDEX idx_projects_created ON projects (created)"},
		}},
	}
	for _, s := range steps {
		if err := call(addr, s.method, s.path, login.Token, s.body, nil); err != nil {
			p.stop()
			return nil, "", fmt.Errorf("pocketbase setup %s %s: %w", s.method, s.path, err)
		}
	}
	return p, login.Token, nil
}

func call(addr, method, path, token string, body, out any) error {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, "http://"+addr+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	rb, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, rb)
	}
	if out != nil {
		return json.Unmarshal(rb, out)
	}
	return nil
}

// seed creates the 20 published records every figure runs over.
func seed(addr, path, authHeader string) error {
	token := strings.TrimPrefix(authHeader, "Authorization: ")
	for i := 1; i <= 20; i++ {
		body := map[string]any{
			"title":        fmt.Sprintf("Project %02d", i),
			"description":  fmt.Sprintf("A realistic description of demo project number %d, long enough to matter.", i),
			"technologies": []string{"Go", "PostgreSQL", "TypeScript"}, "status": "published",
		}
		if err := call(addr, "POST", path, token, body, nil); err != nil {
			return err
		}
	}
	return nil
}

func get(addr, path string) ([]byte, string, error) {
	res, err := http.Get("http://" + addr + path)
	if err != nil {
		return nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return nil, "", fmt.Errorf("GET %s: %d %s", path, res.StatusCode, b)
	}
	return b, res.Header.Get("Content-Type"), err
}

// startBare re-executes this program as one bare handler and reads its address.
func startBare(self, kind, arg string) (*proc, error) {
	c := exec.Command(self, "-serve-bare", kind, "-bare-arg", arg)
	c.Stderr = os.Stderr
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = c.Process.Kill()
		_ = c.Wait()
		return nil, fmt.Errorf("bare %s did not start: %w", kind, err)
	}
	go io.Copy(io.Discard, out)
	return &proc{cmd: c, addr: strings.TrimSpace(line)}, nil
}
