// Package local is the built-in calendar provider: folio's own database is the owner's calendar.
// Busy time is the confirmed bookings; an "event" is the booking row itself, its meeting link
// comes from BOOKING_MEETING_URL_TEMPLATE, and its event link is an unguessable URL on folio
// that serves the booking as an .ics file (GET /api/schedule/events/{token}.ics).
package local

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// DefaultMeetingURLTemplate is the meeting link when none is configured; {id} is the booking id.
const DefaultMeetingURLTemplate = "https://meet.jit.si/folio-{id}"

// EventPathPrefix is the path under the site URL where a booking's .ics is served; the token
// and ".ics" follow it.
const EventPathPrefix = "/api/schedule/events/"

// Store is the part of the database the provider uses (*sqldb.BookingStore implements it;
// bookingtest.TestCalendarStore checks an implementation).
type Store interface {
	// ConfirmedBookingBusy returns the intervals of confirmed bookings overlapping [start, end).
	ConfirmedBookingBusy(ctx context.Context, start, end time.Time) ([]folio.Interval, error)
	// SetBookingICSToken gives booking id the token unless it has one, and returns its token;
	// ENOTFOUND when there is no such booking.
	SetBookingICSToken(ctx context.Context, id, token string) (string, error)
}

// Calendar implements folio.Calendar on folio's database.
type Calendar struct {
	store   Store
	siteURL string
	meetTpl string
	// NewToken returns a fresh unguessable token (default: 32 random bytes, base64url).
	NewToken func() string
}

var _ folio.Calendar = (*Calendar)(nil) // compile-time check

// New returns the provider. siteURL is FOLIO_SITE_URL (event links are built on it);
// meetingURLTemplate is BOOKING_MEETING_URL_TEMPLATE (empty: DefaultMeetingURLTemplate).
func New(store Store, siteURL, meetingURLTemplate string) (*Calendar, error) {
	u, err := url.Parse(siteURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("local calendar: FOLIO_SITE_URL is not an http(s) URL")
	}
	if meetingURLTemplate == "" {
		meetingURLTemplate = DefaultMeetingURLTemplate
	}
	return &Calendar{store: store, siteURL: strings.TrimRight(siteURL, "/"), meetTpl: meetingURLTemplate, NewToken: randomToken}, nil
}

// FreeBusy implements folio.Calendar: the confirmed bookings. (The booking service adds the
// pending reservations itself, for every provider.)
func (c *Calendar) FreeBusy(ctx context.Context, start, end time.Time) ([]folio.Interval, error) {
	return c.store.ConfirmedBookingBusy(ctx, start, end)
}

// CreateEvent implements folio.Calendar. NB: the event is the booking row, so ev.ID must be the
// id of a booking the booking service has reserved; otherwise it returns ENOTFOUND. A retried
// call returns the same links.
func (c *Calendar) CreateEvent(ctx context.Context, ev folio.CalendarEvent) (folio.CalendarEvent, error) {
	if ev.ID == "" {
		return folio.CalendarEvent{}, errors.New("local calendar: the event needs the booking's id")
	}
	token, err := c.store.SetBookingICSToken(ctx, ev.ID, c.NewToken())
	if err != nil {
		return folio.CalendarEvent{}, fmt.Errorf("local calendar: %w", err)
	}
	if ev.Place == nil { // with a place, folio made the link (or there is none)
		ev.MeetLink = MeetingURL(c.meetTpl, ev.ID)
	}
	ev.EventLink = c.siteURL + EventPathPrefix + token + ".ics"
	return ev, nil
}

// MoveEvent implements folio.CalendarMover: the event is the booking row, which the booking
// service moves itself; the links stay as they are.
func (c *Calendar) MoveEvent(ctx context.Context, ev folio.CalendarEvent) (folio.CalendarEvent, error) {
	if ev.ID == "" {
		return folio.CalendarEvent{}, errors.New("local calendar: the event needs the booking's id")
	}
	token, err := c.store.SetBookingICSToken(ctx, ev.ID, c.NewToken()) // the existing token is kept
	if err != nil {
		return folio.CalendarEvent{}, fmt.Errorf("local calendar: %w", err)
	}
	if ev.Place == nil { // with a place, folio made the link (or there is none)
		ev.MeetLink = MeetingURL(c.meetTpl, ev.ID)
	}
	ev.EventLink = c.siteURL + EventPathPrefix + token + ".ics"
	return ev, nil
}

// DeleteEvent implements folio.CalendarMover: the booking service marks the row cancelled,
// which frees its time and makes its .ics link answer the cancelled event; nothing to do here.
func (c *Calendar) DeleteEvent(ctx context.Context, ev folio.CalendarEvent) error { return nil }

// MeetingURL fills the template's {id} with the path-escaped id.
func MeetingURL(template, id string) string {
	return strings.ReplaceAll(template, "{id}", url.PathEscape(id))
}

// TokenFromPath returns the token of an event link's last path segment ("<token>.ics"), or
// false when the segment is not one: tokens are base64url, 16 to 128 characters.
func TokenFromPath(segment string) (string, bool) {
	token, ok := strings.CutSuffix(segment, ".ics")
	if !ok || len(token) < 16 || len(token) > 128 {
		return "", false
	}
	for _, r := range token {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
		default:
			return "", false
		}
	}
	return token, true
}

func randomToken() string {
	var b [32]byte
	rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return base64.RawURLEncoding.EncodeToString(b[:])
}
