// Package netguard keeps outgoing requests whose destination a stranger can influence (URLs an
// upstream returns, webhook endpoints) away from this machine and its private networks.
//
// The check runs in the dialer, on the address actually being connected to, after DNS resolution.
// That is what makes it hold against DNS rebinding (a name that resolves to a public address when
// validated and to 127.0.0.1 when used) and against redirects (every hop dials through the same
// dialer), which a check of the URL's host name alone does not.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrForbidden is wrapped by every refusal, so callers can tell it from an unreachable host.
var ErrForbidden = errors.New("destination address is not public")

// Policy says which destinations are allowed. The zero value allows public unicast addresses only.
type Policy struct {
	// AllowPrivate turns the guard off (WEBHOOK_ALLOW_PRIVATE=true: a destination on the operator's
	// own network is intended).
	AllowPrivate bool
	// Allow lists extra prefixes that are allowed although not public (tests, an operator's
	// internal receiver).
	Allow []netip.Prefix
	// Resolver looks names up for CheckHost (nil: the resolver the dialer uses,
	// net.DefaultResolver).
	Resolver Resolver
}

// Resolver looks host names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// CheckHost refuses, before any connection, a destination host (a URL's Hostname()) that the
// guard would refuse when dialling: localhost names; an IPv4 address written other than as four
// decimal parts (2130706433, 0177.0.0.1, 127.1, 0x7f.1: what some resolvers and clients read as
// 127.0.0.1, and Go's dialer cannot reach); a literal address the policy does not allow; and a
// name that now resolves to one. A name that does not resolve passes: the dialer checks every
// connection again, after its own lookup.
func (p Policy) CheckHost(ctx context.Context, host string) error {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if endsInNumber(host) {
		if ip, err := netip.ParseAddr(host); err != nil || !ip.Is4() {
			return fmt.Errorf("%s is not an IPv4 address written as four decimal parts", host)
		}
	}
	if p.AllowPrivate {
		return nil
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("%s is this machine", host)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !p.Allowed(ip) {
			return refusal(ip.String() + " is not a public address")
		}
		return nil
	}
	var r Resolver = net.DefaultResolver
	if p.Resolver != nil {
		r = p.Resolver
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil // unresolvable now; refused at dial time if it ever resolves to such an address
	}
	for _, ip := range addrs {
		if !p.Allowed(ip) {
			return refusal(host + " resolves to " + ip.String() + ", not a public address")
		}
	}
	return nil
}

// refusal is CheckHost's refusal of a non-public destination: a message for the person who
// configured it, wrapping ErrForbidden.
type refusal string

func (r refusal) Error() string { return string(r) }
func (r refusal) Unwrap() error { return ErrForbidden }

// endsInNumber reports whether a host's last label is a number (decimal, or hex with 0x), which
// makes the whole host an IPv4 address to URL parsers (WHATWG URL, "ends in a number").
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if h, ok := strings.CutPrefix(last, "0x"); ok {
		return strings.Trim(h, "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// nonPublic are ranges netip's predicates do not already cover: shared address space (CGNAT),
// "this network", benchmarking, documentation, reserved, NAT64 and the IPv6 discard/documentation
// blocks. None of them is a legitimate public destination.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
}

// Public reports whether ip is a public unicast address.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() ||
		ip.IsUnspecified() || ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// Allowed reports whether the policy lets a connection to ip through.
func (p Policy) Allowed(ip netip.Addr) bool {
	if p.AllowPrivate || Public(ip) {
		return true
	}
	ip = ip.Unmap()
	for _, pre := range p.Allow {
		if pre.Contains(ip) {
			return true
		}
	}
	return false
}

// control is a net.Dialer Control function: it sees the resolved address of every connection.
func (p Policy) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: %w: %q", ErrForbidden, address)
	}
	if !p.Allowed(ap.Addr()) {
		return fmt.Errorf("netguard: %w: %s", ErrForbidden, ap.Addr())
	}
	return nil
}

// DialContext dials like net.Dialer but refuses addresses the policy does not allow.
func (p Policy) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: p.control}
	return d.DialContext(ctx, network, address)
}

// Transport returns an HTTP transport that dials through the guard. It uses no proxy from the
// environment: a proxy would connect on the caller's behalf and hide the destination.
func (p Policy) Transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = p.DialContext
	return t
}

// maxRedirects bounds a chain of redirects, each of which is dialled through the guard again.
const maxRedirects = 5

// Client returns an HTTP client whose every connection, redirects included, goes through the
// guard, following at most five http(s) redirects, with an overall timeout.
func (p Policy) Client(timeout time.Duration) *http.Client {
	return &http.Client{
		Transport: p.Transport(),
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("netguard: stopped after %d redirects", maxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("netguard: redirect to a %q URL refused", req.URL.Scheme)
			}
			return nil
		},
	}
}
