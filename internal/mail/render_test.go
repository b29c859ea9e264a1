package mail

import (
	"bytes"
	"flag"
	"net/textproto"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/foliohq/folio"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var boundaryRE = regexp.MustCompile(`boundary=("?)([0-9A-Za-z'()+_,\-./:=?]+)("?)`)

// normalizeBoundaries replaces the random MIME boundaries with stable names so the output can
// be compared with a golden file.
func normalizeBoundaries(raw []byte) []byte {
	out := string(raw)
	for i, m := range boundaryRE.FindAllStringSubmatch(out, -1) {
		out = strings.ReplaceAll(out, m[2], "BOUNDARY-"+strconv.Itoa(i+1))
	}
	return []byte(out)
}

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msg  *folio.MailMessage
	}{
		{"plain", plainMessage()},
		{"rich", richMessage()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw, err := Render(tt.msg, testSender, testNow)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			got := normalizeBoundaries(raw)
			golden := filepath.Join("testdata", tt.name+".eml.golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Render output differs from %s (go test -update rewrites it):\n%s", golden, got)
			}
		})
	}
}

func TestRenderRichAsMailClient(t *testing.T) {
	t.Parallel()
	raw, err := Render(richMessage(), testSender, testNow)
	if err != nil {
		t.Fatal(err)
	}
	p := parseMail(t, raw)
	checkRich(t, p)
	if !p.Date.Equal(testNow) {
		t.Errorf("Date = %v, want %v", p.Date, testNow)
	}
	for i, line := range strings.Split(string(raw), "\r\n") {
		if len(line) > 998 {
			t.Errorf("line %d is %d octets, over RFC 5322's 998", i, len(line))
		}
	}
	if bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("bare LF in rendered message")
	}
	if ua := p.Header.Get("User-Agent") + p.Header.Get("X-Mailer"); ua != "" {
		t.Errorf("library advertises itself: %q", ua)
	}
}

