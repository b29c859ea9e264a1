-- Filtered breakdowns of visit dimensions (docs/api.md, "Breakdowns, realtime"). One row per day and combination of a
-- visit's attributes: the visits that start that day with exactly these attributes, their page
-- views and bounces (visits of one page view). A breakdown of a visit attribute filtered by
-- other visit attributes (country=US&device=mobile) groups these rows instead of the raw page
-- views. The ingest batch updates it in the same transaction as analytics_daily_dims, with the
-- same accounting (a visit counts on the day it starts; a later page view adds to that day).
CREATE TABLE analytics_daily_visit_attrs (
    day             TEXT NOT NULL,
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
    PRIMARY KEY (day, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser, browser_version, os, os_version)
);

-- The visits of the stored page views get their rows (a visit whose first page view was already
-- pruned has no start day and is left out, as the raw breakdown leaves it out).
INSERT INTO analytics_daily_visit_attrs (day, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser,
    browser_version, os, os_version, visits, pageviews, bounces)
SELECT start_day, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser, browser_version, os, os_version,
    COUNT(*), SUM(views), SUM(CASE WHEN views = 1 THEN 1 ELSE 0 END)
FROM (SELECT visit_id, MAX(CASE WHEN is_new_visit THEN day END) AS start_day, MAX(source) AS source, MAX(visit_referrer) AS referrer,
        MAX(utm_source) AS utm_source, MAX(utm_medium) AS utm_medium, MAX(utm_campaign) AS utm_campaign, MAX(country) AS country,
        MAX(device) AS device, MAX(browser) AS browser, MAX(browser_version) AS browser_version, MAX(os) AS os,
        MAX(os_version) AS os_version, COUNT(*) AS views
    FROM analytics_pageviews GROUP BY visit_id) v
WHERE start_day IS NOT NULL
GROUP BY start_day, source, referrer, utm_source, utm_medium, utm_campaign, country, device, browser, browser_version, os, os_version;
