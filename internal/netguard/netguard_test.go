package netguard

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func TestPublic(t *testing.T) {
	for addr, want := range map[string]bool{
		"1.1.1.1": true, "8.8.8.8": true, "2606:4700:4700::1111": true, "93.184.215.14": true,
		"127.0.0.1": false, "127.9.9.9": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false,
		"172.31.255.255": false, "192.168.1.1": false, "169.254.169.254": false, "fe80::1": false,
		"fc00::1": false, "fd12:3456::1": false, "0.0.0.0": false, "::": false, "100.64.0.1": false,
		"224.0.0.1": false, "ff02::1": false, "255.255.255.255": false, "::ffff:127.0.0.1": false,
		"::ffff:169.254.169.254": false, "64:ff9b::7f00:1": false, "198.18.0.1": false, "0.1.2.3": false,
		"172.32.0.1": true, "100.128.0.1": true,
	} {
		if got := Public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Public(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestClientRefusesLoopbackByNameAndAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	c := Policy{}.Client(5 * time.Second)
	for _, u := range []string{srv.URL, "http://localhost:" + port + "/", "http://[::ffff:127.0.0.1]:" + port + "/"} {
		resp, err := c.Get(u)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("GET %s went through the guard", u)
		}
		if !errors.Is(err, ErrForbidden) {
			t.Fatalf("GET %s: %v, want ErrForbidden", u, err)
		}
	}
	resp, err := Policy{AllowPrivate: true}.Client(5 * time.Second).Get(srv.URL)
	if err != nil {
		t.Fatalf("AllowPrivate: %v", err)
	}
	resp.Body.Close()
}

// A redirect from an allowed destination to a forbidden one is refused: each hop dials through
// the guard. 127.0.0.2 stands in for a public address through Policy.Allow.
func TestClientRefusesRedirectToForbiddenAddress(t *testing.T) {
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret") }))
	defer inner.Close()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	outer := httptest.NewUnstartedServer(http.RedirectHandler(inner.URL, http.StatusFound))
	outer.Listener = ln
	outer.Start()
	defer outer.Close()

	p := Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}
	resp, err := p.Client(5 * time.Second).Get(outer.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("redirect to 127.0.0.1 was followed")
	}
	if !errors.Is(err, ErrForbidden) {
		t.Fatalf("redirect: %v, want ErrForbidden", err)
	}
	// Without the redirect the allowed address answers.
	resp, err = p.Client(5 * time.Second).Get(inner.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("127.0.0.1 allowed although only 127.0.0.2 is listed")
	}
}

func FuzzPublic(f *testing.F) {
	f.Add([]byte{127, 0, 0, 1})
	f.Add(netip.MustParseAddr("::ffff:10.0.0.1").AsSlice())
	f.Fuzz(func(t *testing.T, b []byte) {
		ip, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		if Public(ip) && (ip.Unmap().IsLoopback() || ip.Unmap().IsPrivate() || ip.Unmap().IsLinkLocalUnicast()) {
			t.Fatalf("Public(%s) is true for a loopback/private/link-local address", ip)
		}
		if Public(ip) != Public(ip.Unmap()) {
			t.Fatalf("Public differs for %s and its unmapped form", ip)
		}
	})
}
