package invite

import (
	"bytes"
	"flag"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	arran "github.com/arran4/golang-ical"
	ical "github.com/emersion/go-ical"
	"github.com/foliohq/folio"
)

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load zone %s: %v", name, err)
	}
	return loc
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n got: %q\nwant: %q", name, got, want)
	}
}

func hardEvent(t *testing.T) folio.CalendarEvent {
	return folio.CalendarEvent{
		ID:          "0195d6f2-7c1a-7b7e-9d3c-2f4a1b6c8e90",
		Summary:     "Intro; pricing, scope: and \"next steps\" — Zoë's café ☕",
		Description: "Line one,\r\nline two; with a \\ backslash\nand a very long line that certainly needs folding because it goes on and on past seventy-five octets ünïcödé ünïcödé ünïcödé",
		Start:       mustTime(t, "2026-03-08T07:00:00Z").In(mustZone(t, "America/New_York")),
		End:         mustTime(t, "2026-03-08T07:30:00Z"),
		TimeZone:    "Asia/Kolkata",
		Organizer:   folio.Participant{Name: "Owner, The; Boss: Ünal", Email: "owner@example.com"},
		Attendee:    folio.Participant{Name: "Doe, Jane; \"JD\" Ümlaut-Ñandú\nSecond line", Email: "jane.doe@example.org"},
		MeetLink:    "https://meet.google.com/abc-defg-hij?authuser=0&pli=1",
		EventLink:   "https://calendar.google.com/event?eid=xyz",
	}
}

func TestInviteICS(t *testing.T) {
	t.Parallel()
	ev := hardEvent(t)
	now := mustTime(t, "2026-03-01T12:34:56Z").Add(789 * time.Millisecond)
	out, err := InviteICS(ev, "REQUEST", now)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "invite.ics.golden", out)

	t.Run("CRLF and 75-octet lines", func(t *testing.T) {
		if !bytes.HasSuffix(out, []byte("\r\n")) {
			t.Error("output does not end in CRLF")
		}
		lines := bytes.Split(bytes.TrimSuffix(out, []byte("\r\n")), []byte("\r\n"))
		for i, l := range lines {
			if bytes.ContainsAny(l, "\r\n") {
				t.Errorf("line %d has a bare CR or LF: %q", i, l)
			}
			if len(l) > 75 {
				t.Errorf("line %d is %d octets: %q", i, len(l), l)
			}
			if !utf8.Valid(l) {
				t.Errorf("line %d splits a UTF-8 sequence: %q", i, l)
			}
		}
	})

	wantSummary := ev.Summary
	wantDescription := "Line one,\nline two; with a \\ backslash\nand a very long line that certainly needs folding because it goes on and on past seventy-five octets ünïcödé ünïcödé ünïcödé\n\nJoin the meeting: " + ev.MeetLink
	wantAttendeeCN := "Doe, Jane; 'JD' Ümlaut-Ñandú Second line"
	wantOrganizerCN := "Owner, The; Boss: Ünal"

	t.Run("emersion go-ical reads it back", func(t *testing.T) {
		cal, err := ical.NewDecoder(bytes.NewReader(out)).Decode()
		if err != nil {
			t.Fatal(err)
		}
		if m, _ := cal.Props.Text(ical.PropMethod); m != "REQUEST" {
			t.Errorf("METHOD = %q", m)
		}
		if p, _ := cal.Props.Text(ical.PropProductID); p != ProductID {
			t.Errorf("PRODID = %q", p)
		}
		if v, _ := cal.Props.Text(ical.PropVersion); v != "2.0" {
			t.Errorf("VERSION = %q", v)
		}
		events := cal.Events()
		if len(events) != 1 {
			t.Fatalf("%d events", len(events))
		}
		e := events[0]
		text := func(name string) string {
			v, err := e.Props.Text(name)
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			return v
		}
		if got := text(ical.PropUID); got != ev.ID+"@folio" {
			t.Errorf("UID = %q", got)
		}
		if got := text(ical.PropSummary); got != wantSummary {
			t.Errorf("SUMMARY = %q, want %q", got, wantSummary)
		}
		if got := text(ical.PropDescription); got != wantDescription {
			t.Errorf("DESCRIPTION = %q, want %q", got, wantDescription)
		}
		if got := text(ical.PropLocation); got != ev.MeetLink {
			t.Errorf("LOCATION = %q", got)
		}
		if got := e.Props.Get(ical.PropURL).Value; got != ev.MeetLink {
			t.Errorf("URL = %q", got)
		}
		for name, want := range map[string]time.Time{
			ical.PropDateTimeStart: ev.Start, ical.PropDateTimeEnd: ev.End, ical.PropDateTimeStamp: now.Truncate(time.Second),
		} {
			p := e.Props.Get(name)
			if p == nil || !strings.HasSuffix(p.Value, "Z") || p.Params.Get(ical.ParamTimezoneID) != "" {
				t.Errorf("%s = %+v, want a UTC date-time", name, p)
				continue
			}
			got, err := e.Props.DateTime(name, time.UTC)
			if err != nil || !got.Equal(want) {
				t.Errorf("%s = %v (%v), want %v", name, got, err, want)
			}
		}
		org := e.Props.Get(ical.PropOrganizer)
		if org == nil || org.Value != "mailto:owner@example.com" || org.Params.Get(ical.ParamCommonName) != wantOrganizerCN {
			t.Errorf("ORGANIZER = %+v", org)
		}
		att := e.Props.Get(ical.PropAttendee)
		if att == nil || att.Value != "mailto:jane.doe@example.org" {
			t.Fatalf("ATTENDEE = %+v", att)
		}
		for param, want := range map[string]string{
			ical.ParamCommonName: wantAttendeeCN, ical.ParamRSVP: "TRUE",
			ical.ParamParticipationStatus: "NEEDS-ACTION", ical.ParamRole: "REQ-PARTICIPANT",
		} {
			if got := att.Params.Values(param); len(got) != 1 || got[0] != want {
				t.Errorf("ATTENDEE;%s = %q, want %q", param, got, want)
			}
		}
	})

	t.Run("arran4 golang-ical reads it back", func(t *testing.T) {
		cal, err := arran.ParseCalendar(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		events := cal.Events()
		if len(events) != 1 {
			t.Fatalf("%d events", len(events))
		}
		e := events[0]
		if got := e.Id(); got != ev.ID+"@folio" {
			t.Errorf("UID = %q", got)
		}
		if got := arran.FromText(e.GetProperty(arran.ComponentPropertySummary).Value); got != wantSummary {
			t.Errorf("SUMMARY = %q, want %q", got, wantSummary)
		}
		start, err := e.GetStartAt()
		if err != nil || !start.Equal(ev.Start) {
			t.Errorf("DTSTART = %v (%v)", start, err)
		}
		atts := e.Attendees()
		if len(atts) != 1 || atts[0].Email() != "jane.doe@example.org" {
			t.Fatalf("attendees = %+v", atts)
		}
		if cn := atts[0].ICalParameters["CN"]; len(cn) != 1 || cn[0] != wantAttendeeCN {
			t.Errorf("ATTENDEE CN = %q, want %q", cn, wantAttendeeCN)
		}
		if got := atts[0].ParticipationStatus(); got != arran.ParticipationStatusNeedsAction {
			t.Errorf("PARTSTAT = %q", got)
		}
	})
}

