-- Analytics breakdowns (docs/api.md, "Breakdowns, realtime"). Every page view carries the attributes of its visit, taken
-- at the visit's first page view: source, referrer, campaign (utm_*), country, device, browser
-- and OS (name and major version). No IP address or User-Agent is stored, only these.
ALTER TABLE analytics_pageviews ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_pageviews ADD COLUMN visit_referrer TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_pageviews ADD COLUMN utm_source TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_pageviews ADD COLUMN utm_medium TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_pageviews ADD COLUMN utm_campaign TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_pageviews ADD COLUMN country TEXT NOT NULL DEFAULT 'ZZ';
ALTER TABLE analytics_pageviews ADD COLUMN device TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_pageviews ADD COLUMN browser TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_pageviews ADD COLUMN browser_version TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_pageviews ADD COLUMN os TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_pageviews ADD COLUMN os_version TEXT NOT NULL DEFAULT '';

-- The visitor's current visit: its start day, page views so far, entry page, the paths it viewed
-- (newline-separated, bounded) and its attributes (unit-separator-joined), so a later page view
-- moves the visit's exit page and bounce in the rollup; last_path is its latest page (the
-- visit's exit so far).
ALTER TABLE analytics_visitors ADD COLUMN visit_day TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_visitors ADD COLUMN visit_views INTEGER NOT NULL DEFAULT 0;
ALTER TABLE analytics_visitors ADD COLUMN visit_entry TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_visitors ADD COLUMN visit_pages TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_visitors ADD COLUMN visit_attrs TEXT NOT NULL DEFAULT '';
ALTER TABLE analytics_visitors ADD COLUMN last_path TEXT NOT NULL DEFAULT '';
-- Realtime reads the page views of the last minutes by time.
CREATE INDEX analytics_pageviews_at ON analytics_pageviews (at);

-- One row per dimension, day and value. For the visit dimensions (everything but page and event)
-- a visit counts on the day it starts: visits 1, pageviews its page views, bounces 1 while it has
-- one page view. For page: page views that day, and visits that viewed the page. For event (the
-- name): visits = distinct visitors who sent it that day, pageviews = how many times.
CREATE TABLE analytics_daily_dims (
    dim       TEXT NOT NULL,
    day       TEXT NOT NULL,
    value     TEXT NOT NULL,
    visits    BIGINT NOT NULL,
    pageviews BIGINT NOT NULL,
    bounces   BIGINT NOT NULL,
    PRIMARY KEY (dim, day, value)
);

-- Events stored before this migration get their rollup rows (page views before it have no
-- attributes, so they are left out of the other dimensions).
INSERT INTO analytics_daily_dims (dim, day, value, visits, pageviews, bounces)
SELECT 'event', day, name, COUNT(DISTINCT visitor_key), COUNT(*), 0 FROM analytics_events GROUP BY day, name;
