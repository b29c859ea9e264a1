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

// Confirmation is the text of one booking mail.
type Confirmation struct {
	Subject string
	Text    string
	HTML    string
}

// Kind is what a booking mail tells.
type Kind string

// The booking mails.
const (
	Booked      Kind = "booked"
	Rescheduled Kind = "rescheduled"
	Cancelled   Kind = "cancelled"
	Reminder    Kind = "reminder"
)

// Extras are the parts of a booking mail beyond the event.
type Extras struct {
	// OldStart and OldEnd are the time a rescheduled meeting moved away from.
	OldStart, OldEnd time.Time
	// Reason is the cancel reason: shown to the owner, and to the visitor only when the owner
	// cancelled (a visitor's reason is the requester's free text; docs/api.md, "Visitor mails carry no
	// requester free text").
	Reason string
	// By is who cancelled: "visitor" or "owner".
	By string
	// Answers are the visitor's answers to the type's questions: shown to the owner only.
	Answers []folio.BookingAnswer
}

// ForVisitor returns ev as the visitor's mails and invite show it: no free text of the
// requester but their name (docs/api.md, "Visitor mails carry no requester free text") — the
// summary becomes "Meeting with <owner>" and the description is dropped; the meeting link and the
// manage link stay.
func ForVisitor(ev folio.CalendarEvent) folio.CalendarEvent {
	ev.Summary = "Meeting with " + displayName(ev.Organizer)
	ev.Description = ""
	return ev
}

// ConfirmationMail renders the confirmation for the visitor (forOwner false) or the owner
// (forOwner true), showing the meeting time in both the owner's and the visitor's zone. The
// mail layer attaches InviteICS to it. The visitor's mail never shows ev.Description.
func ConfirmationMail(ev folio.CalendarEvent, ownerLoc, visitorLoc *time.Location, forOwner bool) (Confirmation, error) {
	return BookingMail(Booked, ev, ownerLoc, visitorLoc, forOwner, Extras{})
}

