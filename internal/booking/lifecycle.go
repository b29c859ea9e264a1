package booking

// The booking lifecycle of contract §7: manage tokens, cancel, reschedule, reminders, meeting
// types and availability overrides.
//
// # Atomic cancel and reschedule
//
// A change of a booking runs in three steps, like Book:
//
//  1. Begin. One transaction under the reservation lock (sqldb.BeginBookingChange) checks the
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
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/invite"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/slots"
	"github.com/foliohq/folio/internal/sqldb"
)

// JobReminder is the job kind of booking reminders.
const JobReminder = "booking_reminder"

// DefaultReminders is BOOKING_REMINDERS' default.
var DefaultReminders = []time.Duration{24 * time.Hour, time.Hour}

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
	return strings.TrimRight(s.SiteURL, "/") + ManagePath + token
}

func notOffered(field string) error {
	return &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
		Details: []folio.FieldError{{Field: field, Message: "is not an offered slot: pick a start listed by GET /api/schedule/available"}}}
}

// emailLimitError is the 429 of BOOKING_MAX_PER_EMAIL_PER_DAY, retryAfter when the oldest
// counted booking leaves the 24-hour window.
func (s *Service) emailLimitError(ctx context.Context, email string, now time.Time) error {
	retry := 3600
	if oldest, err := s.DB.Bookings.OldestBookingOfEmail(ctx, email, now.Add(-24*time.Hour), now.Add(-s.pendingTTL())); err == nil && !oldest.IsZero() {
		retry = max(int(oldest.Add(24*time.Hour).Sub(now)/time.Second)+1, 1)
	}
	return &folio.Error{Code: folio.ERATELIMIT, RetryAfter: retry,
		Message: fmt.Sprintf("This email address has booked %d meetings in the last 24 hours, the most allowed; try again later or cancel one.", s.MaxPerEmailPerDay)}
}

// ownerDay returns the owner-local day containing t as [start, end).
func ownerDay(loc *time.Location, t time.Time) (time.Time, time.Time) {
	d := slots.DateOf(t.In(loc))
	start := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
	return start, time.Date(d.Year, d.Month, d.Day+1, 0, 0, 0, 0, loc)
}

// --- meeting types ---

// DefaultTypes returns the types that exist while none is stored: one per duration option.
func (s *Service) DefaultTypes() []folio.MeetingType {
	out := make([]folio.MeetingType, 0, len(s.Config.DurationOptions))
	for _, d := range s.Config.DurationOptions {
		out = append(out, folio.MeetingType{Slug: strconv.Itoa(d) + "min", Title: strconv.Itoa(d) + " minute meeting",
			DurationMinutes: d, BufferMinutes: int(s.Config.Buffer / time.Minute)})
	}
	return out
}

// Types returns the meeting types: the stored ones, or the defaults when none is stored.
func (s *Service) Types(ctx context.Context) ([]folio.MeetingType, error) {
	ts, err := s.DB.Bookings.MeetingTypes(ctx)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return s.DefaultTypes(), nil
	}
	return ts, nil
}

// resolveType picks the meeting type of a request: by slug (unknown: 422 on "type"; a duration
// given beside it must match), else by duration (0: the first option), which must be one of
// the options or a type's duration. A duration without a type of its own books a plain meeting
// (empty slug) with the global buffer.
func (s *Service) resolveType(ctx context.Context, slug string, duration int, durationField string) (folio.MeetingType, error) {
	ts, err := s.Types(ctx)
	if err != nil {
		return folio.MeetingType{}, err
	}
	if slug != "" {
		for _, t := range ts {
			if t.Slug == slug {
				if duration != 0 && duration != t.DurationMinutes {
					return folio.MeetingType{}, &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
						Details: []folio.FieldError{{Field: durationField, Message: fmt.Sprintf("must be %d (the duration of type %s) or absent", t.DurationMinutes, slug)}}}
				}
				return t, nil
			}
		}
		slugs := make([]string, len(ts))
		for i, t := range ts {
			slugs[i] = t.Slug
		}
		return folio.MeetingType{}, &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
			Details: []folio.FieldError{{Field: "type", Message: "must be one of " + strings.Join(slugs, ", ")}}}
	}
	if duration == 0 {
		duration = s.Config.DefaultDuration()
	}
	for _, t := range ts {
		if t.DurationMinutes == duration {
			return t, nil
		}
	}
	if !s.Config.AllowsDuration(duration) {
		return folio.MeetingType{}, s.durationError(durationField)
	}
	return folio.MeetingType{DurationMinutes: duration, BufferMinutes: int(s.Config.Buffer / time.Minute)}, nil
}

