-- The ingest turn (sqldb.takeIngestTurn): every batch of page views, and every prune, adds one
-- to it in its transaction. The row lock serialises them across instances (it replaces an
-- advisory lock on PostgreSQL), and an instance whose last batch took the turn just before
-- knows the visitors it remembers are current, so it reads only the others.
CREATE TABLE analytics_ingest (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    turn BIGINT NOT NULL
);
INSERT INTO analytics_ingest (id, turn) VALUES (1, 0);

-- Every ingest batch updates rows of these tables in place; room on each page lets PostgreSQL
-- keep the new version on the same page without new index entries (a HOT update). The
-- visit-attribute rollups are left packed: filtered breakdowns read many of their rows, and the
-- free room measured no faster ingestion there.
ALTER TABLE analytics_visitors SET (fillfactor = 80);
ALTER TABLE analytics_daily_dims SET (fillfactor = 80);