func TestInviteICSWithoutMeetLinkOrMethod(t *testing.T) {
	t.Parallel()
	ev := folio.CalendarEvent{ID: "e1", Summary: "S", Start: mustTime(t, "2026-03-10T13:00:00Z"), End: mustTime(t, "2026-03-10T13:30:00Z"),
		Organizer: folio.Participant{Email: "o@example.com"}, Attendee: folio.Participant{Email: "a@example.com"}}
	out, err := InviteICS(ev, "", mustTime(t, "2026-03-01T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, absent := range []string{"METHOD", "LOCATION", "URL", "CN="} {
		if strings.Contains(s, absent) {
			t.Errorf("output has %s:\n%s", absent, s)
		}
	}
}

func TestFold(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"A:short\r\n", "A:short\r\n"},
		{strings.Repeat("x", 75) + "\r\n", strings.Repeat("x", 75) + "\r\n"},
		{strings.Repeat("x", 76) + "\r\n", strings.Repeat("x", 75) + "\r\n x\r\n"},
		{strings.Repeat("x", 75+74+1), strings.Repeat("x", 75) + "\r\n " + strings.Repeat("x", 74) + "\r\n x\r\n"},
		// A 2-octet rune that would straddle octet 75 moves to the next line whole.
		{strings.Repeat("x", 74) + "é" + "\r\n", strings.Repeat("x", 74) + "\r\n é\r\n"},
	}
	for _, tt := range tests {
		if got := string(Fold([]byte(tt.in))); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzFold(f *testing.F) {
	f.Add("DESCRIPTION:" + strings.Repeat("ünïcödé ", 30) + "\r\nX:y\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		// Fold takes content lines as go-ical writes them: valid UTF-8, CRLF only at line ends,
		// and no line after the first starting with a space or tab (that is a folded
		// continuation, which unfolding joins to the line before).
		if !utf8.ValidString(s) || strings.ContainsAny(strings.ReplaceAll(s, "\r\n", ""), "\r\n") ||
			strings.Contains(s, "\r\n ") || strings.Contains(s, "\r\n\t") {
			return
		}
		out := Fold([]byte(s))
		for _, l := range bytes.Split(bytes.TrimSuffix(out, []byte("\r\n")), []byte("\r\n")) {
			if len(l) > 75 || !utf8.Valid(l) {
				t.Fatalf("bad line %q", l)
			}
		}
		unfolded := strings.ReplaceAll(string(out), "\r\n ", "")
		want := s
		if !strings.HasSuffix(want, "\r\n") {
			want += "\r\n"
		}
		if unfolded != want && s != "" {
			t.Fatalf("unfold(Fold(%q)) = %q", s, unfolded)
		}
	})
}

