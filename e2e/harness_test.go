package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/calendar/google"
	"github.com/foliohq/folio/internal/calendar/googlefake"
	"github.com/foliohq/folio/internal/extblog/extblogfake"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/foliotest/smtptest"
	"github.com/foliohq/folio/internal/imagegen/imagegenfake"
)

// Fixed credentials of the test site. None of them is a real secret.
const (
	ownerEmail     = "owner@example.com"
	ownerPassword  = "e2e-owner-password"
	sessionSecret  = "e2e-nextauth-secret-0123456789abcdef"
	webhookSecret  = "e2e-webhook-secret"
	metricsToken   = "e2e-metrics-token-0123456789abcdef0123"
	imageKey       = "sk-e2e-image-key"
	calendarID     = "owner@example.com"
	serviceAccount = "folio-e2e@project.iam.gserviceaccount.com"
	browserUA      = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// folioBinary builds ./cmd/folio once per test run (only when a test gets that far, so a run
// that skips everything builds nothing) and returns its path.
func folioBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "folio-e2e-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "folio")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/folio")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build ./cmd/folio: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// needServers skips the test unless PostgreSQL and Redis tests are enabled and redis-server
// can be started (the tests stop and restart a Redis of their own).
func needServers(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end tests skipped in -short mode")
	}
	if foliotest.PostgresURL() == "" {
		t.Skip("end-to-end tests skipped: set FOLIO_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	if foliotest.RedisURL() == "" {
		t.Skip("end-to-end tests skipped: set FOLIO_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379/0); they run their own redis-server")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("end-to-end tests skipped: redis-server is not on the PATH (apt-get install redis-server)")
	}
}

// s3Config is the S3-compatible server of FOLIO_TEST_S3_*, or skips the test.
func s3Config(t *testing.T) blob.S3Config {
	t.Helper()
	c := blob.S3Config{Endpoint: os.Getenv("FOLIO_TEST_S3_ENDPOINT"), AccessKeyID: os.Getenv("FOLIO_TEST_S3_ACCESS_KEY"),
		SecretAccessKey: os.Getenv("FOLIO_TEST_S3_SECRET"), PathStyle: true}
	if c.Endpoint == "" || c.AccessKeyID == "" || c.SecretAccessKey == "" {
		t.Skip("end-to-end test skipped: set FOLIO_TEST_S3_ENDPOINT, FOLIO_TEST_S3_ACCESS_KEY and FOLIO_TEST_S3_SECRET (bash .ci/install-versitygw.sh starts one)")
	}
	return c
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// logSink keeps a process's output and reports the address of the "folio listening" line.
type logSink struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	partial []byte
	addr    chan string
}

func newLogSink() *logSink { return &logSink{addr: make(chan string, 1)} }

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line := l.partial[:i]
		l.partial = l.partial[i+1:]
		var rec struct{ Msg, Addr string }
		if json.Unmarshal(line, &rec) == nil && rec.Msg == "folio listening" && rec.Addr != "" {
			select {
			case l.addr <- rec.Addr:
			default:
			}
		}
	}
	return len(p), nil
}

// tail returns the last n bytes of the output.
func (l *logSink) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buf.Bytes()
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// process is one started child process.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	logs *logSink
}

func startProcess(t *testing.T, dir string, env []string, name string, args ...string) *process {
	t.Helper()
	p := &process{done: make(chan struct{}), logs: newLogSink()}
	p.cmd = exec.Command(name, args...)
	p.cmd.Dir, p.cmd.Env = dir, env
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	dieWithTest(p.cmd)
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.cmd.Wait()
		close(p.done)
	}()
	return p
}

