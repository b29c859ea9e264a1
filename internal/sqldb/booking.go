package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// bookingLockID is the PostgreSQL advisory transaction lock that serialises reservations
// across every instance sharing the database (see ReserveBooking).
const bookingLockID = 7_346_501_008

const bookingColumns = `id, status, start_at, end_at, duration_minutes, time_zone, summary, description,
	attendee_name, attendee_email, provider, provider_event_id, meet_link, event_link, ics_token,
	idempotency_key, request_hash, response_status, response_body, created_at, confirmed_at,
	manage_token, sequence, type_slug, cancelled_at, cancel_reason, cancelled_by, moves_booking_id, place, answers`

func scanBooking(row interface{ Scan(...any) error }) (*folio.Booking, error) {
	return scanBookingExtra(row)
}

// scanBookingExtra scans bookingColumns followed by extra columns into extra.
func scanBookingExtra(row interface{ Scan(...any) error }, extra ...any) (*folio.Booking, error) {
	var b folio.Booking
	var start, end, created, confirmed, cancelled Time
	var token, key, manage, moves sql.NullString
	var body, place, answers string
	dest := []any{&b.ID, &b.Status, &start, &end, &b.DurationMinutes, &b.TimeZone, &b.Summary, &b.Description,
		&b.AttendeeName, &b.AttendeeEmail, &b.Provider, &b.ProviderEventID, &b.MeetLink, &b.EventLink, &token,
		&key, &b.RequestHash, &b.ResponseStatus, &body, &created, &confirmed,
		&manage, &b.Sequence, &b.TypeSlug, &cancelled, &b.CancelReason, &b.CancelledBy, &moves, &place, &answers}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	b.Start, b.End, b.CreatedAt, b.ConfirmedAt, b.CancelledAt = start.Time, end.Time, created.Time, confirmed.Time, cancelled.Time
	b.ICSToken, b.IdempotencyKey, b.ManageToken, b.MovesBookingID = token.String, key.String, manage.String, moves.String
	if body != "" {
		b.ResponseBody = []byte(body)
	}
	if err := decodePlace(&b, place, answers); err != nil {
		return nil, err
	}
	return &b, nil
}

// encodePlace returns the place and answers columns of b.
func encodePlace(b *folio.Booking) (place, answers string) {
	if b.Place != nil {
		p, _ := json.Marshal(b.Place) // strings and a bool
		place = string(p)
	}
	answers = "[]"
	if len(b.Answers) > 0 {
		a, _ := json.Marshal(b.Answers) // strings and bools, as CheckAnswers made them
		answers = string(a)
	}
	return place, answers
}

func decodePlace(b *folio.Booking, place, answers string) error {
	if place != "" {
		b.Place = &folio.Place{}
		if err := json.Unmarshal([]byte(place), b.Place); err != nil {
			return fmt.Errorf("booking %s: place: %w", b.ID, err)
		}
	}
	if answers != "" && answers != "[]" {
		if err := json.Unmarshal([]byte(answers), &b.Answers); err != nil {
			return fmt.Errorf("booking %s: answers: %w", b.ID, err)
		}
	}
	return nil
}

// nullIfEmpty stores an empty string as NULL, so UNIQUE columns hold any number of "none".
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// activeBooking is the condition of a row that holds its time: confirmed, or pending and fresh
// ($stale is the placeholder of the stale-before time).
func activeBooking(stale string) string {
	return `(status = 'confirmed' OR (status = 'pending' AND created_at >= ` + stale + `))`
}

// lockBookings takes the reservation lock of PostgreSQL (SQLite's writer lock is taken at BEGIN)
// and deletes stale pending rows.
func (db *DB) lockBookings(ctx context.Context, tx *sql.Tx, staleBefore time.Time) error {
	if db.Dialect == Postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, bookingLockID); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM bookings WHERE status = 'pending' AND created_at < $1`, db.ts(staleBefore))
	return err
}

// overlapping counts the active bookings other than exclude that overlap [start, end).
func (db *DB) overlapping(ctx context.Context, tx *sql.Tx, start, end, staleBefore time.Time, exclude string) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE start_at < $1 AND end_at > $2 AND `+activeBooking("$3")+`
		AND id <> $4 AND (moves_booking_id IS NULL OR moves_booking_id <> $4)`,
		db.ts(end), db.ts(start), db.ts(staleBefore), exclude).Scan(&n)
	return n, err
}