// SaveType creates (slug "" in the path: POST) or replaces (PUT) a stored meeting type. The
// first stored type replaces the defaults.
func (s *Service) SaveType(ctx context.Context, pathSlug string, in folio.MeetingTypeInput) (folio.MeetingType, error) {
	create := pathSlug == ""
	if create && in.Slug == "" {
		in.Slug = slugFrom(in.Title, in.DurationMinutes)
	}
	if err := in.Validate(create); err != nil {
		return folio.MeetingType{}, err
	}
	t := folio.MeetingType{Slug: in.Slug, Title: strings.TrimSpace(in.Title), Description: strings.TrimSpace(in.Description),
		DurationMinutes: in.DurationMinutes, BufferMinutes: in.BufferMinutes, MaxPerDay: in.MaxPerDay}
	if create {
		return t, s.DB.Bookings.CreateMeetingType(ctx, t, s.now())
	}
	t.Slug = pathSlug
	return t, s.DB.Bookings.UpdateMeetingType(ctx, pathSlug, t, s.now())
}

func slugFrom(title string, duration int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 60 {
		out = strings.Trim(out[:60], "-")
	}
	if out == "" {
		out = strconv.Itoa(duration) + "min"
	}
	return out
}

// configFor returns the booking configuration for type t with the overrides of the owner dates
// [from, to] loaded.
func (s *Service) configFor(ctx context.Context, t folio.MeetingType, from, to slots.Date) (folio.BookingConfig, error) {
	cfg := s.Config
	cfg.DurationOptions = []int{t.DurationMinutes}
	cfg.Buffer = time.Duration(t.BufferMinutes) * time.Minute
	ovs, err := s.DB.Bookings.Overrides(ctx, from.String(), to.String())
	if err != nil {
		return cfg, err
	}
	if len(ovs) > 0 {
		cfg.Overrides = map[string]folio.DayHours{}
		for _, o := range ovs {
			var dh folio.DayHours
			if !o.Closed {
				for _, h := range o.Hours {
					if a, b, err := h.Minutes(); err == nil {
						dh.Ranges = append(dh.Ranges, [2]int{a, b})
					}
				}
			}
			cfg.Overrides[o.Date] = dh
		}
	}
	return cfg, nil
}

// dayFull reports whether type t has reached its maxPerDay on the owner day of start.
func (s *Service) dayFull(ctx context.Context, t folio.MeetingType, start time.Time) (bool, error) {
	if t.MaxPerDay <= 0 || t.Slug == "" {
		return false, nil
	}
	ds, de := ownerDay(s.Config.Location, start)
	n, err := s.DB.Bookings.CountTypeBookings(ctx, t.Slug, ds, de, s.now().Add(-s.pendingTTL()))
	return n >= t.MaxPerDay, err
}

// dropFullDays removes the slots on owner days where t is fully booked.
func (s *Service) dropFullDays(ctx context.Context, t folio.MeetingType, in []folio.Slot) ([]folio.Slot, error) {
	if t.MaxPerDay <= 0 || t.Slug == "" {
		return in, nil
	}
	full := map[time.Time]bool{}
	out := in[:0]
	for _, sl := range in {
		ds, _ := ownerDay(s.Config.Location, sl.Start)
		f, ok := full[ds]
		if !ok {
			var err error
			if f, err = s.dayFull(ctx, t, sl.Start); err != nil {
				return nil, err
			}
			full[ds] = f
		}
		if !f {
			out = append(out, sl)
		}
	}
	return out, nil
}

// --- overrides ---

// PutOverride stores the override of date (YYYY-MM-DD).
func (s *Service) PutOverride(ctx context.Context, date string, in folio.OverrideInput) (folio.AvailabilityOverride, error) {
	if _, err := slots.ParseDate(date); err != nil {
		return folio.AvailabilityOverride{}, folio.BadRequest("date", "must be a calendar date YYYY-MM-DD")
	}
	if err := in.Validate(); err != nil {
		return folio.AvailabilityOverride{}, err
	}
	o := folio.AvailabilityOverride{Date: date, Closed: in.Closed, Hours: in.Hours}
	if o.Hours == nil {
		o.Hours = []folio.HoursRange{}
	}
	return o, s.DB.Bookings.PutOverride(ctx, o, s.now())
}

