package folio

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Kinds of meeting place a meeting type offers (docs/api.md, "Meeting places").
const (
	PlaceGoogleMeet = "google_meet" // a Google Meet created with the event (Google provider only)
	PlaceJitsi      = "jitsi"       // a Jitsi room of its own per booking, on BOOKING_JITSI_URL
	PlaceLink       = "link"        // a fixed video link (Zoom, Teams…): Value
	PlacePhone      = "phone"       // Value: the owner's number; empty: the visitor's number is asked
	PlaceInPerson   = "in_person"   // Value: the address
	PlaceCustom     = "custom"      // Value: the text
)

// PlaceKinds lists the kinds in the order documentation shows them.
var PlaceKinds = []string{PlaceGoogleMeet, PlaceJitsi, PlaceLink, PlacePhone, PlaceInPerson, PlaceCustom}

// Kinds of booking question.
const (
	QuestionText     = "text"
	QuestionTextarea = "textarea"
	QuestionChoice   = "choice"
	QuestionCheckbox = "checkbox"
	QuestionPhone    = "phone"
)

// Limits of meeting places and questions.
const (
	MaxLocations      = 6
	MaxQuestions      = 20
	MaxQuestionOpts   = 20
	MaxPlaceValueLen  = 500
	MaxAnswerTextLen  = 500
	MaxAnswerLongLen  = 5000
	MaxQuestionLabel  = 200
	MaxQuestionOption = 100
)

// MeetingLocation is one place a meeting type offers.
type MeetingLocation struct {
	Kind  string `json:"kind" doc:"google_meet, jitsi, link, phone, in_person or custom; each kind at most once per type"`
	Value string `json:"value,omitempty" doc:"link: the http(s) URL; phone: the owner's number (empty: the visitor's number is asked); in_person: the address; custom: the text; google_meet and jitsi: none"`
}

// Question is one booking question of a meeting type.
type Question struct {
	ID       string   `json:"id" doc:"1-40 characters a-z, 0-9, _ and -; unique within the type; the key of the answer"`
	Label    string   `json:"label" doc:"1-200 characters, one line"`
	Kind     string   `json:"kind" doc:"text, textarea, choice, checkbox or phone"`
	Required bool     `json:"required"`
	Options  []string `json:"options,omitempty" doc:"choice only: 1-20 distinct options of 1-100 characters"`
}

// TypeLimits cap the active bookings of a meeting type per owner-local day, ISO week (Monday
// first) and calendar month; 0 means no cap.
type TypeLimits struct {
	Day   int `json:"day" doc:"0-100"`
	Week  int `json:"week" doc:"0-500"`
	Month int `json:"month" doc:"0-2000"`
}

// LocationChoice is the place a visitor picks in POST /api/schedule/book.
type LocationChoice struct {
	Kind  string `json:"kind" doc:"one of the type's locations"`
	Value string `json:"value,omitempty" doc:"phone without the owner's number: the visitor's number; otherwise ignored"`
}

// Place is where a booked meeting happens, as stored with the booking.
type Place struct {
	Kind string `json:"kind"`
	// Value is the link, the phone number, the address or the text.
	Value string `json:"value,omitempty"`
	// VisitorPhone marks Value as the visitor's number (the owner calls).
	VisitorPhone bool `json:"visitorPhone,omitempty"`
}

// BookingLocation is a booking's place as the API, the mails and the invite show it.
type BookingLocation struct {
	Kind    string `json:"kind"`
	Label   string `json:"label" doc:"human text: Google Meet, Jitsi Meet, the phone line, the address…"`
	JoinURL string `json:"joinUrl,omitempty" doc:"video places: the URL to join (the same after a reschedule)"`
	Detail  string `json:"detail,omitempty" doc:"phone: the number; in_person: the address; link: the URL; custom: the text"`
	MapURL  string `json:"mapUrl,omitempty" doc:"in_person: a map search of the address (OpenStreetMap)"`
}

// Video reports whether the place is a video meeting.
func (l *BookingLocation) Video() bool {
	return l != nil && (l.Kind == PlaceGoogleMeet || l.Kind == PlaceJitsi || l.Kind == PlaceLink)
}

// Where is the text of the iCalendar LOCATION: the URL of a video place, else the detail.
func (l *BookingLocation) Where() string {
	switch {
	case l == nil:
		return ""
	case l.JoinURL != "":
		return l.JoinURL
	case l.Detail != "":
		return l.Detail
	}
	return l.Label
}

