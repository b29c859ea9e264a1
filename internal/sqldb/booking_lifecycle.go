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

// BookingByManageToken returns the booking (confirmed or cancelled) whose manage link carries
// token, or ENOTFOUND.
func (s *BookingStore) BookingByManageToken(ctx context.Context, token string) (*folio.Booking, error) {
	return s.bookingWhere(ctx, "Booking", `manage_token = $1 AND status IN ('confirmed', 'cancelled')`, token)
}

// BeginBookingChange starts a cancel (hold nil) or a reschedule (hold: the pending row that
// holds the new time, with MovesBookingID = id) of booking id, in one transaction under the
// reservation lock: it reads the booking, refuses while another change of it runs (a change
// older than lim.StaleBefore no longer counts: folio.ErrChangeInProgress), calls check with the
// booking (its error is returned as is), reserves hold like ReserveBooking (folio.ErrSlotTaken,
// folio.ErrDayFull), and marks the change started at now. Exactly one of several concurrent
// changes of a booking begins; of several reschedules onto one time, exactly one gets it (the
// others folio.ErrSlotTaken).
func (s *BookingStore) BeginBookingChange(ctx context.Context, id string, now time.Time, lim folio.ReserveLimits, hold *folio.Booking, check func(*folio.Booking) error) (*folio.Booking, error) {
	var b *folio.Booking
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.lockBookings(ctx, tx, lim.StaleBefore); err != nil {
			return err
		}
		var op Time
		row := tx.QueryRowContext(ctx, `SELECT `+bookingColumns+`, op_started_at FROM bookings WHERE id = $1 AND status <> 'pending'`, id)
		var err error
		b, err = scanBookingWith(row, &op)
		if err == sql.ErrNoRows {
			return notFound("Booking", id)
		}
		if err != nil {
			return err
		}
		if !op.IsZero() && !op.Before(lim.StaleBefore) {
			return folio.ErrChangeInProgress
		}
		if err := check(b); err != nil {
			return err
		}
		if hold != nil {
			taken, err := s.overlapping(ctx, tx, hold.Start.Add(-lim.Buffer), hold.End.Add(lim.Buffer), lim.StaleBefore, id)
			if err != nil {
				return err
			}
			if taken > 0 {
				return folio.ErrSlotTaken
			}
			if lim.MaxPerDay > 0 && b.TypeSlug != "" {
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE type_slug = $1 AND start_at >= $2 AND start_at < $3
					AND `+activeBooking("$4")+` AND id <> $5 AND (moves_booking_id IS NULL OR moves_booking_id <> $5)`,
					b.TypeSlug, s.ts(lim.DayStart), s.ts(lim.DayEnd), s.ts(lim.StaleBefore), id).Scan(&n); err != nil {
					return err
				}
				if n >= lim.MaxPerDay {
					return folio.ErrDayFull
				}
			}
			// A stale hold of an earlier, abandoned attempt goes first.
			if _, err := tx.ExecContext(ctx, `DELETE FROM bookings WHERE moves_booking_id = $1 AND status = 'pending'`, id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO bookings (`+bookingColumns+`) VALUES ($1, 'pending', $2, $3, $4, $5, $6, '',
				$7, $8, $9, '', '', '', NULL, NULL, '', 0, '', $10, NULL, NULL, 0, $11, NULL, '', '', $12)`,
				hold.ID, s.ts(hold.Start), s.ts(hold.End), hold.DurationMinutes, hold.TimeZone, b.Summary,
				b.AttendeeName, b.AttendeeEmail, b.Provider, s.ts(now), b.TypeSlug, id); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE bookings SET op_started_at = $1 WHERE id = $2`, s.ts(now), id)
		return err
	})
	if err != nil {
		var fe *folio.Error
		if errors.As(err, &fe) || reserveOutcome(err) {
			return nil, err
		}
		return nil, fmt.Errorf("sqldb.BeginBookingChange: %w", err)
	}
	return b, nil
}

func scanBookingWith(row *sql.Row, op *Time) (*folio.Booking, error) {
	return scanBookingExtra(row, op)
}

// AbortBookingChange ends a change that failed (the provider refused): the hold row, if any,
// is deleted and the booking is left as it was.
func (s *BookingStore) AbortBookingChange(ctx context.Context, id string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM bookings WHERE moves_booking_id = $1 AND status = 'pending'`, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE bookings SET op_started_at = NULL WHERE id = $1`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqldb.AbortBookingChange: %w", err)
	}
	return nil
}

// FinishReschedule moves booking id to r's time, deletes its hold row and ends the change, and
// runs also (when not nil) in the same transaction (the mails and reminder jobs).
func (s *BookingStore) FinishReschedule(ctx context.Context, id string, r folio.Reschedule, also func(tx *sql.Tx) error) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM bookings WHERE moves_booking_id = $1 AND status = 'pending'`, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE bookings SET start_at = $1, end_at = $2, time_zone = $3, sequence = $4,
			meet_link = CASE WHEN $5 = '' THEN meet_link ELSE $5 END, event_link = CASE WHEN $6 = '' THEN event_link ELSE $6 END,
			op_started_at = NULL WHERE id = $7 AND status = 'confirmed'`,
			s.ts(r.Start), s.ts(r.End), r.TimeZone, r.Sequence, r.MeetLink, r.EventLink, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("Confirmed booking", id)
		}
		if err := s.emitBooking(ctx, tx, folio.EventBookingRescheduled, id); err != nil {
			return err
		}
		if also != nil {
			return also(tx)
		}
		return nil
	})
	var fe *folio.Error
	if err != nil && !errors.As(err, &fe) {
		return fmt.Errorf("sqldb.FinishReschedule: %w", err)
	}
	return err
}

// FinishCancel marks booking id cancelled (its time is free at once), ends the change and runs
// also in the same transaction.
func (s *BookingStore) FinishCancel(ctx context.Context, id, reason, by string, at time.Time, sequence int, also func(tx *sql.Tx) error) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE bookings SET status = 'cancelled', cancelled_at = $1, cancel_reason = $2,
			cancelled_by = $3, sequence = $4, op_started_at = NULL WHERE id = $5 AND status = 'confirmed'`,
			s.ts(at), reason, by, sequence, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return notFound("Confirmed booking", id)
		}
		if err := s.emitBooking(ctx, tx, folio.EventBookingCancelled, id); err != nil {
			return err
		}
		if also != nil {
			return also(tx)
		}
		return nil
	})
	var fe *folio.Error
	if err != nil && !errors.As(err, &fe) {
		return fmt.Errorf("sqldb.FinishCancel: %w", err)
	}
	return err
}