// BookingMail renders the mail of kind for the visitor or the owner (see ConfirmationMail).
func BookingMail(kind Kind, ev folio.CalendarEvent, ownerLoc, visitorLoc *time.Location, forOwner bool, x Extras) (Confirmation, error) {
	if visitorLoc == nil {
		visitorLoc = ownerLoc
	}
	data := confirmationData{
		Kind:        kind,
		Summary:     ev.Summary,
		Description: strings.TrimSpace(ev.Description),
		MeetLink:    ev.MeetLink,
		EventLink:   ev.EventLink,
		ManageURL:   ev.ManageURL,
		Owner:       ev.Organizer,
		OwnerName:   displayName(ev.Organizer),
		Visitor:     ev.Attendee,
		ForOwner:    forOwner,
		By:          x.By,
		Place:       ev.Place,
	}
	if forOwner {
		for _, a := range x.Answers {
			data.Answers = append(data.Answers, zoneLine{a.Label, a.Text()})
		}
	}
	if forOwner {
		data.ManageURL = "" // the visitor's link: the owner manages from the dashboard
	} else {
		data.Description = ""
	}
	// A reason is the canceller's text: the visitor's goes to the owner only, the owner's to both
	// (docs/api.md, "Visitor mails carry no requester free text").
	if forOwner || x.By == "owner" {
		data.Reason = strings.TrimSpace(x.Reason)
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
	if kind == Rescheduled && !x.OldStart.IsZero() {
		data.OldTimes = append(data.OldTimes, zoneLine{"Was", FormatRange(x.OldStart, x.OldEnd, first)})
	}

	var subject string
	withWho := ev.Summary
	if who := displayName(ev.Attendee); forOwner && !strings.Contains(ev.Summary, who) {
		withWho += " with " + who // the default summary is "Meeting with <name>" already
	}
	switch {
	case kind == Booked && forOwner:
		subject = "New booking: " + withWho
	case kind == Booked:
		subject = fmt.Sprintf("Confirmed: %s", ev.Summary)
	case kind == Rescheduled:
		subject = "Rescheduled: " + withWho
	case kind == Cancelled:
		subject = "Cancelled: " + withWho
	default:
		subject = "Reminder: " + withWho
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
	Kind                 Kind
	Summary, Description string
	MeetLink, EventLink  string
	ManageURL            string
	Reason, By           string
	OldTimes             []zoneLine
	Owner, Visitor       folio.Participant
	OwnerName            string // the name, or the address when the owner has no name configured
	ForOwner             bool
	Times                []zoneLine
	Place                *folio.BookingLocation
	Answers              []zoneLine // label and answer
}

var confirmationText = texttemplate.Must(texttemplate.New("text").Parse(
	`{{template "lead" .}}

{{.Summary}}
{{range .OldTimes}}
{{.Label}}: {{.When}}{{end}}{{range .Times}}
{{.Label}}: {{.When}}{{end}}{{if and .Place (ne .Kind "cancelled")}}
Where: {{.Place.Label}}{{if .Place.MapURL}}
Map: {{.Place.MapURL}}{{end}}{{end}}
{{if and .MeetLink (ne .Kind "cancelled")}}
Join: {{.MeetLink}}{{end}}{{if and .ForOwner .EventLink (ne .Kind "cancelled")}}
Calendar: {{.EventLink}}{{end}}{{if .Reason}}
Reason given: {{.Reason}}{{end}}{{if .Answers}}

Answers:{{range .Answers}}
{{.Label}}: {{.When}}{{end}}{{end}}{{if .Description}}

{{.Description}}{{end}}{{if and .ManageURL (ne .Kind "cancelled")}}

Need to cancel or pick another time? {{.ManageURL}}{{end}}

{{if eq .Kind "cancelled"}}The attached update removes the meeting from your calendar.{{else if eq .Kind "reminder"}}See you soon.{{else}}The attached invitation adds the meeting to your calendar.{{end}}
{{define "lead"}}{{if eq .Kind "rescheduled"}}{{if .ForOwner}}{{.Visitor.Name}} <{{.Visitor.Email}}> moved their meeting with you.{{else}}Your meeting with {{.OwnerName}} has a new time.{{end}}{{else if eq .Kind "cancelled"}}{{if .ForOwner}}The meeting with {{.Visitor.Name}} <{{.Visitor.Email}}> was cancelled{{if eq .By "owner"}} by you{{end}}.{{else}}Your meeting with {{.OwnerName}} was cancelled{{if eq .By "owner"}} by {{.OwnerName}}{{end}}.{{end}}{{else if eq .Kind "reminder"}}Reminder: your meeting with {{.OwnerName}} is coming up.{{else}}{{if .ForOwner}}{{.Visitor.Name}} <{{.Visitor.Email}}> booked a meeting with you.{{else}}Your meeting with {{.OwnerName}} is booked.{{end}}{{end}}{{end}}`))

var confirmationHTML = template.Must(template.New("html").Parse(
	`<!doctype html>
<html><body style="font-family:sans-serif">
<p>{{template "lead" .}}</p>
<h2>{{.Summary}}</h2>
<table>{{range .OldTimes}}
<tr><th align="left">{{.Label}}</th><td><s>{{.When}}</s></td></tr>{{end}}{{range .Times}}
<tr><th align="left">{{.Label}}</th><td>{{.When}}</td></tr>{{end}}{{if and .Place (ne .Kind "cancelled")}}
<tr><th align="left">Where</th><td>{{.Place.Label}}{{if .Place.MapURL}} (<a href="{{.Place.MapURL}}">map</a>){{end}}</td></tr>{{end}}
</table>
{{if and .MeetLink (ne .Kind "cancelled")}}<p><a href="{{.MeetLink}}">Join the meeting</a></p>{{end}}
{{if and .ForOwner .EventLink (ne .Kind "cancelled")}}<p><a href="{{.EventLink}}">Open in calendar</a></p>{{end}}
{{if .Reason}}<p>Reason given: {{.Reason}}</p>{{end}}{{if .Answers}}<h3>Answers</h3><table>{{range .Answers}}<tr><th align="left">{{.Label}}</th><td style="white-space:pre-wrap">{{.When}}</td></tr>{{end}}</table>{{end}}
{{if .Description}}<p style="white-space:pre-wrap">{{.Description}}</p>{{end}}
{{if and .ManageURL (ne .Kind "cancelled")}}<p><a href="{{.ManageURL}}">Cancel or pick another time</a></p>{{end}}
<p>{{if eq .Kind "cancelled"}}The attached update removes the meeting from your calendar.{{else if eq .Kind "reminder"}}See you soon.{{else}}The attached invitation adds the meeting to your calendar.{{end}}</p>
</body></html>
{{define "lead"}}{{if eq .Kind "rescheduled"}}{{if .ForOwner}}{{.Visitor.Name}} &lt;{{.Visitor.Email}}&gt; moved their meeting with you.{{else}}Your meeting with {{.OwnerName}} has a new time.{{end}}{{else if eq .Kind "cancelled"}}{{if .ForOwner}}The meeting with {{.Visitor.Name}} &lt;{{.Visitor.Email}}&gt; was cancelled{{if eq .By "owner"}} by you{{end}}.{{else}}Your meeting with {{.OwnerName}} was cancelled{{if eq .By "owner"}} by {{.OwnerName}}{{end}}.{{end}}{{else if eq .Kind "reminder"}}Reminder: your meeting with {{.OwnerName}} is coming up.{{else}}{{if .ForOwner}}{{.Visitor.Name}} &lt;{{.Visitor.Email}}&gt; booked a meeting with you.{{else}}Your meeting with {{.OwnerName}} is booked.{{end}}{{end}}{{end}}`))