// Location renders p with joinURL (the meeting link the provider or folio made).
func (p Place) Location(joinURL string) *BookingLocation {
	l := &BookingLocation{Kind: p.Kind, Detail: p.Value}
	switch p.Kind {
	case PlaceGoogleMeet:
		l.Label, l.JoinURL, l.Detail = "Google Meet", joinURL, ""
	case PlaceJitsi:
		l.Label, l.JoinURL, l.Detail = "Jitsi Meet", joinURL, ""
	case PlaceLink:
		l.Label, l.JoinURL = "Video call", firstNonBlank(joinURL, p.Value)
		if u, err := url.Parse(l.JoinURL); err == nil && u.Host != "" {
			l.Label = "Video call (" + u.Hostname() + ")"
		}
	case PlacePhone:
		if p.VisitorPhone {
			l.Label = "Phone call: the host calls you at " + p.Value
		} else {
			l.Label = "Phone call: call " + p.Value
		}
	case PlaceInPerson:
		l.Label = "In person: " + p.Value
		l.MapURL = "https://www.openstreetmap.org/search?query=" + url.QueryEscape(p.Value)
	default:
		l.Label = p.Value
	}
	return l
}

func firstNonBlank(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// BookingAnswer is the visitor's answer to one question, stored with the booking with the
// question's label at booking time.
type BookingAnswer struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Kind  string `json:"kind"`
	// Value is a string, or a bool for a checkbox.
	Value any `json:"value"`
}

// Text renders the value for a mail.
func (a BookingAnswer) Text() string {
	switch v := a.Value.(type) {
	case bool:
		if v {
			return "Yes"
		}
		return "No"
	case string:
		return v
	}
	return fmt.Sprint(a.Value)
}

var (
	questionID = regexp.MustCompile(`^[a-z0-9_-]{1,40}$`)
	phoneChars = regexp.MustCompile(`^\+?[0-9 ().\-/]{4,30}$`)
)

// ValidPhone reports whether s reads as a phone number: digits with the usual separators, an
// optional leading +, 6 to 15 digits (E.164's maximum).
func ValidPhone(s string) bool {
	if !phoneChars.MatchString(s) {
		return false
	}
	n := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			n++
		}
	}
	return n >= 6 && n <= 15
}

// validLocations checks a type's locations into v.
func validLocations(v *Validation, ls []MeetingLocation) {
	if len(ls) > MaxLocations {
		v.Invalid("locations", "must list at most %d places", MaxLocations)
		return
	}
	seen := map[string]bool{}
	for i, l := range ls {
		f := fmt.Sprintf("locations[%d]", i)
		val := strings.TrimSpace(l.Value)
		switch l.Kind {
		case PlaceGoogleMeet, PlaceJitsi:
			if val != "" {
				v.Invalid(f+".value", "must be empty for %s (folio makes the link)", l.Kind)
			}
		case PlaceLink:
			u, err := url.Parse(val)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(val) > MaxPlaceValueLen || strings.ContainsAny(val, " \r\n\t") {
				v.Invalid(f+".value", "must be the http(s) URL of the meeting")
			}
		case PlacePhone:
			if val != "" && !ValidPhone(val) {
				v.Invalid(f+".value", "must be a phone number such as +1 555 010 0100 (or empty: the visitor gives theirs)")
			}
		case PlaceInPerson, PlaceCustom:
			if val == "" {
				v.Invalid(f+".value", "is required for %s", l.Kind)
			} else {
				bookingLine(v, f+".value", val, MaxPlaceValueLen)
			}
		default:
			v.Invalid(f+".kind", "must be one of %s", strings.Join(PlaceKinds, ", "))
			continue
		}
		if seen[l.Kind] {
			v.Invalid(f+".kind", "is listed twice: offer each kind of place once")
		}
		seen[l.Kind] = true
	}
}

// validQuestions checks a type's questions into v.
func validQuestions(v *Validation, qs []Question) {
	if len(qs) > MaxQuestions {
		v.Invalid("questions", "must list at most %d questions", MaxQuestions)
		return
	}
	seen := map[string]bool{}
	for i, q := range qs {
		f := fmt.Sprintf("questions[%d]", i)
		switch {
		case !questionID.MatchString(q.ID):
			v.Invalid(f+".id", "must be 1-40 characters of a-z, 0-9, _ and -")
		case seen[q.ID]:
			v.Invalid(f+".id", "is used by another question")
		}
		seen[q.ID] = true
		if strings.TrimSpace(q.Label) == "" {
			v.Invalid(f+".label", "is required")
		} else {
			bookingLine(v, f+".label", q.Label, MaxQuestionLabel)
		}
		switch q.Kind {
		case QuestionChoice:
			if len(q.Options) == 0 || len(q.Options) > MaxQuestionOpts {
				v.Invalid(f+".options", "must list 1 to %d options", MaxQuestionOpts)
			}
			opts := map[string]bool{}
			for j, o := range q.Options {
				of := fmt.Sprintf("%s.options[%d]", f, j)
				if strings.TrimSpace(o) == "" || opts[o] {
					v.Invalid(of, "must be a distinct, non-empty option")
				}
				opts[o] = true
				bookingLine(v, of, o, MaxQuestionOption)
			}
		case QuestionText, QuestionTextarea, QuestionCheckbox, QuestionPhone:
			if len(q.Options) > 0 {
				v.Invalid(f+".options", "are only for choice questions")
			}
		default:
			v.Invalid(f+".kind", "must be text, textarea, choice, checkbox or phone")
		}
	}
}

