package folio

import (
	"errors"
	"time"
)

// BookingStatus answers GET /api/schedule/bookings/{token} (docs/api.md, "Booking lifecycle").
type BookingStatus struct {
	ID               string `json:"id"`
	Status           string `json:"status" doc:"confirmed or cancelled"`
	StartTime        string `json:"startTime" doc:"RFC 3339 at the visitor's UTC offset"`
	EndTime          string `json:"endTime"`
	TimeZone         string `json:"timezone" doc:"the visitor's IANA zone"`
	Type             string `json:"type" doc:"meeting type slug"`
	Name             string `json:"name" doc:"the visitor's name"`
	ProviderMeetLink string `json:"providerMeetLink"`
	CanCancel        bool   `json:"canCancel"`
	CanReschedule    bool   `json:"canReschedule"`
	// Location is where the meeting happens (docs/api.md, "Meeting places").
	Location BookingLocation `json:"location,omitzero"`
}

// Booking statuses, as stored.
const (
	// BookingPending is a reservation: the slot is held while the calendar provider creates the
	// event. It counts as busy time until it is confirmed, deleted, or older than the pending
	// TTL (a crash between the two steps must not hold a slot forever).
	BookingPending = "pending"
	// BookingConfirmed is a booked meeting whose event exists at the provider.
	BookingConfirmed = "confirmed"
	// BookingCancelled is a meeting cancelled by the visitor or the owner: it holds no time.
	BookingCancelled = "cancelled"
)

// Booking is one booking: a pending reservation or a confirmed (or cancelled) meeting.
type Booking struct {
	ID              string
	Status          string
	Start, End      time.Time
	DurationMinutes int
	// TimeZone is the visitor's IANA zone.
	TimeZone        string
	Summary         string
	Description     string
	AttendeeName    string
	AttendeeEmail   string
	Provider        string // google, caldav or local
	ProviderEventID string
	MeetLink        string
	EventLink       string
	// ICSToken is the unguessable token of the local provider's event link; empty otherwise.
	ICSToken string
	// IdempotencyKey is the request's Idempotency-Key header (empty: none); RequestHash is the
	// SHA-256 of the request it came with; ResponseStatus and ResponseBody are the answer given,
	// replayed to a retry with the same key.
	IdempotencyKey string
	RequestHash    string
	ResponseStatus int
	ResponseBody   []byte
	CreatedAt      time.Time
	ConfirmedAt    time.Time // zero while pending
	// ManageToken is the visitor's manage link token (docs/api.md, "Booking lifecycle").
	ManageToken string
	// Sequence is the iCalendar SEQUENCE of the last invite sent for the booking.
	Sequence int
	// TypeSlug is the meeting type booked ("" for a plain duration).
	TypeSlug     string
	CancelledAt  time.Time // zero unless cancelled
	CancelReason string
	CancelledBy  string // visitor or owner
	// MovesBookingID is set on a pending row that holds the new time of a reschedule.
	MovesBookingID string
	// Place is where the meeting happens (nil: the provider's own video link, as before places
	// existed); Answers are the visitor's answers to the type's questions.
	Place   *Place
	Answers []BookingAnswer
}

// Event returns the webhook event typ (booking.created, .cancelled, .rescheduled) of b.
func (b *Booking) Event(typ string) Event {
	return Event{Type: typ, Data: BookingEventData{ID: b.ID, Status: b.Status, StartTime: b.Start.UTC(), EndTime: b.End.UTC(),
		DurationMinutes: b.DurationMinutes, TimeZone: b.TimeZone, Name: b.AttendeeName, Email: b.AttendeeEmail,
		Summary: b.Summary, MeetLink: b.MeetLink, Type: b.TypeSlug, Location: b.Location(), Answers: b.Answers}}
}

// BookingEventData is the data of booking.created (and, with Status, of booking.cancelled and
// booking.rescheduled). The visitor's free text stays out: receivers are often chat rooms.
type BookingEventData struct {
	ID              string    `json:"id"`
	Status          string    `json:"status"`
	StartTime       time.Time `json:"startTime"`
	EndTime         time.Time `json:"endTime"`
	DurationMinutes int       `json:"durationMinutes"`
	TimeZone        string    `json:"timezone"`
	Name            string    `json:"name"`
	Email           string    `json:"email"`
	Summary         string    `json:"summary,omitempty"`
	MeetLink        string    `json:"providerMeetLink,omitempty"`
	Type            string    `json:"type,omitempty"`
	// Location and Answers: the place and the answers to the type's questions, which the owner
	// asked for (docs/api.md, "Meeting places").
	Location *BookingLocation `json:"location,omitempty"`
	Answers  []BookingAnswer  `json:"answers,omitempty"`
}

