-- Bookings are both the reservation that makes booking atomic and the record of a booked meeting.
-- A row is inserted as 'pending' (under pg_advisory_xact_lock, after an overlap check) before the
-- calendar provider is called, and becomes 'confirmed' once the event exists; a failed provider
-- call deletes it. Pending rows older than the service's pending TTL are stale: a crash between
-- the two steps must not hold a slot forever.
CREATE TABLE bookings (
    id                TEXT PRIMARY KEY,
    status            TEXT NOT NULL CHECK (status IN ('pending', 'confirmed')),
    start_at          TIMESTAMPTZ NOT NULL,
    end_at            TIMESTAMPTZ NOT NULL CHECK (end_at > start_at),
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
    -- ics_token is the unguessable part of the local provider's event link.
    ics_token         TEXT UNIQUE,
    -- The Idempotency-Key header, the SHA-256 of the request it came with, and the answer given.
    idempotency_key   TEXT UNIQUE,
    request_hash      TEXT NOT NULL DEFAULT '',
    response_status   INTEGER NOT NULL DEFAULT 0,
    response_body     TEXT NOT NULL DEFAULT '',
    created_at        TIMESTAMPTZ NOT NULL,
    confirmed_at      TIMESTAMPTZ
);
CREATE INDEX bookings_start ON bookings (start_at);
CREATE INDEX bookings_end ON bookings (end_at);
