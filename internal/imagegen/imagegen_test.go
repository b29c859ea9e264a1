package imagegen_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/imagegen"
	"github.com/foliohq/folio/internal/imagegen/imagegenfake"
	"github.com/foliohq/folio/internal/netguard"
)

const testKey = "sk-test-0123456789abcdef"

func mustFake(t *testing.T) *imagegenfake.Server {
	t.Helper()
	f := imagegenfake.New(testKey)
	t.Cleanup(f.Close)
	return f
}

func mustClient(t *testing.T, cfg imagegen.Config) *imagegen.Client {
	t.Helper()
	c, err := imagegen.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGenerateAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		model          string
		mode           imagegenfake.Mode
		size           string
		wantFormat     string // response_format the client must send
		wantRevised    bool
		wantDownloaded bool
	}{
		{name: "gpt-image-1 answers b64 without response_format", model: "gpt-image-1", size: "1536x1024"},
		{name: "dall-e-3 asked for b64", model: "dall-e-3", size: "1792x1024", wantFormat: "b64_json", wantRevised: true},
		{name: "url answer is downloaded", model: "dall-e-2", mode: imagegenfake.ModeURL, size: "512x512", wantFormat: "b64_json", wantDownloaded: true},
		{name: "data URL answer", model: "gpt-image-1", mode: imagegenfake.ModeDataURL, size: "1024x1024"},
		{name: "explicit b64", model: "some-compatible-model", mode: imagegenfake.ModeB64, size: "256x256", wantFormat: "b64_json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := mustFake(t)
			f.SetMode(tt.mode)
			c := mustClient(t, imagegen.Config{BaseURL: f.BaseURL(), APIKey: testKey, Model: tt.model, Download: loopbackAllowed})
			data, ct, revised, err := c.Generate(context.Background(), "a red dot", tt.size)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if ct != "image/png" {
				t.Errorf("content type = %q, want image/png", ct)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("answer is not a PNG: %v", err)
			}
			var w, h int
			if _, err := fmt.Sscanf(tt.size, "%dx%d", &w, &h); err != nil || cfg.Width != w || cfg.Height != h {
				t.Errorf("image is %dx%d, want %s", cfg.Width, cfg.Height, tt.size)
			}
			if (revised != "") != tt.wantRevised {
				t.Errorf("revised prompt = %q, want one: %v", revised, tt.wantRevised)
			}
			reqs := f.Requests()
			if len(reqs) != 1 {
				t.Fatalf("fake saw %d requests, want 1", len(reqs))
			}
			want := imagegenfake.Request{Model: tt.model, Prompt: "a red dot", N: 1, Size: tt.size, ResponseFormat: tt.wantFormat}
			if reqs[0] != want {
				t.Errorf("request = %+v, want %+v", reqs[0], want)
			}
			downloads := f.Downloads()
			if (len(downloads) == 1) != tt.wantDownloaded {
				t.Errorf("downloads = %d, want downloaded: %v", len(downloads), tt.wantDownloaded)
			}
			for _, h := range downloads {
				if h.Get("Authorization") != "" {
					t.Error("the API key was sent to the image download URL")
				}
			}
		})
	}
}

func TestGenerateFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		mode       imagegenfake.Mode
		key        string
		model      string
		prompt     string
		size       string
		cfg        imagegen.Config
		wantCode   string
		wantStatus int
		wantField  string
		wantMsg    string
	}{
		{name: "500", mode: imagegenfake.ModeServerError, wantCode: folio.EUPSTREAM, wantMsg: "HTTP 500"},
		{name: "429", mode: imagegenfake.ModeRateLimit, wantCode: folio.EUPSTREAM, wantMsg: "rate limiting"},
		{name: "slow", mode: imagegenfake.ModeSlow, cfg: imagegen.Config{Timeout: 300 * time.Millisecond}, wantCode: folio.EUPSTREAM, wantMsg: "in time"},
		{name: "malformed", mode: imagegenfake.ModeMalformed, wantCode: folio.EUPSTREAM, wantMsg: "unusable"},
		{name: "bad base64", mode: imagegenfake.ModeBadBase64, wantCode: folio.EUPSTREAM},
		{name: "empty data", mode: imagegenfake.ModeEmpty, wantCode: folio.EUPSTREAM},
		{name: "broken url", mode: imagegenfake.ModeBrokenURL, wantCode: folio.EUPSTREAM},
		{name: "content policy", mode: imagegenfake.ModeContentPolicy, wantCode: folio.EINVALID, wantStatus: 422, wantField: "prompt"},
		{name: "wrong key", key: "sk-wrong-key-9999999999", wantCode: folio.EUPSTREAM, wantMsg: "credentials"},
		{name: "size the API rejects", size: "999x999", wantCode: folio.EUPSTREAM, wantMsg: "HTTP 400"},
		{name: "prompt over the API's limit", prompt: strings.Repeat("x", 4001), wantCode: folio.EUPSTREAM},
		{name: "b64 image over the cap", mode: imagegenfake.ModeB64, cfg: imagegen.Config{MaxImageBytes: 100}, wantCode: folio.EUPSTREAM},
		{name: "downloaded image over the cap", mode: imagegenfake.ModeURL, cfg: imagegen.Config{MaxImageBytes: 100}, wantCode: folio.EUPSTREAM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := mustFake(t)
			f.SetMode(tt.mode)
			cfg := tt.cfg
			cfg.BaseURL, cfg.APIKey, cfg.Model, cfg.Download = f.BaseURL(), testKey, "gpt-image-1", loopbackAllowed
			if tt.key != "" {
				cfg.APIKey = tt.key
			}
			c := mustClient(t, cfg)
			prompt, size := "a cat", "1024x1024"
			if tt.prompt != "" {
				prompt = tt.prompt
			}
			if tt.size != "" {
				size = tt.size
			}
			_, _, _, err := c.Generate(context.Background(), prompt, size)
			var fe *folio.Error
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *folio.Error", err)
			}
			if fe.Code != tt.wantCode || (tt.wantStatus != 0 && (tt.wantStatus == 422) != fe.RuleBroken) {
				t.Errorf("err = %v (rule broken %v), want %s %d", err, fe.RuleBroken, tt.wantCode, tt.wantStatus)
			}
			if tt.wantField != "" && (len(fe.Details) == 0 || fe.Details[0].Field != tt.wantField) {
				t.Errorf("details = %+v, want field %s", fe.Details, tt.wantField)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("err = %q, want it to mention %q", err, tt.wantMsg)
			}
			assertNoSecret(t, err, cfg.APIKey)
		})
	}
}

// assertNoSecret checks that neither the key nor the fragments the upstream quotes of it
// appear in what the caller or the log sees.
func assertNoSecret(t *testing.T, err error, key string) {
	t.Helper()
	for _, s := range []string{key, key[:3] + "*****", key[len(key)-4:]} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error %q contains %q from the API key", err, s)
		}
		var fe *folio.Error
		if errors.As(err, &fe) && strings.Contains(fe.Message, s) {
			t.Errorf("message %q contains %q from the API key", fe.Message, s)
		}
	}
}

func TestGenerateCallerGone(t *testing.T) {
	t.Parallel()
	f := mustFake(t)
	f.SetMode(imagegenfake.ModeSlow)
	c := mustClient(t, imagegen.Config{BaseURL: f.BaseURL(), APIKey: testKey})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(f.Requests()) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	_, _, _, err := c.Generate(ctx, "a cat", "1024x1024")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if folio.ErrorCode(err) == folio.EUPSTREAM {
		t.Error("a caller that went away was reported as an upstream failure")
	}
}

func TestGenerateUnreachable(t *testing.T) {
	t.Parallel()
	f := imagegenfake.New(testKey)
	base := f.BaseURL()
	f.Close()
	c := mustClient(t, imagegen.Config{BaseURL: base, APIKey: testKey})
	_, _, _, err := c.Generate(context.Background(), "a cat", "1024x1024")
	if folio.ErrorCode(err) != folio.EUPSTREAM {
		t.Fatalf("err = %v, want %s", err, folio.EUPSTREAM)
	}
	assertNoSecret(t, err, testKey)
}

func TestNew(t *testing.T) {
	t.Parallel()
	if _, err := imagegen.New(imagegen.Config{}); err == nil || !strings.Contains(err.Error(), "IMAGE_API_KEY") {
		t.Errorf("New without key: err = %v, want one naming IMAGE_API_KEY", err)
	}
	if _, err := imagegen.New(imagegen.Config{APIKey: testKey, BaseURL: "ftp://x"}); err == nil || strings.Contains(err.Error(), testKey) {
		t.Errorf("New with ftp base: err = %v", err)
	}
	c := mustClient(t, imagegen.Config{APIKey: testKey})
	if c.Model() != imagegen.DefaultModel {
		t.Errorf("default model = %q", c.Model())
	}
}