// Location renders the booking's place; a booking without one (made before places existed,
// or of a type without places) has the provider's video link: Google Meet on google, a video
// link elsewhere.
func (b *Booking) Location() *BookingLocation {
	if b.Place != nil {
		return b.Place.Location(b.MeetLink)
	}
	if b.MeetLink == "" {
		return nil
	}
	if b.Provider == "google" {
		return &BookingLocation{Kind: PlaceGoogleMeet, Label: "Google Meet", JoinURL: b.MeetLink}
	}
	return Place{Kind: PlaceLink}.Location(b.MeetLink)
}

// ReserveLimits are the rules a reservation is checked against, inside the reservation lock,
// as the booking service decided them.
type ReserveLimits struct {
	// Buffer is free time required around the reservation.
	Buffer time.Duration
	// StaleBefore: pending rows created before it no longer hold time and are deleted.
	StaleBefore time.Time
	// MaxPerDay > 0 caps the active bookings of the type whose start lies in [DayStart, DayEnd).
	MaxPerDay int
	DayStart  time.Time
	DayEnd    time.Time
	// MaxPerEmail > 0 caps the active bookings of the attendee's address (case-insensitive)
	// created at or after EmailSince.
	MaxPerEmail int
	EmailSince  time.Time
	// Caps are further caps of the type's active bookings starting in a period (its week and
	// month limits), checked like MaxPerDay.
	Caps []PeriodCap
}

// PeriodCap caps the active bookings of a meeting type starting in [Start, End) at Max.
type PeriodCap struct {
	Max        int
	Start, End time.Time
}

// Errors of a reservation or a change of a booking. The booking service turns each into the
// answer the visitor gets.
var (
	// ErrSlotTaken: an active booking overlaps the time (with the buffers).
	ErrSlotTaken = errors.New("folio: the time is taken")
	// ErrDayFull: the meeting type has ReserveLimits.MaxPerDay bookings on the day already.
	ErrDayFull = errors.New("folio: the day is fully booked for the meeting type")
	// ErrEmailLimit: the visitor's address has ReserveLimits.MaxPerEmail bookings already.
	ErrEmailLimit = errors.New("folio: booking limit per email address reached")
	// ErrIdempotencyKeyUsed: another booking already carries the reservation's idempotency key.
	ErrIdempotencyKeyUsed = errors.New("folio: idempotency key already used")
	// ErrChangeInProgress: another cancel or reschedule of the same booking is running (on any
	// instance).
	ErrChangeInProgress = errors.New("folio: another change of this booking is in progress")
)

// BookingConfirmation is what confirming a pending booking records.
type BookingConfirmation struct {
	ProviderEventID string
	MeetLink        string
	EventLink       string
	ResponseStatus  int
	ResponseBody    []byte
	ConfirmedAt     time.Time
}

// Reschedule is what finishing a reschedule records.
type Reschedule struct {
	Start, End time.Time
	TimeZone   string
	Sequence   int
	MeetLink   string
	EventLink  string
}

// BookingListItem is a booking as the owner's dashboard lists it.
type BookingListItem struct {
	ID              string           `json:"id"`
	Status          string           `json:"status" doc:"confirmed or cancelled"`
	Start           time.Time        `json:"start"`
	End             time.Time        `json:"end"`
	DurationMinutes int              `json:"durationMinutes"`
	TimeZone        string           `json:"timeZone"`
	Type            string           `json:"type,omitempty" doc:"meeting type slug"`
	Summary         string           `json:"summary"`
	Description     string           `json:"description,omitempty"`
	AttendeeName    string           `json:"attendeeName"`
	AttendeeEmail   string           `json:"attendeeEmail"`
	Provider        string           `json:"provider"`
	MeetLink        string           `json:"meetLink,omitempty"`
	EventLink       string           `json:"eventLink,omitempty"`
	CreatedAt       time.Time        `json:"createdAt"`
	CancelledAt     *time.Time       `json:"cancelledAt,omitempty"`
	CancelReason    string           `json:"cancelReason,omitempty"`
	CancelledBy     string           `json:"cancelledBy,omitempty" doc:"visitor or owner"`
	Location        *BookingLocation `json:"location,omitempty"`
	Answers         []BookingAnswer  `json:"answers,omitempty" doc:"the visitor's answers to the type's questions, with each question's label"`
}

// BookingFilter selects bookings to list: Status "" means confirmed and cancelled; the
// booking's end must be at or after From and its start before To (zero: unbounded).
type BookingFilter struct {
	Status   string
	From, To time.Time
}