// emitBooking queues the webhook event typ for booking id as it is now, inside tx, so the
// delivery exists exactly when the change commits.
func (db *DB) emitBooking(ctx context.Context, tx *sql.Tx, typ, id string) error {
	b, err := scanBooking(tx.QueryRowContext(ctx, `SELECT `+bookingColumns+` FROM bookings WHERE id = $1`, id))
	if err != nil {
		return err
	}
	return db.Webhooks.EmitTx(ctx, tx, b.Event(typ))
}

// EnqueueJobTx is EnqueueJob inside the caller's transaction.
func (s *JobStore) EnqueueJobTx(ctx context.Context, tx *sql.Tx, kind, key, payload string, runAt time.Time) error {
	return s.enqueueJob(ctx, tx, kind, key, payload, runAt)
}

// DeletePendingJobsTx deletes the pending jobs whose key starts with prefix (reminders of a
// booking that was cancelled or moved).
func (s *JobStore) DeletePendingJobsTx(ctx context.Context, tx *sql.Tx, prefix string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE status = 'pending' AND key LIKE $1 ESCAPE '\'`, escapeLike(prefix)+"%")
	return err
}

// RecordReminder inserts key into booking_reminders_sent and runs also in the same transaction;
// sent is false (and also does not run) when key was recorded before, so a reminder job that runs
// twice queues its mail once.
func (s *BookingStore) RecordReminder(ctx context.Context, key string, at time.Time, also func(tx *sql.Tx) error) (sent bool, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO booking_reminders_sent (key, sent_at) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, key, s.ts(at))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		sent = true
		if also != nil {
			return also(tx)
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("sqldb.RecordReminder: %w", err)
	}
	return sent, nil
}