func TestRenderStructure(t *testing.T) {
	t.Parallel()
	png := folio.MailAttachment{Filename: "logo.png", ContentType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n"), Inline: true}
	pdf := folio.MailAttachment{Filename: "cv.pdf", Data: []byte("%PDF-1.7\n")}
	base := func(mut func(m *folio.MailMessage)) *folio.MailMessage {
		m := &folio.MailMessage{To: []folio.MailAddress{{Email: "a@example.com"}}, Subject: "s"}
		mut(m)
		return m
	}
	tests := []struct {
		name string
		msg  *folio.MailMessage
		want []string // "path media-type disposition" per leaf part
	}{
		{"text only", base(func(m *folio.MailMessage) { m.Text = "t" }), []string{" text/plain "}},
		{"html only", base(func(m *folio.MailMessage) { m.HTML = "<p>h</p>" }), []string{" text/html "}},
		{"text and html", base(func(m *folio.MailMessage) { m.Text, m.HTML = "t", "<p>h</p>" }),
			[]string{"alternative text/plain ", "alternative text/html "}},
		{"attachment guessed type", base(func(m *folio.MailMessage) { m.Text, m.Attachments = "t", []folio.MailAttachment{pdf} }),
			[]string{"mixed text/plain ", "mixed application/pdf attachment"}},
		{"attachment without body", base(func(m *folio.MailMessage) { m.Attachments = []folio.MailAttachment{pdf} }),
			[]string{" application/pdf attachment"}},
		{"inline image", base(func(m *folio.MailMessage) {
			m.HTML, m.Attachments = `<img src="cid:logo.png">`, []folio.MailAttachment{png}
		}), []string{"related text/html ", "related image/png inline"}},
		{"calendar without method is only an attachment", base(func(m *folio.MailMessage) {
			m.Text = "t"
			m.Attachments = []folio.MailAttachment{{Filename: "e.ics", ContentType: "text/calendar", Data: []byte(testICS)}}
		}), []string{"mixed text/plain ", "mixed text/calendar attachment"}},
		{"calendar invitation", base(func(m *folio.MailMessage) {
			m.Text = "t"
			m.Attachments = []folio.MailAttachment{{Filename: "invite.ics", ContentType: "text/calendar; method=REQUEST", Data: []byte(testICS)}}
		}), []string{"mixed/alternative text/plain ", "mixed/alternative text/calendar ", "mixed text/calendar attachment"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw, err := Render(tt.msg, testSender, testNow)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			p := parseMail(t, raw)
			var got []string
			for _, part := range p.Parts {
				got = append(got, part.Path+" "+part.MediaType+" "+part.Disposition)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("parts = %q, want %q", got, tt.want)
			}
			for _, part := range p.Parts {
				for _, a := range tt.msg.Attachments {
					if part.Filename == a.Filename && !bytes.Equal(part.Body, a.Data) {
						t.Errorf("%s: bytes = %q, want %q", a.Filename, part.Body, a.Data)
					}
				}
			}
		})
	}
}

func TestRenderSenderAndMessageID(t *testing.T) {
	t.Parallel()
	m := plainMessage()
	m.Headers = nil
	raw1, err := Render(m, testSender, testNow)
	if err != nil {
		t.Fatal(err)
	}
	raw2, err := Render(m, testSender, testNow)
	if err != nil {
		t.Fatal(err)
	}
	id1, id2 := parseMail(t, raw1).MessageID, parseMail(t, raw2).MessageID
	if !strings.HasPrefix(id1, "<") || !strings.HasSuffix(id1, "@folio.test>") || id1 == id2 {
		t.Errorf("generated Message-IDs %q, %q: want distinct <…@folio.test>", id1, id2)
	}

	own := plainMessage()
	own.From = folio.MailAddress{Name: "Owner", Email: "owner@folio.test"}
	own.Headers = map[string]string{"message-id": "bare-id@folio.test"}
	raw, err := Render(own, testSender, testNow)
	if err != nil {
		t.Fatal(err)
	}
	p := parseMail(t, raw)
	if p.From[0].Address != "owner@folio.test" {
		t.Errorf("From = %v, want the message's own From", p.From)
	}
	if p.MessageID != "<bare-id@folio.test>" {
		t.Errorf("Message-ID = %q, want <bare-id@folio.test>", p.MessageID)
	}
	if n := len(p.Header["Message-Id"]); n != 1 {
		t.Errorf("%d Message-ID headers, want 1", n)
	}

	if _, err := Render(plainMessage(), folio.MailAddress{}, testNow); folio.ErrorCode(err) != folio.EINVALID {
		t.Errorf("no sender at all: err = %v, want VALIDATION_ERROR", err)
	}
	if _, err := Render(plainMessage(), folio.MailAddress{Email: "bad\r\nBcc: x@y.z"}, testNow); folio.ErrorCode(err) != folio.EINVALID {
		t.Errorf("injected configured sender: err = %v, want VALIDATION_ERROR", err)
	}
}

func TestParseAddress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    folio.MailAddress
		wantErr bool
	}{
		{"noreply@example.com", folio.MailAddress{Email: "noreply@example.com"}, false},
		{"Folio Site <noreply@example.com>", folio.MailAddress{Name: "Folio Site", Email: "noreply@example.com"}, false},
		{`"Zoë" <z@example.com>`, folio.MailAddress{Name: "Zoë", Email: "z@example.com"}, false},
		{"not an address", folio.MailAddress{}, true},
		{"", folio.MailAddress{}, true},
	}
	for _, tt := range tests {
		got, err := ParseAddress(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseAddress(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// FuzzRender checks that whatever Validate accepts renders into a message whose header section
// holds exactly the fields we set: no injected header, no extra recipient.
func FuzzRender(f *testing.F) {
	f.Add("Ada", "ada@example.com", "Hello", "Visitor", "v@example.net", "X-Tag", "v", "a.txt")
	f.Add("Evil\r\nBcc: x@evil.test", "a@b.c", "s\nBcc: y@evil.test", "r", "r@x.y", "In-Reply-To", "<a@b>", "f")
	f.Add("Zoë \"quoted\" <weird>", "z@example.com", "=?UTF-8?B?SGk=?= ☕", "", "q@x.y", "X-A", "\t", "ü.ics")
	f.Add("A", "a@b.c", "=??q?x?=", "", "q@x.y", "X-A", "v", "a.txt")
	f.Add("A", "a@b.c", "literal =?UTF-8?B?SGk=?= "+strings.Repeat("long subject ", 20), "", "q@x.y", "X-A", "v", "a.txt")
	f.Fuzz(func(t *testing.T, name, email, subject, replyName, replyEmail, hName, hValue, filename string) {
		m := &folio.MailMessage{
			To:          []folio.MailAddress{{Name: name, Email: email}},
			ReplyTo:     &folio.MailAddress{Name: replyName, Email: replyEmail},
			Subject:     subject,
			Text:        "body",
			Headers:     map[string]string{hName: hValue},
			Attachments: []folio.MailAttachment{{Filename: filename, ContentType: "text/plain", Data: []byte("x")}},
		}
		if m.Validate() != nil {
			return
		}
		raw, err := Render(m, testSender, testNow)
		if err != nil {
			t.Fatalf("Validate accepted but Render failed: %v", err)
		}
		p := parseMail(t, raw)
		if p.Subject != subject && strings.Join(strings.Fields(p.Subject), " ") != strings.Join(strings.Fields(subject), " ") {
			t.Fatalf("Subject = %q, want %q", p.Subject, subject)
		}
		if len(p.To) != 1 || p.To[0].Address != email {
			t.Fatalf("To = %v, want exactly %q", p.To, email)
		}
		if len(p.ReplyTo) != 1 || p.ReplyTo[0].Address != replyEmail {
			t.Fatalf("Reply-To = %v, want exactly %q", p.ReplyTo, replyEmail)
		}
		allowed := map[string]bool{"From": true, "To": true, "Reply-To": true, "Subject": true, "Date": true,
			"Message-Id": true, "Mime-Version": true, "Content-Type": true, "Content-Transfer-Encoding": true}
		if !strings.EqualFold(hName, "message-id") {
			allowed[textproto.CanonicalMIMEHeaderKey(hName)] = true
		}
		for k := range p.Header {
			if !allowed[k] {
				t.Fatalf("unexpected header %q in\n%s", k, raw)
			}
		}
	})
}
