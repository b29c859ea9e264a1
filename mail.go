package folio

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/mail"
	"strings"
	"unicode/utf8"
)

// MailAddress is one mailbox: an optional display name and an addr-spec ("user@example.com").
type MailAddress struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email"`
}

// IsZero reports whether the address is unset.
func (a MailAddress) IsZero() bool { return a.Name == "" && a.Email == "" }

// String formats the address as an RFC 5322 mailbox, encoding a non-ASCII name.
func (a MailAddress) String() string {
	return (&mail.Address{Name: a.Name, Address: a.Email}).String()
}

// MailAttachment is a file carried by a message.
type MailAttachment struct {
	// Filename is the name shown to the recipient; it is also the Content-ID of an inline part.
	Filename string `json:"filename"`
	// ContentType is a media type that may carry parameters, e.g.
	// "text/calendar; method=REQUEST; charset=UTF-8". Empty: guessed from Filename.
	ContentType string `json:"contentType,omitempty"`
	Data        []byte `json:"data"`
	// Inline embeds the file (Content-Disposition: inline, referenced from HTML as cid:<Filename>)
	// instead of attaching it.
	Inline bool `json:"inline,omitempty"`
}

// MailMessage is an outgoing e-mail. Build it, call Validate (Mailer.Send does too), and hand it
// to a Mailer.
type MailMessage struct {
	// From is the author; the zero value means the configured sender (SMTP_FROM).
	From    MailAddress   `json:"from,omitzero"`
	To      []MailAddress `json:"to"`
	Cc      []MailAddress `json:"cc,omitempty"`
	ReplyTo *MailAddress  `json:"replyTo,omitempty"`
	Subject string        `json:"subject"`
	// Text and HTML are the two renderings of the body; with both, the message is
	// multipart/alternative.
	Text        string           `json:"text,omitempty"`
	HTML        string           `json:"html,omitempty"`
	Attachments []MailAttachment `json:"attachments,omitempty"`
	// Headers are extra header fields, e.g. "Message-ID" (so a retried message keeps its ID),
	// "In-Reply-To", "Auto-Submitted". The fields the message builds itself (From, To, Subject,
	// Content-Type, …) cannot be set here.
	Headers map[string]string `json:"headers,omitempty"`
}

// reservedMailHeaders are the fields built from MailMessage's typed fields or by the MIME
// writer; setting them through Headers could smuggle recipients or break the structure.
var reservedMailHeaders = map[string]bool{
	"from": true, "sender": true, "to": true, "cc": true, "bcc": true, "reply-to": true,
	"subject": true, "date": true, "mime-version": true, "content-type": true,
	"content-transfer-encoding": true, "content-disposition": true, "content-id": true,
	"return-path": true,
}

