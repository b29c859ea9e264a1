package clientip

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestParseTrusted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr bool
	}{
		{name: "empty", in: "", want: nil},
		{name: "only separators", in: " , ,", want: nil},
		{name: "cidrs and bare ips", in: "10.0.0.0/8, 192.0.2.7 ,fd00::/8,2001:db8::1",
			want: []string{"10.0.0.0/8", "192.0.2.7/32", "fd00::/8", "2001:db8::1/128"}},
		{name: "host bits cleared", in: "10.1.2.3/8", want: []string{"10.0.0.0/8"}},
		{name: "ipv4-mapped forms become ipv4", in: "::ffff:192.0.2.7,::ffff:10.0.0.0/104",
			want: []string{"192.0.2.7/32", "10.0.0.0/8"}},
		{name: "garbage", in: "10.0.0.0/8,proxy.example", wantErr: true},
		{name: "bad prefix length", in: "10.0.0.0/33", wantErr: true},
		{name: "zone", in: "fe80::1%eth0", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTrusted(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseTrusted(%q) = %v, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTrusted(%q): %v", tt.in, err)
			}
			var gotS []string
			for _, p := range got {
				gotS = append(gotS, p.String())
			}
			if !slices.Equal(gotS, tt.want) {
				t.Errorf("ParseTrusted(%q) = %v, want %v", tt.in, gotS, tt.want)
			}
		})
	}
}

