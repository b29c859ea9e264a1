-- Visit samples for filtered breakdowns of large ranges (docs/api.md, "Sampled breakdowns").
-- visit_sample is a hash of the page view's visit (0–65535: the first two bytes of the MD5 of
-- visit_id, computed in Go at ingest), so a visit's page views are all in a sample or all out.
-- Each partial index holds the page views of one sample level, 1/8, 1/32, 1/128 and 1/512 of the
-- visits; a breakdown that would read too many page views reads the finest level that stays
-- small instead, and scales its counts. The default, 65535, is in no sample: rows an older binary
-- writes after the migration are left out of samples rather than weighed as sampled. Existing rows get their hash from folio_visit_sample,
-- the same function registered by sqldb (not part of the schema, only of this update).
ALTER TABLE analytics_pageviews ADD COLUMN visit_sample INTEGER NOT NULL DEFAULT 65535;
UPDATE analytics_pageviews SET visit_sample = folio_visit_sample(visit_id);
CREATE INDEX analytics_pageviews_sample8 ON analytics_pageviews (day) WHERE visit_sample < 8192;
CREATE INDEX analytics_pageviews_sample32 ON analytics_pageviews (day) WHERE visit_sample < 2048;
CREATE INDEX analytics_pageviews_sample128 ON analytics_pageviews (day) WHERE visit_sample < 512;
CREATE INDEX analytics_pageviews_sample512 ON analytics_pageviews (day) WHERE visit_sample < 128;