func TestFakeChecksRequests(t *testing.T) {
	t.Parallel()
	f := mustFake(t)
	tests := []struct {
		name   string
		method string
		path   string
		auth   string
		ctype  string
		body   string
		want   int
	}{
		{"ok", "POST", "/v1/images/generations", "Bearer " + testKey, "application/json", `{"model":"dall-e-3","prompt":"x","n":1,"size":"1024x1024","response_format":"b64_json"}`, 200},
		{"GET", "GET", "/v1/images/generations", "Bearer " + testKey, "application/json", ``, 405},
		{"wrong path", "POST", "/v1/images/generate", "Bearer " + testKey, "application/json", `{}`, 404},
		{"no key", "POST", "/v1/images/generations", "", "application/json", `{"model":"m","prompt":"x"}`, 401},
		{"basic auth", "POST", "/v1/images/generations", "Basic eDp5", "application/json", `{"model":"m","prompt":"x"}`, 401},
		{"form body", "POST", "/v1/images/generations", "Bearer " + testKey, "application/x-www-form-urlencoded", `model=m`, 400},
		{"no model", "POST", "/v1/images/generations", "Bearer " + testKey, "application/json", `{"prompt":"x"}`, 400},
		{"no prompt", "POST", "/v1/images/generations", "Bearer " + testKey, "application/json", `{"model":"m"}`, 400},
		{"n=0", "POST", "/v1/images/generations", "Bearer " + testKey, "application/json", `{"model":"m","prompt":"x","n":0}`, 400},
		{"unknown field", "POST", "/v1/images/generations", "Bearer " + testKey, "application/json", `{"model":"m","prompt":"x","colour":"red"}`, 400},
		{"response_format with gpt-image", "POST", "/v1/images/generations", "Bearer " + testKey, "application/json", `{"model":"gpt-image-1","prompt":"x","response_format":"url"}`, 400},
		{"bad response_format", "POST", "/v1/images/generations", "Bearer " + testKey, "application/json", `{"model":"dall-e-2","prompt":"x","response_format":"jpeg"}`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, f.URL+tt.path, strings.NewReader(tt.body))
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			req.Header.Set("Content-Type", tt.ctype)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status = %d, want %d (%s)", resp.StatusCode, tt.want, b)
			}
			if tt.want != 200 && !strings.Contains(string(b), `"error"`) {
				t.Errorf("error body %s lacks the OpenAI error envelope", b)
			}
		})
	}
}

func TestParseDataURL(t *testing.T) {
	t.Parallel()
	png := []byte("\x89PNG\r\n\x1a\nrest")
	tests := []struct {
		in       string
		wantType string
		wantData string
		wantErr  bool
	}{
		{"data:image/png;base64," + base64.StdEncoding.EncodeToString(png), "image/png", string(png), false},
		{"data:image/png;base64," + base64.RawStdEncoding.EncodeToString(png), "image/png", string(png), false},
		{"data:IMAGE/PNG;charset=x;BASE64," + base64.StdEncoding.EncodeToString(png), "image/png", string(png), false},
		{"data:,hello%20world", "text/plain", "hello world", false},
		{"data:image/png;base64,%2B%2F8%3D", "image/png", "\xfb\xff", false},
		{"data:image/png;base64,!!!", "", "", true},
		{"data:image/png;base64", "", "", true},
		{"image/png;base64,AAAA", "", "", true},
		{"data:png;base64,AAAA", "", "", true},
	}
	for _, tt := range tests {
		mt, data, err := imagegen.ParseDataURL(tt.in)
		if (err != nil) != tt.wantErr || mt != tt.wantType || string(data) != tt.wantData {
			t.Errorf("ParseDataURL(%.40q) = %q, %q, %v; want %q, %q, err %v", tt.in, mt, data, err, tt.wantType, tt.wantData, tt.wantErr)
		}
	}
}

func FuzzParseDataURL(f *testing.F) {
	for _, s := range []string{"data:image/png;base64,iVBORw0KGgo=", "data:,x", "data:;base64,", "data:a/b;base64,%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mt, _, err := imagegen.ParseDataURL(s)
		if err == nil && !strings.Contains(mt, "/") {
			t.Fatalf("ParseDataURL(%q) media type %q", s, mt)
		}
	})
}

