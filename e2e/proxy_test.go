package e2e

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"
)

// echoServer answers every line with the same line.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip sends one line through addr and reports whether it came back.
func roundTrip(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "ping\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "ping\n"
}

func TestProxyCutAndRestore(t *testing.T) {
	p, err := NewProxy(echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !roundTrip(p.Addr()) {
		t.Fatal("no round trip through a healthy proxy")
	}

	// An open connection dies at the cut; new ones are refused until Restore.
	open, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	io.WriteString(open, "hello\n")
	if _, err := bufio.NewReader(open).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	p.Cut()
	open.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := open.Read(make([]byte, 1)); err == nil {
		t.Error("a connection open at the cut still delivers data")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Error("a connection open at the cut hangs instead of closing")
	}
	if roundTrip(p.Addr()) {
		t.Error("a round trip succeeded through a cut proxy")
	}

	p.Restore()
	if !roundTrip(p.Addr()) {
		t.Error("no round trip after Restore")
	}
}
