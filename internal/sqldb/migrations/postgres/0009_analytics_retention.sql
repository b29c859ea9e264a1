-- Raw analytics events are pruned by day (ANALYTICS_RETENTION_DAYS); page views already have
-- an index on day.
CREATE INDEX analytics_events_day ON analytics_events (day);
