// Package booking is the booking use case: it lists free slots, checks conflicts and books
// meetings by coordinating the pure rules of internal/slots and internal/invite, the calendar
// provider, the reservations in the database and the mail outbox.
//
// # Atomic booking
//
// Book makes the final conflict check and the event creation atomic against every other
// booking, on every instance, in two phases:
//
//  1. Reserve. In one database transaction that no other reservation can interleave with
//     (PostgreSQL: pg_advisory_xact_lock on a fixed key; SQLite: the single writer connection
//     with BEGIN IMMEDIATE), the slot plus buffers is checked against the existing bookings,
//     confirmed or pending, and a 'pending' row is inserted and committed. Busy time from the
//     provider was read just before and is checked first; it cannot be locked, but every event
//     folio creates is also a booking row, so concurrent folio bookings always see each other.
//  2. Create. Outside the lock, Calendar.CreateEvent runs with the booking id as its idempotency
//     key. On success one transaction marks the row 'confirmed', stores the answer (for
//     Idempotency-Key replays) and inserts the two confirmation mails into the outbox. On
//     failure the row is deleted and the caller gets 502: no reservation, no event, the slot is
//     free again.
//
// A concurrent request sees the pending row in phase 1 and gets 409 CONFLICT, so N requests for
// one slot create exactly one event. A pending row older than PendingTTL (a crash between the
// phases) no longer holds the slot and is deleted by the next reservation.
package booking

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/invite"
	"github.com/foliohq/folio/internal/slots"
)

// Defaults of Service.PendingTTL and Service.CreateTimeout.
const (
	DefaultPendingTTL    = 10 * time.Minute
	DefaultCreateTimeout = 90 * time.Second
)

// MaxIdempotencyKeyLen bounds the Idempotency-Key header.
const MaxIdempotencyKeyLen = 255

// Service coordinates booking. Set the exported fields, then use it; it is safe for
// concurrent use.
type Service struct {
	Store    Store
	Jobs     JobsTx
	Calendar folio.Calendar
	// Provider names the calendar provider in each booking's record (google, caldav, local).
	Provider string
	// Owner returns who the meetings are with (settings.Service.Owner): the organizer of every
	// event, whose address also gets the owner's mails. Nil: an organizer without name or
	// address, and no owner's mail.
	Owner func(context.Context) folio.Participant
	// Mail and Outbox, when both set, queue the confirmation mails in the transaction that
	// confirms the booking; nil sends none.
	Mail   MailQueue
	Outbox OutboxTx
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Log receives failures that are not the caller's (nil: discard).
	Log *slog.Logger
	// PendingTTL is how long a reservation holds its slot without being confirmed; it must
	// exceed CreateTimeout. Default DefaultPendingTTL.
	PendingTTL time.Duration
	// CreateTimeout bounds phase 2 (event creation and confirmation), which runs to the end
	// even when the caller goes away. Default DefaultCreateTimeout.
	CreateTimeout time.Duration
	// MaxPerEmailPerDay caps the bookings of one visitor address in 24 hours
	// (BOOKING_MAX_PER_EMAIL_PER_DAY); 0: no cap.
	MaxPerEmailPerDay int

	settings atomic.Pointer[Settings]
}

// Settings are the owner's booking settings, which change while the service runs (PUT
// /api/settings): every request that starts after Apply uses the new ones.
type Settings struct {
	Config folio.BookingConfig
	// Reminders are how long before the start the visitor gets a reminder.
	Reminders []time.Duration
	// SiteURL is the public site: manage links are <SiteURL>/book/manage/<token>.
	SiteURL string
	// JitsiURL is the Jitsi server of the jitsi place (the setting booking.jitsiUrl); empty:
	// DefaultJitsiURL. Each booking gets a room of its own there.
	JitsiURL string
}

// New returns a Service after checking cfg. store keeps the bookings; jobs queues the
// reminders in the transactions that change them.
func New(store Store, jobs JobsTx, cal folio.Calendar, cfg folio.BookingConfig, provider string) (*Service, error) {
	if store == nil || jobs == nil || cal == nil {
		return nil, errors.New("booking: a store, a job queue and a calendar are required")
	}
	s := &Service{Store: store, Jobs: jobs, Calendar: cal, Provider: provider}
	if err := s.Apply(Settings{Config: cfg}); err != nil {
		return nil, err
	}
	return s, nil
}

