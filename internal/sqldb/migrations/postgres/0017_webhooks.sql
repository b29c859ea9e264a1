-- Outgoing webhooks (docs/api.md, "Outgoing webhooks"). The secret is kept as given (whsec_…): deliveries are signed
-- with it, so it cannot be stored as a hash; it is never shown again after creation.
CREATE TABLE webhooks (
    id          TEXT PRIMARY KEY,
    url         TEXT NOT NULL,
    events      TEXT NOT NULL DEFAULT '[]',
    description TEXT NOT NULL DEFAULT '',
    secret      TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);

-- One row per message to one webhook: the delivery log. The queue itself is the jobs table
-- (kind webhook.deliver, key webhook.deliver:<id>), written in the same transaction.
CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    webhook_id      TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_type      TEXT NOT NULL,
    body            TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    response_status INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    next_attempt_at TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL,
    last_attempt_at TIMESTAMPTZ,
    delivered_at    TIMESTAMPTZ
);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, created_at DESC, id);
