-- Booking lifecycle (docs/api.md, "Booking lifecycle"): manage tokens, cancel and reschedule, reminders, meeting
-- types and availability overrides.
--
-- bookings gains the 'cancelled' status (SQLite cannot alter a CHECK: the table is rebuilt) and:
--   manage_token      the visitor's unguessable manage link token (≥ 128 random bits);
--   sequence          the iCalendar SEQUENCE of the last invite sent (raised by cancel/reschedule);
--   type_slug         the meeting type booked ('' for a plain duration);
--   cancelled_at, cancel_reason, cancelled_by ('visitor' or 'owner');
--   moves_booking_id  set on a pending row that holds the new time of a reschedule in progress:
--                     it is an ordinary reservation (busy, stale after the pending TTL) that is
--                     deleted when the move is recorded or abandoned;
--   op_started_at     when a cancel or reschedule of this booking started: at most one runs at a
--                     time, on any instance (a stale one no longer blocks).
CREATE TABLE bookings_new (
    id                TEXT PRIMARY KEY,
    status            TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'cancelled')),
    start_at          TEXT NOT NULL,
    end_at            TEXT NOT NULL CHECK (end_at > start_at),
    duration_minutes  INTEGER NOT NULL,
    time_zone         TEXT NOT NULL,
    summary           TEXT NOT NULL,
    description       TEXT NOT NULL DEFAULT '',
    attendee_name     TEXT NOT NULL,
    attendee_email    TEXT NOT NULL,
    provider          TEXT NOT NULL,
    provider_event_id TEXT NOT NULL DEFAULT '',
    meet_link         TEXT NOT NULL DEFAULT '',
    event_link        TEXT NOT NULL DEFAULT '',
    ics_token         TEXT UNIQUE,
    idempotency_key   TEXT UNIQUE,
    request_hash      TEXT NOT NULL DEFAULT '',
    response_status   INTEGER NOT NULL DEFAULT 0,
    response_body     TEXT NOT NULL DEFAULT '',
    created_at        TEXT NOT NULL,
    confirmed_at      TEXT,
    manage_token      TEXT UNIQUE,
    sequence          INTEGER NOT NULL DEFAULT 0,
    type_slug         TEXT NOT NULL DEFAULT '',
    cancelled_at      TEXT,
    cancel_reason     TEXT NOT NULL DEFAULT '',
    cancelled_by      TEXT NOT NULL DEFAULT '',
    moves_booking_id  TEXT,
    op_started_at     TEXT
);
INSERT INTO bookings_new (id, status, start_at, end_at, duration_minutes, time_zone, summary, description,
    attendee_name, attendee_email, provider, provider_event_id, meet_link, event_link, ics_token,
    idempotency_key, request_hash, response_status, response_body, created_at, confirmed_at)
SELECT id, status, start_at, end_at, duration_minutes, time_zone, summary, description,
    attendee_name, attendee_email, provider, provider_event_id, meet_link, event_link, ics_token,
    idempotency_key, request_hash, response_status, response_body, created_at, confirmed_at FROM bookings;
DROP TABLE bookings;
ALTER TABLE bookings_new RENAME TO bookings;
CREATE INDEX bookings_start ON bookings (start_at);
CREATE INDEX bookings_end ON bookings (end_at);
CREATE INDEX bookings_email ON bookings (attendee_email, created_at);

-- Meeting types offered on /book. With no row, one type per BOOKING_DURATION_OPTIONS entry exists.
CREATE TABLE meeting_types (
    slug             TEXT PRIMARY KEY,
    title            TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    duration_minutes INTEGER NOT NULL,
    buffer_minutes   INTEGER NOT NULL DEFAULT 0,
    max_per_day      INTEGER NOT NULL DEFAULT 0,
    position         INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL
);

-- Availability overrides: a date (owner's zone) closed, or with its own hours (JSON list of
-- {"start":"HH:MM","end":"HH:MM"}).
CREATE TABLE booking_overrides (
    day        TEXT PRIMARY KEY,
    closed     INTEGER NOT NULL DEFAULT 0,
    hours      TEXT NOT NULL DEFAULT '[]',
    updated_at TEXT NOT NULL
);

-- One row per reminder mail queued: the reminder job inserts it in the transaction that queues
-- the mail, so a job run twice (a lapsed lease) cannot mail twice.
CREATE TABLE booking_reminders_sent (
    key     TEXT PRIMARY KEY,
    sent_at TEXT NOT NULL
);
