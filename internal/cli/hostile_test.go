package cli

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
)

// Ensure serve with METRICS_ADDR serves /metrics there (behind METRICS_TOKEN when set) and not on
// FOLIO_ADDR, and that, with the platform configured, it says at start that the platform webhook
// refuses deliveries without EXTBLOG_WEBHOOK_SECRET.
func TestServeMetricsAddrAndStartWarnings(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	metricsAddr := ln.Addr().String()
	ln.Close()
	const token = "cli-test-metrics-token-0123456789abcdef"
	const platformToken = "cli-test-platform-token-0123456789abcdef"
	env, _, logs := envWith(t, map[string]string{"FOLIO_ADDR": "127.0.0.1:0", "METRICS_ADDR": metricsAddr, "METRICS_TOKEN": token,
		"EXTBLOG_API_TOKEN": platformToken, "EXTBLOG_API_URL": "http://127.0.0.1:1/graphql"})
	addr := make(chan string, 1)
	env.Ready = func(a string) { addr <- a }
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, nil, env) }()
	defer func() { stop(); <-done }()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-done:
		t.Fatalf("serve exited: %v\n%s", err, logs)
	}
	get := func(url, tok string) int {
		req, _ := http.NewRequest("GET", url, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if s := get(base+"/metrics", token); s != 404 {
		t.Errorf("/metrics on FOLIO_ADDR with METRICS_ADDR set: %d", s)
	}
	if s := get("http://"+metricsAddr+"/metrics", ""); s != 401 {
		t.Errorf("/metrics on METRICS_ADDR without the token: %d", s)
	}
	if s := get("http://"+metricsAddr+"/metrics", token); s != 200 {
		t.Errorf("/metrics on METRICS_ADDR with the token: %d", s)
	}
	if !strings.Contains(logs.String(), "EXTBLOG_WEBHOOK_SECRET is not set") {
		t.Errorf("no start warning about the webhook:\n%s", logs)
	}
	if strings.Contains(logs.String(), token) {
		t.Error("METRICS_TOKEN reached the log")
	}
	if strings.Contains(logs.String(), platformToken) {
		t.Error("EXTBLOG_API_TOKEN reached the log")
	}
}
