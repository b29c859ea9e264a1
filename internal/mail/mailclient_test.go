package mail

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
)

// parsedMail is a message as a mail client sees it: decoded headers and the leaf MIME parts with
// their transfer encoding undone.
type parsedMail struct {
	Header    mail.Header
	From      []*mail.Address
	To        []*mail.Address
	Cc        []*mail.Address
	ReplyTo   []*mail.Address
	Subject   string
	MessageID string
	Date      time.Time
	Parts     []mimePart
}

type mimePart struct {
	Path        string // enclosing multipart types, e.g. "mixed/alternative"
	MediaType   string
	Params      map[string]string
	Disposition string
	Filename    string
	Body        []byte
}

// find returns the first part with the media type under a path ending in within ("" = any).
func (p parsedMail) find(mediaType, within string) (mimePart, bool) {
	for _, part := range p.Parts {
		if part.MediaType == mediaType && strings.HasSuffix(part.Path, within) {
			return part, true
		}
	}
	return mimePart{}, false
}

// parseMail reads raw the way a mail client does: net/mail for the header section, RFC 2047 for
// encoded words, mime/multipart for the structure, quoted-printable and base64 for the bodies.
func parseMail(t *testing.T, raw []byte) parsedMail {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("net/mail cannot read the message: %v\n%s", err, raw)
	}
	var p parsedMail
	p.Header = msg.Header
	addrs := func(name string) []*mail.Address {
		if msg.Header.Get(name) == "" {
			return nil
		}
		list, err := msg.Header.AddressList(name)
		if err != nil {
			t.Fatalf("header %s: %v", name, err)
		}
		return list
	}
	p.From, p.To, p.Cc, p.ReplyTo = addrs("From"), addrs("To"), addrs("Cc"), addrs("Reply-To")
	dec := new(mime.WordDecoder)
	if p.Subject, err = dec.DecodeHeader(msg.Header.Get("Subject")); err != nil {
		t.Fatalf("subject: %v", err)
	}
	p.MessageID = msg.Header.Get("Message-Id")
	if p.Date, err = msg.Header.Date(); err != nil {
		t.Fatalf("date: %v", err)
	}
	if v := msg.Header.Get("Mime-Version"); v != "1.0" {
		t.Errorf("MIME-Version = %q, want 1.0", v)
	}
	p.Parts = walkMIME(t, textproto.MIMEHeader(msg.Header), msg.Body, "")
	return p
}

func walkMIME(t *testing.T, h textproto.MIMEHeader, body io.Reader, path string) []mimePart {
	t.Helper()
	ct := h.Get("Content-Type")
	if ct == "" {
		ct = "text/plain"
	}
	mediaType, params, err := mime.ParseMediaType(ct)
	if err != nil {
		t.Fatalf("Content-Type %q: %v", ct, err)
	}
	if sub, ok := strings.CutPrefix(mediaType, "multipart/"); ok {
		mr := multipart.NewReader(body, params["boundary"])
		inner := strings.TrimPrefix(path+"/"+sub, "/")
		var parts []mimePart
		for {
			part, err := mr.NextRawPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("multipart %s: %v", inner, err)
			}
			parts = append(parts, walkMIME(t, part.Header, part, inner)...)
		}
		return parts
	}
	var decoded io.Reader = body
	switch strings.ToLower(h.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		decoded = quotedprintable.NewReader(body)
	case "base64":
		decoded = base64.NewDecoder(base64.StdEncoding, body)
	case "", "7bit", "8bit":
	default:
		t.Fatalf("unexpected Content-Transfer-Encoding %q", h.Get("Content-Transfer-Encoding"))
	}
	b, err := io.ReadAll(decoded)
	if err != nil {
		t.Fatalf("decode %s body: %v", mediaType, err)
	}
	part := mimePart{Path: path, MediaType: mediaType, Params: params, Body: b}
	if cd := h.Get("Content-Disposition"); cd != "" {
		disp, dparams, err := mime.ParseMediaType(cd)
		if err != nil {
			t.Fatalf("Content-Disposition %q: %v", cd, err)
		}
		part.Disposition, part.Filename = disp, dparams["filename"]
	}
	return []mimePart{part}
}

// crlfToLF undoes the CRLF line endings that quoted-printable text bodies get on the wire.
func crlfToLF(b []byte) string { return strings.ReplaceAll(string(b), "\r\n", "\n") }

// Fixtures shared by the render, SMTP and .eml tests.

var testSender = folio.MailAddress{Name: "Folio Site", Email: "noreply@folio.test"}

var testNow = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

const testICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//folio//booking//EN\r\nMETHOD:REQUEST\r\n" +
	"BEGIN:VEVENT\r\nUID:0193a1b2-c3d4@folio.test\r\nDTSTAMP:20261122T093000Z\r\n" +
	"DTSTART:20261201T140000Z\r\nDTEND:20261201T143000Z\r\nSUMMARY:Meeting with Zoë\r\n" +
	"ORGANIZER;CN=Owner:mailto:owner@folio.test\r\nATTENDEE;CN=Zoë;RSVP=TRUE:mailto:zoe@example.net\r\n" +
	"DESCRIPTION:Join at https://meet.jit.si/folio-0193a1b2\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