func TestConfirmationMail(t *testing.T) {
	t.Parallel()
	ev := hardEvent(t)
	ev.Description = "Let's talk <b>pricing</b> & scope."
	ev.Organizer = folio.Participant{Name: "Olivia Owner", Email: "owner@example.com"}
	ev.Attendee = folio.Participant{Name: "Jane <script>", Email: "jane@example.org"}
	ny, kolkata := mustZone(t, "America/New_York"), mustZone(t, "Asia/Kolkata")
	for _, forOwner := range []bool{false, true} {
		name := "visitor"
		if forOwner {
			name = "owner"
		}
		t.Run(name, func(t *testing.T) {
			c, err := ConfirmationMail(ev, ny, kolkata, forOwner)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "confirmation-"+name+".golden", []byte(c.Subject+"\n---\n"+c.Text+"---\n"+c.HTML))
			for _, want := range []string{"(UTC-04:00, America/New_York)", "(UTC+05:30, Asia/Kolkata)", "03:00–03:30 EDT", "12:30–13:00 IST"} {
				if !strings.Contains(c.Text, want) || !strings.Contains(html.UnescapeString(c.HTML), want) {
					t.Errorf("text or html lacks %q", want)
				}
			}
			if strings.Contains(c.HTML, "<script>") || strings.Contains(c.HTML, "<b>") {
				t.Error("html does not escape user text")
			}
			// The requester's free text goes to the owner only.
			if got := strings.Contains(c.Text, "<b>pricing</b> & scope"); got != forOwner {
				t.Errorf("text carries the description: %v, want %v (HTML-escaped or leaked to the visitor)", got, forOwner)
			}
			if strings.ContainsAny(c.Subject, "\r\n") {
				t.Errorf("subject spans lines: %q", c.Subject)
			}
		})
	}
}

