-- The durable mail outbox (internal/mail.Outbox): every message that must not be lost is stored
-- before its first send and retried with backoff by a leased worker.
CREATE TABLE outbox (
    id              TEXT PRIMARY KEY,
    payload         BLOB NOT NULL,
    recipients      TEXT NOT NULL DEFAULT '',
    subject         TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'dead')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    lease_owner     TEXT,
    lease_until     TEXT,
    last_error      TEXT NOT NULL DEFAULT '',
    created_at      TEXT NOT NULL,
    sent_at         TEXT
);
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status IN ('pending', 'failed');
CREATE INDEX outbox_created ON outbox (created_at DESC, id);

-- Contact-form messages, stored before the mail is attempted; delivery status is the outbox's.
CREATE TABLE contact_messages (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    email      TEXT NOT NULL,
    subject    TEXT NOT NULL DEFAULT '',
    message    TEXT NOT NULL,
    outbox_id  TEXT NOT NULL REFERENCES outbox (id),
    created_at TEXT NOT NULL
);
CREATE INDEX contact_messages_created ON contact_messages (created_at DESC, id);
