package sqldb

// Meeting types and availability overrides: what the owner offers.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/foliohq/folio"
)

// MeetingTypes returns the stored meeting types in their order (none: the defaults apply).
func (s *BookingStore) MeetingTypes(ctx context.Context) ([]folio.MeetingType, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT slug, title, description, duration_minutes, buffer_minutes, max_per_day,
		locations, questions, limit_week, limit_month, min_notice_minutes
		FROM meeting_types ORDER BY position, created_at, slug`)
	if err != nil {
		return nil, wrap("MeetingTypes", err)
	}
	defer rows.Close()
	out := []folio.MeetingType{}
	for rows.Next() {
		var t folio.MeetingType
		var locs, qs string
		if err := rows.Scan(&t.Slug, &t.Title, &t.Description, &t.DurationMinutes, &t.BufferMinutes, &t.MaxPerDay,
			&locs, &qs, &t.Limits.Week, &t.Limits.Month, &t.MinNoticeMinutes); err != nil {
			return nil, wrap("MeetingTypes", err)
		}
		t.Limits.Day = t.MaxPerDay
		if err := json.Unmarshal([]byte(locs), &t.Locations); err != nil {
			return nil, fmt.Errorf("sqldb.MeetingTypes: locations of %s: %w", t.Slug, err)
		}
		if err := json.Unmarshal([]byte(qs), &t.Questions); err != nil {
			return nil, fmt.Errorf("sqldb.MeetingTypes: questions of %s: %w", t.Slug, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// CreateMeetingType inserts t (after the existing ones); ECONFLICT when the slug exists.
func (s *BookingStore) CreateMeetingType(ctx context.Context, t folio.MeetingType, now time.Time) error {
	locs, qs := typeLists(t)
	_, err := s.W.ExecContext(ctx, `INSERT INTO meeting_types (slug, title, description, duration_minutes, buffer_minutes, max_per_day,
		locations, questions, limit_week, limit_month, min_notice_minutes, position, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $8, $9, $10, $11, $12, (SELECT COALESCE(MAX(position), 0) + 1 FROM meeting_types), $7, $7)`,
		t.Slug, t.Title, t.Description, t.DurationMinutes, t.BufferMinutes, t.MaxPerDay, s.ts(now),
		locs, qs, t.Limits.Week, t.Limits.Month, t.MinNoticeMinutes)
	if isUniqueViolation(err) {
		return folio.Errorf(folio.ECONFLICT, "A meeting type with the slug %q exists already.", t.Slug)
	}
	if err != nil {
		return wrap("CreateMeetingType", err)
	}
	return nil
}

// UpdateMeetingType replaces the fields of the type slug; ENOTFOUND when there is none.
func (s *BookingStore) UpdateMeetingType(ctx context.Context, slug string, t folio.MeetingType, now time.Time) error {
	locs, qs := typeLists(t)
	res, err := s.W.ExecContext(ctx, `UPDATE meeting_types SET title = $1, description = $2, duration_minutes = $3, buffer_minutes = $4,
		max_per_day = $5, updated_at = $6, locations = $8, questions = $9, limit_week = $10, limit_month = $11, min_notice_minutes = $12
		WHERE slug = $7`, t.Title, t.Description, t.DurationMinutes, t.BufferMinutes, t.MaxPerDay, s.ts(now), slug,
		locs, qs, t.Limits.Week, t.Limits.Month, t.MinNoticeMinutes)
	if err != nil {
		return wrap("UpdateMeetingType", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("Meeting type", slug)
	}
	return nil
}

// typeLists returns the JSON columns of t's locations and questions ([] for none).
func typeLists(t folio.MeetingType) (locs, qs string) {
	l, _ := json.Marshal(t.Locations) // plain strings and bools
	q, _ := json.Marshal(t.Questions)
	if t.Locations == nil {
		l = []byte("[]")
	}
	if t.Questions == nil {
		q = []byte("[]")
	}
	return string(l), string(q)
}

// DeleteMeetingType deletes the type slug (bookings keep its slug); ENOTFOUND when there is none.
func (s *BookingStore) DeleteMeetingType(ctx context.Context, slug string) error {
	res, err := s.W.ExecContext(ctx, `DELETE FROM meeting_types WHERE slug = $1`, slug)
	if err != nil {
		return wrap("DeleteMeetingType", err)
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
		return nil, wrap("Overrides", err)
	}
	defer rows.Close()
	out := []folio.AvailabilityOverride{}
	for rows.Next() {
		var o folio.AvailabilityOverride
		var closed any
		var hours string
		if err := rows.Scan(&o.Date, &closed, &hours); err != nil {
			return nil, wrap("Overrides", err)
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
		return wrap("PutOverride", err)
	}
	return nil
}

// DeleteOverride deletes the override of date; ENOTFOUND when there is none.
func (s *BookingStore) DeleteOverride(ctx context.Context, date string) error {
	res, err := s.W.ExecContext(ctx, `DELETE FROM booking_overrides WHERE day = $1`, date)
	if err != nil {
		return wrap("DeleteOverride", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("Override", date)
	}
	return nil
}

// typeCapsReached checks the per-type caps of lim (MaxPerDay on [DayStart, DayEnd), then each of
// lim.Caps) inside the reservation lock, so concurrent reservations on any instance never exceed
// them: folio.ErrDayFull when one is reached. changing is the booking a reschedule moves (its
// own row and hold do not count); "" for a new reservation, whose count leaves holds out.
func (s *BookingStore) typeCapsReached(ctx context.Context, tx *sql.Tx, slug string, lim folio.ReserveLimits, changing string) error {
	if slug == "" {
		return nil
	}
	caps := lim.Caps
	if lim.MaxPerDay > 0 {
		caps = append([]folio.PeriodCap{{Max: lim.MaxPerDay, Start: lim.DayStart, End: lim.DayEnd}}, caps...)
	}
	for _, c := range caps {
		if c.Max <= 0 {
			continue
		}
		q := `SELECT COUNT(*) FROM bookings WHERE type_slug = $1 AND start_at >= $2 AND start_at < $3 AND ` + activeBooking("$4")
		args := []any{slug, s.ts(c.Start), s.ts(c.End), s.ts(lim.StaleBefore)}
		if changing == "" {
			q += ` AND moves_booking_id IS NULL`
		} else {
			q += ` AND id <> $5 AND (moves_booking_id IS NULL OR moves_booking_id <> $5)`
			args = append(args, changing)
		}
		var n int
		if err := tx.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			return err
		}
		if n >= c.Max {
			return folio.ErrDayFull
		}
	}
	return nil
}