// Ensure an owner configured with a bare address is named by it, and the default summary
// ("Meeting with <name>") is not followed by the name again in the owner's subject.
func TestConfirmationMailNames(t *testing.T) {
	t.Parallel()
	ev := hardEvent(t)
	ev.Organizer = folio.Participant{Email: "owner@example.com"}
	ev.Attendee = folio.Participant{Name: "Grace Visitor", Email: "grace@example.org"}
	ev.Summary = "Meeting with Grace Visitor"
	ny := mustZone(t, "America/New_York")
	visitor, err := ConfirmationMail(ev, ny, ny, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(visitor.Text, "Your meeting with owner@example.com is booked.") {
		t.Errorf("visitor text: %q", visitor.Text)
	}
	owner, err := ConfirmationMail(ev, ny, ny, true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(owner.Subject, "Grace Visitor") != 1 || !strings.HasPrefix(owner.Subject, "New booking: Meeting with Grace Visitor, ") {
		t.Errorf("owner subject: %q", owner.Subject)
	}
	ev.Summary = "Portfolio review"
	if owner, _ = ConfirmationMail(ev, ny, ny, true); !strings.HasPrefix(owner.Subject, "New booking: Portfolio review with Grace Visitor, ") {
		t.Errorf("owner subject with a custom summary: %q", owner.Subject)
	}
}

func TestFormatRange(t *testing.T) {
	t.Parallel()
	ny := mustZone(t, "America/New_York")
	tests := []struct{ start, end, want string }{
		{"2026-03-10T13:00:00Z", "2026-03-10T14:00:00Z", "Tuesday 10 March 2026, 09:00–10:00 EDT (UTC-04:00, America/New_York)"},
		{"2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z", "Sunday 8 March 2026, 01:30 EST – 03:30 EDT (UTC-05:00, America/New_York)"},
		{"2026-03-11T03:30:00Z", "2026-03-11T04:30:00Z", "Tuesday 10 March 2026, 23:30 EDT – Wednesday 11 March 2026, 00:30 EDT (UTC-04:00, America/New_York)"},
	}
	for _, tt := range tests {
		if got := FormatRange(mustTime(t, tt.start), mustTime(t, tt.end), ny); got != tt.want {
			t.Errorf("FormatRange(%s, %s) = %q, want %q", tt.start, tt.end, got, tt.want)
		}
	}
}

// TestBookingMailKinds checks the reschedule, cancel and reminder mails: the lead line, the old
// time, the reason (owner only), the manage link (visitor only, never on a cancel).
func TestBookingMailKinds(t *testing.T) {
	t.Parallel()
	ev := hardEvent(t)
	ev.Organizer = folio.Participant{Name: "Olivia Owner", Email: "owner@example.com"}
	ev.Attendee = folio.Participant{Name: "Jane", Email: "jane@example.org"}
	ev.ManageURL = "https://example.com/book/manage/TOKEN"
	ny := mustZone(t, "America/New_York")
	x := Extras{OldStart: ev.Start.Add(-24 * time.Hour), OldEnd: ev.End.Add(-24 * time.Hour), Reason: "flu, sorry", By: "visitor"}
	cases := []struct {
		kind     Kind
		forOwner bool
		want     []string
		not      []string
	}{
		{Rescheduled, false, []string{"Rescheduled: ", "has a new time", "Was: Saturday 7 March 2026", ev.ManageURL}, []string{"flu"}},
		{Rescheduled, true, []string{"moved their meeting", "Was: "}, []string{ev.ManageURL}},
		{Cancelled, false, []string{"Cancelled: ", "was cancelled", "removes the meeting"}, []string{ev.ManageURL, "flu", "Join:"}},
		{Cancelled, true, []string{"was cancelled", "Reason given: flu, sorry"}, []string{ev.ManageURL}},
		{Reminder, false, []string{"Reminder: ", "coming up", ev.ManageURL, "Join: "}, nil},
	}
	for _, c := range cases {
		m, err := BookingMail(c.kind, ev, ny, ny, c.forOwner, x)
		if err != nil {
			t.Fatal(err)
		}
		all := m.Subject + "\n" + m.Text
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s owner=%v: lacks %q:\n%s", c.kind, c.forOwner, w, all)
			}
		}
		for _, w := range c.not {
			if strings.Contains(all, w) || strings.Contains(m.HTML, w) {
				t.Errorf("%s owner=%v: carries %q", c.kind, c.forOwner, w)
			}
		}
	}
	if m, _ := BookingMail(Cancelled, ev, ny, ny, false, Extras{Reason: "Double-booked", By: "owner"}); !strings.Contains(m.Text, "Reason given: Double-booked") {
		t.Errorf("the owner's reason is not told to the visitor:\n%s", m.Text)
	}
	v := ForVisitor(folio.CalendarEvent{Summary: "secret plan", Description: "call me at 555", Organizer: ev.Organizer})
	if v.Summary != "Meeting with Olivia Owner" || v.Description != "" {
		t.Errorf("ForVisitor = %q / %q", v.Summary, v.Description)
	}
}

// TestInviteSequenceAndCancel parses a CANCEL invite back with the second library: same UID,
// the raised SEQUENCE, STATUS:CANCELLED and the manage link in DESCRIPTION.
func TestInviteSequenceAndCancel(t *testing.T) {
	t.Parallel()
	ev := folio.CalendarEvent{ID: "b1", Summary: "S", Start: mustTime(t, "2026-03-10T13:00:00Z"), End: mustTime(t, "2026-03-10T13:30:00Z"),
		Organizer: folio.Participant{Email: "o@example.com"}, Attendee: folio.Participant{Email: "a@example.com"},
		Sequence: 2, Cancelled: true, ManageURL: "https://example.com/book/manage/abc"}
	out, err := InviteICS(ev, "CANCEL", mustTime(t, "2026-03-01T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	cal, err := arran.ParseCalendar(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("golang-ical cannot parse: %v\n%s", err, out)
	}
	if m := cal.CalendarProperties; len(m) == 0 {
		t.Fatal("no calendar properties")
	}
	if !bytes.Contains(out, []byte("METHOD:CANCEL\r\n")) {
		t.Errorf("no METHOD:CANCEL:\n%s", out)
	}
	evs := cal.Events()
	if len(evs) != 1 {
		t.Fatalf("%d events", len(evs))
	}
	e := evs[0]
	get := func(p arran.ComponentProperty) string {
		if x := e.GetProperty(p); x != nil {
			return x.Value
		}
		return ""
	}
	if get(arran.ComponentPropertyUniqueId) != "b1@folio" || get(arran.ComponentPropertySequence) != "2" || get(arran.ComponentPropertyStatus) != "CANCELLED" {
		t.Errorf("UID %q SEQUENCE %q STATUS %q", get(arran.ComponentPropertyUniqueId), get(arran.ComponentPropertySequence), get(arran.ComponentPropertyStatus))
	}
	if d := get(arran.ComponentPropertyDescription); !strings.Contains(d, "https://example.com/book/manage/abc") {
		t.Errorf("DESCRIPTION %q lacks the manage link", d)
	}
}