// ReserveBooking inserts b as a pending reservation when the limits the booking service decided
// allow it: no active booking overlaps [b.Start−lim.Buffer, b.End+lim.Buffer) (active means
// confirmed, or pending and created at or after lim.StaleBefore), and the per-type and
// per-address caps of lim are not reached. Stale pending rows are deleted on the way. The checks
// and the insert run in one transaction that no other reservation can interleave with, on any
// instance: on PostgreSQL it takes pg_advisory_xact_lock on a fixed key first; on SQLite the
// single writer connection and the DSN's _txlock=immediate take the database's write lock at
// BEGIN.
//
// It reports the outcome as folio.ErrSlotTaken, folio.ErrDayFull, folio.ErrEmailLimit or
// folio.ErrIdempotencyKeyUsed (another booking carries b.IdempotencyKey).
func (s *BookingStore) ReserveBooking(ctx context.Context, b *folio.Booking, lim folio.ReserveLimits) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.lockBookings(ctx, tx, lim.StaleBefore); err != nil {
			return err
		}
		if b.IdempotencyKey != "" {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE idempotency_key = $1`, b.IdempotencyKey).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return folio.ErrIdempotencyKeyUsed
			}
		}
		taken, err := s.overlapping(ctx, tx, b.Start.Add(-lim.Buffer), b.End.Add(lim.Buffer), lim.StaleBefore, b.MovesBookingID)
		if err != nil {
			return err
		}
		if taken > 0 {
			return folio.ErrSlotTaken
		}
		if err := s.typeCapsReached(ctx, tx, b.TypeSlug, lim, ""); err != nil {
			return err
		}
		if lim.MaxPerEmail > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE LOWER(attendee_email) = LOWER($1) AND created_at >= $2
				AND `+activeBooking("$3")+` AND moves_booking_id IS NULL`,
				b.AttendeeEmail, s.ts(lim.EmailSince), s.ts(lim.StaleBefore)).Scan(&n); err != nil {
				return err
			}
			if n >= lim.MaxPerEmail {
				return folio.ErrEmailLimit
			}
		}
		place, answers := encodePlace(b)
		_, err = tx.ExecContext(ctx, `INSERT INTO bookings (`+bookingColumns+`) VALUES ($1, 'pending', $2, $3, $4, $5, $6, $7,
			$8, $9, $10, '', '', '', NULL, $11, $12, 0, '', $13, NULL, $14, $15, $16, NULL, '', '', $17, $18, $19)`,
			b.ID, s.ts(b.Start), s.ts(b.End), b.DurationMinutes, b.TimeZone, b.Summary, b.Description,
			b.AttendeeName, b.AttendeeEmail, b.Provider, nullIfEmpty(b.IdempotencyKey), b.RequestHash, s.ts(b.CreatedAt),
			nullIfEmpty(b.ManageToken), b.Sequence, b.TypeSlug, nullIfEmpty(b.MovesBookingID), place, answers)
		if isUniqueViolation(err) {
			return folio.ErrIdempotencyKeyUsed // the id and token are fresh; only the key can collide
		}
		return err
	})
	if err == nil {
		b.Status = folio.BookingPending
		return nil
	}
	if reserveOutcome(err) {
		return err
	}
	return wrap("ReserveBooking", err)
}

// reserveOutcome reports whether err is one of the outcomes a reservation reports as is.
func reserveOutcome(err error) bool {
	for _, o := range []error{folio.ErrSlotTaken, folio.ErrDayFull, folio.ErrEmailLimit, folio.ErrIdempotencyKeyUsed, folio.ErrChangeInProgress} {
		if errors.Is(err, o) {
			return true
		}
	}
	return false
}