// Apply puts st in force after checking its configuration; a refused one changes nothing.
func (s *Service) Apply(st Settings) error {
	if err := st.Config.Validate(); err != nil {
		return err
	}
	s.settings.Store(&st)
	return nil
}

// Settings returns the settings in force.
func (s *Service) Settings() Settings { return *s.settings.Load() }

// config returns the booking configuration in force.
func (s *Service) config() folio.BookingConfig { return s.settings.Load().Config }

// owner returns who the meetings are with.
func (s *Service) owner(ctx context.Context) folio.Participant {
	if s.Owner == nil {
		return folio.Participant{}
	}
	return s.Owner(ctx)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (s *Service) pendingTTL() time.Duration {
	if s.PendingTTL > 0 {
		return s.PendingTTL
	}
	return DefaultPendingTTL
}

// asUpstream keeps an error that carries a *folio.Error and wraps anything else as
// UPSTREAM_ERROR (a provider must not turn into a 500).
func asUpstream(err error) error {
	var fe *folio.Error
	if errors.As(err, &fe) {
		return err
	}
	return fmt.Errorf("%w: %w", &folio.Error{Code: folio.EUPSTREAM, Message: "The calendar provider failed; try again later."}, err)
}

// BookResponse is the body of a successful POST /api/schedule/book.
type BookResponse struct {
	OK                bool   `json:"ok"`
	EventID           string `json:"eventId" doc:"the provider's id of the calendar event"`
	ProviderMeetLink  string `json:"providerMeetLink" doc:"URL of the video meeting"`
	ProviderEventLink string `json:"providerEventLink" doc:"URL of the calendar event (local provider: an .ics on folio)"`
	ManageURL         string `json:"manageUrl" doc:"the visitor's link to see, cancel or reschedule the booking: <FOLIO_SITE_URL>/book/manage/<token>"`
	// Location is where the meeting happens (docs/api.md, "Meeting places").
	Location *folio.BookingLocation `json:"location,omitempty"`
}

// Answer is the outcome of Book: the status and JSON body to send. Replayed is true when it is
// the stored answer of an earlier request with the same Idempotency-Key.
type Answer struct {
	Status   int
	Body     []byte
	Replayed bool
	// BookingID is the new booking's id (empty on a replay), for attributing it to a visit.
	BookingID string
}

// Book books req (see the package documentation). idempotencyKey is the Idempotency-Key header
// ("" for none). Errors: 400/422 VALIDATION_ERROR for bad input, a duration that is not an option
// or a start that is not an offered slot (and for a key reused with a different request);
// 409 CONFLICT when the slot is taken (or the key's first request is still running);
// 502 UPSTREAM_ERROR when the provider fails, after which nothing is left behind.
func (s *Service) Book(ctx context.Context, req folio.BookingRequest, key string) (Answer, error) {
	if err := validKey(key); err != nil {
		return Answer{}, err
	}
	if err := req.Validate(); err != nil {
		return Answer{}, err
	}
	mt, err := s.resolveType(ctx, req.Type, req.DurationMinutes, "durationMinutes")
	if err != nil {
		return Answer{}, err
	}
	req.DurationMinutes = mt.DurationMinutes
	place, answers, err := s.placeOf(mt, req)
	if err != nil {
		return Answer{}, err
	}
	start, visitorLoc, err := req.Start()
	if err != nil {
		return Answer{}, err
	}
	hash := requestHash(req)
	if key != "" {
		if a, done, err := s.replay(ctx, key, hash); done || err != nil {
			return a, err
		}
	}
	now := s.now()
	dur := time.Duration(req.DurationMinutes) * time.Minute
	end := start.Add(dur)
	od := slots.DateOf(start.In(s.config().Location))
	cfg, err := s.configFor(ctx, mt, od, od)
	if err != nil {
		return Answer{}, err
	}
	if !slots.IsOffered(cfg, start, req.DurationMinutes, now, nil) {
		return Answer{}, notOffered("startISO")
	}
	if full, err := s.typeFull(ctx, mt, start); err != nil {
		return Answer{}, err
	} else if full {
		return Answer{}, notOffered("startISO")
	}
	buf := cfg.Buffer
	providerBusy, err := s.Calendar.FreeBusy(ctx, start.Add(-buf), end.Add(buf))
	if err != nil {
		return Answer{}, asUpstream(err)
	}
	if slots.Conflicts(providerBusy, start, end, buf) {
		return Answer{}, errTaken()
	}

	// Phase 1: reserve.
	b := &folio.Booking{
		ID: folio.NewID(), Start: start.UTC(), End: end.UTC(), DurationMinutes: req.DurationMinutes,
		TimeZone: visitorLoc.String(), Summary: req.EventSummary(), Description: strings.TrimSpace(req.Description),
		AttendeeName: strings.TrimSpace(req.AttendeeName), AttendeeEmail: req.AttendeeEmail, Provider: s.Provider,
		IdempotencyKey: key, RequestHash: hash, CreatedAt: now, ManageToken: newToken(), TypeSlug: mt.Slug,
		Place: place, Answers: answers,
	}
	lim := s.limitsAt(mt, start, buf, now.Add(-s.pendingTTL()))
	lim.MaxPerEmail, lim.EmailSince = s.MaxPerEmailPerDay, now.Add(-24*time.Hour)
	switch err := s.Store.ReserveBooking(ctx, b, lim); {
	case errors.Is(err, folio.ErrEmailLimit):
		return Answer{}, s.emailLimitError(ctx, b.AttendeeEmail, now)
	case errors.Is(err, folio.ErrIdempotencyKeyUsed):
		// A request with the same key reserved first, between our lookup and our insert.
		if a, done, err := s.replay(ctx, key, hash); done || err != nil {
			return a, err
		}
		return Answer{}, errInFlight()
	case err != nil:
		return Answer{}, refusal(err)
	}

	// Phase 2: create the event. It runs to the end even if the caller goes away, so the
	// outcome is recorded either way.
	timeout := s.CreateTimeout
	if timeout <= 0 {
		timeout = DefaultCreateTimeout
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	b.MeetLink = s.joinURLBefore(place)
	ev := folio.CalendarEvent{
		ID: b.ID, Summary: b.Summary, Description: b.Description, Start: b.Start, End: b.End,
		TimeZone: b.TimeZone, Organizer: s.owner(ctx), Attendee: folio.Participant{Name: b.AttendeeName, Email: b.AttendeeEmail},
		MeetLink: b.MeetLink, Place: eventPlace(b),
	}
	created, err := s.Calendar.CreateEvent(cctx, ev)
	if err != nil {
		if derr := s.Store.DeleteBooking(cctx, b.ID); derr != nil {
			// The row goes stale after PendingTTL and stops holding the slot then.
			s.log().Error("booking: reservation not released after provider failure", "booking_id", b.ID, "error", derr.Error())
		}
		s.log().Warn("booking: calendar provider failed; reservation released", "booking_id", b.ID, "error", err.Error())
		return Answer{}, asUpstream(err)
	}
	if place != nil && place.Kind != folio.PlaceGoogleMeet {
		created.MeetLink = b.MeetLink // folio's own link (or none): a provider never replaces it
	}
	b.MeetLink = created.MeetLink
	created.Place = eventPlace(b)
	body, err := json.Marshal(BookResponse{OK: true, EventID: created.ID, ProviderMeetLink: created.MeetLink, ProviderEventLink: created.EventLink,
		ManageURL: s.manageURL(b.ManageToken), Location: b.Location()})
	if err != nil {
		return Answer{}, err
	}
	created.ManageURL = s.manageURL(b.ManageToken)
	items := s.confirmationItems(created, b, visitorLoc, now)
	err = s.Store.ConfirmBooking(cctx, b.ID, folio.BookingConfirmation{
		ProviderEventID: created.ID, MeetLink: created.MeetLink, EventLink: created.EventLink,
		ResponseStatus: 200, ResponseBody: body, ConfirmedAt: now,
	}, func(tx *sql.Tx) error {
		for _, it := range items {
			if err := s.Outbox.InsertOutboxTx(cctx, tx, it); err != nil {
				return err
			}
		}
		return s.planReminders(cctx, tx, b.ID, b.Start, now)
	})
	if err != nil {
		// NB: the event exists at the provider but folio could not record it; the pending row
		// keeps the slot until it goes stale. Logged with both ids for the owner to reconcile.
		s.log().Error("booking: event created but not recorded", "booking_id", b.ID, "event_id", created.ID, "error", err.Error())
		return Answer{}, fmt.Errorf("booking: confirm %s: %w", b.ID, err)
	}
	return Answer{Status: 200, Body: body, BookingID: b.ID}, nil
}

// replay looks the key up: done is true when the answer (or error) is final.
func (s *Service) replay(ctx context.Context, key, hash string) (Answer, bool, error) {
	prev, err := s.Store.BookingByIdempotencyKey(ctx, key)
	if folio.IsNotFound(err) {
		return Answer{}, false, nil
	}
	if err != nil {
		return Answer{}, true, err
	}
	if prev.RequestHash != hash {
		return Answer{}, true, &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "This Idempotency-Key was already used with a different request.",
			Details: []folio.FieldError{{Field: "Idempotency-Key", Message: "was used with a different request body; use a new key for a new booking"}}}
	}
	if prev.Status == folio.BookingConfirmed && prev.ResponseStatus != 0 {
		return Answer{Status: prev.ResponseStatus, Body: prev.ResponseBody, Replayed: true}, true, nil
	}
	if prev.CreatedAt.Before(s.now().Add(-s.pendingTTL())) {
		return Answer{}, false, nil // stale: the reservation below deletes it
	}
	return Answer{}, true, errInFlight()
}

func errTaken() error {
	return folio.Errorf(folio.ECONFLICT, "This time is no longer available; please choose another slot.")
}

func errDayFull() error {
	return folio.Errorf(folio.ECONFLICT, "This day is fully booked for this meeting type; please choose another day.")
}

// refusal turns a store's reservation outcome into the answer the visitor gets (409); any other
// error is returned as is.
func refusal(err error) error {
	switch {
	case errors.Is(err, folio.ErrSlotTaken):
		return errTaken()
	case errors.Is(err, folio.ErrDayFull):
		return errDayFull()
	case errors.Is(err, folio.ErrChangeInProgress):
		return errBusyChanging()
	}
	return err
}

func errInFlight() error {
	return folio.Errorf(folio.ECONFLICT, "A request with this Idempotency-Key is still being processed; retry in a moment.")
}

// validKey checks the Idempotency-Key header: at most 255 visible ASCII characters.
func validKey(key string) error {
	if len(key) > MaxIdempotencyKeyLen {
		return folio.BadRequest("Idempotency-Key", "must be at most %d characters", MaxIdempotencyKeyLen)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return folio.BadRequest("Idempotency-Key", "must be visible ASCII characters, like a UUID")
		}
	}
	return nil
}

