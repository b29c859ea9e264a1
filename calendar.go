package folio

import (
	"context"
	"time"
)

// Interval is the half-open time span [Start, End): an interval that ends when another starts
// does not overlap it.
type Interval struct {
	Start time.Time
	End   time.Time
}

// Overlaps reports whether i and o share any instant. Touching intervals do not overlap.
func (i Interval) Overlaps(o Interval) bool {
	return i.Start.Before(o.End) && o.Start.Before(i.End)
}

// Participant is a person on a calendar event.
type Participant struct {
	Name  string
	Email string
}

// CalendarEvent is a meeting on the owner's calendar. The provider fills ID (when empty),
// MeetLink and EventLink on creation.
type CalendarEvent struct {
	ID          string
	Summary     string
	Description string
	Start, End  time.Time
	// TimeZone is the visitor's IANA zone, kept for display.
	TimeZone  string
	Organizer Participant
	Attendee  Participant
	MeetLink  string // URL of the video meeting
	EventLink string // URL of the event in the provider's calendar
	// Sequence is the iCalendar SEQUENCE: 0 when booked, raised by every reschedule and cancel.
	Sequence int
	// Cancelled marks the event cancelled (STATUS:CANCELLED in iCalendar).
	Cancelled bool
	// ManageURL is the visitor's manage link, carried in the invite's DESCRIPTION.
	ManageURL string
	// Place is where the meeting happens; nil: the provider's own video link (Google Meet, or
	// the meeting URL template). With a place, a provider keeps MeetLink as given, except that
	// Google creates the Meet of a google_meet place.
	Place *BookingLocation
}

// Calendar is the owner's calendar provider (google, caldav or local).
type Calendar interface {
	// FreeBusy returns the busy intervals that overlap [start, end), in any order; they may
	// overlap each other. It returns UPSTREAM_ERROR when the provider fails.
	FreeBusy(ctx context.Context, start, end time.Time) ([]Interval, error)
	// CreateEvent creates ev and returns it with ID, MeetLink and EventLink set. When ev.ID is
	// set the provider uses it as its idempotency key, so a retried call creates no duplicate.
	// It returns UPSTREAM_ERROR when the provider fails; NB: a timeout may leave the event
	// created.
	CreateEvent(ctx context.Context, ev CalendarEvent) (CalendarEvent, error)
	// CalendarMover moves and deletes events (docs/api.md, "Booking lifecycle").
	CalendarMover
}

// CalendarMover is the part of a calendar provider that changes an existing event (docs/api.md,
// "Booking lifecycle"). Every provider implements it; ev.ID is always folio's booking id, from
// which each provider derives its own event identity (Google event id, CalDAV resource name, the
// booking row).
type CalendarMover interface {
	// MoveEvent changes the time of the existing event ev.ID to ev.Start–ev.End (the same
	// provider event: Google events.patch, a CalDAV PUT of the same resource) and returns it
	// with MeetLink and EventLink set. Repeating it is harmless. UPSTREAM_ERROR on failure, after
	// which the event is unchanged as far as the provider reports.
	MoveEvent(ctx context.Context, ev CalendarEvent) (CalendarEvent, error)
	// DeleteEvent removes the event ev.ID (Google events.delete, a CalDAV DELETE; the local
	// calendar keeps the row, which the booking service marks cancelled). An event that is
	// gone already is success, so a retried cancel is harmless.
	DeleteEvent(ctx context.Context, ev CalendarEvent) error
}
