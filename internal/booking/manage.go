package booking

// The visitor's manage link (docs/api.md, "Booking lifecycle"): its token, the booking's status,
// cancel by the visitor or the owner, and the owner's list. Reschedule is in reschedule.go.
//
// # Atomic cancel and reschedule
//
// A change of a booking runs in three steps, like Book:
//
//  1. Begin. One transaction under the reservation lock (Store.BeginBookingChange) checks the
//     booking's state, refuses while another change of it runs on any instance (so a cancel
//     racing a reschedule: one goes first, the other gets 409 and may retry), and, for a
//     reschedule, reserves the new time with a pending "hold" row exactly as Book reserves a
//     slot — of several reschedules onto one free time exactly one gets it.
//  2. Provider. The same provider event is moved (Google events.patch, CalDAV PUT of the same
//     resource) or deleted. On failure the hold is dropped and the change ends: 502, and the
//     booking stays exactly as it was.
//  3. Record. One transaction moves (or cancels) the row, raises its SEQUENCE, deletes the hold,
//     queues the mails (METHOD:REQUEST or CANCEL, same UID) and the webhook event
//     (booking.rescheduled or booking.cancelled) and re-plans (or drops) the reminder jobs. If
//     that fails after a move, the provider event is moved back.

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/invite"
)

// ManagePath is where the /book page serves the manage view; the token follows.
const ManagePath = "/book/manage/"

// MaxCancelReason bounds the cancel reason.
const MaxCancelReason = 1000

