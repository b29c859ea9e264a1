-- Analytics that report and connect (docs/api.md, "Conversions", "Reports by mail", "Shared
-- dashboards"). One row per booking, contact message or subscription, with the visit that led to
-- it as the tracker saw it: its entry page, source, referrer host and campaign, and the posts
-- read in it (newline-separated /blog/<slug> paths, at most 32). Visit level only: no address,
-- no User-Agent, no visitor key. visit_id is '' when no recent visit of the visitor was found.
CREATE TABLE analytics_conversions (
    id           TEXT PRIMARY KEY,
    kind         TEXT NOT NULL,
    ref_id       TEXT NOT NULL DEFAULT '',
    at           TIMESTAMPTZ NOT NULL,
    day          TEXT NOT NULL,
    visit_id     TEXT NOT NULL DEFAULT '',
    entry_page   TEXT NOT NULL DEFAULT '',
    source       TEXT NOT NULL DEFAULT '',
    referrer     TEXT NOT NULL DEFAULT '',
    utm_source   TEXT NOT NULL DEFAULT '',
    utm_medium   TEXT NOT NULL DEFAULT '',
    utm_campaign TEXT NOT NULL DEFAULT '',
    posts        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX analytics_conversions_day ON analytics_conversions (day);

-- Mailed reports and alerts, claimed once across instances: a weekly report's key is
-- "weekly:<monday>", a monthly one's "monthly:<YYYY-MM>"; the spike alert's row "alert" holds the
-- time of the last alert (the cooldown is measured from it).
CREATE TABLE analytics_mail_claims (
    period     TEXT PRIMARY KEY,
    claimed_at TIMESTAMPTZ NOT NULL
);

-- Read-only links to the analytics page. Only the SHA-256 of the token is kept; the password,
-- when set, is an argon2id/bcrypt hash like account passwords.
CREATE TABLE analytics_shares (
    id            TEXT PRIMARY KEY,
    token_hash    TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL
);

-- Days whose figures came from an import (Plausible, Umami) rather than the tracker.
CREATE TABLE analytics_imported_days (
    day         TEXT PRIMARY KEY,
    source      TEXT NOT NULL,
    pageviews   BIGINT NOT NULL,
    visitors    BIGINT NOT NULL,
    visits      BIGINT NOT NULL,
    imported_at TIMESTAMPTZ NOT NULL
);
