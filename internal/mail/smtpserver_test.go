package mail

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// delivery is one message as the test SMTP server received it.
type delivery struct {
	From     string
	To       []string
	Data     []byte
	AuthUser string
	TLS      bool
}

// smtpServer is a real SMTP server (emersion/go-smtp) on a loopback port that records every
// accepted transaction. It enforces AUTH when users is set, like a submission server does.
type smtpServer struct {
	Addr string
	Port int

	mu       sync.Mutex
	sessions int
	got      []delivery

	users   map[string]string     // username → password; nil: AUTH not offered
	rcptErr func(to string) error // answer to RCPT TO; nil accepts
}

type serverOpts struct {
	users       map[string]string
	rcptErr     func(to string) error
	startTLS    *tls.Config // offers STARTTLS
	implicitTLS *tls.Config // speaks TLS from the first byte
}

func startSMTPServer(t *testing.T, o serverOpts) *smtpServer {
	t.Helper()
	s := &smtpServer{users: o.users, rcptErr: o.rcptErr}
	srv := smtp.NewServer(s)
	srv.Domain = "mx.test"
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.MaxMessageBytes = 10 << 20
	srv.TLSConfig = o.startTLS
	var ln net.Listener
	var err error
	if o.implicitTLS != nil {
		ln, err = tls.Listen("tcp", "127.0.0.1:0", o.implicitTLS)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	s.Addr = ln.Addr().String()
	s.Port = ln.Addr().(*net.TCPAddr).Port
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		_ = ln.Close() // Serve may not have registered ln yet when Close ran
		<-done
	})
	return s
}

func (s *smtpServer) deliveries() []delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]delivery(nil), s.got...)
}

func (s *smtpServer) sessionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

// NewSession implements smtp.Backend.
func (s *smtpServer) NewSession(c *smtp.Conn) (smtp.Session, error) {
	s.mu.Lock()
	s.sessions++
	s.mu.Unlock()
	return &smtpSession{srv: s, conn: c}, nil
}

type smtpSession struct {
	srv      *smtpServer
	conn     *smtp.Conn
	authUser string
	cur      delivery
}

func (ss *smtpSession) AuthMechanisms() []string {
	if ss.srv.users == nil {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *smtpSession) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain || ss.srv.users == nil {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if want, ok := ss.srv.users[username]; !ok || want != password || (identity != "" && identity != username) {
			return smtp.ErrAuthFailed
		}
		ss.authUser = username
		return nil
	}), nil
}

func (ss *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if ss.srv.users != nil && ss.authUser == "" {
		return smtp.ErrAuthRequired
	}
	_, isTLS := ss.conn.TLSConnectionState()
	ss.cur = delivery{From: from, AuthUser: ss.authUser, TLS: isTLS}
	return nil
}

func (ss *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if ss.srv.rcptErr != nil {
		if err := ss.srv.rcptErr(to); err != nil {
			return err
		}
	}
	ss.cur.To = append(ss.cur.To, to)
	return nil
}

func (ss *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if len(ss.cur.To) == 0 {
		return errors.New("no recipients")
	}
	ss.cur.Data = b
	ss.srv.mu.Lock()
	ss.srv.got = append(ss.srv.got, ss.cur)
	ss.srv.mu.Unlock()
	return nil
}

func (ss *smtpSession) Reset()        { ss.cur = delivery{} }
func (ss *smtpSession) Logout() error { return nil }

// selfSignedTLS returns a server config with a fresh certificate for 127.0.0.1 and a client
// config that trusts exactly that certificate.
func selfSignedTLS(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "folio test smtp"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server = &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}},
		MinVersion:   tls.VersionTLS12,
	}
	client = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	return server, client
}
