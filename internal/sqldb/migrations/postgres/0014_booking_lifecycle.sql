-- Booking lifecycle (docs/api.md, "Booking lifecycle"): manage tokens, cancel and reschedule, reminders, meeting
-- types and availability overrides. See the SQLite migration of the same number for the columns.
ALTER TABLE bookings DROP CONSTRAINT IF EXISTS bookings_status_check;
ALTER TABLE bookings ADD CONSTRAINT bookings_status_check CHECK (status IN ('pending', 'confirmed', 'cancelled'));
ALTER TABLE bookings ADD COLUMN manage_token TEXT UNIQUE;
ALTER TABLE bookings ADD COLUMN sequence INTEGER NOT NULL DEFAULT 0;
ALTER TABLE bookings ADD COLUMN type_slug TEXT NOT NULL DEFAULT '';
ALTER TABLE bookings ADD COLUMN cancelled_at TIMESTAMPTZ;
ALTER TABLE bookings ADD COLUMN cancel_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE bookings ADD COLUMN cancelled_by TEXT NOT NULL DEFAULT '';
ALTER TABLE bookings ADD COLUMN moves_booking_id TEXT;
ALTER TABLE bookings ADD COLUMN op_started_at TIMESTAMPTZ;
CREATE INDEX bookings_email ON bookings (attendee_email, created_at);

CREATE TABLE meeting_types (
    slug             TEXT PRIMARY KEY,
    title            TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    duration_minutes INTEGER NOT NULL,
    buffer_minutes   INTEGER NOT NULL DEFAULT 0,
    max_per_day      INTEGER NOT NULL DEFAULT 0,
    position         INTEGER NOT NULL DEFAULT 0,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL
);

CREATE TABLE booking_overrides (
    day        TEXT PRIMARY KEY,
    closed     BOOLEAN NOT NULL DEFAULT FALSE,
    hours      TEXT NOT NULL DEFAULT '[]',
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE booking_reminders_sent (
    key     TEXT PRIMARY KEY,
    sent_at TIMESTAMPTZ NOT NULL
);
