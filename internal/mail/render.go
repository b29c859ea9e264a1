// Package mail delivers folio.MailMessage values: over SMTP (SMTP), or as .eml files in the
// outbox directory when no SMTP server is configured (EMLDir). Both build the MIME message with
// the same code (Render), on top of github.com/wneessen/go-mail. Outbox stores each message
// before its first send and retries failed sends from the OutboxStore its user supplies.
package mail

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/foliohq/folio"
	gomail "github.com/wneessen/go-mail"
)

// Render returns m as an RFC 5322 message (CRLF line endings) exactly as the mailers send or
// store it. from is the configured sender, used when m.From is zero. now becomes the Date header.
// When m carries no Message-ID header one is generated (the only random part besides the MIME
// boundaries), so callers that retry should set Headers["Message-ID"] (see NewMessageID) first.
func Render(m *folio.MailMessage, from folio.MailAddress, now time.Time) ([]byte, error) {
	msg, err := build(m, from, now)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("mail: render: %w", err)
	}
	return buf.Bytes(), nil
}

// NewMessageID returns a new globally unique Message-ID value ("<uuid@domain>") for a message
// sent from the address email. The domain is the sender's, so the server's host name never
// leaks into headers.
func NewMessageID(email string) string {
	domain := "localhost"
	if at := strings.LastIndexByte(email, '@'); at >= 0 && at < len(email)-1 {
		domain = email[at+1:]
	}
	return "<" + folio.NewID() + "@" + domain + ">"
}

// ParseAddress parses a configured sender such as SMTP_FROM: "Folio <noreply@example.com>" or a
// bare "noreply@example.com".
func ParseAddress(s string) (folio.MailAddress, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return folio.MailAddress{}, fmt.Errorf("mail: invalid address %q: %w", s, err)
	}
	return folio.MailAddress{Name: a.Name, Email: a.Address}, nil
}

// effectiveFrom returns the author of m: its own From, else the configured sender.
func effectiveFrom(m *folio.MailMessage, from folio.MailAddress) folio.MailAddress {
	if !m.From.IsZero() {
		return m.From
	}
	return from
}

// build validates m and turns it into a go-mail message. Every error is a *folio.Error
// (VALIDATION_ERROR): the message itself is unusable.
func build(m *folio.MailMessage, from folio.MailAddress, now time.Time) (*gomail.Msg, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	sender := effectiveFrom(m, from)
	if sender.IsZero() {
		return nil, folio.BadRequest("from", "mail: no sender (message From and configured sender are empty)")
	}
	// Validate the configured sender with the same rules as the message's own addresses.
	probe := folio.MailMessage{From: sender, To: []folio.MailAddress{sender}, Text: "-"}
	if err := probe.Validate(); err != nil {
		return nil, err
	}

	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent(), gomail.WithCharset(gomail.CharsetUTF8),
		gomail.WithEncoding(gomail.EncodingQP))
	msg.FromMailAddress(mailAddr(sender))
	if len(m.To) > 0 {
		msg.ToMailAddress(mailAddrs(m.To)...)
	}
	if len(m.Cc) > 0 {
		msg.CcMailAddress(mailAddrs(m.Cc)...)
	}
	if m.ReplyTo != nil {
		msg.ReplyToMailAddress(mailAddr(*m.ReplyTo))
	}
	msg.Subject(literalHeaderText(m.Subject))
	msg.SetDateWithValue(now)

	messageID := ""
	for name, value := range m.Headers {
		if strings.EqualFold(name, string(gomail.HeaderMessageID)) {
			messageID = value
			continue
		}
		msg.SetGenHeader(gomail.Header(name), value)
	}
	if messageID == "" {
		messageID = NewMessageID(sender.Email)
	} else if !strings.HasPrefix(messageID, "<") {
		messageID = "<" + messageID + ">"
	}
	msg.SetGenHeader(gomail.HeaderMessageID, messageID)

	hasBody := m.Text != "" || m.HTML != ""
	switch {
	case m.Text != "" && m.HTML != "":
		msg.SetBodyString(gomail.TypeTextPlain, m.Text)
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	case m.Text != "":
		msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	case m.HTML != "":
		msg.SetBodyString(gomail.TypeTextHTML, m.HTML)
	}

	calendarAlternative := false
	for _, a := range m.Attachments {
		var opts []gomail.FileOption
		if a.ContentType != "" {
			opts = append(opts, gomail.WithFileContentType(gomail.ContentType(a.ContentType)))
		}
		if a.Inline {
			msg.EmbedReadSeeker(a.Filename, bytes.NewReader(a.Data), opts...)
			continue
		}
		msg.AttachReadSeeker(a.Filename, bytes.NewReader(a.Data), opts...)
		// Calendar clients (Gmail, Outlook, Apple Mail) show Accept/Decline buttons for an
		// invitation that is also one of the body's alternatives, as Google Calendar sends it;
		// the attachment stays for clients that only import files.
		if method, ok := calendarMethod(a.ContentType); ok && hasBody && !calendarAlternative {
			calendarAlternative = true
			msg.AddAlternativeString(gomail.ContentType("text/calendar; method="+method), string(a.Data),
				gomail.WithPartEncoding(gomail.EncodingB64))
		}
	}
	return msg, nil
}

// calendarMethod returns the iTIP method of a text/calendar content type, if it has one.
func calendarMethod(contentType string) (string, bool) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil || mediaType != "text/calendar" {
		return "", false
	}
	method := strings.ToUpper(params["method"])
	if method == "" || strings.ContainsFunc(method, func(r rune) bool { return r < 'A' || r > 'Z' }) {
		return "", false
	}
	return method, true
}

func mailAddr(a folio.MailAddress) *mail.Address {
	return &mail.Address{Name: a.Name, Address: a.Email}
}

func mailAddrs(as []folio.MailAddress) []*mail.Address {
	out := make([]*mail.Address, len(as))
	for i, a := range as {
		out[i] = mailAddr(a)
	}
	return out
}

// literalHeaderText returns s ready for an unstructured header field such as Subject. ASCII text
// that merely looks like an RFC 2047 encoded word ("=?utf-8?b?SGk=?=", typed by a visitor) would
// be decoded by the owner's mail client, showing something other than what was written or failing
// to decode, and go-mail leaves ASCII text as it is; so such text is sent as encoded words itself.
// Each word carries at most 45 bytes (60 base64 characters), whole runes only, which keeps it
// under RFC 2047's 75-character limit; go-mail folds between the words.
func literalHeaderText(s string) string {
	if !strings.Contains(s, "=?") {
		return s
	}
	const chunk = 45
	var words []string
	for s != "" {
		n := min(len(s), chunk)
		for n < len(s) && n > chunk-utf8.UTFMax && !utf8.RuneStart(s[n]) {
			n--
		}
		words = append(words, "=?UTF-8?B?"+base64.StdEncoding.EncodeToString([]byte(s[:n]))+"?=")
		s = s[n:]
	}
	return strings.Join(words, " ")
}
