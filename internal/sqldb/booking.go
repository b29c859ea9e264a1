package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/foliohq/folio"
)

// Booking statuses, as stored.
const (
	// BookingPending is a reservation: the slot is held while the calendar provider creates the
	// event. It counts as busy time until it is confirmed, deleted, or older than the pending
	// TTL the caller passes (a crash between the two steps must not hold a slot forever).
	BookingPending = "pending"
	// BookingConfirmed is a booked meeting whose event exists at the provider.
	BookingConfirmed = "confirmed"
)

// bookingLockID is the PostgreSQL advisory transaction lock that serialises reservations
// across every instance sharing the database (see ReserveBooking).
const bookingLockID = 7_346_501_008

// ErrIdempotencyKeyUsed is returned by ReserveBooking when another booking already carries the
// reservation's idempotency key; the caller reads that booking with BookingByIdempotencyKey.
var ErrIdempotencyKeyUsed = errors.New("sqldb: idempotency key already used")

// Booking is one row of the bookings table: a pending reservation or a confirmed meeting.
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
}

const bookingColumns = `id, status, start_at, end_at, duration_minutes, time_zone, summary, description,
	attendee_name, attendee_email, provider, provider_event_id, meet_link, event_link, ics_token,
	idempotency_key, request_hash, response_status, response_body, created_at, confirmed_at`

func scanBooking(row interface{ Scan(...any) error }) (*Booking, error) {
	var b Booking
	var start, end, created, confirmed Time
	var token, key sql.NullString
	var body string
	if err := row.Scan(&b.ID, &b.Status, &start, &end, &b.DurationMinutes, &b.TimeZone, &b.Summary, &b.Description,
		&b.AttendeeName, &b.AttendeeEmail, &b.Provider, &b.ProviderEventID, &b.MeetLink, &b.EventLink, &token,
		&key, &b.RequestHash, &b.ResponseStatus, &body, &created, &confirmed); err != nil {
		return nil, err
	}
	b.Start, b.End, b.CreatedAt, b.ConfirmedAt = start.Time, end.Time, created.Time, confirmed.Time
	b.ICSToken, b.IdempotencyKey = token.String, key.String
	if body != "" {
		b.ResponseBody = []byte(body)
	}
	return &b, nil
}

// nullIfEmpty stores an empty string as NULL, so UNIQUE columns hold any number of "none".
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// ReserveBooking inserts b as a pending reservation when no active booking overlaps
// [b.Start−buffer, b.End+buffer): active means confirmed, or pending and created at or after
// staleBefore. Stale pending rows are deleted on the way. The check and the insert run in one
// transaction that no other reservation can interleave with, on any instance: on PostgreSQL it
// takes pg_advisory_xact_lock on a fixed key first; on SQLite the single writer connection and
// the DSN's _txlock=immediate take the database's write lock at BEGIN.
//
// It returns ECONFLICT when the slot is taken and ErrIdempotencyKeyUsed when another booking
// carries b.IdempotencyKey.
func (db *DB) ReserveBooking(ctx context.Context, b *Booking, buffer time.Duration, staleBefore time.Time) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if db.Dialect == Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, bookingLockID); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM bookings WHERE status = 'pending' AND created_at < $1`, db.ts(staleBefore)); err != nil {
			return err
		}
		if b.IdempotencyKey != "" {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE idempotency_key = $1`, b.IdempotencyKey).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return ErrIdempotencyKeyUsed
			}
		}
		var taken int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE start_at < $1 AND end_at > $2`,
			db.ts(b.End.Add(buffer)), db.ts(b.Start.Add(-buffer))).Scan(&taken); err != nil {
			return err
		}
		if taken > 0 {
			return folio.Errorf(folio.ECONFLICT, "This time is no longer available; please choose another slot.")
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO bookings (`+bookingColumns+`) VALUES ($1, 'pending', $2, $3, $4, $5, $6, $7,
			$8, $9, $10, '', '', '', NULL, $11, $12, 0, '', $13, NULL)`,
			b.ID, db.ts(b.Start), db.ts(b.End), b.DurationMinutes, b.TimeZone, b.Summary, b.Description,
			b.AttendeeName, b.AttendeeEmail, b.Provider, nullIfEmpty(b.IdempotencyKey), b.RequestHash, db.ts(b.CreatedAt))
		if isUniqueViolation(err) {
			return ErrIdempotencyKeyUsed // the id is fresh; only the key can collide
		}
		return err
	})
	if err == nil {
		b.Status = BookingPending
		return nil
	}
	var fe *folio.Error
	if errors.As(err, &fe) || errors.Is(err, ErrIdempotencyKeyUsed) {
		return err
	}
	return fmt.Errorf("sqldb.ReserveBooking: %w", err)
}

