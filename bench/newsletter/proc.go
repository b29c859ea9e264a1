package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foliohq/folio/bench/internal/procstat"
)

// instance is one `folio serve` process.
type instance struct {
	Name    string
	Base    string // http://host:port
	LogPath string
	cmd     *exec.Cmd
	exited  chan struct{} // closed once the process is gone

	mu      sync.Mutex
	peakRSS int64 // highest VmRSS sampled since the publication
	hwm     int64 // VmHWM, read last while the process was alive
	dead    bool
}

// folioEnv is the environment every folio command of the bench shares: the database, the
// instance secret (one for both, as a deployment has), no Redis, limits out of the way.
func folioEnv(dsn, secret string, rate int, extra ...string) []string {
	env := append(os.Environ(), "DATABASE_URL="+dsn, "REDIS_URL=", "NEXTAUTH_SECRET="+secret,
		"FOLIO_ENV=development", "LOG_LEVEL=warn", "LOG_FORMAT=text", "FOLIO_AUTO_MIGRATE=false",
		"FOLIO_SITE_URL=https://newsletter.bench", "SMTP_HOST=127.0.0.1", "SMTP_TLS=none", "SMTP_FROM=site@newsletter.bench",
		"NEWSLETTER_RATE_PER_MINUTE="+strconv.Itoa(rate),
		"RATE_LIMIT_PUBLIC_PER_HOUR=1000000000", "RATE_LIMIT_AUTHENTICATED_PER_HOUR=1000000000",
		"RATE_LIMIT_ADMIN_PER_HOUR=1000000000", "RATE_LIMIT_HELPER_PER_HOUR=1000000000")
	return append(env, extra...)
}

// runFolio runs a folio command to the end and returns its standard output.
func runFolio(bin string, env []string, args ...string) (string, error) {
	c := exec.Command(bin, args...)
	c.Env = env
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return "", fmt.Errorf("folio %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// startInstance starts `folio serve` with its own data directory and SMTP port, its standard
// error in dir/<name>.log, and waits until it answers /readyz.
func startInstance(bin, dir, name string, env []string, smtpPort int) (*instance, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	logPath := filepath.Join(dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	c := exec.Command(bin, "serve")
	c.Env = append(env, "FOLIO_ADDR="+addr, "FOLIO_DATA_DIR="+filepath.Join(dir, name), "SMTP_PORT="+strconv.Itoa(smtpPort))
	c.Stdout, c.Stderr = logf, logf
	if err := c.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	in := &instance{Name: name, Base: "http://" + addr, LogPath: logPath, cmd: c, exited: make(chan struct{})}
	go func() { c.Wait(); logf.Close(); close(in.exited) }()
	for i := 0; ; i++ {
		if res, err := http.Get(in.Base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return in, nil
			}
		}
		if i > 600 {
			in.kill()
			return nil, fmt.Errorf("%s did not become ready in 30 s (log: %s)", name, logPath)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (in *instance) Pid() int { return in.cmd.Process.Pid }

// sample reads the process's resident set now and keeps the peak; a dead process is left alone.
func (in *instance) sample() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.dead {
		return
	}
	if rss := procstat.RSS(in.Pid()); rss > in.peakRSS {
		in.peakRSS = rss
	}
	if hwm := procstat.HWM(in.Pid()); hwm > 0 {
		in.hwm = hwm
	}
}

// RSS returns the peak VmRSS sampled and the last VmHWM read.
func (in *instance) RSS() (peak, hwm int64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.peakRSS, in.hwm
}

// resetPeak starts the sampled peak afresh (at the publication: the send's peak, not start-up's).
func (in *instance) resetPeak() {
	in.mu.Lock()
	in.peakRSS = 0
	in.mu.Unlock()
	in.sample()
}

// kill ends the process at once (SIGKILL: no shutdown, no lease given back), after a last sample.
func (in *instance) kill() {
	in.sample()
	in.mu.Lock()
	in.dead = true
	in.mu.Unlock()
	in.cmd.Process.Kill()
	<-in.exited
}

// stop asks the process to shut down (SIGINT) and waits for it.
func (in *instance) stop() {
	select {
	case <-in.exited:
		return
	default:
	}
	in.sample()
	in.mu.Lock()
	in.dead = true
	in.mu.Unlock()
	in.cmd.Process.Signal(os.Interrupt)
	select {
	case <-in.exited:
	case <-time.After(30 * time.Second):
		in.cmd.Process.Kill()
		<-in.exited
	}
}

// api calls folio with the key and decodes a 2xx answer's JSON into out.
func api(method, url, key string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %.300s", method, url, res.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}
