package sqldb

// Meeting types and availability overrides: what the owner offers.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/foliohq/folio"
)

// MeetingTypes returns the stored meeting types in their order (none: the defaults apply).
func (s *BookingStore) MeetingTypes(ctx context.Context) ([]folio.MeetingType, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT slug, title, description, duration_minutes, buffer_minutes, max_per_day
		FROM meeting_types ORDER BY position, created_at, slug`)
	if err != nil {
		return nil, wrap("MeetingTypes", err)
	}
	defer rows.Close()
	out := []folio.MeetingType{}
	for rows.Next() {
		var t folio.MeetingType
		if err := rows.Scan(&t.Slug, &t.Title, &t.Description, &t.DurationMinutes, &t.BufferMinutes, &t.MaxPerDay); err != nil {
			return nil, wrap("MeetingTypes", err)
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
		return wrap("CreateMeetingType", err)
	}
	return nil
}

// UpdateMeetingType replaces the fields of the type slug; ENOTFOUND when there is none.
func (s *BookingStore) UpdateMeetingType(ctx context.Context, slug string, t folio.MeetingType, now time.Time) error {
	res, err := s.W.ExecContext(ctx, `UPDATE meeting_types SET title = $1, description = $2, duration_minutes = $3, buffer_minutes = $4,
		max_per_day = $5, updated_at = $6 WHERE slug = $7`, t.Title, t.Description, t.DurationMinutes, t.BufferMinutes, t.MaxPerDay, s.ts(now), slug)
	if err != nil {
		return wrap("UpdateMeetingType", err)
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