func (p *process) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// signal sends sig and waits for the process to end (SIGKILL after 20 s).
func (p *process) signal(sig syscall.Signal) {
	p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// instance is one folio serve process with a fixed environment and data directory; it can be
// killed and started again on the same data.
type instance struct {
	t    *testing.T
	name string
	dir  string
	env  []string
	proc *process
	base string // http://127.0.0.1:port of the current process
}

func processEnv(dir string, vars map[string]string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

// newInstance prepares an instance; start runs it. vars complete the stack's variables.
func newInstance(t *testing.T, name string, vars map[string]string) *instance {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{"FOLIO_ADDR": "127.0.0.1:0", "FOLIO_DATA_DIR": dir, "LOG_FORMAT": "json", "LOG_LEVEL": "info",
		"FOLIO_SHUTDOWN_TIMEOUT": "5s"}
	for k, v := range vars {
		all[k] = v
	}
	in := &instance{t: t, name: name, dir: dir, env: processEnv(dir, all)}
	t.Cleanup(func() {
		if in.proc != nil && in.proc.running() {
			in.proc.signal(syscall.SIGTERM)
		}
		if t.Failed() && in.proc != nil {
			t.Logf("--- last output of %s ---\n%s", in.name, in.proc.logs.tail(6000))
		}
	})
	return in
}

// start runs the instance and waits until it listens.
func (in *instance) start() {
	t := in.t
	t.Helper()
	in.proc = startProcess(t, in.dir, in.env, folioBinary(t), "serve")
	select {
	case a := <-in.proc.logs.addr:
		in.base = "http://" + a
	case <-in.proc.done:
		t.Fatalf("%s exited before listening:\n%s", in.name, in.proc.logs.tail(6000))
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not listen within 60 s:\n%s", in.name, in.proc.logs.tail(6000))
	}
}

func (in *instance) kill()         { in.proc.signal(syscall.SIGKILL) }
func (in *instance) running() bool { return in.proc != nil && in.proc.running() }

// cli runs a folio subcommand with the instance's environment and returns its standard output.
func (in *instance) cli(args ...string) string {
	t := in.t
	t.Helper()
	cmd := exec.Command(folioBinary(t), args...)
	cmd.Dir, cmd.Env = in.dir, in.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("folio %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// adminKey creates an admin API key with the CLI (first line of stdout).
func (in *instance) adminKey() string {
	in.t.Helper()
	out := in.cli("apikey", "create", "--name", "e2e-"+randomHex(3), "--level", "admin")
	key, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(key, "folio_") {
		in.t.Fatalf("apikey create printed no key on its first line")
	}
	return key
}

// redisProc is a redis-server of the test's own, so a test can stop and restart it.
type redisProc struct {
	t    *testing.T
	port int
	dir  string
	proc *process
}

func startRedis(t *testing.T) *redisProc {
	t.Helper()
	r := &redisProc{t: t, port: freePort(t), dir: t.TempDir()}
	r.start()
	t.Cleanup(func() {
		if r.proc.running() {
			r.proc.signal(syscall.SIGTERM)
		}
	})
	return r
}

func (r *redisProc) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *redisProc) start() {
	t := r.t
	t.Helper()
	r.proc = startProcess(t, r.dir, processEnv(r.dir, nil), "redis-server", "--port", strconv.Itoa(r.port),
		"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", r.dir)
	eventually(t, "redis-server listens", 20*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", r.port), time.Second)
		if err == nil {
			c.Close()
			return true
		}
		return !r.proc.running()
	})
	if !r.proc.running() {
		t.Fatalf("redis-server exited:\n%s", r.proc.logs.tail(2000))
	}
}

func (r *redisProc) stop() { r.proc.signal(syscall.SIGTERM) }

// stack is the shared world of a test: one PostgreSQL schema (reached through a Proxy), one
// Redis, a real SMTP server and the platform, calendar and image fakes; optionally an S3
// bucket of its own.
type stack struct {
	t      *testing.T
	dsn    string // through the proxy
	proxy  *Proxy
	redis  *redisProc
	smtp   *smtptest.Server
	blog   *extblogfake.Server
	google *googlefake.Server
	images *imagegenfake.Server
	s3     *blob.S3 // nil without S3
	vars   map[string]string
}

func newStack(t *testing.T, withS3 bool) *stack {
	t.Helper()
	needServers(t)
	var s3cfg blob.S3Config
	if withS3 {
		s3cfg = s3Config(t)
	}
	folioBinary(t)
	s := &stack{t: t}
	direct := foliotest.PostgresSchema(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	if s.proxy, err = NewProxy(u.Host); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.proxy.Close() })
	u.Host = s.proxy.Addr()
	s.dsn = u.String()
	s.redis = startRedis(t)
	s.smtp = smtptest.Start(t)

	s.blog = extblogfake.New()
	blogSrv := httptest.NewServer(s.blog)
	t.Cleanup(blogSrv.Close)

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := strings.ReplaceAll(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "\n", `\n`)
	s.google = googlefake.New(&key.PublicKey, serviceAccount, calendarID, google.Scopes)
	googleSrv := httptest.NewServer(s.google)
	t.Cleanup(googleSrv.Close)

	s.images = imagegenfake.New(imageKey)
	t.Cleanup(s.images.Close)

	s.vars = map[string]string{
		"DATABASE_URL": s.dsn, "REDIS_URL": s.redis.url(), "NEXTAUTH_SECRET": sessionSecret,
		"FOLIO_ADMIN_EMAIL": ownerEmail, "FOLIO_ADMIN_PASSWORD": ownerPassword, "FOLIO_JOBS_POLL_SECONDS": "1",
		"TRUSTED_PROXIES": "127.0.0.1/32", "FOLIO_SITE_URL": "https://site.example.test",
		// The scripted day polls public routes from one address; the public tier is not what it
		// tests (the fault test that does sets its own), so its budget must not run out mid-poll.
		"RATE_LIMIT_PUBLIC_PER_HOUR": "1000000",
		"SMTP_HOST":                  s.smtp.Host, "SMTP_PORT": strconv.Itoa(s.smtp.Port), "SMTP_TLS": "none",
		"SMTP_FROM": "Folio <folio@example.com>", "CONTACT_RECIPIENT": "Owner <" + ownerEmail + ">",
		"EXTBLOG_API_URL": blogSrv.URL, "EXTBLOG_API_TOKEN": extblogfake.DefaultToken,
		"EXTBLOG_PUBLICATION_ID": extblogfake.DefaultPublicationID, "EXTBLOG_PUBLICATION_HOST": extblogfake.DefaultHost,
		"EXTBLOG_WEBHOOK_SECRET": webhookSecret, "METRICS_TOKEN": metricsToken,
		"IMAGE_API_BASE_URL": s.images.BaseURL(), "IMAGE_API_KEY": imageKey, "IMAGE_MODEL": "gpt-image-1",
		"CALENDAR_PROVIDER": "google", "PROVIDER_CALENDAR_ID": calendarID, "PROVIDER_SERVICE_ACCOUNT_EMAIL": serviceAccount,
		"PROVIDER_SERVICE_ACCOUNT_PRIVATE_KEY": pemKey, "PROVIDER_API_URL": googleSrv.URL + "/calendar/v3/",
		"PROVIDER_TOKEN_URL": googleSrv.URL + "/token",
	}
	if withS3 {
		s3cfg.Bucket = "folio-e2e-" + randomHex(5)
		s3cfg.TempDir = t.TempDir()
		if s.s3, err = blob.NewS3(context.Background(), s3cfg); err != nil {
			t.Fatal(err)
		}
		if err := s.s3.EnsureBucket(context.Background()); err != nil {
			t.Fatalf("create bucket %s: %v", s3cfg.Bucket, err)
		}
		for k, v := range map[string]string{"MEDIA_STORAGE": "s3", "S3_ENDPOINT": s3cfg.Endpoint, "S3_BUCKET": s3cfg.Bucket,
			"S3_REGION": "us-east-1", "S3_ACCESS_KEY_ID": s3cfg.AccessKeyID, "S3_SECRET_ACCESS_KEY": s3cfg.SecretAccessKey,
			"S3_FORCE_PATH_STYLE": "true"} {
			s.vars[k] = v
		}
	}
	return s
}

// instance prepares a folio instance on the stack; extra overrides the stack's variables.
func (s *stack) instance(name string, extra map[string]string) *instance {
	vars := map[string]string{}
	for k, v := range s.vars {
		vars[k] = v
	}
	for k, v := range extra {
		vars[k] = v
	}
	return newInstance(s.t, name, vars)
}

// startAll starts the instances at the same time (both run migrations and the first-owner
// bootstrap concurrently, as a rolling deploy of several instances does).
func startAll(t *testing.T, ins ...*instance) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan string, len(ins))
	for _, in := range ins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in.proc = startProcess(t, in.dir, in.env, folioBinary(t), "serve")
			select {
			case a := <-in.proc.logs.addr:
				in.base = "http://" + a
			case <-in.proc.done:
				errs <- fmt.Sprintf("%s exited before listening:\n%s", in.name, in.proc.logs.tail(6000))
			case <-time.After(60 * time.Second):
				errs <- fmt.Sprintf("%s did not listen within 60 s", in.name)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// reply is one HTTP answer, or the transport error that stopped it.
type reply struct {
	status int
	header http.Header
	body   []byte
	err    error
}

var httpClient = &http.Client{Timeout: 60 * time.Second}

// call sends one request. body is nil, []byte (sent as is) or a value sent as JSON; hdr are
// header name/value pairs.
func call(method, url string, body any, hdr ...string) reply {
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return reply{err: err}
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return reply{err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := httpClient.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return reply{status: res.StatusCode, header: res.Header, body: b, err: err}
}

func (r reply) String() string {
	if r.err != nil {
		return "transport error: " + r.err.Error()
	}
	b := r.body
	if len(b) > 600 {
		b = b[:600]
	}
	return fmt.Sprintf("%d %s", r.status, b)
}

// decode parses the JSON body into v.
func (r reply) decode(t *testing.T, v any) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("request failed: %v", r.err)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body is not the expected JSON (%v): %s", err, r)
	}
}

