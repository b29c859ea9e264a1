// Package invite renders what a booking sends to people: the RFC 5545 iCalendar invite
// (REQUEST, CANCEL, PUBLISH) and the text of the booking mails. Pure functions, no I/O.
package invite

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	ical "github.com/emersion/go-ical"
	"github.com/foliohq/folio"
)

// ProductID is the PRODID of every iCalendar object folio writes.
const ProductID = "-//folio//booking//EN"

// EventUID returns the iCalendar UID of the event with the given folio event ID. The invite
// mails and the CalDAV provider use the same UID, so a calendar that sees both merges them.
func EventUID(eventID string) string { return eventID + "@folio" }

// InviteICS renders ev as an RFC 5545 iCalendar object with the given METHOD (usually
// "REQUEST"): UID, DTSTAMP (now), DTSTART/DTEND in UTC, SUMMARY, DESCRIPTION (with the meeting
// link), LOCATION and URL (the meeting link), ORGANIZER and ATTENDEE (RSVP=TRUE,
// PARTSTAT=NEEDS-ACTION) as mailto: addresses. Lines end in CRLF and are folded at 75 octets.
//
// NB: it is written with github.com/emersion/go-ical, not arran4/golang-ical: golang-ical
// v0.3.4 ends lines with a bare LF on Unix by default and backslash-escapes parameter values
// (CN=Doe\, Jane), which RFC 5545 §3.2 does not allow (such values must be quoted).
// go-ical quotes parameters correctly but does not fold, so Fold does that afterwards.
func InviteICS(ev folio.CalendarEvent, method string, now time.Time) ([]byte, error) {
	cal := EventCalendar(ev, now)
	if method != "" {
		cal.Props.SetText(ical.PropMethod, method)
	}
	var buf bytes.Buffer
	if err := ical.NewEncoder(&buf).Encode(cal); err != nil {
		return nil, fmt.Errorf("invite: encode invite: %w", err)
	}
	return Fold(buf.Bytes()), nil
}

// EventCalendar returns ev as a VCALENDAR with one VEVENT and no METHOD: the form a CalDAV
// server stores (METHOD is only for iTIP messages such as the invite mail).
func EventCalendar(ev folio.CalendarEvent, now time.Time) *ical.Calendar {
	cal := ical.NewCalendar()
	cal.Props.SetText(ical.PropVersion, "2.0")
	cal.Props.SetText(ical.PropProductID, ProductID)
	cal.Props.SetText(ical.PropCalendarScale, "GREGORIAN")

	e := ical.NewEvent()
	e.Props.SetText(ical.PropUID, EventUID(ev.ID))
	e.Props.SetDateTime(ical.PropDateTimeStamp, now.UTC().Truncate(time.Second))
	e.Props.SetDateTime(ical.PropDateTimeStart, ev.Start.UTC())
	e.Props.SetDateTime(ical.PropDateTimeEnd, ev.End.UTC())
	e.Props.SetText(ical.PropSummary, icsText(ev.Summary))
	e.Props.SetText(ical.PropDescription, icsText(InviteDescription(ev)))
	e.Props.Set(rawProp(ical.PropSequence, strconv.Itoa(max(ev.Sequence, 0))))
	if ev.Cancelled {
		e.Props.SetText(ical.PropStatus, "CANCELLED")
	} else {
		e.Props.SetText(ical.PropStatus, "CONFIRMED")
	}
	e.Props.SetText(ical.PropTransparency, "OPAQUE")
	switch where := ev.Place.Where(); {
	case where != "":
		e.Props.SetText(ical.PropLocation, icsText(where))
	case ev.MeetLink != "":
		e.Props.SetText(ical.PropLocation, icsText(ev.MeetLink))
	}
	if ev.MeetLink != "" && (ev.Place == nil || ev.Place.Video()) {
		e.Props.Set(rawProp(ical.PropURL, ev.MeetLink)) // a URI value is not TEXT-escaped
		// RFC 7986 §5.11: how to join; calendar apps show a "Join" button for it.
		conf := rawProp(ical.PropConference, ev.MeetLink)
		conf.Params.Set(ical.ParamValue, "URI")
		conf.Params["FEATURE"] = []string{"AUDIO", "VIDEO"} // multi-valued: FEATURE=AUDIO,VIDEO
		label := "Video meeting"
		if ev.Place != nil {
			label = ev.Place.Label
		}
		conf.Params.Set("LABEL", icsParam(label))
		e.Props.Set(conf)
	}
	if ev.Organizer.Email != "" {
		org := rawProp(ical.PropOrganizer, "mailto:"+ev.Organizer.Email)
		if cn := icsParam(ev.Organizer.Name); cn != "" {
			org.Params.Set(ical.ParamCommonName, cn)
		}
		e.Props.Set(org)
	}
	if ev.Attendee.Email != "" {
		att := rawProp(ical.PropAttendee, "mailto:"+ev.Attendee.Email)
		if cn := icsParam(ev.Attendee.Name); cn != "" {
			att.Params.Set(ical.ParamCommonName, cn)
		}
		att.Params.Set(ical.ParamRSVP, "TRUE")
		att.Params.Set(ical.ParamParticipationStatus, "NEEDS-ACTION")
		att.Params.Set(ical.ParamRole, "REQ-PARTICIPANT")
		att.Params.Set(ical.ParamCalendarUserType, "INDIVIDUAL")
		e.Props.Add(att)
	}
	cal.Children = append(cal.Children, e.Component)
	return cal
}

