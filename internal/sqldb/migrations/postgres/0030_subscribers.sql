-- Readers who follow the site by e-mail (docs/api.md, "Subscribers"). email is stored in lower
-- case, so one address is one row. The confirmation token is kept only as its SHA-256
-- (confirm_token_hash), cleared once used; confirm_mailed_at holds back a second confirmation
-- mail to the same address for a while (internal/newsletter). unsubscribe_token is the one-click
-- unsubscribe link's token: every mail to the subscriber carries it, so it is kept as is (it can
-- only unsubscribe that address).
CREATE TABLE subscribers (
    id                 TEXT PRIMARY KEY,
    email              TEXT NOT NULL UNIQUE,
    name               TEXT NOT NULL DEFAULT '',
    source             TEXT NOT NULL DEFAULT '',
    status             TEXT NOT NULL CHECK (status IN ('pending', 'active', 'unsubscribed', 'bounced', 'complained')),
    confirm_token_hash TEXT,
    confirm_expires_at TIMESTAMPTZ,
    unsubscribe_token  TEXT NOT NULL UNIQUE,
    confirm_mailed_at  TIMESTAMPTZ,
    created_at         TIMESTAMPTZ NOT NULL,
    confirmed_at       TIMESTAMPTZ,
    updated_at         TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX subscribers_confirm_token ON subscribers (confirm_token_hash) WHERE confirm_token_hash IS NOT NULL;
CREATE INDEX subscribers_created ON subscribers (created_at DESC, id);
