package booking

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/invite"
)

// JobReminder is the job kind of booking reminders.
const JobReminder = "booking_reminder"

// DefaultReminders is BOOKING_REMINDERS' default.
var DefaultReminders = []time.Duration{24 * time.Hour, time.Hour}

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
	for _, d := range s.Settings().Reminders {
		at := start.Add(-d)
		if d <= 0 || !at.After(now) {
			continue
		}
		key := reminderPrefix(id) + strconv.FormatInt(start.Unix(), 10) + ":" + d.String()
		pl, _ := json.Marshal(reminderPayload{BookingID: id, Start: start.UTC(), Before: d.String()})
		if err := s.Jobs.EnqueueJobTx(ctx, tx, JobReminder, key, string(pl), at); err != nil {
			return err
		}
	}
	return nil
}

// Remind runs the reminder job key with its payload (the job handler of JobReminder). It mails
// the visitor once — the mail and a row keyed by the job's key are written in one transaction —
// and does nothing for a booking that was cancelled, moved away from the job's start, or started.
func (s *Service) Remind(ctx context.Context, key, payload string) error {
	var pl reminderPayload
	if err := json.Unmarshal([]byte(payload), &pl); err != nil || pl.BookingID == "" {
		return nil // a malformed payload cannot be retried into shape
	}
	b, err := s.Store.Booking(ctx, pl.BookingID)
	if folio.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if b.Status != folio.BookingConfirmed || !b.Start.Equal(pl.Start) || !s.now().Before(b.Start) {
		return nil
	}
	loc, _ := folio.LoadZone(b.TimeZone)
	items := s.bookingMails(invite.Reminder, s.eventOf(ctx, b), b, loc, s.now(), invite.Extras{}, false)
	_, err = s.Store.RecordReminder(ctx, key, s.now(), func(tx *sql.Tx) error { return s.insertMails(ctx, tx, items) })
	return err
}