// ListBookings lists confirmed and/or cancelled bookings, soonest first, with the total count.
func (s *BookingStore) ListBookings(ctx context.Context, f folio.BookingFilter, page, limit int) ([]folio.BookingListItem, int, error) {
	where := []string{`status IN ('confirmed', 'cancelled')`}
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", fmt.Sprintf("$%d", len(args))))
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
		return nil, 0, fmt.Errorf("sqldb.ListBookings: %w", err)
	}
	args = append(args, limit, (page-1)*limit)
	rows, err := s.R.QueryContext(ctx, `SELECT `+bookingColumns+` FROM bookings WHERE `+w+
		fmt.Sprintf(` ORDER BY start_at, id LIMIT $%d OFFSET $%d`, len(args)-1, len(args)), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("sqldb.ListBookings: %w", err)
	}
	defer rows.Close()
	out := []folio.BookingListItem{}
	for rows.Next() {
		b, err := scanBooking(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("sqldb.ListBookings: %w", err)
		}
		it := folio.BookingListItem{ID: b.ID, Status: b.Status, Start: b.Start, End: b.End, DurationMinutes: b.DurationMinutes, TimeZone: b.TimeZone,
			Type: b.TypeSlug, Summary: b.Summary, Description: b.Description, AttendeeName: b.AttendeeName, AttendeeEmail: b.AttendeeEmail,
			Provider: b.Provider, MeetLink: b.MeetLink, EventLink: b.EventLink, CreatedAt: b.CreatedAt,
			CancelReason: b.CancelReason, CancelledBy: b.CancelledBy}
		if !b.CancelledAt.IsZero() {
			t := b.CancelledAt
			it.CancelledAt = &t
		}
		out = append(out, it)
	}
	return out, total, rows.Err()
}

