-- Analytics (docs/api.md, "Analytics"). Raw page views and events keep a `day` column (YYYY-MM-DD in the
-- owner's time zone) computed in Go at ingest, so no date arithmetic happens in SQL. Reports read
-- the daily rollups, which the ingest batch updates in the same transaction as the raw rows.

-- Salts of the visitor hash, one per rotation window ("day:2026-01-05"); every instance uses the
-- row of the current window and old windows are deleted, so old hashes cannot be recomputed.
CREATE TABLE analytics_salts (
    window_key TEXT PRIMARY KEY,
    salt       TEXT NOT NULL,
    created_at TEXT NOT NULL
);

-- One row per visitor key: a salted hash of IP + User-Agent, or a hash of the client's anonymous
-- id. first_day and last_day are its first and latest days with a page view; last_seen and
-- visit_start split visits.
CREATE TABLE analytics_visitors (
    id          INTEGER PRIMARY KEY,
    visitor_key TEXT NOT NULL UNIQUE,
    first_day   TEXT NOT NULL,
    last_day    TEXT NOT NULL,
    last_seen   TEXT NOT NULL,
    visit_start TEXT NOT NULL
);

CREATE TABLE analytics_pageviews (
    id           INTEGER PRIMARY KEY,
    at           TEXT NOT NULL,
    day          TEXT NOT NULL,
    visitor_id   INTEGER NOT NULL,
    visit_id     TEXT NOT NULL,
    is_new_visit INTEGER NOT NULL,
    path         TEXT NOT NULL,
    query        TEXT NOT NULL DEFAULT '',
    title        TEXT NOT NULL DEFAULT '',
    referrer     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX analytics_pageviews_path_day ON analytics_pageviews (path, day);
CREATE INDEX analytics_pageviews_day ON analytics_pageviews (day);

CREATE TABLE analytics_events (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    day         TEXT NOT NULL,
    visitor_key TEXT NOT NULL,
    name        TEXT NOT NULL,
    path        TEXT NOT NULL,
    props       TEXT NOT NULL DEFAULT '{}',
    grp         TEXT NOT NULL DEFAULT '',
    step        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX analytics_events_name_day ON analytics_events (name, day);

-- Rollups.
CREATE TABLE analytics_daily_pages (
    day   TEXT NOT NULL,
    path  TEXT NOT NULL,
    views INTEGER NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (day, path)
) WITHOUT ROWID;
CREATE INDEX analytics_daily_pages_path ON analytics_daily_pages (path, day);

CREATE TABLE analytics_daily_referrers (
    day    TEXT NOT NULL,
    domain TEXT NOT NULL,
    visits INTEGER NOT NULL,
    PRIMARY KEY (day, domain)
) WITHOUT ROWID;

-- Page views and visits (counted on the day they start) per day.
CREATE TABLE analytics_daily_totals (
    day    TEXT PRIMARY KEY,
    views  INTEGER NOT NULL,
    visits INTEGER NOT NULL
) WITHOUT ROWID;

-- Visitors per active day, by their previous active day ('' for none) and whether that previous
-- day was their first. Unique visitors of days a..b = the rows with day in a..b and prev_day < a
-- (each visitor once, at their first active day in the range), so reports never run a DISTINCT
-- over visitors; the rows number at most days x distinct previous days.
CREATE TABLE analytics_daily_uniques (
    day           TEXT NOT NULL,
    prev_day      TEXT NOT NULL,
    prev_is_first INTEGER NOT NULL,
    visitors      INTEGER NOT NULL,
    PRIMARY KEY (day, prev_day, prev_is_first)
) WITHOUT ROWID;
