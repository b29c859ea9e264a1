package main

import (
	"bufio"
	"io"
	"net"
	"net/mail"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// delivery is one mail the SMTP server accepted: to one recipient, with the Message-ID it
// carried, and which folio instance handed it over (by the port it came in on).
type delivery struct {
	To, MessageID string
	Instance      int
	At            time.Time
	Bytes         int64
}

// mailServer is a real SMTP server (emersion/go-smtp, as internal/foliotest/smtptest) listening
// on one loopback port per folio instance, so each delivery is attributed to its sender without
// guessing. It keeps only what the checks need, not the bodies.
type mailServer struct {
	Ports []int
	// Arrived gets a value (when none is waiting) after each accepted mail, so a watcher reacts
	// within a scheduling delay rather than a polling interval.
	Arrived chan struct{}

	servers []*smtp.Server

	mu   sync.Mutex
	got  []delivery
	last int // instance of the latest delivery
}

func startMailServer(instances int) (*mailServer, error) {
	m := &mailServer{last: -1, Arrived: make(chan struct{}, 1)}
	for i := range instances {
		srv := smtp.NewServer(backend{m: m, instance: i})
		srv.Domain = "mx.bench"
		srv.ReadTimeout, srv.WriteTimeout = 30*time.Second, 30*time.Second
		srv.MaxMessageBytes = 1 << 20
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			m.Close()
			return nil, err
		}
		m.servers = append(m.servers, srv)
		m.Ports = append(m.Ports, ln.Addr().(*net.TCPAddr).Port)
		go srv.Serve(ln)
	}
	return m, nil
}

// Close stops every listener and open session.
func (m *mailServer) Close() {
	for _, s := range m.servers {
		s.Close()
	}
}

// Count returns how many mails were accepted and which instance handed over the latest (-1: none).
func (m *mailServer) Count() (int, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.got), m.last
}

// Deliveries returns a copy of what was accepted, in order.
func (m *mailServer) Deliveries() []delivery {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]delivery(nil), m.got...)
}

type backend struct {
	m        *mailServer
	instance int
}

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &session{m: b.m, instance: b.instance}, nil
}

type session struct {
	m        *mailServer
	instance int
	to       []string
}

func (s *session) Mail(string, *smtp.MailOptions) error { return nil }

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

// Data reads the whole message before recording it: a sender killed in the middle of DATA
// leaves nothing accepted. A mail recorded here is one the server answered 250 to (or was about
// to), which is what "handed to SMTP" means.
func (s *session) Data(r io.Reader) error {
	msg, err := mail.ReadMessage(bufio.NewReader(r))
	if err != nil {
		return err
	}
	n, err := io.Copy(io.Discard, msg.Body)
	if err != nil {
		return err
	}
	id, now := msg.Header.Get("Message-ID"), time.Now()
	s.m.mu.Lock()
	for _, to := range s.to {
		s.m.got = append(s.m.got, delivery{To: to, MessageID: id, Instance: s.instance, At: now, Bytes: n})
	}
	s.m.last = s.instance
	s.m.mu.Unlock()
	select {
	case s.m.Arrived <- struct{}{}:
	default:
	}
	return nil
}

func (s *session) Reset()        { s.to = nil }
func (s *session) Logout() error { return nil }
