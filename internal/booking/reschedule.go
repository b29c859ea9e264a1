package booking

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/invite"
	"github.com/foliohq/folio/internal/slots"
)

// Reschedule moves the booking of a manage token to in.StartTime (see "Atomic cancel and reschedule" in manage.go).
// Errors: 400 bad input, 404 unknown token, 409 cancelled/started/lost race/another change
// running, 422 not an offered slot, 502 provider failure (the booking keeps its time).
func (s *Service) Reschedule(ctx context.Context, token string, in folio.RescheduleInput) (folio.BookingStatus, error) {
	if err := in.Validate(); err != nil {
		return folio.BookingStatus{}, err
	}
	b, err := s.byToken(ctx, token)
	if err != nil {
		return folio.BookingStatus{}, err
	}
	now := s.now()
	switch {
	case b.Status == folio.BookingCancelled:
		return folio.BookingStatus{}, errCancelled()
	case !now.Before(b.Start):
		return folio.BookingStatus{}, errStarted()
	}
	start, visitorLoc, err := in.Start()
	if err != nil {
		return folio.BookingStatus{}, err
	}
	if start.Equal(b.Start) && b.TimeZone == visitorLoc.String() {
		return s.Status(b), nil // already there: a repeated request changes nothing
	}
	mt, err := s.typeOf(ctx, b)
	if err != nil {
		return folio.BookingStatus{}, err
	}
	end := start.Add(time.Duration(mt.DurationMinutes) * time.Minute)
	od := slots.DateOf(start.In(s.config().Location))
	cfg, err := s.configFor(ctx, mt, od, od)
	if err != nil {
		return folio.BookingStatus{}, err
	}
	if !start.Equal(b.Start) && !slots.IsOffered(cfg, start, mt.DurationMinutes, now, nil) {
		return folio.BookingStatus{}, notOffered("startTime")
	}
	buf := cfg.Buffer
	providerBusy, err := s.Calendar.FreeBusy(ctx, start.Add(-buf), end.Add(buf))
	if err != nil {
		return folio.BookingStatus{}, asUpstream(err)
	}
	// The booking's own event is busy time at the provider; it is what moves.
	providerBusy = subtract(providerBusy, folio.Interval{Start: b.Start, End: b.End})
	if slots.Conflicts(providerBusy, start, end, buf) {
		return folio.BookingStatus{}, errTaken()
	}
	stale := now.Add(-s.pendingTTL())
	hold := &folio.Booking{ID: folio.NewID(), Start: start.UTC(), End: end.UTC(), DurationMinutes: mt.DurationMinutes, TimeZone: visitorLoc.String()}
	lim := s.limitsAt(mt, start, buf, stale)
	b, err = s.Store.BeginBookingChange(ctx, b.ID, now, lim, hold, func(cur *folio.Booking) error {
		switch {
		case cur.Status == folio.BookingCancelled:
			return errCancelled()
		case !now.Before(cur.Start):
			return errStarted()
		}
		return nil
	})
	switch {
	case err != nil:
		return folio.BookingStatus{}, refusal(err)
	}
	cctx, cancel := s.changeContext(ctx)
	defer cancel()
	old := s.eventOf(ctx, b)
	ev := old
	ev.Start, ev.End, ev.TimeZone, ev.Sequence = start.UTC(), end.UTC(), visitorLoc.String(), b.Sequence+1
	moved, err := s.Calendar.MoveEvent(cctx, ev)
	if err != nil {
		s.abort(cctx, b.ID)
		s.log().Warn("booking: provider refused the move; booking keeps its time", "booking_id", b.ID, "error", err.Error())
		return folio.BookingStatus{}, asUpstream(err)
	}
	if b.Place != nil && b.Place.Kind != folio.PlaceGoogleMeet {
		moved.MeetLink = b.MeetLink // folio's own link stays: the place survives the move
	}
	ev.MeetLink, ev.EventLink = firstNonEmpty(moved.MeetLink, ev.MeetLink), firstNonEmpty(moved.EventLink, ev.EventLink)
	moving := *b
	moving.Start, moving.End, moving.TimeZone = ev.Start, ev.End, ev.TimeZone
	items := s.bookingMails(invite.Rescheduled, ev, &moving, visitorLoc, now, invite.Extras{OldStart: b.Start, OldEnd: b.End}, true)
	err = s.Store.FinishReschedule(cctx, b.ID, folio.Reschedule{Start: ev.Start, End: ev.End, TimeZone: ev.TimeZone, Sequence: ev.Sequence,
		MeetLink: ev.MeetLink, EventLink: ev.EventLink}, func(tx *sql.Tx) error {
		if err := s.insertMails(cctx, tx, items); err != nil {
			return err
		}
		if err := s.Jobs.DeletePendingJobsTx(cctx, tx, reminderPrefix(b.ID)); err != nil {
			return err
		}
		return s.planReminders(cctx, tx, b.ID, ev.Start, now)
	})
	if err != nil {
		// Put the provider event back, so nothing is half-moved.
		if _, berr := s.Calendar.MoveEvent(cctx, old); berr != nil {
			s.log().Error("booking: move not recorded and not undone at the provider", "booking_id", b.ID, "error", berr.Error())
		}
		s.abort(cctx, b.ID)
		return folio.BookingStatus{}, fmt.Errorf("booking: record reschedule of %s: %w", b.ID, err)
	}
	cur, err := s.Store.Booking(cctx, b.ID)
	if err != nil {
		return folio.BookingStatus{}, err
	}
	return s.Status(cur), nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// subtract removes iv from every busy interval (splitting one that contains it).
func subtract(busy []folio.Interval, iv folio.Interval) []folio.Interval {
	out := make([]folio.Interval, 0, len(busy))
	for _, b := range busy {
		if !b.Overlaps(iv) {
			out = append(out, b)
			continue
		}
		if b.Start.Before(iv.Start) {
			out = append(out, folio.Interval{Start: b.Start, End: iv.Start})
		}
		if iv.End.Before(b.End) {
			out = append(out, folio.Interval{Start: iv.End, End: b.End})
		}
	}
	return out
}