// ConfirmBooking marks the pending booking id confirmed with the provider's event, and runs
// also (when not nil) in the same transaction, so what it writes (the confirmation mails'
// outbox items) exists exactly when the booking is confirmed. It returns ENOTFOUND when no
// pending booking has the id (it went stale and was deleted).
func (s *BookingStore) ConfirmBooking(ctx context.Context, id string, c folio.BookingConfirmation, also func(tx *sql.Tx) error) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE bookings SET status = 'confirmed', provider_event_id = $1, meet_link = $2,
			event_link = $3, response_status = $4, response_body = $5, confirmed_at = $6 WHERE id = $7 AND status = 'pending'`,
			c.ProviderEventID, c.MeetLink, c.EventLink, c.ResponseStatus, string(c.ResponseBody), s.ts(c.ConfirmedAt), id)
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
		if err := s.Webhooks.EmitTx(ctx, tx, b.Event(folio.EventBookingCreated)); err != nil {
			return err
		}
		if also != nil {
			return also(tx)
		}
		return nil
	})
	var fe *folio.Error
	if err != nil && !errors.As(err, &fe) {
		return wrap("ConfirmBooking", err)
	}
	return err
}

// DeleteBooking deletes the booking id if it is still pending (a failed provider call); a
// confirmed booking is never deleted here. Deleting a missing row is not an error.
func (s *BookingStore) DeleteBooking(ctx context.Context, id string) error {
	if _, err := s.W.ExecContext(ctx, `DELETE FROM bookings WHERE id = $1 AND status = 'pending'`, id); err != nil {
		return wrap("DeleteBooking", err)
	}
	return nil
}

// Booking returns the booking id, or ENOTFOUND.
func (s *BookingStore) Booking(ctx context.Context, id string) (*folio.Booking, error) {
	return s.bookingWhere(ctx, "Booking", `id = $1`, id)
}

// BookingByIdempotencyKey returns the booking that carries key, or ENOTFOUND.
func (s *BookingStore) BookingByIdempotencyKey(ctx context.Context, key string) (*folio.Booking, error) {
	return s.bookingWhere(ctx, "Booking with this idempotency key", `idempotency_key = $1`, key)
}

// BookingByICSToken returns the booking (confirmed or cancelled) whose event link carries token, or ENOTFOUND.
func (s *BookingStore) BookingByICSToken(ctx context.Context, token string) (*folio.Booking, error) {
	return s.bookingWhere(ctx, "Event", `ics_token = $1 AND status IN ('confirmed', 'cancelled')`, token)
}

func (db *DB) bookingWhere(ctx context.Context, what, where string, arg string) (*folio.Booking, error) {
	b, err := scanBooking(db.R.QueryRowContext(ctx, `SELECT `+bookingColumns+` FROM bookings WHERE `+where, arg))
	if err == sql.ErrNoRows {
		return nil, notFound(what, arg)
	}
	if err != nil {
		return nil, fmt.Errorf("folio.Booking: %w", err)
	}
	return b, nil
}

// SetBookingICSToken gives the booking id the ICS token token unless it has one already, and
// returns the token it has afterwards (so a retried call keeps the first token). ENOTFOUND when
// there is no such booking.
func (s *BookingStore) SetBookingICSToken(ctx context.Context, id, token string) (string, error) {
	if _, err := s.W.ExecContext(ctx, `UPDATE bookings SET ics_token = $1 WHERE id = $2 AND ics_token IS NULL`, token, id); err != nil {
		return "", wrap("SetBookingICSToken", err)
	}
	var got sql.NullString
	err := s.W.QueryRowContext(ctx, `SELECT ics_token FROM bookings WHERE id = $1`, id).Scan(&got)
	if err == sql.ErrNoRows {
		return "", notFound("Booking", id)
	}
	if err != nil {
		return "", wrap("SetBookingICSToken", err)
	}
	return got.String, nil
}

// BookingBusy returns the intervals of the bookings that overlap [start, end) and hold their
// time: confirmed ones, and pending ones created at or after staleBefore. A zero staleBefore
// counts every pending reservation; use ConfirmedBookingBusy for confirmed meetings only.
func (s *BookingStore) BookingBusy(ctx context.Context, start, end, staleBefore time.Time) ([]folio.Interval, error) {
	return s.bookingBusy(ctx, `SELECT start_at, end_at FROM bookings WHERE start_at < $1 AND end_at > $2
		AND `+activeBooking("$3"), s.ts(end), s.ts(start), s.ts(staleBefore))
}

// ConfirmedBookingBusy returns the intervals of the confirmed bookings that overlap [start, end).
func (s *BookingStore) ConfirmedBookingBusy(ctx context.Context, start, end time.Time) ([]folio.Interval, error) {
	return s.bookingBusy(ctx, `SELECT start_at, end_at FROM bookings WHERE start_at < $1 AND end_at > $2
		AND status = 'confirmed'`, s.ts(end), s.ts(start))
}

func (db *DB) bookingBusy(ctx context.Context, query string, args ...any) ([]folio.Interval, error) {
	rows, err := db.R.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrap("BookingBusy", err)
	}
	defer rows.Close()
	var out []folio.Interval
	for rows.Next() {
		var s, e Time
		if err := rows.Scan(&s, &e); err != nil {
			return nil, wrap("BookingBusy", err)
		}
		out = append(out, folio.Interval{Start: s.Time, End: e.Time})
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("BookingBusy", err)
	}
	return out, nil
}

// ListBookings lists confirmed and/or cancelled bookings, soonest first, with the total count.
func (s *BookingStore) ListBookings(ctx context.Context, f folio.BookingFilter, page, limit int) ([]folio.BookingListItem, int, error) {
	where := []string{`status IN ('confirmed', 'cancelled')`}
	var args Args
	add := func(cond string, v any) {
		where = append(where, strings.ReplaceAll(cond, "?", args.Add(v)))
	}
	if f.Status != "" {
		add(`status = ?`, f.Status)
	}
	if !f.From.IsZero() {
		add(`end_at >= ?`, s.ts(f.From))
	}
	if !f.To.IsZero() {
		add(`start_at < ?`, s.ts(f.To))
	}
	w := strings.Join(where, " AND ")
	var total int
	if err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE `+w, args...).Scan(&total); err != nil {
		return nil, 0, wrap("ListBookings", err)
	}
	q := `SELECT ` + bookingColumns + ` FROM bookings WHERE ` + w +
		` ORDER BY start_at, id LIMIT ` + args.Add(limit) + ` OFFSET ` + args.Add((page-1)*limit)
	rows, err := s.R.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, wrap("ListBookings", err)
	}
	defer rows.Close()
	out := []folio.BookingListItem{}
	for rows.Next() {
		b, err := scanBooking(rows)
		if err != nil {
			return nil, 0, wrap("ListBookings", err)
		}
		it := folio.BookingListItem{ID: b.ID, Status: b.Status, Start: b.Start, End: b.End, DurationMinutes: b.DurationMinutes, TimeZone: b.TimeZone,
			Type: b.TypeSlug, Summary: b.Summary, Description: b.Description, AttendeeName: b.AttendeeName, AttendeeEmail: b.AttendeeEmail,
			Provider: b.Provider, MeetLink: b.MeetLink, EventLink: b.EventLink, CreatedAt: b.CreatedAt,
			CancelReason: b.CancelReason, CancelledBy: b.CancelledBy, Location: b.Location(), Answers: b.Answers}
		if !b.CancelledAt.IsZero() {
			t := b.CancelledAt
			it.CancelledAt = &t
		}
		out = append(out, it)
	}
	return out, total, rows.Err()
}