// requestHash identifies a request's content for Idempotency-Key reuse: the SHA-256 of its
// decoded fields, so formatting and field order do not matter.
func requestHash(req folio.BookingRequest) string {
	b, _ := json.Marshal(req) // a struct of strings and an int always encodes
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func notOffered(field string) error {
	return &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
		Details: []folio.FieldError{{Field: field, Message: "is not an offered slot: pick a start listed by GET /api/schedule/available"}}}
}

// emailLimitError is the 429 of BOOKING_MAX_PER_EMAIL_PER_DAY, retryAfter when the oldest
// counted booking leaves the 24-hour window.
func (s *Service) emailLimitError(ctx context.Context, email string, now time.Time) error {
	retry := 3600
	if oldest, err := s.Store.OldestBookingOfEmail(ctx, email, now.Add(-24*time.Hour), now.Add(-s.pendingTTL())); err == nil && !oldest.IsZero() {
		retry = max(int(oldest.Add(24*time.Hour).Sub(now)/time.Second)+1, 1)
	}
	return &folio.Error{Code: folio.ERATELIMIT, RetryAfter: retry,
		Message: fmt.Sprintf("This email address has booked %d meetings in the last 24 hours, the most allowed; try again later or cancel one.", s.MaxPerEmailPerDay)}
}

// EventICS returns the .ics of the booking (confirmed, or cancelled: STATUS:CANCELLED) whose event link carries token (the local
// provider's event link), or ENOTFOUND.
func (s *Service) EventICS(ctx context.Context, token string) ([]byte, error) {
	b, err := s.Store.BookingByICSToken(ctx, token)
	if err != nil {
		return nil, err
	}
	return publishedICS(s.eventOf(ctx, b), b)
}

// publishedICS renders ev, the event of b, as a published .ics (METHOD:PUBLISH, the UID of the
// mailed invitations): STATUS:CANCELLED once b is cancelled.
func publishedICS(ev folio.CalendarEvent, b *folio.Booking) ([]byte, error) {
	ev.Cancelled = b.Status == folio.BookingCancelled
	return invite.InviteICS(ev, "PUBLISH", b.ConfirmedAt)
}