func newToken() string {
	var b [32]byte // 256 random bits
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ValidToken reports whether s looks like a manage token (base64url, 16-128 characters); other
// strings are answered 404 without a query.
func ValidToken(s string) bool {
	if len(s) < 16 || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func (s *Service) manageURL(token string) string {
	if token == "" {
		return ""
	}
	return strings.TrimRight(s.Settings().SiteURL, "/") + ManagePath + token
}

func (s *Service) eventOf(ctx context.Context, b *folio.Booking) folio.CalendarEvent {
	return folio.CalendarEvent{
		ID: b.ID, Summary: b.Summary, Description: b.Description, Start: b.Start, End: b.End, TimeZone: b.TimeZone,
		Organizer: s.owner(ctx), Attendee: folio.Participant{Name: b.AttendeeName, Email: b.AttendeeEmail},
		MeetLink: b.MeetLink, EventLink: b.EventLink, Sequence: b.Sequence, ManageURL: s.manageURL(b.ManageToken),
		Place: eventPlace(b),
	}
}

func (s *Service) byToken(ctx context.Context, token string) (*folio.Booking, error) {
	if !ValidToken(token) {
		return nil, folio.Errorf(folio.ENOTFOUND, "No booking has this link.")
	}
	b, err := s.Store.BookingByManageToken(ctx, token)
	if folio.IsNotFound(err) {
		return nil, folio.Errorf(folio.ENOTFOUND, "No booking has this link.") // never echo the token
	}
	return b, err
}

// Status renders b as GET /api/schedule/bookings/{token} answers it.
func (s *Service) Status(b *folio.Booking) folio.BookingStatus {
	loc, err := folio.LoadZone(b.TimeZone)
	if err != nil {
		loc = s.config().Location
	}
	open := b.Status == folio.BookingConfirmed && s.now().Before(b.Start)
	var where folio.BookingLocation
	if b.Status == folio.BookingConfirmed {
		where = derefLocation(b.Location()) // a cancelled meeting has no place any more
	}
	return folio.BookingStatus{ID: b.ID, Status: b.Status, StartTime: b.Start.In(loc).Format(time.RFC3339), EndTime: b.End.In(loc).Format(time.RFC3339),
		TimeZone: b.TimeZone, Type: b.TypeSlug, Name: b.AttendeeName, ProviderMeetLink: b.MeetLink, CanCancel: open, CanReschedule: open,
		Location: where}
}

// Get returns the booking of a manage token.
func (s *Service) Get(ctx context.Context, token string) (folio.BookingStatus, error) {
	b, err := s.byToken(ctx, token)
	if err != nil {
		return folio.BookingStatus{}, err
	}
	return s.Status(b), nil
}

// ICS returns the .ics of the booking of a manage token as the visitor's invitation shows it
// (invite.ForVisitor): /book's "Add to calendar", for every provider — the provider's own event
// link is the owner's (a Google or CalDAV address the visitor cannot open).
func (s *Service) ICS(ctx context.Context, token string) ([]byte, error) {
	b, err := s.byToken(ctx, token)
	if err != nil {
		return nil, err
	}
	return publishedICS(invite.ForVisitor(s.eventOf(ctx, b)), b)
}

// List lists bookings for the admin route.
func (s *Service) List(ctx context.Context, status, from, to string, page, limit int) ([]folio.BookingListItem, int, error) {
	var f folio.BookingFilter
	switch status {
	case "", folio.BookingConfirmed, folio.BookingCancelled:
		f.Status = status
	default:
		return nil, 0, folio.BadRequest("status", "must be confirmed or cancelled")
	}
	var err error
	if from != "" {
		if f.From, err = time.Parse(time.RFC3339, from); err != nil {
			return nil, 0, folio.BadRequest("from", "must be an RFC 3339 time such as 2026-01-31T00:00:00Z")
		}
	}
	if to != "" {
		if f.To, err = time.Parse(time.RFC3339, to); err != nil {
			return nil, 0, folio.BadRequest("to", "must be an RFC 3339 time such as 2026-01-31T00:00:00Z")
		}
	}
	return s.Store.ListBookings(ctx, f, page, limit)
}

var errAlreadyCancelled = errors.New("booking: already cancelled")

func errStarted() error {
	return folio.Errorf(folio.ECONFLICT, "This meeting has already started or taken place; it can no longer be changed.")
}

func errCancelled() error {
	return folio.Errorf(folio.ECONFLICT, "This booking was cancelled; book a new meeting instead.")
}

func errBusyChanging() error {
	return folio.Errorf(folio.ECONFLICT, "Another change to this booking is in progress; try again in a moment.")
}

// CancelByToken cancels the booking of a manage token for the visitor.
func (s *Service) CancelByToken(ctx context.Context, token string, in folio.CancelInput) (folio.BookingStatus, error) {
	b, err := s.byToken(ctx, token)
	if err != nil {
		return folio.BookingStatus{}, err
	}
	return s.cancel(ctx, b.ID, in, "visitor")
}

// CancelByID cancels booking id for the owner (admin route); ENOTFOUND for an unknown id.
func (s *Service) CancelByID(ctx context.Context, id string, in folio.CancelInput) (folio.BookingStatus, error) {
	return s.cancel(ctx, id, in, "owner")
}

func validReason(r string) (string, error) {
	r = strings.TrimSpace(r)
	if !utf8.ValidString(r) || utf8.RuneCountInString(r) > MaxCancelReason {
		return "", &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
			Details: []folio.FieldError{{Field: "reason", Message: fmt.Sprintf("must be text of at most %d characters", MaxCancelReason)}}}
	}
	return r, nil
}

func (s *Service) cancel(ctx context.Context, id string, in folio.CancelInput, by string) (folio.BookingStatus, error) {
	reason, err := validReason(in.Reason)
	if err != nil {
		return folio.BookingStatus{}, err
	}
	now := s.now()
	stale := now.Add(-s.pendingTTL())
	b, err := s.Store.BeginBookingChange(ctx, id, now, folio.ReserveLimits{StaleBefore: stale}, nil, func(b *folio.Booking) error {
		switch {
		case b.Status == folio.BookingCancelled:
			return errAlreadyCancelled
		case !now.Before(b.Start):
			return errStarted()
		}
		return nil
	})
	switch {
	case errors.Is(err, errAlreadyCancelled):
		cur, err := s.Store.Booking(ctx, id)
		if err != nil {
			return folio.BookingStatus{}, err
		}
		return s.Status(cur), nil
	case err != nil:
		return folio.BookingStatus{}, refusal(err)
	}
	cctx, cancel := s.changeContext(ctx)
	defer cancel()
	ev := s.eventOf(ctx, b)
	if err := s.Calendar.DeleteEvent(cctx, ev); err != nil {
		s.abort(cctx, id)
		s.log().Warn("booking: provider refused the cancel; booking unchanged", "booking_id", id, "error", err.Error())
		return folio.BookingStatus{}, asUpstream(err)
	}
	ev.Sequence = b.Sequence + 1
	ev.Cancelled = true
	loc, _ := folio.LoadZone(b.TimeZone)
	items := s.bookingMails(invite.Cancelled, ev, b, loc, now, invite.Extras{Reason: reason, By: by}, true)
	err = s.Store.FinishCancel(cctx, id, reason, by, now, ev.Sequence, func(tx *sql.Tx) error {
		if err := s.insertMails(cctx, tx, items); err != nil {
			return err
		}
		return s.Jobs.DeletePendingJobsTx(cctx, tx, reminderPrefix(id))
	})
	if err != nil {
		// NB: the provider event is gone but the row is not cancelled: the owner reconciles.
		s.abort(cctx, id)
		s.log().Error("booking: event deleted but cancel not recorded", "booking_id", id, "error", err.Error())
		return folio.BookingStatus{}, fmt.Errorf("booking: record cancel of %s: %w", id, err)
	}
	cur, err := s.Store.Booking(cctx, id)
	if err != nil {
		return folio.BookingStatus{}, err
	}
	return s.Status(cur), nil
}

func (s *Service) changeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	timeout := s.CreateTimeout
	if timeout <= 0 {
		timeout = DefaultCreateTimeout
	}
	return context.WithTimeout(context.WithoutCancel(ctx), timeout)
}

func (s *Service) abort(ctx context.Context, id string) {
	if err := s.Store.AbortBookingChange(ctx, id); err != nil {
		// The change goes stale after PendingTTL and stops blocking then.
		s.log().Error("booking: change not ended", "booking_id", id, "error", err.Error())
	}
}