// Validate checks that the message can be written without header injection: no CR, LF, NUL or
// other control character in any header field (names, addresses, subject, header names and
// values, file names, content types), every address valid for net/mail, at least one recipient
// and some content. It returns a *Error with code VALIDATION_ERROR (status 400) naming the field.
func (m *MailMessage) Validate() error {
	if m == nil {
		return BadRequest("", "mail: no message")
	}
	if !m.From.IsZero() {
		if err := validateMailAddress("from", m.From); err != nil {
			return err
		}
	}
	if len(m.To)+len(m.Cc) == 0 {
		return BadRequest("to", "mail: no recipient")
	}
	for i, a := range m.To {
		if err := validateMailAddress(fmt.Sprintf("to[%d]", i), a); err != nil {
			return err
		}
	}
	for i, a := range m.Cc {
		if err := validateMailAddress(fmt.Sprintf("cc[%d]", i), a); err != nil {
			return err
		}
	}
	if m.ReplyTo != nil {
		if err := validateMailAddress("replyTo", *m.ReplyTo); err != nil {
			return err
		}
	}
	if !safeHeaderText(m.Subject) {
		return BadRequest("subject", "mail: subject contains a line break or control character")
	}
	for name, value := range m.Headers {
		if !validHeaderName(name) {
			return BadRequest("headers", "mail: invalid header name %q", name)
		}
		if reservedMailHeaders[strings.ToLower(name)] {
			return BadRequest("headers", "mail: header %s is set from the message fields", name)
		}
		if !safeHeaderText(value) {
			return BadRequest("headers", "mail: header %s contains a line break or control character", name)
		}
	}
	for i, a := range m.Attachments {
		field := fmt.Sprintf("attachments[%d]", i)
		if a.Filename == "" || !safeHeaderText(a.Filename) || strings.ContainsAny(a.Filename, `"/\`) {
			return BadRequest(field, "mail: attachment needs a plain file name")
		}
		if a.ContentType != "" {
			if !safeHeaderText(a.ContentType) {
				return BadRequest(field, "mail: attachment content type contains a control character")
			}
			if _, _, err := mime.ParseMediaType(a.ContentType); err != nil {
				return BadRequest(field, "mail: attachment content type is not a media type")
			}
		}
	}
	if m.Text == "" && m.HTML == "" && len(m.Attachments) == 0 {
		return BadRequest("text", "mail: message has no content")
	}
	return nil
}

func validateMailAddress(field string, a MailAddress) error {
	if !safeHeaderText(a.Name) {
		return BadRequest(field, "mail: name contains a line break or control character")
	}
	if a.Email == "" {
		return BadRequest(field, "mail: address is required")
	}
	if !safeHeaderText(a.Email) {
		return BadRequest(field, "mail: address contains a line break or control character")
	}
	parsed, err := mail.ParseAddress(a.Email)
	// The Email field holds a bare addr-spec; "Name <x@y>" or comments there would be ambiguous.
	if err != nil || parsed.Name != "" || parsed.Address != a.Email {
		return BadRequest(field, "mail: invalid address")
	}
	return nil
}

// safeHeaderText reports whether s is valid UTF-8 without C0 controls (CR, LF, NUL, …) other than
// horizontal tab, and without DEL.
func safeHeaderText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if (r < 0x20 && r != '\t') || r == 0x7f {
			return false
		}
	}
	return true
}

// validHeaderName reports whether s is an RFC 5322 field name: printable ASCII except colon.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 33 || c > 126 || c == ':' {
			return false
		}
	}
	return true
}

// Mailer sends e-mail. Implementations: SMTP delivery and .eml files in the outbox directory
// (internal/mail).
type Mailer interface {
	// Send validates and delivers m. A failure is a *MailError: Permanent when the message can
	// never be delivered as it is (invalid message, 5xx from the server), otherwise temporary
	// (network, TLS, authentication, 4xx) and worth retrying.
	Send(ctx context.Context, m *MailMessage) error
}

// ErrMailPermanent matches (errors.Is) every permanent *MailError.
var ErrMailPermanent = errors.New("mail: permanently rejected")

// MailError is the failure of Mailer.Send.
type MailError struct {
	// Permanent is true when retrying the same message cannot succeed.
	Permanent bool
	// Code is the SMTP reply code when the server answered (e.g. 550, 451), else 0.
	Code int
	Err  error
}

func (e *MailError) Error() string {
	kind := "temporary"
	if e.Permanent {
		kind = "permanent"
	}
	if e.Code != 0 {
		return fmt.Sprintf("mail: %s failure (%d): %v", kind, e.Code, e.Err)
	}
	return fmt.Sprintf("mail: %s failure: %v", kind, e.Err)
}

func (e *MailError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMailPermanent) true for permanent failures.
func (e *MailError) Is(target error) bool { return target == ErrMailPermanent && e.Permanent }

// IsPermanentMailError reports whether err says the message can never be delivered, so a retry
// queue should give up on it.
func IsPermanentMailError(err error) bool { return errors.Is(err, ErrMailPermanent) }