// MeetingTypes returns the stored meeting types in their order (none: the defaults apply).
func (s *BookingStore) MeetingTypes(ctx context.Context) ([]folio.MeetingType, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT slug, title, description, duration_minutes, buffer_minutes, max_per_day
		FROM meeting_types ORDER BY position, created_at, slug`)
	if err != nil {
		return nil, fmt.Errorf("sqldb.MeetingTypes: %w", err)
	}
	defer rows.Close()
	out := []folio.MeetingType{}
	for rows.Next() {
		var t folio.MeetingType
		if err := rows.Scan(&t.Slug, &t.Title, &t.Description, &t.DurationMinutes, &t.BufferMinutes, &t.MaxPerDay); err != nil {
			return nil, fmt.Errorf("sqldb.MeetingTypes: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// CreateMeetingType inserts t (after the existing ones); ECONFLICT when the slug exists.
func (s *BookingStore) CreateMeetingType(ctx context.Context, t folio.MeetingType, now time.Time) error {
	_, err := s.W.ExecContext(ctx, `INSERT INTO meeting_types (slug, title, description, duration_minutes, buffer_minutes, max_per_day, position, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, (SELECT COALESCE(MAX(position), 0) + 1 FROM meeting_types), $7, $7)`,
		t.Slug, t.Title, t.Description, t.DurationMinutes, t.BufferMinutes, t.MaxPerDay, s.ts(now))
	if isUniqueViolation(err) {
		return folio.Errorf(folio.ECONFLICT, "A meeting type with the slug %q exists already.", t.Slug)
	}
	if err != nil {
		return fmt.Errorf("sqldb.CreateMeetingType: %w", err)
	}
	return nil
}

// UpdateMeetingType replaces the fields of the type slug; ENOTFOUND when there is none.
func (s *BookingStore) UpdateMeetingType(ctx context.Context, slug string, t folio.MeetingType, now time.Time) error {
	res, err := s.W.ExecContext(ctx, `UPDATE meeting_types SET title = $1, description = $2, duration_minutes = $3, buffer_minutes = $4,
		max_per_day = $5, updated_at = $6 WHERE slug = $7`, t.Title, t.Description, t.DurationMinutes, t.BufferMinutes, t.MaxPerDay, s.ts(now), slug)
	if err != nil {
		return fmt.Errorf("sqldb.UpdateMeetingType: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("Meeting type", slug)
	}
	return nil
}

// DeleteMeetingType deletes the type slug (bookings keep its slug); ENOTFOUND when there is none.
func (s *BookingStore) DeleteMeetingType(ctx context.Context, slug string) error {
	res, err := s.W.ExecContext(ctx, `DELETE FROM meeting_types WHERE slug = $1`, slug)
	if err != nil {
		return fmt.Errorf("sqldb.DeleteMeetingType: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("Meeting type", slug)
	}
	return nil
}

// Overrides returns the availability overrides of the dates in [from, to] (YYYY-MM-DD).
func (s *BookingStore) Overrides(ctx context.Context, from, to string) ([]folio.AvailabilityOverride, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT day, closed, hours FROM booking_overrides WHERE day >= $1 AND day <= $2 ORDER BY day`, from, to)
	if err != nil {
		return nil, fmt.Errorf("sqldb.Overrides: %w", err)
	}
	defer rows.Close()
	out := []folio.AvailabilityOverride{}
	for rows.Next() {
		var o folio.AvailabilityOverride
		var closed any
		var hours string
		if err := rows.Scan(&o.Date, &closed, &hours); err != nil {
			return nil, fmt.Errorf("sqldb.Overrides: %w", err)
		}
		switch v := closed.(type) {
		case bool:
			o.Closed = v
		case int64:
			o.Closed = v != 0
		}
		if err := json.Unmarshal([]byte(hours), &o.Hours); err != nil {
			return nil, fmt.Errorf("sqldb.Overrides: hours of %s: %w", o.Date, err)
		}
		if o.Hours == nil {
			o.Hours = []folio.HoursRange{}
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// PutOverride stores the override of o.Date, replacing any.
func (s *BookingStore) PutOverride(ctx context.Context, o folio.AvailabilityOverride, now time.Time) error {
	hours, err := json.Marshal(o.Hours)
	if err != nil {
		return err
	}
	if o.Hours == nil {
		hours = []byte("[]")
	}
	var closed any = o.Closed
	if s.Dialect == SQLite {
		closed = 0
		if o.Closed {
			closed = 1
		}
	}
	_, err = s.W.ExecContext(ctx, `INSERT INTO booking_overrides (day, closed, hours, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (day) DO UPDATE SET closed = excluded.closed, hours = excluded.hours, updated_at = excluded.updated_at`,
		o.Date, closed, string(hours), s.ts(now))
	if err != nil {
		return fmt.Errorf("sqldb.PutOverride: %w", err)
	}
	return nil
}

// DeleteOverride deletes the override of date; ENOTFOUND when there is none.
func (s *BookingStore) DeleteOverride(ctx context.Context, date string) error {
	res, err := s.W.ExecContext(ctx, `DELETE FROM booking_overrides WHERE day = $1`, date)
	if err != nil {
		return fmt.Errorf("sqldb.DeleteOverride: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("Override", date)
	}
	return nil
}

// CountTypeBookings counts the active bookings of type slug starting in [start, end).
func (s *BookingStore) CountTypeBookings(ctx context.Context, slug string, start, end, staleBefore time.Time) (int, error) {
	var n int
	err := s.R.QueryRowContext(ctx, `SELECT COUNT(*) FROM bookings WHERE type_slug = $1 AND start_at >= $2 AND start_at < $3
		AND `+activeBooking("$4")+` AND moves_booking_id IS NULL`, slug, s.ts(start), s.ts(end), s.ts(staleBefore)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqldb.CountTypeBookings: %w", err)
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
		return time.Time{}, fmt.Errorf("sqldb.OldestBookingOfEmail: %w", err)
	}
	return t.Time, nil
}
