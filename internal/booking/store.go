package booking

import (
	"context"
	"database/sql"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/mail"
)

// Store keeps bookings, meeting types and availability overrides (*sqldb.BookingStore does).
// A method that takes also runs it inside its own transaction, so what also writes (mails,
// reminder jobs) commits exactly with the change. bookingtest.TestStore checks an
// implementation.
type Store interface {
	// ReserveBooking inserts b as a pending reservation, in one transaction that no other
	// reservation can interleave with (on any instance), when lim allows it: else it returns
	// folio.ErrSlotTaken, folio.ErrDayFull, folio.ErrEmailLimit or folio.ErrIdempotencyKeyUsed.
	// Pending rows created before lim.StaleBefore are deleted on the way.
	ReserveBooking(ctx context.Context, b *folio.Booking, lim folio.ReserveLimits) error
	// ConfirmBooking marks the pending booking id confirmed (ENOTFOUND when there is none) and
	// queues the booking.created webhook event.
	ConfirmBooking(ctx context.Context, id string, c folio.BookingConfirmation, also func(tx *sql.Tx) error) error
	// DeleteBooking deletes the booking id if it is still pending.
	DeleteBooking(ctx context.Context, id string) error

	Booking(ctx context.Context, id string) (*folio.Booking, error)
	BookingByIdempotencyKey(ctx context.Context, key string) (*folio.Booking, error)
	BookingByICSToken(ctx context.Context, token string) (*folio.Booking, error)
	BookingByManageToken(ctx context.Context, token string) (*folio.Booking, error)
	ListBookings(ctx context.Context, f folio.BookingFilter, page, limit int) ([]folio.BookingListItem, int, error)

	// BookingBusy returns the intervals of the active bookings that overlap [start, end).
	BookingBusy(ctx context.Context, start, end, staleBefore time.Time) ([]folio.Interval, error)
	// CountTypeBookings counts the active bookings of type slug starting in [start, end).
	CountTypeBookings(ctx context.Context, slug string, start, end, staleBefore time.Time) (int, error)
	// OldestBookingOfEmail returns when the oldest active booking of email created at or after
	// since was made (zero: none).
	OldestBookingOfEmail(ctx context.Context, email string, since, staleBefore time.Time) (time.Time, error)

	// BeginBookingChange starts a cancel (hold nil) or a reschedule (hold: the pending row of the
	// new time) of the confirmed or cancelled booking id, under the reservation lock: while
	// another change of it runs (begun at or after lim.StaleBefore) it returns
	// folio.ErrChangeInProgress; then check's error as is; then, for a hold, folio.ErrSlotTaken or
	// folio.ErrDayFull as ReserveBooking would. Else the hold is stored, the change marked begun
	// at now, and the booking returned. AbortBookingChange or a Finish call ends the change.
	BeginBookingChange(ctx context.Context, id string, now time.Time, lim folio.ReserveLimits, hold *folio.Booking, check func(*folio.Booking) error) (*folio.Booking, error)
	// AbortBookingChange drops the hold and ends the change; the booking stays as it was.
	AbortBookingChange(ctx context.Context, id string) error
	// FinishReschedule moves the confirmed booking id (ENOTFOUND: none) to r, drops the hold,
	// ends the change and queues booking.rescheduled; FinishCancel cancels it (its time is free
	// at once) and queues booking.cancelled.
	FinishReschedule(ctx context.Context, id string, r folio.Reschedule, also func(tx *sql.Tx) error) error
	FinishCancel(ctx context.Context, id, reason, by string, at time.Time, sequence int, also func(tx *sql.Tx) error) error
	// RecordReminder records key as sent and runs also, once per key: sent is false the second
	// time.
	RecordReminder(ctx context.Context, key string, at time.Time, also func(tx *sql.Tx) error) (sent bool, err error)

	MeetingTypes(ctx context.Context) ([]folio.MeetingType, error)
	CreateMeetingType(ctx context.Context, t folio.MeetingType, now time.Time) error
	UpdateMeetingType(ctx context.Context, slug string, t folio.MeetingType, now time.Time) error
	DeleteMeetingType(ctx context.Context, slug string) error

	Overrides(ctx context.Context, from, to string) ([]folio.AvailabilityOverride, error)
	PutOverride(ctx context.Context, o folio.AvailabilityOverride, now time.Time) error
	DeleteOverride(ctx context.Context, date string) error
}

// JobsTx queues and drops the reminder jobs inside a transaction (*sqldb.JobStore does).
type JobsTx interface {
	EnqueueJobTx(ctx context.Context, tx *sql.Tx, kind, key, payload string, runAt time.Time) error
	DeletePendingJobsTx(ctx context.Context, tx *sql.Tx, prefix string) error
}

// MailQueue turns a message into an outbox item without storing it (*mail.Outbox does).
type MailQueue interface {
	NewItem(m *folio.MailMessage) (mail.OutboxItem, error)
}

// OutboxTx stores an outbox item inside a transaction (*sqldb.OutboxStore does).
type OutboxTx interface {
	InsertOutboxTx(ctx context.Context, tx *sql.Tx, item mail.OutboxItem) error
}
