-- An ingest batch asks, for each event name and day in it, which of its visitors already sent
-- that event that day (the per-day distinct visitors of the event rollup). With an index on
-- (name, day) only, each such lookup read every event of the name that day, so a batch's cost
-- grew through the day with the day's events. The visitor key joins the index, and the lookup
-- becomes one seek per visitor; queries by name and day keep the same index prefix.
CREATE INDEX analytics_events_name_day_visitor ON analytics_events (name, day, visitor_key);
DROP INDEX analytics_events_name_day;
