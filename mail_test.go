package folio

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func validMail() *MailMessage {
	return &MailMessage{
		To:      []MailAddress{{Name: "Ada", Email: "ada@example.com"}},
		Subject: "Hello",
		Text:    "body",
	}
}

func TestMailMessageValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		mut       func(m *MailMessage)
		wantField string // "" = valid
	}{
		{"valid", func(m *MailMessage) {}, ""},
		{"valid full", func(m *MailMessage) {
			m.From = MailAddress{Name: "Folio", Email: "noreply@example.com"}
			m.Cc = []MailAddress{{Email: "cc@example.com"}}
			m.ReplyTo = &MailAddress{Name: "Zoë \"Z\" <x>", Email: "zoe@example.net"}
			m.Subject = "Grüße\tmit Tab"
			m.Headers = map[string]string{"Message-ID": "<a@b>", "X-Folio-Kind": "contact"}
			m.Attachments = []MailAttachment{{Filename: "invite.ics", ContentType: "text/calendar; method=REQUEST; charset=UTF-8"}}
		}, ""},
		{"cc only", func(m *MailMessage) { m.Cc, m.To = m.To, nil }, ""},
		{"attachment only", func(m *MailMessage) { m.Text = ""; m.Attachments = []MailAttachment{{Filename: "a.pdf"}} }, ""},
		{"no recipient", func(m *MailMessage) { m.To = nil }, "to"},
		{"no content", func(m *MailMessage) { m.Text = "" }, "text"},
		{"CRLF in to name", func(m *MailMessage) { m.To[0].Name = "A\r\nBcc: x@evil.test" }, "to[0]"},
		{"LF in to email", func(m *MailMessage) { m.To[0].Email = "ada@example.com\n" }, "to[0]"},
		{"empty email", func(m *MailMessage) { m.To[0].Email = "" }, "to[0]"},
		{"invalid email", func(m *MailMessage) { m.To[0].Email = "ada" }, "to[0]"},
		{"name in email", func(m *MailMessage) { m.To[0].Email = "Ada <ada@example.com>" }, "to[0]"},
		{"two addresses in email", func(m *MailMessage) { m.To[0].Email = "a@example.com, b@example.com" }, "to[0]"},
		{"bad cc", func(m *MailMessage) { m.Cc = []MailAddress{{Email: "x"}} }, "cc[0]"},
		{"bad from", func(m *MailMessage) { m.From = MailAddress{Name: "F\r\n", Email: "f@example.com"} }, "from"},
		{"from name without email", func(m *MailMessage) { m.From = MailAddress{Name: "F"} }, "from"},
		{"CR in reply-to name", func(m *MailMessage) { m.ReplyTo = &MailAddress{Name: "V\r", Email: "v@example.net"} }, "replyTo"},
		{"bad reply-to email", func(m *MailMessage) { m.ReplyTo = &MailAddress{Email: "v@"} }, "replyTo"},
		{"LF in subject", func(m *MailMessage) { m.Subject = "a\nBcc: x@evil.test" }, "subject"},
		{"NUL in subject", func(m *MailMessage) { m.Subject = "a\x00" }, "subject"},
		{"invalid UTF-8 subject", func(m *MailMessage) { m.Subject = "a\xff" }, "subject"},
		{"header name with colon", func(m *MailMessage) { m.Headers = map[string]string{"X-A:": "v"} }, "headers"},
		{"header name with space", func(m *MailMessage) { m.Headers = map[string]string{"X A": "v"} }, "headers"},
		{"empty header name", func(m *MailMessage) { m.Headers = map[string]string{"": "v"} }, "headers"},
		{"reserved header", func(m *MailMessage) { m.Headers = map[string]string{"bcc": "x@evil.test"} }, "headers"},
		{"CRLF in header value", func(m *MailMessage) { m.Headers = map[string]string{"X-A": "v\r\nBcc: x@evil.test"} }, "headers"},
		{"attachment without name", func(m *MailMessage) { m.Attachments = []MailAttachment{{}} }, "attachments[0]"},
		{"attachment name with path", func(m *MailMessage) { m.Attachments = []MailAttachment{{Filename: "../x"}} }, "attachments[0]"},
		{"attachment name with LF", func(m *MailMessage) { m.Attachments = []MailAttachment{{Filename: "a\n.txt"}} }, "attachments[0]"},
		{"bad content type", func(m *MailMessage) {
			m.Attachments = []MailAttachment{{Filename: "a", ContentType: "text/plain\r\nX: y"}}
		}, "attachments[0]"},
		{"unparseable content type", func(m *MailMessage) { m.Attachments = []MailAttachment{{Filename: "a", ContentType: "text/"}} }, "attachments[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := validMail()
			tt.mut(m)
			err := m.Validate()
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var fe *Error
			if !errors.As(err, &fe) || fe.Code != EINVALID || statusOf(fe) != 400 {
				t.Fatalf("Validate = %v, want a 400 VALIDATION_ERROR", err)
			}
			if len(fe.Details) == 0 || fe.Details[0].Field != tt.wantField {
				t.Errorf("field = %v, want %q", fe.Details, tt.wantField)
			}
		})
	}
	if err := (*MailMessage)(nil).Validate(); err == nil {
		t.Error("nil message validated")
	}
}

func TestMailError(t *testing.T) {
	t.Parallel()
	cause := errors.New("550 no such user")
	perm := fmt.Errorf("outbox: %w", &MailError{Permanent: true, Code: 550, Err: cause})
	temp := &MailError{Code: 451, Err: errors.New("451 later")}
	if !IsPermanentMailError(perm) || !errors.Is(perm, ErrMailPermanent) || !errors.Is(perm, cause) {
		t.Errorf("permanent error not recognised: %v", perm)
	}
	if IsPermanentMailError(temp) || IsPermanentMailError(cause) || IsPermanentMailError(nil) {
		t.Error("temporary error taken for permanent")
	}
	if got := perm.Error(); !strings.Contains(got, "permanent failure (550)") {
		t.Errorf("Error() = %q", got)
	}
}

// FuzzMailMessageValidate: Validate never panics, and never accepts a message with CR, LF or
// NUL in a field that becomes a header.
func FuzzMailMessageValidate(f *testing.F) {
	f.Add("Ada", "ada@example.com", "Hello", "X-Tag", "v", "Zoë", "z@example.net", "a.ics", "text/calendar; method=REQUEST")
	f.Add("A\r\nBcc: e@x.y", "a@b.c", "s\n", "Bcc", "e@x.y", "", "@", "", "")
	f.Add("", "\"quoted local\"@example.com", "=?UTF-8?B?SGk=?=", "Message-ID", "<a@b>", "R", "r@[127.0.0.1]", "x", "text/plain; charset=\"utf-8\"")
	f.Fuzz(func(t *testing.T, name, email, subject, hName, hValue, rName, rEmail, filename, ctype string) {
		m := &MailMessage{
			From:        MailAddress{Name: name, Email: email},
			To:          []MailAddress{{Name: name, Email: email}},
			ReplyTo:     &MailAddress{Name: rName, Email: rEmail},
			Subject:     subject,
			Text:        "x",
			Headers:     map[string]string{hName: hValue},
			Attachments: []MailAttachment{{Filename: filename, ContentType: ctype}},
		}
		if m.Validate() != nil {
			return
		}
		for _, s := range []string{name, email, subject, hName, hValue, rName, rEmail, filename, ctype} {
			if strings.ContainsAny(s, "\r\n\x00") {
				t.Fatalf("Validate accepted a header field with CR, LF or NUL: %q", s)
			}
		}
	})
}