// Overrides lists the overrides of [from, to] (YYYY-MM-DD; default today … +365 days).
func (s *Service) Overrides(ctx context.Context, from, to string) ([]folio.AvailabilityOverride, error) {
	today := slots.DateOf(s.now().In(s.Config.Location))
	f, t := today, today.AddDays(365)
	var err error
	if from != "" {
		if f, err = slots.ParseDate(from); err != nil {
			return nil, folio.BadRequest("from", "must be a calendar date YYYY-MM-DD")
		}
	}
	if to != "" {
		if t, err = slots.ParseDate(to); err != nil {
			return nil, folio.BadRequest("to", "must be a calendar date YYYY-MM-DD")
		}
	}
	return s.DB.Bookings.Overrides(ctx, f.String(), t.String())
}

// --- manage view, cancel, reschedule ---

func (s *Service) eventOf(b *sqldb.Booking) folio.CalendarEvent {
	return folio.CalendarEvent{
		ID: b.ID, Summary: b.Summary, Description: b.Description, Start: b.Start, End: b.End, TimeZone: b.TimeZone,
		Organizer: s.Owner, Attendee: folio.Participant{Name: b.AttendeeName, Email: b.AttendeeEmail},
		MeetLink: b.MeetLink, EventLink: b.EventLink, Sequence: b.Sequence, ManageURL: s.manageURL(b.ManageToken),
	}
}

func (s *Service) byToken(ctx context.Context, token string) (*sqldb.Booking, error) {
	if !ValidToken(token) {
		return nil, folio.Errorf(folio.ENOTFOUND, "No booking has this link.")
	}
	b, err := s.DB.Bookings.BookingByManageToken(ctx, token)
	if folio.IsNotFound(err) {
		return nil, folio.Errorf(folio.ENOTFOUND, "No booking has this link.") // never echo the token
	}
	return b, err
}

// Status renders b as GET /api/schedule/bookings/{token} answers it.
func (s *Service) Status(b *sqldb.Booking) folio.BookingStatus {
	loc, err := folio.LoadZone(b.TimeZone)
	if err != nil {
		loc = s.Config.Location
	}
	open := b.Status == sqldb.BookingConfirmed && s.now().Before(b.Start)
	return folio.BookingStatus{ID: b.ID, Status: b.Status, StartTime: b.Start.In(loc).Format(time.RFC3339), EndTime: b.End.In(loc).Format(time.RFC3339),
		TimeZone: b.TimeZone, Type: b.TypeSlug, Name: b.AttendeeName, ProviderMeetLink: b.MeetLink, CanCancel: open, CanReschedule: open}
}

// Get returns the booking of a manage token.
func (s *Service) Get(ctx context.Context, token string) (folio.BookingStatus, error) {
	b, err := s.byToken(ctx, token)
	if err != nil {
		return folio.BookingStatus{}, err
	}
	return s.Status(b), nil
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
	b, err := s.DB.Bookings.BeginBookingChange(ctx, id, now, sqldb.ReserveLimits{StaleBefore: stale}, nil, func(b *sqldb.Booking) error {
		switch {
		case b.Status == sqldb.BookingCancelled:
			return errAlreadyCancelled
		case !now.Before(b.Start):
			return errStarted()
		}
		return nil
	})
	switch {
	case errors.Is(err, errAlreadyCancelled):
		cur, err := s.DB.Bookings.Booking(ctx, id)
		if err != nil {
			return folio.BookingStatus{}, err
		}
		return s.Status(cur), nil
	case errors.Is(err, sqldb.ErrChangeInProgress):
		return folio.BookingStatus{}, errBusyChanging()
	case err != nil:
		return folio.BookingStatus{}, err
	}
	cctx, cancel := s.changeContext(ctx)
	defer cancel()
	ev := s.eventOf(b)
	if err := s.Calendar.DeleteEvent(cctx, ev); err != nil {
		s.abort(cctx, id)
		s.log().Warn("booking: provider refused the cancel; booking unchanged", "booking_id", id, "error", err.Error())
		return folio.BookingStatus{}, asUpstream(err)
	}
	ev.Sequence = b.Sequence + 1
	ev.Cancelled = true
	loc, _ := folio.LoadZone(b.TimeZone)
	items := s.bookingMails(invite.Cancelled, ev, b, loc, now, invite.Extras{Reason: reason, By: by}, true)
	err = s.DB.Bookings.FinishCancel(cctx, id, reason, by, now, ev.Sequence, func(tx *sql.Tx) error {
		if err := s.insertMails(cctx, tx, items); err != nil {
			return err
		}
		return s.DB.Jobs.DeletePendingJobsTx(cctx, tx, reminderPrefix(id))
	})
	if err != nil {
		// NB: the provider event is gone but the row is not cancelled: the owner reconciles.
		s.abort(cctx, id)
		s.log().Error("booking: event deleted but cancel not recorded", "booking_id", id, "error", err.Error())
		return folio.BookingStatus{}, fmt.Errorf("booking: record cancel of %s: %w", id, err)
	}
	cur, err := s.DB.Bookings.Booking(cctx, id)
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
	if err := s.DB.Bookings.AbortBookingChange(ctx, id); err != nil {
		// The change goes stale after PendingTTL and stops blocking then.
		s.log().Error("booking: change not ended", "booking_id", id, "error", err.Error())
	}
}

