// Package clientip finds the address of the client behind a request, trusting X-Forwarded-For
// only as far as the configured proxies (TRUSTED_PROXIES; docs/api.md, "Rate limits"): the
// socket peer, unless the peer is a trusted proxy; then the right-most X-Forwarded-For entry
// that is not one.
//
// Walking from the right matters: every proxy appends the address it received the request from,
// so entries to the right were written by our own proxies and entries to the left may have been
// written by the client. A client can therefore put anything it likes at the left of the header,
// and nothing it sends reaches the answer unless a trusted proxy vouches for it.
package clientip

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// Resolver finds client addresses. Its zero value trusts no proxy. It is safe for concurrent use.
type Resolver struct {
	trusted []netip.Prefix
}

// New returns a Resolver that believes X-Forwarded-For entries added by peers inside trusted.
func New(trusted []netip.Prefix) *Resolver {
	ps := make([]netip.Prefix, 0, len(trusted))
	for _, p := range trusted {
		if p.IsValid() {
			ps = append(ps, normalisePrefix(p))
		}
	}
	return &Resolver{trusted: ps}
}

// ParseTrusted parses TRUSTED_PROXIES: a comma-separated list of CIDRs ("10.0.0.0/8",
// "fd00::/8") and bare addresses ("192.0.2.7", a single host). Spaces around items and empty
// items are ignored, so "" means no trusted proxy. Host bits set in a CIDR are cleared.
func ParseTrusted(csv string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for item := range strings.SplitSeq(csv, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.Contains(item, "/") {
			p, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("clientip: trusted proxy %q is not a CIDR or an IP address", item)
			}
			out = append(out, normalisePrefix(p.Masked()))
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("clientip: trusted proxy %q is not a CIDR or an IP address", item)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// ClientIP returns the client's address for r, IPv4-mapped IPv6 addresses reduced to IPv4 and
// zones dropped. It returns the zero netip.Addr only when r.RemoteAddr itself is not an address
// (never the case for requests from net/http's server).
//
// When the peer is trusted, X-Forwarded-For entries (all such headers, joined in order) are
// walked from the right: trusted entries are skipped, the first untrusted entry is the answer.
// A malformed or empty entry stops the walk, and the answer is the last good hop to its right
// (possibly the peer itself), since nothing left of garbage can be relied on. When every entry
// is trusted the left-most one is the answer.
func (res *Resolver) ClientIP(r *http.Request) netip.Addr {
	peer := parseHop(r.RemoteAddr)
	if !peer.IsValid() || !res.isTrusted(peer) {
		return peer
	}
	return res.walk(peer, r.Header.Values("X-Forwarded-For"))
}

// walk implements the right-to-left X-Forwarded-For walk starting from a trusted peer.
func (res *Resolver) walk(peer netip.Addr, headers []string) netip.Addr {
	last := peer
	for i := len(headers) - 1; i >= 0; i-- {
		entries := strings.Split(headers[i], ",")
		for j := len(entries) - 1; j >= 0; j-- {
			hop := parseHop(strings.TrimSpace(entries[j]))
			if !hop.IsValid() {
				return last
			}
			if !res.isTrusted(hop) {
				return hop
			}
			last = hop
		}
	}
	return last
}

func (res *Resolver) isTrusted(a netip.Addr) bool {
	for _, p := range res.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHop parses one address as found in RemoteAddr or an X-Forwarded-For entry: a bare address,
// or "addr:port" / "[v6]:port" as some proxies write. It returns the zero Addr for anything else.
func parseHop(s string) netip.Addr {
	if s == "" {
		return netip.Addr{}
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, err := netip.ParseAddrPort(s)
		if err != nil {
			return netip.Addr{}
		}
		a = ap.Addr()
	}
	return a.Unmap().WithZone("")
}

// normalisePrefix turns an IPv4-mapped IPv6 prefix (::ffff:10.0.0.0/104) into its IPv4 form,
// because addresses are unmapped before they are compared.
func normalisePrefix(p netip.Prefix) netip.Prefix {
	a := p.Addr().WithZone("")
	if a.Is4In6() && p.Bits() >= 96 {
		return netip.PrefixFrom(a.Unmap(), p.Bits()-96).Masked()
	}
	return netip.PrefixFrom(a, p.Bits())
}

// LimitID names the client a per-IP rate limit counts against: an IPv4 address stands for
// itself, an IPv6 address for its /v6Bits prefix ("2001:db8:1:2::/64"), because one home or
// cloud IPv6 connection owns a whole /64 and could otherwise rotate addresses for a fresh budget
// on every request (RATE_LIMIT_IPV6_PREFIX; docs/api.md, "Rate limits"). v6Bits outside 1–128 means 128 (the
// single address). The zero Addr gives "".
func LimitID(a netip.Addr, v6Bits int) string {
	if !a.IsValid() {
		return ""
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	if v6Bits < 1 || v6Bits > 128 {
		v6Bits = 128
	}
	p, err := a.Prefix(v6Bits)
	if err != nil {
		return a.String()
	}
	return p.String()
}
