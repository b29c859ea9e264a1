package invite

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/foliohq/folio"
)

// Confirmation is the text of one confirmation mail.
type Confirmation struct {
	Subject string
	Text    string
	HTML    string
}

// ConfirmationMail renders the confirmation for the visitor (forOwner false) or the owner
// (forOwner true), showing the meeting time in both the owner's and the visitor's zone. The
// mail layer attaches InviteICS to it.
func ConfirmationMail(ev folio.CalendarEvent, ownerLoc, visitorLoc *time.Location, forOwner bool) (Confirmation, error) {
	if visitorLoc == nil {
		visitorLoc = ownerLoc
	}
	data := confirmationData{
		Summary:     ev.Summary,
		Description: strings.TrimSpace(ev.Description),
		MeetLink:    ev.MeetLink,
		EventLink:   ev.EventLink,
		Owner:       ev.Organizer,
		OwnerName:   displayName(ev.Organizer),
		Visitor:     ev.Attendee,
		ForOwner:    forOwner,
	}
	// The reader's own zone comes first.
	first, second := visitorLoc, ownerLoc
	firstLabel, secondLabel := "Your time", "Host's time"
	if forOwner {
		first, second = ownerLoc, visitorLoc
		firstLabel, secondLabel = "Your time", "Guest's time"
	}
	data.Times = append(data.Times, zoneLine{firstLabel, FormatRange(ev.Start, ev.End, first)})
	if second.String() != first.String() {
		data.Times = append(data.Times, zoneLine{secondLabel, FormatRange(ev.Start, ev.End, second)})
	}

	var subject string
	if forOwner {
		subject = "New booking: " + ev.Summary
		// The default summary is "Meeting with <name>" already.
		if who := displayName(ev.Attendee); !strings.Contains(ev.Summary, who) {
			subject += " with " + who
		}
	} else {
		subject = fmt.Sprintf("Confirmed: %s", ev.Summary)
	}
	subject += ", " + ev.Start.In(first).Format("Mon 2 Jan 2006 15:04 MST")
	subject = strings.Map(func(r rune) rune { // a subject is one header line
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, subject)

	var text, html bytes.Buffer
	if err := confirmationText.Execute(&text, data); err != nil {
		return Confirmation{}, fmt.Errorf("invite: render confirmation text: %w", err)
	}
	if err := confirmationHTML.Execute(&html, data); err != nil {
		return Confirmation{}, fmt.Errorf("invite: render confirmation html: %w", err)
	}
	return Confirmation{Subject: subject, Text: text.String(), HTML: html.String()}, nil
}

// FormatRange renders [start, end) in loc, like "Tuesday 10 March 2026, 09:00–09:30 EDT
// (UTC-04:00, America/New_York)"; the end carries its own date when it falls on another day and
// its own abbreviation when the offset changes in between.
func FormatRange(start, end time.Time, loc *time.Location) string {
	s, e := start.In(loc), end.In(loc)
	out := s.Format("Monday 2 January 2006, 15:04")
	_, so := s.Zone()
	_, eo := e.Zone()
	switch {
	case !sameDate(s, e):
		out += " " + s.Format("MST") + " – " + e.Format("Monday 2 January 2006, 15:04 MST")
	case so != eo:
		out += " " + s.Format("MST") + " – " + e.Format("15:04 MST")
	default:
		out += "–" + e.Format("15:04 MST")
	}
	return out + " (UTC" + s.Format("-07:00") + ", " + loc.String() + ")"
}

// sameDate reports whether a and b (in the same location) show the same calendar date.
func sameDate(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

func displayName(p folio.Participant) string {
	if p.Name != "" {
		return p.Name
	}
	return p.Email
}

type zoneLine struct{ Label, When string }

type confirmationData struct {
	Summary, Description string
	MeetLink, EventLink  string
	Owner, Visitor       folio.Participant
	OwnerName            string // the name, or the address when the owner has no name configured
	ForOwner             bool
	Times                []zoneLine
}

var confirmationText = texttemplate.Must(texttemplate.New("text").Parse(
	`{{if .ForOwner}}{{.Visitor.Name}} <{{.Visitor.Email}}> booked a meeting with you.{{else}}Your meeting with {{.OwnerName}} is booked.{{end}}

{{.Summary}}
{{range .Times}}
{{.Label}}: {{.When}}{{end}}
{{if .MeetLink}}
Join: {{.MeetLink}}{{end}}{{if and .ForOwner .EventLink}}
Calendar: {{.EventLink}}{{end}}{{if .Description}}

{{.Description}}{{end}}

The attached invitation adds the meeting to your calendar.
`))

var confirmationHTML = template.Must(template.New("html").Parse(
	`<!doctype html>
<html><body style="font-family:sans-serif">
<p>{{if .ForOwner}}{{.Visitor.Name}} &lt;{{.Visitor.Email}}&gt; booked a meeting with you.{{else}}Your meeting with {{.OwnerName}} is booked.{{end}}</p>
<h2>{{.Summary}}</h2>
<table>{{range .Times}}
<tr><th align="left">{{.Label}}</th><td>{{.When}}</td></tr>{{end}}
</table>
{{if .MeetLink}}<p><a href="{{.MeetLink}}">Join the meeting</a></p>{{end}}
{{if and .ForOwner .EventLink}}<p><a href="{{.EventLink}}">Open in calendar</a></p>{{end}}
{{if .Description}}<p style="white-space:pre-wrap">{{.Description}}</p>{{end}}
<p>The attached invitation adds the meeting to your calendar.</p>
</body></html>
`))