// CountTypeBookings counts the active bookings of type slug starting in [start, end).
func (s *BookingStore) CountTypeBookings(ctx context.Context, slug string, start, end, staleBefore time.Time) (int, error) {
	var n int
	err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE type_slug = $1 AND start_at >= $2 AND start_at < $3
		AND `+activeBooking("$4")+` AND moves_booking_id IS NULL`, slug, s.ts(start), s.ts(end), s.ts(staleBefore)).Scan(&n)
	if err != nil {
		return 0, wrap("CountTypeBookings", err)
	}
	return n, nil
}

// OldestBookingOfEmail returns when the oldest active booking of email (case-insensitive) created
// at or after since was made (zero when there is none): when the per-address cap frees a place.
func (s *BookingStore) OldestBookingOfEmail(ctx context.Context, email string, since, staleBefore time.Time) (time.Time, error) {
	var t Time
	err := s.R.QueryRowContext(ctx, `SELECT MIN(created_at) FROM bookings WHERE LOWER(attendee_email) = LOWER($1) AND created_at >= $2
		AND `+activeBooking("$3")+` AND moves_booking_id IS NULL`, email, s.ts(since), s.ts(staleBefore)).Scan(&t)
	if err != nil {
		return time.Time{}, wrap("OldestBookingOfEmail", err)
	}
	return t.Time, nil
}