// roundTripFunc answers requests without a network.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzGenerateAnswer feeds arbitrary upstream answers to the client: it must never panic, and
// every failure must be a folio error (502, or 422 for content policy) free of the key.
func FuzzGenerateAnswer(f *testing.F) {
	f.Add(200, []byte(`{"data":[{"b64_json":"iVBORw0KGgo="}]}`))
	f.Add(200, []byte(`{"data":[{"url":"data:image/png;base64,iVBORw0KGgo="}]}`))
	f.Add(200, []byte(`{"data":[{"url":"http://127.0.0.1:1/x.png"}]}`))
	f.Add(400, []byte(`{"error":{"code":"content_policy_violation","message":"Incorrect API key provided: sk-te*****cdef"}}`))
	f.Add(401, []byte(`{"error":{"code":123}}`))
	f.Add(200, []byte(`{"data":[{}]}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 599 {
			return
		}
		client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.URL.Host != "api.test" {
				return nil, errors.New("no network in this test")
			}
			return &http.Response{StatusCode: status, Body: io.NopCloser(bytes.NewReader(body)), Header: http.Header{}, Request: r}, nil
		})}
		c := mustClient(t, imagegen.Config{BaseURL: "https://api.test/v1", APIKey: testKey, HTTPClient: client, MaxImageBytes: 1 << 16})
		data, _, _, err := c.Generate(context.Background(), "p", "1024x1024")
		if err == nil {
			if len(data) == 0 {
				t.Fatal("success without data")
			}
			return
		}
		switch folio.ErrorCode(err) {
		case folio.EUPSTREAM, folio.EINVALID:
		default:
			t.Fatalf("err = %v, want UPSTREAM_ERROR or VALIDATION_ERROR", err)
		}
		assertNoSecret(t, err, testKey)
	})
}

// loopbackAllowed lets downloads reach the fake on loopback, as IMAGE_ALLOW_PRIVATE would; the
// default policy refuses it (TestDownloadRefusesNonPublicAddresses).
var loopbackAllowed = netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}

// Ensure a url answer on a loopback or private address is not fetched by default — directly, by
// host name, or through a redirect from an allowed host — and the caller gets a 502, not the
// bytes; with the opt-in the same answer is fetched.
func TestDownloadRefusesNonPublicAddresses(t *testing.T) {
	t.Parallel()
	f := mustFake(t)
	f.SetMode(imagegenfake.ModeURL)
	c := mustClient(t, imagegen.Config{BaseURL: f.BaseURL(), APIKey: testKey, Model: "dall-e-2"})
	_, _, _, err := c.Generate(context.Background(), "a cat", "256x256")
	if folio.ErrorCode(err) != folio.EUPSTREAM || !errors.Is(err, netguard.ErrForbidden) {
		t.Fatalf("url on loopback with the default policy: %v", err)
	}
	if n := len(f.Downloads()); n != 0 {
		t.Fatalf("the fake served %d downloads despite the guard", n)
	}

	// A provider on an allowed address (127.0.0.2 stands in for a public one) whose image URL
	// redirects to loopback (the fake's own image): the redirect is not followed.
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	var hits atomic.Int32
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(inner.Close)
	api := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/img.png" {
			http.Redirect(w, r, inner.URL+"/secret.png", http.StatusFound)
			return
		}
		fmt.Fprintf(w, `{"data":[{"url":"http://%s/img.png"}]}`, ln.Addr().String())
	}))
	api.Listener = ln
	api.Start()
	t.Cleanup(api.Close)
	only2 := netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}
	c2 := mustClient(t, imagegen.Config{BaseURL: api.URL, APIKey: testKey, Model: "dall-e-2", Download: only2})
	_, _, _, err = c2.Generate(context.Background(), "a cat", "256x256")
	if folio.ErrorCode(err) != folio.EUPSTREAM || !errors.Is(err, netguard.ErrForbidden) {
		t.Fatalf("redirect to loopback: %v", err)
	}
	if hits.Load() != 0 {
		t.Fatal("the redirect to loopback was followed")
	}

	// The opt-in (IMAGE_ALLOW_PRIVATE=true) fetches it.
	c3 := mustClient(t, imagegen.Config{BaseURL: f.BaseURL(), APIKey: testKey, Model: "dall-e-2", Download: netguard.Policy{AllowPrivate: true}})
	if data, _, _, err := c3.Generate(context.Background(), "a cat", "256x256"); err != nil || len(data) == 0 {
		t.Fatalf("with AllowPrivate: %v", err)
	}
}
