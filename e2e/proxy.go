// Package e2e holds folio's end-to-end tests: they build the folio binary, start real
// processes against PostgreSQL, Redis, an S3-compatible server, a real SMTP server and the
// fakes of the outside platforms, play a day of traffic through two instances, inject faults
// (SIGKILL, Redis restarts, a cut database link, failing upstreams) and check that nothing
// acknowledged is lost. The only non-test code is Proxy, the TCP link the tests cut.
package e2e

import (
	"errors"
	"io"
	"net"
	"sync"
)

// Proxy is a loopback TCP proxy to one target address that can be cut and restored, so a test
// can make a database unreachable for a while without stopping it. While cut, it closes every
// open connection and accepts new ones only to close them at once (the client sees a reset,
// not a hang); the listening port stays the same throughout.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewProxy listens on a free loopback port and forwards every connection to target.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Addr is the proxy's listening address (host:port).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every open connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
	}
}

// Restore lets connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
}

// Close stops listening and closes every connection.
func (p *Proxy) Close() error {
	err := p.ln.Close()
	p.Cut()
	p.wg.Wait()
	return err
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.handle(c)
		}()
	}
}

// track registers c as open; it reports false (and closes c) while the proxy is cut.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *Proxy) handle(client net.Conn) {
	if !p.track(client) {
		return
	}
	defer p.untrack(client)
	upstream, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	if !p.track(upstream) {
		return
	}
	defer p.untrack(upstream)
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		// One direction ended: end both, so neither side waits on a half-open link.
		dst.Close()
		src.Close()
		done <- struct{}{}
	}
	go pipe(upstream, client)
	go pipe(client, upstream)
	<-done
	<-done
}
