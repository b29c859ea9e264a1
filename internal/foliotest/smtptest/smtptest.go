// Package smtptest runs a real SMTP server (emersion/go-smtp) on loopback for tests of the
// features that send mail: it records each accepted message and can be told to reject
// recipients or to go away.
package smtptest

import (
	"bytes"
	"io"
	"net"
	"net/mail"
	"sync"
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
}

// Start starts a server on a free loopback port; it stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
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
	go s.srv.Serve(ln)
	t.Cleanup(s.Stop)
	return s
}

// Stop closes the server; later connections are refused.
func (s *Server) Stop() {
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
