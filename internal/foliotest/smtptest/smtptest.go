// Package smtptest runs a real SMTP server (emersion/go-smtp) on loopback for tests of the
// features that send mail: it records each accepted message and can be told to reject
// recipients, to go away, or to fail at QUIT.
package smtptest

import (
	"bytes"
	"io"
	"net"
	"net/mail"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Message is one accepted transaction.
type Message struct {
	From string
	To   []string
	Data []byte
}

// Parsed parses the message as a mail client would.
func (m Message) Parsed(t testing.TB) *mail.Message {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		t.Fatalf("delivered message does not parse: %v", err)
	}
	return msg
}

// Server is the running server.
type Server struct {
	Host string
	Port int

	srv *smtp.Server
	ln  net.Listener

	mu      sync.Mutex
	got     []Message
	rejectN int // reject the RCPT of the next n transactions with 550

	atQuit  atomic.Int32 // a QuitMode
	stopped chan struct{}
	stopOne sync.Once
}

// QuitMode is how the server answers QUIT.
type QuitMode int32

// Answers to QUIT.
const (
	// QuitAnswer answers 221 and closes, as servers do.
	QuitAnswer QuitMode = iota
	// QuitDrop closes the connection without an answer (a server that restarts, a proxy that
	// cuts idle connections).
	QuitDrop
	// QuitHang never answers (a stalled server or network) until the server stops.
	QuitHang
)

// AtQuit sets how the server answers QUIT from now on.
func (s *Server) AtQuit(m QuitMode) { s.atQuit.Store(int32(m)) }

// Start starts a server on a free loopback port; it stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{stopped: make(chan struct{})}
	s.srv = smtp.NewServer(s)
	s.srv.Domain = "mx.test"
	s.srv.ReadTimeout, s.srv.WriteTimeout = 10*time.Second, 10*time.Second
	s.srv.AllowInsecureAuth = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.ln = ln
	s.Host, s.Port = "127.0.0.1", ln.Addr().(*net.TCPAddr).Port
	go s.srv.Serve(quitListener{ln, s})
	t.Cleanup(s.Stop)
	return s
}

// Stop closes the server; later connections are refused.
func (s *Server) Stop() {
	s.stopOne.Do(func() { close(s.stopped) })
	s.srv.Close()
	s.ln.Close()
}

// RejectNext makes the next n transactions fail permanently (550 on RCPT).
func (s *Server) RejectNext(n int) { s.mu.Lock(); s.rejectN = n; s.mu.Unlock() }

// Messages returns the accepted messages.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.got...)
}

// NewSession implements smtp.Backend.
func (s *Server) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }

type session struct {
	s    *Server
	from string
	to   []string
}

func (ss *session) AuthMechanisms() []string { return nil }
func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	if ss.s.rejectN > 0 {
		ss.s.rejectN--
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	}
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.s.mu.Lock()
	ss.s.got = append(ss.s.got, Message{From: ss.from, To: ss.to, Data: b})
	ss.s.mu.Unlock()
	return nil
}

func (ss *session) Reset()        { ss.from, ss.to = "", nil }
func (ss *session) Logout() error { return nil }

// quitListener hands go-smtp connections that see QUIT before it does: go-smtp answers QUIT
// itself, without asking the session.
type quitListener struct {
	net.Listener
	s *Server
}

func (l quitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &quitConn{Conn: c, s: l.s}, nil
}

type quitConn struct {
	net.Conn
	s *Server
}

// Read passes the client's bytes on, except a QUIT when the server is told to fail it. The
// client sends QUIT alone, after the answer to the previous command, so it starts a read.
func (c *quitConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	mode := QuitMode(c.s.atQuit.Load())
	if n == 0 || mode == QuitAnswer || !bytes.HasPrefix(bytes.ToUpper(p[:n]), []byte("QUIT")) {
		return n, err
	}
	if mode == QuitHang {
		<-c.s.stopped
	}
	c.Conn.Close()
	return 0, io.EOF
}