// ChoosePlace checks the visitor's choice c against the places a type offers: c nil picks the
// only place when there is one. Errors are 422 on "location".
func ChoosePlace(offered []MeetingLocation, c *LocationChoice) (Place, error) {
	bad := func(format string, args ...any) (Place, error) {
		return Place{}, &Error{Code: EINVALID, RuleBroken: true, Message: "Validation failed.",
			Details: []FieldError{{Field: "location", Message: fmt.Sprintf(format, args...)}}}
	}
	kinds := make([]string, len(offered))
	for i, o := range offered {
		kinds[i] = o.Kind
	}
	if c == nil || c.Kind == "" {
		if len(offered) != 1 {
			return bad("is required: pick one of %s", strings.Join(kinds, ", "))
		}
		c = &LocationChoice{Kind: offered[0].Kind}
	}
	for _, o := range offered {
		if o.Kind != c.Kind {
			continue
		}
		p := Place{Kind: o.Kind, Value: strings.TrimSpace(o.Value)}
		if o.Kind == PlacePhone && p.Value == "" {
			num := strings.TrimSpace(c.Value)
			if num == "" {
				return bad("needs your phone number in value: the host calls you")
			}
			if !ValidPhone(num) {
				return bad("value must be a phone number such as +44 20 7946 0958")
			}
			p.Value, p.VisitorPhone = num, true
		}
		return p, nil
	}
	return bad("kind must be one of %s", strings.Join(kinds, ", "))
}

// CheckAnswers checks the raw answers against the questions and returns them in the questions'
// order. Every problem is 422 on "answers.<id>".
func CheckAnswers(qs []Question, raw map[string]json.RawMessage) ([]BookingAnswer, error) {
	var v Validation
	known := map[string]bool{}
	var out []BookingAnswer
	for _, q := range qs {
		known[q.ID] = true
		f := "answers." + q.ID
		r, ok := raw[q.ID]
		if ok && string(r) == "null" {
			ok = false
		}
		if q.Kind == QuestionCheckbox {
			var b bool
			if ok && json.Unmarshal(r, &b) != nil {
				v.Invalid(f, "must be true or false")
				continue
			}
			if q.Required && !b {
				v.Invalid(f, "must be checked")
				continue
			}
			if ok {
				out = append(out, BookingAnswer{ID: q.ID, Label: q.Label, Kind: q.Kind, Value: b})
			}
			continue
		}
		var s string
		if ok && json.Unmarshal(r, &s) != nil {
			v.Invalid(f, "must be a string")
			continue
		}
		s = strings.TrimSpace(s)
		if s == "" {
			if q.Required {
				v.Invalid(f, "is required")
			}
			continue
		}
		switch q.Kind {
		case QuestionText:
			bookingLine(&v, f, s, MaxAnswerTextLen)
		case QuestionTextarea:
			if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxAnswerLongLen {
				v.Invalid(f, "must be valid text of at most %d characters", MaxAnswerLongLen)
			}
		case QuestionPhone:
			if !ValidPhone(s) {
				v.Invalid(f, "must be a phone number such as +44 20 7946 0958")
			}
		case QuestionChoice:
			found := false
			for _, o := range q.Options {
				found = found || o == s
			}
			if !found {
				v.Invalid(f, "must be one of: %s", strings.Join(q.Options, ", "))
			}
		}
		out = append(out, BookingAnswer{ID: q.ID, Label: q.Label, Kind: q.Kind, Value: s})
	}
	for id := range raw {
		if !known[id] {
			v.Invalid("answers."+fieldSafe(id), "is not a question of this meeting type")
		}
	}
	if err := v.Err(); err != nil {
		if fe, ok := err.(*Error); ok {
			fe.RuleBroken = true
		}
		return nil, err
	}
	return out, nil
}

// fieldSafe keeps an unknown answer key printable and short in an error detail.
func fieldSafe(id string) string {
	if len(id) > 40 || !utf8.ValidString(id) {
		return "(unknown)"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, id)
}

// settingJitsiURL accepts the base of Jitsi room addresses: an http(s) URL to which
// "/folio-<room>" is appended, so without query or fragment, and kept without a trailing slash;
// empty stands for the public server (https://meet.jit.si).
func settingJitsiURL(v *Validation, path string, s *string) {
	*s = strings.TrimRight(strings.TrimSpace(*s), "/")
	if *s == "" {
		return
	}
	// An unescaped "?" or "#" anywhere starts a query or a fragment, even an empty one.
	if len(*s) > MaxURLLen || !isHTTPURL(*s) || strings.ContainsAny(*s, "?#") {
		v.Invalid(path, "must be the http or https URL of a Jitsi server, without query or fragment")
	}
}