// Reschedule moves the booking of a manage token to in.StartTime (see the file comment).
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
	case b.Status == sqldb.BookingCancelled:
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
	od := slots.DateOf(start.In(s.Config.Location))
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
	ds, de := ownerDay(s.Config.Location, start)
	hold := &sqldb.Booking{ID: folio.NewID(), Start: start.UTC(), End: end.UTC(), DurationMinutes: mt.DurationMinutes, TimeZone: visitorLoc.String()}
	lim := sqldb.ReserveLimits{Buffer: buf, StaleBefore: stale, MaxPerDay: mt.MaxPerDay, DayStart: ds, DayEnd: de}
	b, err = s.DB.Bookings.BeginBookingChange(ctx, b.ID, now, lim, hold, func(cur *sqldb.Booking) error {
		switch {
		case cur.Status == sqldb.BookingCancelled:
			return errCancelled()
		case !now.Before(cur.Start):
			return errStarted()
		}
		return nil
	})
	switch {
	case errors.Is(err, sqldb.ErrChangeInProgress):
		return folio.BookingStatus{}, errBusyChanging()
	case err != nil:
		return folio.BookingStatus{}, err
	}
	cctx, cancel := s.changeContext(ctx)
	defer cancel()
	old := s.eventOf(b)
	ev := old
	ev.Start, ev.End, ev.TimeZone, ev.Sequence = start.UTC(), end.UTC(), visitorLoc.String(), b.Sequence+1
	moved, err := s.Calendar.MoveEvent(cctx, ev)
	if err != nil {
		s.abort(cctx, b.ID)
		s.log().Warn("booking: provider refused the move; booking keeps its time", "booking_id", b.ID, "error", err.Error())
		return folio.BookingStatus{}, asUpstream(err)
	}
	ev.MeetLink, ev.EventLink = firstNonEmpty(moved.MeetLink, ev.MeetLink), firstNonEmpty(moved.EventLink, ev.EventLink)
	moving := *b
	moving.Start, moving.End, moving.TimeZone = ev.Start, ev.End, ev.TimeZone
	items := s.bookingMails(invite.Rescheduled, ev, &moving, visitorLoc, now, invite.Extras{OldStart: b.Start, OldEnd: b.End}, true)
	err = s.DB.Bookings.FinishReschedule(cctx, b.ID, sqldb.Reschedule{Start: ev.Start, End: ev.End, TimeZone: ev.TimeZone, Sequence: ev.Sequence,
		MeetLink: moved.MeetLink, EventLink: moved.EventLink}, func(tx *sql.Tx) error {
		if err := s.insertMails(cctx, tx, items); err != nil {
			return err
		}
		if err := s.DB.Jobs.DeletePendingJobsTx(cctx, tx, reminderPrefix(b.ID)); err != nil {
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
	cur, err := s.DB.Bookings.Booking(cctx, b.ID)
	if err != nil {
		return folio.BookingStatus{}, err
	}
	return s.Status(cur), nil
}

// typeOf returns the meeting type a booking was made with (its stored type when it still
// exists, else its own duration with the global buffer).
func (s *Service) typeOf(ctx context.Context, b *sqldb.Booking) (folio.MeetingType, error) {
	ts, err := s.Types(ctx)
	if err != nil {
		return folio.MeetingType{}, err
	}
	for _, t := range ts {
		if t.Slug == b.TypeSlug && b.TypeSlug != "" && t.DurationMinutes == b.DurationMinutes {
			return t, nil
		}
	}
	return folio.MeetingType{Slug: b.TypeSlug, DurationMinutes: b.DurationMinutes, BufferMinutes: int(s.Config.Buffer / time.Minute)}, nil
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

// List lists bookings for the admin route.
func (s *Service) List(ctx context.Context, status, from, to string, page, limit int) ([]sqldb.BookingListItem, int, error) {
	var f sqldb.BookingFilter
	switch status {
	case "", sqldb.BookingConfirmed, sqldb.BookingCancelled:
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
	return s.DB.Bookings.ListBookings(ctx, f, page, limit)
}

// --- mails and reminders ---

// bookingMails renders the visitor's and (when toOwner) the owner's mail of kind. The visitor
// gets the requester-free view (invite.ForVisitor) in both the text and the invite. A mail that
// cannot be built is logged and left out.
func (s *Service) bookingMails(kind invite.Kind, ev folio.CalendarEvent, b *sqldb.Booking, visitorLoc *time.Location, now time.Time, x invite.Extras, toOwner bool) []mail.OutboxItem {
	if s.Mail == nil || s.Outbox == nil {
		return nil
	}
	if visitorLoc == nil {
		visitorLoc = s.Config.Location
	}
	method := "REQUEST"
	if kind == invite.Cancelled {
		method = "CANCEL"
	}
	visitor := folio.MailAddress{Name: b.AttendeeName, Email: b.AttendeeEmail}
	owner := folio.MailAddress{Name: s.Owner.Name, Email: s.Owner.Email}
	var items []mail.OutboxItem
	for _, forOwner := range []bool{false, true} {
		if forOwner && !toOwner {
			continue
		}
		to, replyTo, view := visitor, owner, invite.ForVisitor(ev)
		if forOwner {
			to, replyTo, view = owner, visitor, ev
		}
		if to.Email == "" {
			continue
		}
		c, err := invite.BookingMail(kind, view, s.Config.Location, visitorLoc, forOwner, x)
		if err != nil {
			s.log().Error("booking: mail not rendered", "booking_id", b.ID, "kind", string(kind), "error", err.Error())
			continue
		}
		m := &folio.MailMessage{To: []folio.MailAddress{to}, Subject: c.Subject, Text: c.Text, HTML: c.HTML,
			Headers: map[string]string{"Auto-Submitted": "auto-generated"}}
		if kind != invite.Reminder {
			ics, err := invite.InviteICS(view, method, now)
			if err != nil {
				s.log().Error("booking: invite not rendered", "booking_id", b.ID, "error", err.Error())
				continue
			}
			m.Attachments = []folio.MailAttachment{{Filename: "invite.ics", ContentType: "text/calendar; method=" + method + "; charset=UTF-8", Data: ics}}
		}
		if replyTo.Email != "" {
			m.ReplyTo = &replyTo
		}
		it, err := s.Mail.NewItem(m)
		if err != nil {
			s.log().Error("booking: mail not queued", "booking_id", b.ID, "for_owner", forOwner, "error", err.Error())
			continue
		}
		items = append(items, it)
	}
	return items
}

func (s *Service) insertMails(ctx context.Context, tx *sql.Tx, items []mail.OutboxItem) error {
	for _, it := range items {
		if err := s.Outbox.InsertOutboxTx(ctx, tx, it); err != nil {
			return err
		}
	}
	return nil
}

func reminderPrefix(id string) string { return "booking-reminder:" + id + ":" }

type reminderPayload struct {
	BookingID string    `json:"bookingId"`
	Start     time.Time `json:"start"`
	Before    string    `json:"before"`
}

// planReminders enqueues, in tx, one reminder job per BOOKING_REMINDERS entry that is still in
// the future. The key names the booking, its start and the offset, so a moved booking gets new
// jobs and an old one (if a worker claimed it before it was deleted) sees the start changed.
func (s *Service) planReminders(ctx context.Context, tx *sql.Tx, id string, start, now time.Time) error {
	for _, d := range s.Reminders {
		at := start.Add(-d)
		if d <= 0 || !at.After(now) {
			continue
		}
		key := reminderPrefix(id) + strconv.FormatInt(start.Unix(), 10) + ":" + d.String()
		pl, _ := json.Marshal(reminderPayload{BookingID: id, Start: start.UTC(), Before: d.String()})
		if err := s.DB.Jobs.EnqueueJobTx(ctx, tx, JobReminder, key, string(pl), at); err != nil {
			return err
		}
	}
	return nil
}

// ReminderHandler returns the job handler of JobReminder (a jobs.Handler). It mails the
// visitor once — the mail and a row keyed by the job's key are written in one transaction — and
// does nothing for a booking that was cancelled, moved away from the job's start, or started.
func (s *Service) ReminderHandler() func(ctx context.Context, j sqldb.Job) error {
	return func(ctx context.Context, j sqldb.Job) error {
		var pl reminderPayload
		if err := json.Unmarshal([]byte(j.Payload), &pl); err != nil || pl.BookingID == "" {
			return nil // a malformed payload cannot be retried into shape
		}
		b, err := s.DB.Bookings.Booking(ctx, pl.BookingID)
		if folio.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if b.Status != sqldb.BookingConfirmed || !b.Start.Equal(pl.Start) || !s.now().Before(b.Start) {
			return nil
		}
		loc, _ := folio.LoadZone(b.TimeZone)
		items := s.bookingMails(invite.Reminder, s.eventOf(b), b, loc, s.now(), invite.Extras{}, false)
		_, err = s.DB.Bookings.RecordReminder(ctx, j.Key, s.now(), func(tx *sql.Tx) error { return s.insertMails(ctx, tx, items) })
		return err
	}
}

// DayAvailability is one date of GET /api/schedule/days.
type DayAvailability struct {
	Date  string `json:"date" doc:"YYYY-MM-DD in the visitor's zone"`
	Slots int    `json:"slots" doc:"free slots that day"`
}

// MaxDaysRange bounds GET /api/schedule/days.
const MaxDaysRange = 62

// AvailableDays counts the free slots of each visitor date in [from, to] (at most MaxDaysRange
// days) with one free/busy query: what the /book page's month view marks.
func (s *Service) AvailableDays(ctx context.Context, from, to, typeSlug string, duration int, timezone string) ([]DayAvailability, error) {
	f, err := slots.ParseDate(from)
	if err != nil {
		return nil, folio.BadRequest("from", "must be a calendar date YYYY-MM-DD")
	}
	last, err := slots.ParseDate(to)
	if err != nil {
		return nil, folio.BadRequest("to", "must be a calendar date YYYY-MM-DD")
	}
	loc := s.Config.Location
	if timezone != "" {
		if loc, err = folio.LoadZone(timezone); err != nil {
			return nil, folio.BadRequest("timezone", "must be an IANA time zone name, like Europe/Berlin")
		}
	}
	n := 0
	for d := f; d != last; d = d.AddDays(1) {
		if n++; n >= MaxDaysRange || d.String() > last.String() {
			return nil, &folio.Error{Code: folio.EINVALID, RuleBroken: true, Message: "Validation failed.",
				Details: []folio.FieldError{{Field: "to", Message: fmt.Sprintf("must be on or after from and at most %d days later", MaxDaysRange-1)}}}
		}
	}
	mt, err := s.resolveType(ctx, typeSlug, duration, "duration")
	if err != nil {
		return nil, err
	}
	cfg, err := s.configFor(ctx, mt, f.AddDays(-2), last.AddDays(3))
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := make([]DayAvailability, 0, n+1)
	first, end := slots.BusyWindow(cfg, f), slots.BusyWindow(cfg, last)
	var busy []folio.Interval
	if end.End.After(now.Add(cfg.MinNotice)) {
		if busy, err = s.busy(ctx, first.Start, end.End); err != nil {
			return nil, err
		}
	}
	for d := f; ; d = d.AddDays(1) {
		day := slots.Slots(cfg, d, loc, mt.DurationMinutes, now, busy)
		if day, err = s.dropFullDays(ctx, mt, day); err != nil {
			return nil, err
		}
		out = append(out, DayAvailability{Date: d.String(), Slots: len(day)})
		if d == last {
			break
		}
	}
	return out, nil
}
