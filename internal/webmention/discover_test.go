package webmention

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestEndpointDiscovery runs the discovery cases of the Webmention spec's test suite
// (webmention.rocks, tests 1–22; 23, a redirect, is TestDiscoverAfterRedirect).
func TestEndpointDiscovery(t *testing.T) {
	const page = "https://webmention.rocks/test/%d"
	cases := []struct {
		n      int
		header []string // Link header values
		body   string
		want   string
	}{
		{1, []string{`</test/1/webmention?head=true>; rel=webmention`}, ``, "https://webmention.rocks/test/1/webmention?head=true"},
		{2, []string{`<https://webmention.rocks/test/2/webmention?head=true>; rel=webmention`}, ``, "https://webmention.rocks/test/2/webmention?head=true"},
		{3, nil, `<html><head><link rel="webmention" href="/test/3/webmention"></head></html>`, "https://webmention.rocks/test/3/webmention"},
		{4, nil, `<link rel="webmention" href="https://webmention.rocks/test/4/webmention">`, "https://webmention.rocks/test/4/webmention"},
		{5, nil, `<p><a rel="webmention" href="/test/5/webmention">endpoint</a></p>`, "https://webmention.rocks/test/5/webmention"},
		{6, nil, `<a rel="webmention" href="https://webmention.rocks/test/6/webmention">e</a>`, "https://webmention.rocks/test/6/webmention"},
		{7, []string{`<https://webmention.rocks/test/7/webmention?head=true>; rel=webmention`}, ``, "https://webmention.rocks/test/7/webmention?head=true"}, // "LinK:" casing: the header map is canonical
		{8, []string{`<https://webmention.rocks/test/8/webmention?head=true>; rel="webmention"`}, ``, "https://webmention.rocks/test/8/webmention?head=true"},
		{9, nil, `<link rel="webmention somethingelse" href="/test/9/webmention">`, "https://webmention.rocks/test/9/webmention"},
		{10, []string{`<https://webmention.rocks/test/10/webmention?head=true>; rel="webmention somethingelse"`}, ``, "https://webmention.rocks/test/10/webmention?head=true"},
		{11, []string{`<https://webmention.rocks/test/11/webmention>; rel="webmention"`},
			`<link rel="webmention" href="/test/11/webmention/error"><a rel="webmention" href="/test/11/webmention/error">x</a>`, "https://webmention.rocks/test/11/webmention"},
		{12, nil, `<link rel="not-webmention" href="/test/12/webmention/error"><link rel="webmention" href="/test/12/webmention">`, "https://webmention.rocks/test/12/webmention"},
		{13, nil, `<!-- <link rel="webmention" href="/test/13/webmention/error"> --><link rel="webmention" href="/test/13/webmention">`, "https://webmention.rocks/test/13/webmention"},
		{14, nil, `<code>&lt;a href="/test/14/webmention/error" rel="webmention"&gt;&lt;/a&gt;</code><a rel="webmention" href="/test/14/webmention">e</a>`, "https://webmention.rocks/test/14/webmention"},
		{15, nil, `<link rel="webmention" href="">`, "https://webmention.rocks/test/15"},
		{16, nil, `<a rel="webmention" href="/test/16/webmention">a</a><link rel="webmention" href="/test/16/webmention/error">`, "https://webmention.rocks/test/16/webmention"},
		{17, nil, `<link rel="webmention" href="/test/17/webmention"><a rel="webmention" href="/test/17/webmention/error">a</a>`, "https://webmention.rocks/test/17/webmention"},
		{18, []string{`<https://webmention.rocks/test/18/webmention/error>; rel="other"`, `<https://webmention.rocks/test/18/webmention?head=true>; rel="webmention"`}, ``, "https://webmention.rocks/test/18/webmention?head=true"},
		{19, []string{`<https://webmention.rocks/test/19/webmention/error>; rel="other", <https://webmention.rocks/test/19/webmention?head=true>; rel="webmention"`}, ``, "https://webmention.rocks/test/19/webmention?head=true"},
		{20, nil, `<link rel="webmention"><a rel="webmention" href="/test/20/webmention">a</a>`, "https://webmention.rocks/test/20/webmention"},
		{21, nil, `<link rel="webmention" href="/test/21/webmention?query=yes">`, "https://webmention.rocks/test/21/webmention?query=yes"},
		{22, nil, `<link rel="webmention" href="22/webmention">`, "https://webmention.rocks/test/22/webmention"},
		{0, nil, `<p>no endpoint</p>`, ""},
	}
	for _, c := range cases {
		base, _ := url.Parse(fmt.Sprintf(page, c.n))
		h := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
		for _, v := range c.header {
			h.Add("Link", v)
		}
		if got := Endpoint(base, h, strings.NewReader(c.body)); got != c.want {
			t.Errorf("test %d: endpoint %q, want %q", c.n, got, c.want)
		}
	}
}

// TestDiscoverAfterRedirect is the suite's test 23: a relative endpoint resolves against the
// page's URL after redirects.
func TestDiscoverAfterRedirect(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/test/23/page", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/test/23/page/final/", http.StatusFound)
	})
	mux.HandleFunc("/test/23/page/final/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<link rel="webmention" href="webmention-endpoint">`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	got, err := Discover(context.Background(), srv.Client(), srv.URL+"/test/23/page")
	if want := srv.URL + "/test/23/page/final/webmention-endpoint"; err != nil || got != want {
		t.Fatalf("Discover = %q, %v; want %q", got, err, want)
	}
}
