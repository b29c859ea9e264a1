-- Mailing posts to subscribers (docs/api.md, "Newsletters").
--
-- preference is what a subscriber chose on the preferences page: every new post, a weekly
-- digest, or nothing (still subscribed, e.g. for a later change of mind).
ALTER TABLE subscribers ADD COLUMN preference TEXT NOT NULL DEFAULT 'posts' CHECK (preference IN ('posts', 'digest', 'none'));

-- post_newsletters keeps a post's newsletter: {send} (publishing-options); queued_at is set, once,
-- in the transaction that publishes a post whose send is on, so a post is mailed once however
-- often it is published again.
CREATE TABLE post_newsletters (
    post_id    TEXT PRIMARY KEY,
    send       INTEGER NOT NULL DEFAULT 0,
    queued_at  TIMESTAMPTZ,
    updated_at TIMESTAMPTZ NOT NULL
);

-- One mailing: 'post:<post id>' or 'digest:<ISO week>'. fanned_out_at is set by the transaction
-- that wrote its send rows (the active subscribers of the moment), so it is done once.
CREATE TABLE newsletter_issues (
    id            TEXT PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('post', 'digest')),
    post_id       TEXT NOT NULL DEFAULT '',
    period_start  TIMESTAMPTZ,
    period_end    TIMESTAMPTZ,
    total         INTEGER NOT NULL DEFAULT 0,
    fanned_out_at TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL
);

-- One mail of an issue to one subscriber: the primary key makes it once per subscriber per issue;
-- a sender leases the row (status sending, lease_owner, lease_until) before it talks to the mail
-- server and only the lease holder records the outcome.
CREATE TABLE newsletter_sends (
    issue           TEXT NOT NULL,
    subscriber_id   TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'skipped')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL,
    lease_owner     TEXT,
    lease_until     TIMESTAMPTZ,
    last_error      TEXT NOT NULL DEFAULT '',
    sent_at         TIMESTAMPTZ,
    created_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (issue, subscriber_id)
);
CREATE INDEX newsletter_sends_due ON newsletter_sends (issue, status, next_attempt_at);

-- What is kept of an erased subscriber: a keyed hash (HMAC-SHA256 under a key derived from the
-- instance secret) of the address, so an import of it is refused until the person subscribes again.
CREATE TABLE erased_subscribers (
    email_hash TEXT PRIMARY KEY,
    erased_at  TIMESTAMPTZ NOT NULL
);