func TestClientIP(t *testing.T) {
	t.Parallel()
	trusted, err := ParseTrusted("10.0.0.0/8, 192.0.2.1, 2001:db8:ffff::/48")
	if err != nil {
		t.Fatal(err)
	}
	res := New(trusted)

	tests := []struct {
		name   string
		remote string
		xff    []string // one element per X-Forwarded-For header line
		want   string   // "" means the invalid Addr
	}{
		{name: "untrusted peer, no header", remote: "198.51.100.7:4431", want: "198.51.100.7"},
		{name: "forged header from an untrusted peer changes nothing", remote: "198.51.100.7:4431",
			xff: []string{"1.2.3.4"}, want: "198.51.100.7"},
		{name: "forged chain of trusted addresses from an untrusted peer", remote: "198.51.100.7:4431",
			xff: []string{"10.0.0.1, 10.0.0.2"}, want: "198.51.100.7"},
		{name: "trusted peer, no header", remote: "10.0.0.5:80", want: "10.0.0.5"},
		{name: "trusted peer, one client", remote: "10.0.0.5:80", xff: []string{"203.0.113.9"}, want: "203.0.113.9"},
		{name: "client-supplied left entries are ignored", remote: "10.0.0.5:80",
			xff: []string{"6.6.6.6, 7.7.7.7, 203.0.113.9"}, want: "203.0.113.9"},
		{name: "trusted hops skipped", remote: "10.0.0.5:80",
			xff: []string{"6.6.6.6, 203.0.113.9, 10.1.1.1, 192.0.2.1"}, want: "203.0.113.9"},
		{name: "several header lines joined in order", remote: "10.0.0.5:80",
			xff: []string{"6.6.6.6, 203.0.113.9", "10.1.1.1"}, want: "203.0.113.9"},
		{name: "all hops trusted gives the left-most", remote: "10.0.0.5:80",
			xff: []string{"10.9.9.9, 10.1.1.1"}, want: "10.9.9.9"},
		{name: "spaces and tabs", remote: "10.0.0.5:80", xff: []string{"  6.6.6.6 ,\t203.0.113.9\t, 10.1.1.1 "},
			want: "203.0.113.9"},
		{name: "garbage right of the client stops at the last good hop", remote: "10.0.0.5:80",
			xff: []string{"203.0.113.9, not-an-ip, 10.1.1.1"}, want: "10.1.1.1"},
		{name: "garbage as the right-most entry gives the peer", remote: "10.0.0.5:80",
			xff: []string{"203.0.113.9, unknown"}, want: "10.0.0.5"},
		{name: "empty entry stops the walk", remote: "10.0.0.5:80",
			xff: []string{"203.0.113.9,,10.1.1.1"}, want: "10.1.1.1"},
		{name: "empty header gives the peer", remote: "10.0.0.5:80", xff: []string{""}, want: "10.0.0.5"},
		{name: "garbage left of the client is never reached", remote: "10.0.0.5:80",
			xff: []string{"<script>, 203.0.113.9"}, want: "203.0.113.9"},
		{name: "entries with ports", remote: "10.0.0.5:80",
			xff: []string{"203.0.113.9:5555, [2001:db8::7]:443"}, want: "2001:db8::7"},
		{name: "ipv6 peer and client", remote: "[2001:db8:ffff::1]:443",
			xff: []string{"2001:db8:1::42, 2001:db8:ffff:1::9"}, want: "2001:db8:1::42"},
		{name: "ipv6 untrusted peer", remote: "[2001:db8:1::42]:443", xff: []string{"1.2.3.4"}, want: "2001:db8:1::42"},
		{name: "ipv4-mapped peer is trusted as ipv4", remote: "[::ffff:10.0.0.5]:80",
			xff: []string{"203.0.113.9"}, want: "203.0.113.9"},
		{name: "ipv4-mapped client is normalised", remote: "10.0.0.5:80",
			xff: []string{"::ffff:203.0.113.9"}, want: "203.0.113.9"},
		{name: "ipv4-mapped untrusted peer is normalised", remote: "[::ffff:198.51.100.7]:1", want: "198.51.100.7"},
		{name: "zone dropped", remote: "[fe80::1%eth0]:80", want: "fe80::1"},
		{name: "remote without port", remote: "198.51.100.7", want: "198.51.100.7"},
		{name: "unparseable remote", remote: "pipe", xff: []string{"1.2.3.4"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodGet, "/api/projects", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			got := res.ClientIP(r)
			if tt.want == "" {
				if got.IsValid() {
					t.Errorf("ClientIP = %s, want the invalid Addr", got)
				}
				return
			}
			if got != netip.MustParseAddr(tt.want) {
				t.Errorf("ClientIP = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestNoTrustedProxies(t *testing.T) {
	t.Parallel()
	for _, res := range []*Resolver{New(nil), {}} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = "10.0.0.5:80"
		r.Header.Set("X-Forwarded-For", "203.0.113.9")
		if got := res.ClientIP(r); got != netip.MustParseAddr("10.0.0.5") {
			t.Errorf("ClientIP = %s, want the peer 10.0.0.5", got)
		}
	}
}

// FuzzClientIP checks the walk on arbitrary input: it never panics, an untrusted peer is always
// the answer, and otherwise the answer is the peer or one of the header's entries.
func FuzzClientIP(f *testing.F) {
	f.Add("10.0.0.5:80", "203.0.113.9, 10.1.1.1")
	f.Add("10.0.0.5:80", "garbage,,::ffff:1.2.3.4")
	f.Add("198.51.100.7:1", "10.0.0.1")
	f.Add("[2001:db8:ffff::1]:443", "[2001:db8::7]:443 , fe80::1%eth0")
	f.Add("10.0.0.5", "\x00,\xff, 1.2.3.4:99999")
	res := New([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ffff::/48")})
	f.Fuzz(func(t *testing.T, remote, xff string) {
		r := &http.Request{RemoteAddr: remote, Header: http.Header{}}
		r.Header.Set("X-Forwarded-For", xff)
		got := res.ClientIP(r)
		peer := parseHop(remote)
		if !peer.IsValid() {
			if got.IsValid() {
				t.Fatalf("invalid peer %q gave %s", remote, got)
			}
			return
		}
		if !got.IsValid() {
			t.Fatalf("valid peer %q gave the invalid Addr", remote)
		}
		if got.Is4In6() || got.Zone() != "" {
			t.Fatalf("answer %s is not normalised", got)
		}
		if !res.isTrusted(peer) {
			if got != peer {
				t.Fatalf("untrusted peer %s: got %s, want the peer", peer, got)
			}
			return
		}
		if got == peer {
			return
		}
		for e := range strings.SplitSeq(xff, ",") {
			if parseHop(strings.TrimSpace(e)) == got {
				return
			}
		}
		t.Fatalf("answer %s is neither the peer nor an X-Forwarded-For entry of %q", got, xff)
	})
}
