package booking

// Meeting places, booking questions and the per-type rules (docs/api.md, "Meeting places").

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"strings"
	"sync"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/markdown"
)

// DefaultJitsiURL is where Jitsi rooms are made when no Jitsi server is set.
const DefaultJitsiURL = "https://meet.jit.si"

// jitsiRoom returns the address of a new room on the Jitsi server: "folio-" and 100 random
// bits, so a room cannot be guessed from the booking's id or time.
func (s *Service) jitsiRoom() string {
	base := s.Settings().JitsiURL
	if base == "" {
		base = DefaultJitsiURL
	}
	var b [13]byte
	rand.Read(b[:])
	name := strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))[:20]
	return strings.TrimRight(base, "/") + "/folio-" + name
}

// placeOf decides where the meeting of type t happens and checks the answers: the visitor's
// choice among t's locations (none offered: nil, the provider's own video link, and a choice
// is refused), and the answers to t's questions. Errors are 422 on "location" or
// "answers.<id>".
func (s *Service) placeOf(t folio.MeetingType, req folio.BookingRequest) (*folio.Place, []folio.BookingAnswer, error) {
	var place *folio.Place
	var verr *folio.Error
	if len(t.Locations) > 0 {
		p, err := folio.ChoosePlace(t.Locations, req.Location)
		if err != nil {
			verr = err.(*folio.Error)
		} else {
			if p.Kind == folio.PlaceGoogleMeet && s.Provider != "google" {
				// Only the Google provider makes a Meet; the type may be saved before it is set up.
				verr = &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
					Details: []folio.FieldError{{Field: "location", Message: "Google Meet needs the Google calendar provider; pick another place"}}}
			}
			place = &p
		}
	} else if req.Location != nil && req.Location.Kind != "" {
		def := folio.PlaceJitsi
		if s.Provider == "google" {
			def = folio.PlaceGoogleMeet
		}
		if req.Location.Kind != def {
			verr = &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
				Details: []folio.FieldError{{Field: "location", Message: "kind must be " + def + ": this meeting type offers no other place"}}}
		} else {
			place = &folio.Place{Kind: def} // named explicitly: a place of that kind, as a type offering it would make
		}
	}
	answers, err := folio.CheckAnswers(t.Questions, req.Answers)
	if err != nil {
		ae := err.(*folio.Error)
		if verr == nil {
			return nil, nil, ae
		}
		verr.Details = append(verr.Details, ae.Details...)
	}
	if verr != nil {
		return nil, nil, verr.CapDetails()
	}
	return place, answers, nil
}

// eventPlace renders a booking's place for the provider and the invites; nil keeps the
// provider's own video link.
func eventPlace(b *folio.Booking) *folio.BookingLocation {
	if b.Place == nil {
		return nil
	}
	return b.Place.Location(b.MeetLink)
}

// joinURLBefore is the meeting link folio makes itself before the event exists: a Jitsi room
// or the type's fixed link. Google Meet comes from the provider; other places have none.
func (s *Service) joinURLBefore(p *folio.Place) string {
	switch {
	case p == nil:
		return ""
	case p.Kind == folio.PlaceJitsi:
		return s.jitsiRoom()
	case p.Kind == folio.PlaceLink:
		return p.Value
	}
	return ""
}

// periodCaps returns the week and month caps of type t around start (owner-local ISO week,
// Monday first, and calendar month); the day cap is ReserveLimits.MaxPerDay.
func (s *Service) periodCaps(t folio.MeetingType, start time.Time) []folio.PeriodCap {
	l := t.PeriodCaps()
	loc := s.config().Location
	lt := start.In(loc)
	var out []folio.PeriodCap
	if l.Week > 0 {
		back := (int(lt.Weekday()) + 6) % 7 // days since Monday
		ws := time.Date(lt.Year(), lt.Month(), lt.Day()-back, 0, 0, 0, 0, loc)
		out = append(out, folio.PeriodCap{Max: l.Week, Start: ws, End: time.Date(ws.Year(), ws.Month(), ws.Day()+7, 0, 0, 0, 0, loc)})
	}
	if l.Month > 0 {
		ms := time.Date(lt.Year(), lt.Month(), 1, 0, 0, 0, 0, loc)
		out = append(out, folio.PeriodCap{Max: l.Month, Start: ms, End: ms.AddDate(0, 1, 0)})
	}
	return out
}

// limitsAt are the reservation limits of type t for a meeting at start.
func (s *Service) limitsAt(t folio.MeetingType, start time.Time, buf time.Duration, stale time.Time) folio.ReserveLimits {
	ds, de := ownerDay(s.config().Location, start)
	return folio.ReserveLimits{Buffer: buf, StaleBefore: stale, MaxPerDay: t.PeriodCaps().Day, DayStart: ds, DayEnd: de,
		Caps: s.periodCaps(t, start)}
}

// typeFull reports whether type t has reached a cap (day, week or month) for a meeting at start.
func (s *Service) typeFull(ctx context.Context, t folio.MeetingType, start time.Time) (bool, error) {
	return s.typeFullCounted(ctx, t, start, nil)
}

// typeFullCounted is typeFull with the counts of periods already counted in seen (nil: none
// kept), so a month view counts each week and month once.
func (s *Service) typeFullCounted(ctx context.Context, t folio.MeetingType, start time.Time, seen map[[2]time.Time]int) (bool, error) {
	if t.Slug == "" {
		return false, nil
	}
	stale := s.now().Add(-s.pendingTTL())
	lim := s.limitsAt(t, start, 0, stale)
	caps := lim.Caps
	if lim.MaxPerDay > 0 {
		caps = append(caps, folio.PeriodCap{Max: lim.MaxPerDay, Start: lim.DayStart, End: lim.DayEnd})
	}
	for _, c := range caps {
		key := [2]time.Time{c.Start, c.End}
		n, ok := seen[key]
		if !ok {
			var err error
			if n, err = s.Store.CountTypeBookings(ctx, t.Slug, c.Start, c.End, stale); err != nil {
				return false, err
			}
			if seen != nil {
				seen[key] = n
			}
		}
		if n >= c.Max {
			return true, nil
		}
	}
	return false, nil
}

var (
	mdOnce     sync.Once
	mdRenderer *markdown.Renderer
)

// describe fills the rendered description and the empty lists of t, as the API shows a type.
func describe(t folio.MeetingType) folio.MeetingType {
	if t.Locations == nil {
		t.Locations = []folio.MeetingLocation{}
	}
	if t.Questions == nil {
		t.Questions = []folio.Question{}
	}
	t.Limits = t.PeriodCaps()
	if strings.TrimSpace(t.Description) != "" {
		mdOnce.Do(func() { mdRenderer = markdown.New() })
		t.DescriptionHTML = mdRenderer.Render(t.Description)
	}
	return t
}

func derefLocation(l *folio.BookingLocation) folio.BookingLocation {
	if l == nil {
		return folio.BookingLocation{}
	}
	return *l
}
