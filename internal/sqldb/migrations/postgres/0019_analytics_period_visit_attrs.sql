-- Filtered breakdowns over long ranges (docs/api.md, "Breakdowns, realtime"). analytics_daily_visit_attrs has about a row
-- per visit on traffic whose attributes spread widely, so a 90-day range reads most of a row per
-- visit. The combinations of attributes saturate over a few days, though, so the same rows summed
-- over longer periods are far fewer: one row per period and combination, where a period is a
-- calendar month ('2026-04') or a part of one ('2026-04-01', '2026-04-08', '2026-04-15' and
-- '2026-04-22': days 1-7, 8-14, 15-21 and 22 to the month's end). A range is read as whole months,
-- whole parts and single days (analytics_daily_visit_attrs), the edges possibly as a whole part
-- minus its days outside the range. The ingest batch adds to the day, its part and its month in
-- the same transaction; the rollups are never pruned, like the daily ones.
CREATE TABLE analytics_period_visit_attrs (
    period          TEXT NOT NULL,
    source          TEXT NOT NULL,
    referrer        TEXT NOT NULL,
    utm_source      TEXT NOT NULL,
    utm_medium      TEXT NOT NULL,
    utm_campaign    TEXT NOT NULL,
    country         TEXT NOT NULL,
    device          TEXT NOT NULL,
    browser         TEXT NOT NULL,
    browser_version TEXT NOT NULL,
    os              TEXT NOT NULL,
    os_version      TEXT NOT NULL,
    visits          BIGINT NOT NULL,
    pageviews       BIGINT NOT NULL,
    bounces         BIGINT NOT NULL,
    PRIMARY KEY (period, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser, browser_version, os, os_version)
);

-- The periods of the daily rows already stored.
INSERT INTO analytics_period_visit_attrs (period, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser,
    browser_version, os, os_version, visits, pageviews, bounces)
SELECT period, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser, browser_version, os, os_version,
    SUM(visits), SUM(pageviews), SUM(bounces)
FROM (SELECT substr(day, 1, 7) AS period, d.* FROM analytics_daily_visit_attrs d
    UNION ALL
    SELECT substr(day, 1, 8) || CASE WHEN substr(day, 9, 2) < '08' THEN '01' WHEN substr(day, 9, 2) < '15' THEN '08'
        WHEN substr(day, 9, 2) < '22' THEN '15' ELSE '22' END AS period, d.* FROM analytics_daily_visit_attrs d) p
GROUP BY period, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser, browser_version, os, os_version;

-- Statistics for the planner now, not at the next autovacuum: without them it expects a handful
-- of rows per period and reads the table by index where a scan is cheaper.
ANALYZE analytics_period_visit_attrs;