// rawProp returns a property whose value is written as is (URIs, integers, cal-addresses).
func rawProp(name, value string) *ical.Prop {
	p := ical.NewProp(name)
	p.Value = icsParam(value) // no control characters, which would break the content line
	return p
}

// InviteDescription is the event description: the visitor's text, the meeting link and the
// manage link, each when present.
func InviteDescription(ev folio.CalendarEvent) string {
	parts := []string{}
	if d := strings.TrimSpace(ev.Description); d != "" {
		parts = append(parts, d)
	}
	switch {
	case ev.MeetLink != "" && (ev.Place == nil || ev.Place.Video()):
		parts = append(parts, "Join the meeting: "+ev.MeetLink)
	case ev.Place != nil:
		where := "Where: " + ev.Place.Label
		if ev.Place.MapURL != "" {
			where += "\nMap: " + ev.Place.MapURL
		}
		parts = append(parts, where)
	}
	if ev.ManageURL != "" {
		parts = append(parts, "Cancel or reschedule: "+ev.ManageURL)
	}
	return strings.Join(parts, "\n\n")
}

// icsText normalises line breaks to LF (TEXT escapes them as \n) and drops the other control
// characters RFC 5545 §3.3.11 forbids.
func icsText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\r':
			return '\n'
		case r == '\n' || r == '\t':
			return r
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			return -1
		}
		return r
	}, s)
}

// icsParam makes s a valid parameter value: RFC 5545 §3.1 allows neither DQUOTE nor control
// characters there (commas, semicolons and colons are fine: the encoder quotes the value).
func icsParam(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// Fold folds every CRLF-terminated content line longer than 75 octets (RFC 5545 §3.1): the
// rest continues on lines that start with one space, and no UTF-8 sequence is split.
func Fold(b []byte) []byte {
	const limit = 75
	var out bytes.Buffer
	out.Grow(len(b) + len(b)/limit*3)
	for len(b) > 0 {
		line := b
		next := []byte(nil)
		if i := bytes.Index(b, []byte("\r\n")); i >= 0 {
			line, next = b[:i], b[i+2:]
		}
		max := limit
		for len(line) > max {
			cut := max
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			out.Write(line[:cut])
			out.WriteString("\r\n ")
			line = line[cut:]
			max = limit - 1 // the leading space counts
		}
		out.Write(line)
		out.WriteString("\r\n")
		b = next
	}
	return out.Bytes()
}
