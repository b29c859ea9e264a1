package mail

import "testing"

// Hooks for the external test package (outbox_test.go), which imports outboxtest.

// StartTestSMTP starts the loopback test SMTP server without TLS or AUTH; rcpt answers each RCPT
// TO (nil accepts). It returns the port and a function listing the raw messages received.
func StartTestSMTP(t *testing.T, rcpt func(to string) error) (int, func() [][]byte) {
	srv := startSMTPServer(t, serverOpts{rcptErr: rcpt})
	return srv.Port, func() [][]byte {
		var out [][]byte
		for _, d := range srv.deliveries() {
			out = append(out, d.Data)
		}
		return out
	}
}

// RichMessage and CheckRich expose the rich fixture and its mail-client check.
var RichMessage = richMessage

// CheckRich parses raw as a mail client and checks it is the rich fixture.
func CheckRich(t *testing.T, raw []byte) { t.Helper(); checkRich(t, parseMail(t, raw)) }

// TestSender is the configured sender of the fixtures.
var TestSender = testSender
