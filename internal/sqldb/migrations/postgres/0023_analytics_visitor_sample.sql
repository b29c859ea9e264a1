-- Samples of visitors instead of visits (docs/api.md, "Sampled breakdowns"), as Plausible samples
-- by user: visitor_sample is a hash of the visitor key (0–65535: the first two bytes of its MD5,
-- computed in Go at ingest), on page views and now on events too, so a visitor's page views and
-- events are all in a sample or all out. A sample then estimates distinct visitors by counting
-- them, and the event breakdown under a filter can be sampled: a visitor's events are in the
-- sample exactly when its visits are.
--
-- Each partial index holds one level, 1/8, 1/32, 1/128 and 1/512 of the visitors, with every
-- column a sampled breakdown reads (INCLUDE), so a sample is read from its index alone, in day order,
-- instead of a table row per sampled page view all over the table (30 days at 1/128 of 10M page
-- views on PostgreSQL: 85 → 5 ms for that scan). The default, 65535, is in no sample: rows an
-- older binary writes after the migration are left out of samples rather than weighed as
-- sampled. visit_sample (0022) is no longer read and its indexes go; the column stays, as older
-- binaries still write it while a rolling upgrade runs.
DROP INDEX analytics_pageviews_sample8;
DROP INDEX analytics_pageviews_sample32;
DROP INDEX analytics_pageviews_sample128;
DROP INDEX analytics_pageviews_sample512;
ALTER TABLE analytics_pageviews ADD COLUMN visitor_sample integer NOT NULL DEFAULT 65535;
-- A lookup per row, not a join: over 10M page views it took 3 min 47 s against 5 min 32 s for a
-- hash join, which spilled to batches on disk and wrote the new row versions scattered; in scan
-- order they stay in the order of the old ones, by day, as reads of a range by day expect.
UPDATE analytics_pageviews p SET visitor_sample = COALESCE((SELECT ('x' || substr(md5(a.visitor_key), 1, 4))::bit(16)::int
    FROM analytics_visitors a WHERE a.id = p.visitor_id), 65535);
CREATE INDEX analytics_pageviews_sample8 ON analytics_pageviews (day) INCLUDE (id, at, visitor_id, visit_id, is_new_visit, path, source, visit_referrer, utm_source, utm_medium, utm_campaign, country,
    device, browser, browser_version, os, os_version)
    WHERE visitor_sample < 8192;
CREATE INDEX analytics_pageviews_sample32 ON analytics_pageviews (day) INCLUDE (id, at, visitor_id, visit_id, is_new_visit, path, source, visit_referrer, utm_source, utm_medium, utm_campaign, country,
    device, browser, browser_version, os, os_version)
    WHERE visitor_sample < 2048;
CREATE INDEX analytics_pageviews_sample128 ON analytics_pageviews (day) INCLUDE (id, at, visitor_id, visit_id, is_new_visit, path, source, visit_referrer, utm_source, utm_medium, utm_campaign, country,
    device, browser, browser_version, os, os_version)
    WHERE visitor_sample < 512;
CREATE INDEX analytics_pageviews_sample512 ON analytics_pageviews (day) INCLUDE (id, at, visitor_id, visit_id, is_new_visit, path, source, visit_referrer, utm_source, utm_medium, utm_campaign, country,
    device, browser, browser_version, os, os_version)
    WHERE visitor_sample < 128;

ALTER TABLE analytics_events ADD COLUMN visitor_sample integer NOT NULL DEFAULT 65535;
UPDATE analytics_events SET visitor_sample = ('x' || substr(md5(visitor_key), 1, 4))::bit(16)::int;
CREATE INDEX analytics_events_sample8 ON analytics_events (day) INCLUDE (name, visitor_key) WHERE visitor_sample < 8192;
CREATE INDEX analytics_events_sample32 ON analytics_events (day) INCLUDE (name, visitor_key) WHERE visitor_sample < 2048;
CREATE INDEX analytics_events_sample128 ON analytics_events (day) INCLUDE (name, visitor_key) WHERE visitor_sample < 512;
CREATE INDEX analytics_events_sample512 ON analytics_events (day) INCLUDE (name, visitor_key) WHERE visitor_sample < 128;
-- The planner picks the sample indexes once it has statistics of the new column.
ANALYZE analytics_pageviews;
ANALYZE analytics_events;
-- A sample is read from its index alone only where the visibility map says the table's pages
-- are all visible, which vacuum sets: by default autovacuum visits an append-only table after 20%
-- new rows (18 days of the benchmark's 10M page views in 90 days), so the recent days, the ones
-- read most, were read row by row. After 1% new rows instead; each run reads only new pages. The
-- rewrite above leaves every row version to vacuum, which autovacuum does at once.
ALTER TABLE analytics_pageviews SET (autovacuum_vacuum_insert_scale_factor = 0.01);
ALTER TABLE analytics_events SET (autovacuum_vacuum_insert_scale_factor = 0.01);