// BookingConfirmation is what ConfirmBooking records.
type BookingConfirmation struct {
	ProviderEventID string
	MeetLink        string
	EventLink       string
	ResponseStatus  int
	ResponseBody    []byte
	ConfirmedAt     time.Time
}

// ConfirmBooking marks the pending booking id confirmed with the provider's event, and runs
// also (when not nil) in the same transaction, so what it writes (the confirmation mails'
// outbox items) exists exactly when the booking is confirmed. It returns ENOTFOUND when no
// pending booking has the id (it went stale and was deleted).
func (db *DB) ConfirmBooking(ctx context.Context, id string, c BookingConfirmation, also func(tx *sql.Tx) error) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE bookings SET status = 'confirmed', provider_event_id = $1, meet_link = $2,
			event_link = $3, response_status = $4, response_body = $5, confirmed_at = $6 WHERE id = $7 AND status = 'pending'`,
			c.ProviderEventID, c.MeetLink, c.EventLink, c.ResponseStatus, string(c.ResponseBody), db.ts(c.ConfirmedAt), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound("Pending booking", id)
		}
		b, err := scanBooking(tx.QueryRowContext(ctx, `SELECT `+bookingColumns+` FROM bookings WHERE id = $1`, id))
		if err != nil {
			return err
		}
		if err := db.EmitTx(ctx, tx, BookingEvent(folio.EventBookingCreated, b)); err != nil {
			return err
		}
		if also != nil {
			return also(tx)
		}
		return nil
	})
	var fe *folio.Error
	if err != nil && !errors.As(err, &fe) {
		return fmt.Errorf("sqldb.ConfirmBooking: %w", err)
	}
	return err
}

// DeleteBooking deletes the booking id if it is still pending (a failed provider call); a
// confirmed booking is never deleted here. Deleting a missing row is not an error.
func (db *DB) DeleteBooking(ctx context.Context, id string) error {
	if _, err := db.W.ExecContext(ctx, `DELETE FROM bookings WHERE id = $1 AND status = 'pending'`, id); err != nil {
		return fmt.Errorf("sqldb.DeleteBooking: %w", err)
	}
	return nil
}

// Booking returns the booking id, or ENOTFOUND.
func (db *DB) Booking(ctx context.Context, id string) (*Booking, error) {
	return db.bookingWhere(ctx, "Booking", `id = $1`, id)
}

// BookingByIdempotencyKey returns the booking that carries key, or ENOTFOUND.
func (db *DB) BookingByIdempotencyKey(ctx context.Context, key string) (*Booking, error) {
	return db.bookingWhere(ctx, "Booking with this idempotency key", `idempotency_key = $1`, key)
}

// BookingByICSToken returns the confirmed booking whose event link carries token, or ENOTFOUND.
func (db *DB) BookingByICSToken(ctx context.Context, token string) (*Booking, error) {
	return db.bookingWhere(ctx, "Event", `ics_token = $1 AND status = 'confirmed'`, token)
}

func (db *DB) bookingWhere(ctx context.Context, what, where string, arg string) (*Booking, error) {
	b, err := scanBooking(db.R.QueryRowContext(ctx, `SELECT `+bookingColumns+` FROM bookings WHERE `+where, arg))
	if err == sql.ErrNoRows {
		return nil, notFound(what, arg)
	}
	if err != nil {
		return nil, fmt.Errorf("sqldb.Booking: %w", err)
	}
	return b, nil
}

// SetBookingICSToken gives the booking id the ICS token token unless it has one already, and
// returns the token it has afterwards (so a retried call keeps the first token). ENOTFOUND when
// there is no such booking.
func (db *DB) SetBookingICSToken(ctx context.Context, id, token string) (string, error) {
	if _, err := db.W.ExecContext(ctx, `UPDATE bookings SET ics_token = $1 WHERE id = $2 AND ics_token IS NULL`, token, id); err != nil {
		return "", fmt.Errorf("sqldb.SetBookingICSToken: %w", err)
	}
	var got sql.NullString
	err := db.W.QueryRowContext(ctx, `SELECT ics_token FROM bookings WHERE id = $1`, id).Scan(&got)
	if err == sql.ErrNoRows {
		return "", notFound("Booking", id)
	}
	if err != nil {
		return "", fmt.Errorf("sqldb.SetBookingICSToken: %w", err)
	}
	return got.String, nil
}

// BookingBusy returns the intervals of the bookings that overlap [start, end) and hold their
// time: confirmed ones, and pending ones created at or after staleBefore. A zero staleBefore
// counts every pending reservation; use ConfirmedBookingBusy for confirmed meetings only.
func (db *DB) BookingBusy(ctx context.Context, start, end, staleBefore time.Time) ([]folio.Interval, error) {
	return db.bookingBusy(ctx, `SELECT start_at, end_at FROM bookings WHERE start_at < $1 AND end_at > $2
		AND (status = 'confirmed' OR created_at >= $3)`, db.ts(end), db.ts(start), db.ts(staleBefore))
}

// ConfirmedBookingBusy returns the intervals of the confirmed bookings that overlap [start, end).
func (db *DB) ConfirmedBookingBusy(ctx context.Context, start, end time.Time) ([]folio.Interval, error) {
	return db.bookingBusy(ctx, `SELECT start_at, end_at FROM bookings WHERE start_at < $1 AND end_at > $2
		AND status = 'confirmed'`, db.ts(end), db.ts(start))
}

func (db *DB) bookingBusy(ctx context.Context, query string, args ...any) ([]folio.Interval, error) {
	rows, err := db.R.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqldb.BookingBusy: %w", err)
	}
	defer rows.Close()
	var out []folio.Interval
	for rows.Next() {
		var s, e Time
		if err := rows.Scan(&s, &e); err != nil {
			return nil, fmt.Errorf("sqldb.BookingBusy: %w", err)
		}
		out = append(out, folio.Interval{Start: s.Time, End: e.Time})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqldb.BookingBusy: %w", err)
	}
	return out, nil
}

// BookingListItem is a confirmed booking as the owner's dashboard lists it.
type BookingListItem struct {
	ID              string    `json:"id"`
	Start           time.Time `json:"start"`
	End             time.Time `json:"end"`
	DurationMinutes int       `json:"durationMinutes"`
	TimeZone        string    `json:"timeZone"`
	Summary         string    `json:"summary"`
	Description     string    `json:"description,omitempty"`
	AttendeeName    string    `json:"attendeeName"`
	AttendeeEmail   string    `json:"attendeeEmail"`
	Provider        string    `json:"provider"`
	MeetLink        string    `json:"meetLink,omitempty"`
	EventLink       string    `json:"eventLink,omitempty"`
	CreatedAt       time.Time `json:"createdAt"`
}

// ConfirmedBookings lists confirmed bookings that end at or after from, soonest first, with
// the total count.
func (db *DB) ConfirmedBookings(ctx context.Context, from time.Time, page, limit int) ([]BookingListItem, int, error) {
	var total int
	if err := db.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE status = 'confirmed' AND end_at >= $1`, db.ts(from)).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("sqldb.ConfirmedBookings: %w", err)
	}
	rows, err := db.R.QueryContext(ctx, `SELECT `+bookingColumns+` FROM bookings WHERE status = 'confirmed' AND end_at >= $1
		ORDER BY start_at, id LIMIT $2 OFFSET $3`, db.ts(from), limit, (page-1)*limit)
	if err != nil {
		return nil, 0, fmt.Errorf("sqldb.ConfirmedBookings: %w", err)
	}
	defer rows.Close()
	out := []BookingListItem{}
	for rows.Next() {
		b, err := scanBooking(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("sqldb.ConfirmedBookings: %w", err)
		}
		out = append(out, BookingListItem{ID: b.ID, Start: b.Start, End: b.End, DurationMinutes: b.DurationMinutes, TimeZone: b.TimeZone,
			Summary: b.Summary, Description: b.Description, AttendeeName: b.AttendeeName, AttendeeEmail: b.AttendeeEmail,
			Provider: b.Provider, MeetLink: b.MeetLink, EventLink: b.EventLink, CreatedAt: b.CreatedAt})
	}
	return out, total, rows.Err()
}
