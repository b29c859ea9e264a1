package sqldb

// A change of a confirmed booking: cancel or reschedule, begun under the reservation lock and
// finished (or aborted) in a transaction of its own; and the reminders sent for it.

import (
	"context"
	"database/sql"
	"errors"
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
			if err := s.typeCapsReached(ctx, tx, b.TypeSlug, lim, id); err != nil {
				return err
			}
			// A stale hold of an earlier, abandoned attempt goes first.
			if _, err := tx.ExecContext(ctx, `DELETE FROM bookings WHERE moves_booking_id = $1 AND status = 'pending'`, id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO bookings (`+bookingColumns+`) VALUES ($1, 'pending', $2, $3, $4, $5, $6, '',
				$7, $8, $9, '', '', '', NULL, NULL, '', 0, '', $10, NULL, NULL, 0, $11, NULL, '', '', $12, '', '[]')`,
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
		return nil, wrap("BeginBookingChange", err)
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
		return wrap("AbortBookingChange", err)
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
		return wrap("FinishReschedule", err)
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
		return wrap("FinishCancel", err)
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
		return false, wrap("RecordReminder", err)
	}
	return sent, nil
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