func plainMessage() *folio.MailMessage {
	return &folio.MailMessage{
		To:      []folio.MailAddress{{Name: "Ada Lovelace", Email: "ada@example.com"}},
		Subject: "Hello",
		Text:    "Hi Ada,\n\nthis is line two.\n",
		Headers: map[string]string{"Message-ID": "<plain-1@folio.test>"},
	}
}

const richSubject = "Contact Form: Grüße aus Köln — naïve ☕ question about a long project that needs header folding"

func richMessage() *folio.MailMessage {
	return &folio.MailMessage{
		To:      []folio.MailAddress{{Name: "Zoë Owner", Email: "owner@folio.test"}},
		Cc:      []folio.MailAddress{{Email: "archive@folio.test"}},
		ReplyTo: &folio.MailAddress{Name: "Visitor Ünïcode", Email: "visitor@example.net"},
		Subject: richSubject,
		Text:    "Name: Visitor Ünïcode\nEmail: visitor@example.net\n\nA line that is long enough to be wrapped by quoted-printable encoding because it runs past seventy-six characters = yes.\n",
		HTML:    "<p>Name: Visitor Ünïcode</p>\n<p>A <b>bold</b> line.</p>\n",
		Attachments: []folio.MailAttachment{{
			Filename:    "invite.ics",
			ContentType: "text/calendar; method=REQUEST; charset=UTF-8",
			Data:        []byte(testICS),
		}},
		Headers: map[string]string{"Message-ID": "<rich-1@folio.test>", "Auto-Submitted": "auto-generated"},
	}
}

// checkRich asserts everything a recipient of richMessage must see.
func checkRich(t *testing.T, p parsedMail) {
	t.Helper()
	m := richMessage()
	if len(p.From) != 1 || p.From[0].Address != testSender.Email || p.From[0].Name != testSender.Name {
		t.Errorf("From = %v, want %v", p.From, testSender)
	}
	if len(p.To) != 1 || p.To[0].Address != "owner@folio.test" || p.To[0].Name != "Zoë Owner" {
		t.Errorf("To = %v, want Zoë Owner <owner@folio.test>", p.To)
	}
	if len(p.Cc) != 1 || p.Cc[0].Address != "archive@folio.test" {
		t.Errorf("Cc = %v, want archive@folio.test", p.Cc)
	}
	if len(p.ReplyTo) != 1 || p.ReplyTo[0].Address != "visitor@example.net" || p.ReplyTo[0].Name != "Visitor Ünïcode" {
		t.Errorf("Reply-To = %v, want Visitor Ünïcode <visitor@example.net>", p.ReplyTo)
	}
	if p.Subject != richSubject {
		t.Errorf("Subject = %q, want %q", p.Subject, richSubject)
	}
	if raw := p.Header.Get("Subject"); !strings.Contains(raw, "=?UTF-8?") {
		t.Errorf("raw Subject %q is not an RFC 2047 encoded word", raw)
	}
	if p.MessageID != "<rich-1@folio.test>" {
		t.Errorf("Message-ID = %q", p.MessageID)
	}
	if got := p.Header.Get("Auto-Submitted"); got != "auto-generated" {
		t.Errorf("Auto-Submitted = %q", got)
	}
	text, ok := p.find("text/plain", "alternative")
	if !ok || crlfToLF(text.Body) != m.Text || !strings.EqualFold(text.Params["charset"], "utf-8") {
		t.Errorf("text/plain part = %+v, want body %q", text, m.Text)
	}
	html, ok := p.find("text/html", "alternative")
	if !ok || crlfToLF(html.Body) != m.HTML {
		t.Errorf("text/html part = %q, want %q", html.Body, m.HTML)
	}
	alt, ok := p.find("text/calendar", "alternative")
	if !ok || alt.Params["method"] != "REQUEST" || string(alt.Body) != testICS {
		t.Errorf("calendar alternative = %+v (found %v), want method=REQUEST and the .ics bytes", alt.Params, ok)
	}
	var att mimePart
	for _, part := range p.Parts {
		if part.Disposition == "attachment" {
			att = part
		}
	}
	if att.Path != "mixed" || att.Filename != "invite.ics" {
		t.Fatalf("attachment = path %q filename %q, want invite.ics in multipart/mixed", att.Path, att.Filename)
	}
	if att.MediaType != "text/calendar" || att.Params["method"] != "REQUEST" {
		t.Errorf("attachment type = %s %v, want text/calendar; method=REQUEST", att.MediaType, att.Params)
	}
	if !bytes.Equal(att.Body, []byte(testICS)) {
		t.Errorf("attachment bytes differ:\n got %q\nwant %q", att.Body, testICS)
	}
}