// code is the error envelope's code ("" when the body is not an envelope).
func (r reply) code() string {
	var env struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(r.body, &env)
	return env.Error.Code
}

// want fails the test unless the reply has the status.
func (r reply) want(t *testing.T, status int, what string) reply {
	t.Helper()
	if r.err != nil || r.status != status {
		t.Fatalf("%s: want %d, got %s", what, status, r)
	}
	return r
}

func bearer(key string) []string { return []string{"Authorization", "Bearer " + key} }

// eventually polls f until it is true; the deadline only keeps a broken build from hanging.
func eventually(t *testing.T, what string, deadline time.Duration, f func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !f() {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting (%s): %s", deadline, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var metricLine = regexp.MustCompile(`(?m)^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$`)

// metric sums every sample of the named metric on the instance's /metrics.
func metric(t *testing.T, base, name string) float64 {
	t.Helper()
	r := call("GET", base+"/metrics", nil, bearer(metricsToken)...)
	r.want(t, http.StatusOK, "/metrics")
	var sum float64
	for _, m := range metricLine.FindAllStringSubmatch(string(r.body), -1) {
		if m[1] == name {
			v, _ := strconv.ParseFloat(m[3], 64)
			sum += v
		}
	}
	return sum
}

type googleEvent = googlefake.Event
